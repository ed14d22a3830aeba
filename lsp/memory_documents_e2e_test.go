package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// brokenMemoryDocument has one warning of each kind the scanner reports.
const brokenMemoryDocument = `# Broken

<!-- ANCHOR:summary -->
ok
<!-- /ANCHOR:summary -->
<!-- ANCHOR:summary -->
again
<!-- /ANCHOR:summary -->
<!-- ANCHOR:outer -->
<!-- ANCHOR:outer -->
<!-- /ANCHOR:other -->
<!-- /ANCHOR:outer -->
<!-- /ANCHOR:orphan -->
<!-- ANCHOR:bad id! -->
<!-- ANCHOR:open -->
`

// diagSummary renders diagnostics as "line:code" (0-based lines), sorted.
func diagSummary(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%v", d.Range.Start.Line, d.Code))
	}
	slices.Sort(out)
	return out
}

// symbolTree renders document symbols as "name(children)".
func symbolTree(syms []protocol.DocumentSymbol) string {
	var parts []string
	for _, s := range syms {
		p := s.Name
		if len(s.Children) > 0 {
			p += "(" + symbolTree(s.Children) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func (c *lspClient) foldingRanges(t *testing.T, u protocol.DocumentURI) []protocol.FoldingRange {
	t.Helper()
	var res []protocol.FoldingRange
	if err := c.call(t, protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: u}}, &res); err != nil {
		t.Fatalf("foldingRange %s: %v", u, err)
	}
	return res
}

// waitDiagnostics waits for a publication of u's diagnostics that
// satisfies pred, from frame from on.
func (c *lspClient) waitDiagnostics(t *testing.T, from int, u protocol.DocumentURI, what string, pred func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	t.Helper()
	f := c.wait(t, from, eventTimeout, what, func(f frame) bool {
		ds, ok := memDiagnostics(f, u)
		return ok && pred(ds)
	})
	ds, _ := memDiagnostics(f, u)
	return ds
}

// TestMemoryDocumentsE2E drives the real server over pipes on the sample
// workspace and its memory document: warnings as diagnostics after the
// folder scan and as the document changes, sections as document symbols
// and folding ranges, and the documents synced into the memory database.
func TestMemoryDocumentsE2E(t *testing.T) {
	root := sampleApp(t)
	const goodRel = ".anchorage/memory/user-service.md"
	const brokenRel = ".anchorage/memory/notes/broken.md"
	if err := os.MkdirAll(filepath.Join(root, ".anchorage/memory/notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(brokenRel)), []byte(brokenMemoryDocument), 0o644); err != nil {
		t.Fatal(err)
	}
	good, broken := fileURI(root, goodRel), fileURI(root, brokenRel)

	c := startClient(t)
	c.start(t, clientOptions{}, root)

	wantBroken := []string{
		"10:memory-document/mismatched-close", // /ANCHOR:other while outer is open
		"12:memory-document/close-without-open",
		"13:memory-document/invalid-id",
		"14:memory-document/unclosed",
		"5:memory-document/duplicate-id",
		"9:memory-document/nested-same-id",
	}
	t.Run("warnings after the folder scan", func(t *testing.T) {
		ds := c.waitDiagnostics(t, 0, broken, "the broken document's warnings", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
		if got := diagSummary(ds); !slices.Equal(got, wantBroken) {
			t.Errorf("diagnostics = %q, want %q", got, wantBroken)
		}
		for _, d := range ds {
			if d.Source != "anchorage" || d.Severity != protocol.DiagnosticSeverityWarning || d.Message == "" {
				t.Errorf("diagnostic %+v: want source anchorage, severity warning, a message", d)
			}
		}
		// The unclosed marker's range covers the marker, in UTF-16 columns.
		for _, d := range ds {
			if d.Code == "memory-document/unclosed" && d.Range != rng(14, 0, 14, uint32(len("<!-- ANCHOR:open -->"))) {
				t.Errorf("unclosed range = %+v", d.Range)
			}
		}
		for _, f := range c.all() {
			if ds, ok := memDiagnostics(f, good); ok && len(ds) > 0 {
				t.Errorf("the valid document has diagnostics: %v", ds)
			}
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		syms := c.documentSymbols(t, good)
		if got, want := symbolTree(syms), "summary rules(ids rename) state"; got != want {
			t.Fatalf("symbols = %q, want %q", got, want)
		}
		text := readFile(t, root, goodRel)
		start := strings.Count(text[:strings.Index(text, "<!-- ANCHOR:rules -->")], "\n")
		end := strings.Count(text[:strings.Index(text, "<!-- /ANCHOR:rules -->")], "\n")
		r := syms[1]
		if r.Kind != protocol.SymbolKindNamespace || r.Range.Start.Line != uint32(start) || r.Range.End.Line != uint32(end) ||
			r.SelectionRange.Start != r.Range.Start || r.Detail != "Rules" {
			t.Errorf("rules symbol = %+v, want lines %d-%d", r, start, end)
		}
		if d := syms[0].Detail; !strings.HasPrefix(d, "`users.Service` is the only code") {
			t.Errorf("summary detail = %q", d)
		}
	})

	t.Run("folding ranges", func(t *testing.T) {
		folds := c.foldingRanges(t, good)
		text := readFile(t, root, goodRel)
		lineOf := func(s string) uint32 { return uint32(strings.Count(text[:strings.Index(text, s)], "\n")) }
		var got []string
		for _, f := range folds {
			got = append(got, fmt.Sprintf("%d-%d", f.StartLine, f.EndLine))
			if f.Kind != protocol.RegionFoldingRange {
				t.Errorf("fold kind = %q", f.Kind)
			}
		}
		var want []string
		for _, id := range []string{"summary", "rules", "ids", "rename", "state"} {
			want = append(want, fmt.Sprintf("%d-%d", lineOf("<!-- ANCHOR:"+id+" -->"), lineOf("<!-- /ANCHOR:"+id+" -->")))
		}
		if !slices.Equal(got, want) {
			t.Errorf("folds = %q, want %q", got, want)
		}
	})

	t.Run("a Go file keeps its outline", func(t *testing.T) {
		if syms := c.documentSymbols(t, fileURI(root, "users/service.go")); len(syms) == 0 || syms[0].Kind == protocol.SymbolKindNamespace {
			t.Errorf("Go symbols = %+v", syms)
		}
	})

	t.Run("edits update the warnings", func(t *testing.T) {
		from := c.mark()
		d := c.open(t, broken, "markdown", brokenMemoryDocument)
		c.waitDiagnostics(t, from, broken, "warnings on open", func(ds []protocol.Diagnostic) bool { return len(ds) == len(wantBroken) })
		// Replace everything after the first section: no warnings left.
		from = c.mark()
		cut := d.find(t, "<!-- ANCHOR:summary -->\nagain", 0).Start
		d.change(t, edit(protocol.Range{Start: cut, End: positionAt(d.text, len(d.text))}, "<!-- ANCHOR:ünïcödé-no -->\n"))
		ds := c.waitDiagnostics(t, from, broken, "warnings after an edit", func([]protocol.Diagnostic) bool { return true })
		if got := diagSummary(ds); !slices.Equal(got, []string{"5:memory-document/invalid-id"}) {
			t.Errorf("diagnostics after the edit = %q", got)
		}
		from = c.mark()
		d.replace(t, "<!-- ANCHOR:ünïcödé-no -->", "<!-- ANCHOR:ascii --> text <!-- /ANCHOR:ascii -->")
		ds = c.waitDiagnostics(t, from, broken, "no warnings", func([]protocol.Diagnostic) bool { return true })
		if len(ds) != 0 {
			t.Errorf("diagnostics = %v, want none", ds)
		}
		// Symbols and folds follow the editor's text, not the file's.
		if got := symbolTree(c.documentSymbols(t, broken)); got != "summary ascii" {
			t.Errorf("symbols of the edited document = %q", got)
		}

		// Saving syncs the memory database.
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(brokenRel)), []byte(d.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.server.DidSave(callCtx(t), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: broken}}); err != nil {
			t.Fatal(err)
		}
		waitStoredDocument(t, c.dataDir, root, "doc:"+brokenRel, func(doc memdoc.Document) bool {
			return len(doc.Sections) == 2 && len(doc.Warnings) == 0
		})
		d.close(t)
	})

	t.Run("documents are in the memory database", func(t *testing.T) {
		doc := waitStoredDocument(t, c.dataDir, root, "doc:"+goodRel, func(memdoc.Document) bool { return true })
		if doc.ImportanceTier != memdoc.TierImportant || !slices.Equal(doc.TriggerPhrases, []string{"user id", "rename user"}) || len(doc.Sections) != 5 {
			t.Errorf("stored document = %+v", doc)
		}
	})
}

// waitStoredDocument polls the memory database of a server's data
// directory until the document id of root satisfies ok.
func waitStoredDocument(t *testing.T, dataDir, root, id string, ok func(memdoc.Document) bool) memdoc.Document {
	t.Helper()
	path := filepath.Join(dataDir, "data", "memory.db")
	var doc memdoc.Document
	eventually(t, pollTimeout, func() error {
		if _, err := os.Stat(path); err != nil {
			return err
		}
		st, err := memdoc.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Document(context.Background(), root, id)
		st.Close()
		if err == nil && ok(got) {
			doc = got
			return nil
		}
		return fmt.Errorf("%s not stored as expected in %s: %+v %v", id, path, got.Sections, err)
	})
	return doc
}
