package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// showMessages returns the window/showMessage notifications recorded
// since from.
func (c *lspClient) showMessages(from int) []protocol.ShowMessageParams {
	var out []protocol.ShowMessageParams
	for _, f := range c.all()[from:] {
		var p protocol.ShowMessageParams
		if f.Method == "window/showMessage" && json.Unmarshal(f.Params, &p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// isShowMessage matches a window/showMessage holding substr.
func isShowMessage(substr string) func(frame) bool {
	return func(f frame) bool {
		var p protocol.ShowMessageParams
		return f.Method == "window/showMessage" && json.Unmarshal(f.Params, &p) == nil && strings.Contains(p.Message, substr)
	}
}

// TestE2ELargeDocument opens documents over the size cap (1 MiB by
// default): the server keeps their text but does not parse them, says so
// once with window/showMessage, and goes on answering at once. A document
// that comes under the cap is parsed again.
func TestE2ELargeDocument(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)

	// A minified bundle: one line of 3 MiB, with functions in it.
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "function bundledFn%d(a){return a+%d};", i, i)
	}
	big := fileURI(root, "web/bundle.min.js")
	from := c.mark()
	d := c.open(t, big, "javascript", b.String())
	if got := c.symbols(t, "FindByID"); len(symbolsIn(got, "FindByID", fileURI(root, "users/repo.go"))) != 1 {
		t.Fatalf("workspace/symbol after opening a 3 MiB document:%s", describe(got))
	}
	c.wait(t, from, eventTimeout, "window/showMessage about the large document", isShowMessage("web/bundle.min.js is 3.0 MiB, over the 1.0 MiB size limit"))
	if syms := c.documentSymbols(t, big); len(syms) != 0 {
		t.Errorf("documentSymbol of the large document: %d symbols, want none", len(syms))
	}
	if folds := c.foldingRanges(t, big); len(folds) != 0 {
		t.Errorf("foldingRange of the large document: %v, want none", folds)
	}
	if got := c.symbols(t, "bundledFn7"); len(got) != 0 {
		t.Errorf("workspace/symbol bundledFn7 finds the large document's functions:%s", describe(got))
	}

	// Edits keep it in step, without another message while it stays large.
	d.change(t, protocol.TextDocumentContentChangeEvent{Range: d.find(t, "bundledFn1(", 0), Text: "renamed("})
	if syms := c.documentSymbols(t, big); len(syms) != 0 {
		t.Errorf("documentSymbol after an edit: %d symbols, want none", len(syms))
	}

	// Cut down under the cap (the whole text replaced), it is parsed.
	d.version++
	d.text = "function smallEnough(a) {\n  return a;\n}\n"
	// (protocol's type cannot leave the range out.)
	c.notify(t, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": big, "version": d.version},
		"contentChanges": []map[string]any{{"text": d.text}},
	})
	if syms := c.documentSymbols(t, big); len(syms) != 1 || syms[0].Name != "smallEnough" {
		t.Errorf("documentSymbol after the document came under the cap: %v, want smallEnough", syms)
	}
	if got := c.symbols(t, "smallEnough"); len(symbolsIn(got, "smallEnough", big)) != 1 {
		t.Errorf("workspace/symbol smallEnough:%s", describe(got))
	}
	if folds := c.foldingRanges(t, big); len(folds) != 1 {
		t.Errorf("foldingRange of the small document: %v, want one fold", folds)
	}
	if n := len(c.showMessages(from)); n != 1 {
		t.Errorf("%d window/showMessage notifications, want 1: %v", n, c.showMessages(from))
	}

	// Large again: said again.
	from2 := c.mark()
	d.change(t, protocol.TextDocumentContentChangeEvent{Range: d.find(t, "return a;", 0), Text: "return a + " + strings.Repeat("1+", 600<<10) + "1;"})
	c.wait(t, from2, eventTimeout, "window/showMessage about the document grown large", isShowMessage("web/bundle.min.js is 1.2 MiB"))
	if got := c.symbols(t, "smallEnough"); len(got) != 0 {
		t.Errorf("workspace/symbol smallEnough after the document grew over the cap:%s", describe(got))
	}
	d.close(t)
}

// TestE2EEditFlood sends edits back to back, as a fast typist or a
// formatter does, with requests mixed in, with valid and broken syntax:
// a request answers from the text as it was when the request was sent,
// or, when a parse was in progress then, from that parse; asked again, it
// answers from its text.
func TestE2EEditFlood(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	for _, tt := range []struct {
		name, file, lang, tail string
	}{
		{"valid syntax", "users/repo.go", "go", "() {}\n"},
		{"broken syntax", "users/service.go", "go", "() {\n\tif x {\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := fileURI(root, tt.file)
			d := c.open(t, u, tt.lang, readFile(t, root, tt.file))
			// Type a new function at the end, one letter at a time.
			end := positionAt(d.text, len(d.text))
			d.change(t, protocol.TextDocumentContentChangeEvent{Range: protocol.Range{Start: end, End: end}, Text: "\nfunc Typed" + tt.tail})
			at := d.find(t, "func Typed", 0).End
			name := "Typed"
			for i := range 300 {
				letter := string(rune('a' + i%26))
				d.change(t, protocol.TextDocumentContentChangeEvent{Range: protocol.Range{Start: at, End: at}, Text: letter})
				at.Character++
				name += letter
				if i%50 != 49 {
					continue
				}
				typed := func() []string {
					var found []string
					for _, s := range c.documentSymbols(t, u) {
						if strings.HasPrefix(s.Name, "Typed") {
							found = append(found, s.Name)
						}
					}
					return found
				}
				// A parse in progress when the request came (the index
				// writer's) answers it: a few letters behind at most.
				if found := typed(); len(found) != 1 || !strings.HasPrefix(name, found[0]) {
					t.Fatalf("after %d letters, documentSymbol has %q, want %q or a name it was typed from", i+1, found, name)
				}
				// The parse the first request waited for ended after it
				// came, so after the letters: any parse in progress now
				// started after them.
				if found := typed(); len(found) != 1 || found[0] != name {
					t.Fatalf("after %d letters, documentSymbol asked again has %q, want %q", i+1, found, name)
				}
			}
			if got := c.symbols(t, name); len(symbolsIn(got, name, u)) != 1 {
				t.Errorf("workspace/symbol %s:%s", name, describe(got))
			}
			d.close(t)
		})
	}
}
