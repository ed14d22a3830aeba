package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// docSeed is a document FuzzDocumentApply edits.
type docSeed struct {
	lang, path string
	src        []byte
}

// docSeeds returns the documents to edit: sample app files, and small
// sources with CRLF line endings, characters outside the BMP, doc comments
// and docstrings that edits can change apart from what they document.
func docSeeds(tb testing.TB) []docSeed {
	seeds := []docSeed{
		{"go", "fuzz/crlf.go", []byte("package p\r\n\r\n// A calls B. 😀\r\nfunc A() { B() }\r\n\r\n/* 𝔉 */ func B() {}\r\n\r\n// T is a type.\r\ntype T struct{ U }\r\n\r\nfunc (t *T) M() { A(); t.N() }\r\n")},
		{"python", "fuzz/crlf.py", []byte("class A(Base):\r\n    \"\"\"A's doc 😀.\"\"\"\r\n\r\n    def m(self):\r\n        return helper()\r\n\r\n\r\n# helper's comment\r\ndef helper():\r\n    \"\"\"Doc.\"\"\"\r\n    return A().m()\r\n")},
		{"go", "fuzz/methods.go", []byte("package p\n\nfunc (r *Repo) Before() { r.After() }\n\n// Repo holds things.\ntype Repo struct{}\n\n// After comes after.\nfunc (r *Repo) After() {}\n")},
		{"python", "fuzz/nested.py", []byte("import os\nfrom . import x\n\n@decorator\nclass C:\n    def m(self):\n        def inner():\n            super().m()\n        return inner\n\ndef f():\n    pass\n")},
	}
	for _, s := range []struct{ lang, rel string }{
		{"go", "users/repo.go"}, {"go", "users/service.go"},
		{"python", "worker/client.py"}, {"python", "worker/jobs.py"},
	} {
		src, err := os.ReadFile(filepath.Join(sampleRoot, filepath.FromSlash(s.rel)))
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, docSeed{s.lang, s.rel, src})
	}
	// Other languages, with docs in comments before top-level definitions.
	seeds = append(seeds,
		docSeed{"java", "fuzz/A.java", []byte("package p;\n\n/** A's doc 😀. */\npublic class A extends B {\n  /** m's doc. */\n  void m() { n(); }\n}\n\n/** C's doc. */\nclass C {}\n")},
		docSeed{"typescript", "fuzz/a.ts", []byte("/** f's doc. */\nexport function f(): void { g(); }\n\n// g's comment\nfunction g() {}\n\n/** K's doc. */\nclass K extends L { m() { f(); } }\n")},
		docSeed{"rust", "fuzz/a.rs", []byte("/// f's doc 😀.\nfn f() { g(); }\n\n/// S's doc.\nstruct S;\n\nimpl T for S {\n    /// m's doc.\n    fn m(&self) { f(); }\n}\n")},
	)
	return seeds
}

// FuzzDocumentApply applies fuzzed edits (line, column, end line, end
// column and text, in the editor's coordinates: UTF-16 columns) to an open
// document, and checks after each batch that the text is what the edits
// make of it, that the incrementally reparsed graph equals a fresh parse
// of that text, and that every position is right.
func FuzzDocumentApply(f *testing.F) {
	seeds := docSeeds(f)
	langs := NewLanguages()
	// which, line, col, endLine, endCol, text, line2, col2, text2
	f.Add(uint8(0), 3, 0, 3, 0, "func added() { helper() }\r\n", 9, 5, "Renamed")
	f.Add(uint8(0), 2, 3, 2, 5, "changed doc", 0, 0, "// header\r\n")
	f.Add(uint8(0), 5, 3, 5, 4, "x", 5, 2, "😀")                             // inside a surrogate pair
	f.Add(uint8(0), 3, 999, 3, 999, " // tail", 99, 0, "\r\nfunc End() {}") // past the line, past the file
	f.Add(uint8(1), 0, 6, 0, 7, "B", 4, 8, "renamed")
	f.Add(uint8(1), 1, 12, 1, 14, "changed", 7, 2, " also")
	f.Add(uint8(1), 8, 0, 8, 0, "def added():\r\n    pass\r\n", 0, 0, "")
	f.Add(uint8(2), 4, 3, 4, 7, "Rpo", 7, 3, "Before")
	f.Add(uint8(2), 2, 0, 3, 0, "", 0, 0, "x")
	f.Add(uint8(3), 4, 0, 5, 0, "", 6, 8, "    ")
	f.Add(uint8(3), 7, 12, 7, 17, "outer", -1, -1, "#")
	f.Add(uint8(4), 23, 3, 23, 11, "Loads", 24, 25, "Load")
	f.Add(uint8(5), 18, 3, 18, 10, "Returns", 0, 0, "")
	f.Add(uint8(6), 0, 0, 9999, 9999, "", 0, 0, "class X:\n    pass\n")
	f.Add(uint8(7), 5, 4, 2, 0, "\"\"\"", 3, 1, "'''")
	f.Add(uint8(2), 0, 0, 0, 0, "\xff\xfe", 1, 0, "\x00")
	f.Add(uint8(0), -5, -5, 2, -1, "{", 1<<40, 1<<40, "}")
	f.Add(uint8(8), 2, 4, 2, 9, "Changed", 8, 4, "Other") // Java docs
	// Unfinished code: unbalanced brackets and quotes, typed and then
	// half deleted (the recovery path).
	f.Add(uint8(0), 3, 0, 3, 0, "func broken( {\n", 3, 13, "")
	f.Add(uint8(1), 8, 0, 8, 0, "def half(:\n    x = \"unclosed\n", 9, 4, "[(")
	f.Add(uint8(2), 2, 0, 2, 0, "class Open {\n  m() { return `tpl ${\n", 3, 0, "'")
	f.Add(uint8(0), 5, 0, 5, 0, "var s = \"a\nfunc f() { [ ( {\n", 6, 11, "}])")
	f.Add(uint8(9), 0, 4, 0, 9, "Changed", 3, 3, "x") // TypeScript docs
	f.Add(uint8(10), 0, 4, 0, 5, "g", 3, 4, "T")      // Rust docs
	// Unfinished code: unbalanced brackets and quotes, above and inside
	// definitions, in every language.
	f.Add(uint8(5), 12, 0, 12, 0, "func Half() {\n\tx := 1\n", 20, 0, "\"unclosed")
	f.Add(uint8(5), 7, 0, 7, 0, "func broken( {\n", 14, 1, "(")
	f.Add(uint8(4), 22, 1, 22, 1, "x := [", 30, 0, "`raw")
	f.Add(uint8(0), 3, 0, 3, 0, "/* unclosed\r\n", 6, 0, "}")
	f.Add(uint8(6), 10, 0, 10, 0, "def half(:\n", 12, 8, "'''")
	f.Add(uint8(7), 20, 0, 20, 0, "class Half(Job:\n    def run(self):\n", 30, 8, "x = {")
	f.Add(uint8(8), 4, 2, 4, 2, "void half() { int x = (1;\n", 9, 0, "class D {")
	f.Add(uint8(9), 3, 0, 3, 0, "function half(a, b {\n", 7, 0, "`${")
	f.Add(uint8(10), 3, 0, 3, 0, "fn half() -> u8 {\n", 6, 0, "'a")
	f.Fuzz(func(t *testing.T, which uint8, line, col, endLine, endCol int, text string, line2, col2 int, text2 string) {
		seed := seeds[int(which)%len(seeds)]
		lang, err := langs.ByName(seed.lang)
		if err != nil || lang == nil {
			t.Fatalf("language %s: %v", seed.lang, err)
		}
		batches := [][]TextEdit{
			{{Range: &EditRange{line, col, endLine, endCol}, Text: text}},
			// The second edit's range ends before it starts: the same
			// range the other way round.
			{{Range: &EditRange{line2, col2, line2, col2}, Text: text2}, {Range: &EditRange{endLine, endCol, line, col}, Text: ""}},
			// A whole-document replacement, then an edit of the new text.
			{{Text: string(seed.src)}, {Range: &EditRange{line2, col2, endLine, endCol}, Text: text}},
		}
		done := make(chan bool, 1)
		go func() {
			applyAndCheck(t, lang, seed, batches)
			done <- true
		}()
		hang(t, done, extractTimeout, "editing "+seed.path)
	})
}

// applyAndCheck opens seed, applies the batches of edits and checks the
// document after each. It runs on its own goroutine: it reports with
// t.Error and returns.
func applyAndCheck(t *testing.T, lang *Language, seed docSeed, batches [][]TextEdit) {
	ctx := context.Background()
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	doc, err := p.OpenDocument(ctx, lang, seed.path, 1, seed.src)
	if err != nil {
		t.Errorf("open: %v", err)
		return
	}
	defer doc.Close()
	want := seed.src
	for i, edits := range batches {
		version := int32(i + 2)
		if err := doc.Apply(ctx, p, version, edits); err != nil {
			t.Errorf("batch %d: %v", i, err)
			return
		}
		for _, e := range edits {
			want = applyEditModel(want, e)
		}
		if !bytes.Equal(doc.Text(), want) {
			t.Errorf("batch %d %+v: text\n%q\nwant\n%q", i, describeEdits(edits), doc.Text(), want)
			return
		}
		if doc.Version != version {
			t.Errorf("batch %d: version %d, want %d", i, doc.Version, version)
		}
		g, err := fresh.Extract(ctx, lang, seed.path, want)
		if err != nil {
			t.Errorf("batch %d: fresh parse: %v", i, err)
			return
		}
		if diff := sameGraph(lang, doc, g); diff != "" {
			t.Errorf("batch %d %+v: incremental graph differs from a fresh parse:\n%s\ntext:\n%q", i, describeEdits(edits), diff, want)
			return
		}
		checkUTF16Positions(t, want, doc.Graph())
		checkTreePointsNoFatal(t, doc)
		if t.Failed() {
			t.Logf("batch %d %+v, text:\n%q", i, describeEdits(edits), want)
			return
		}
	}
}

func describeEdits(edits []TextEdit) []string {
	var out []string
	for _, e := range edits {
		text := e.Text
		if len(text) > 60 {
			text = text[:60] + "…"
		}
		if e.Range == nil {
			out = append(out, fmt.Sprintf("all → %q", text))
			continue
		}
		r := e.Range
		out = append(out, fmt.Sprintf("%d:%d-%d:%d → %q", r.StartLine, r.StartColumn, r.EndLine, r.EndColumn, text))
	}
	return out
}

// graphText is graphJSON for another goroutine than the test's.
func graphText(g *FileGraph) string {
	b, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// applyEditModel applies one edit as the protocol defines it, written
// apart from the implementation: a nil range replaces everything;
// positions are clamped (a line before the first is the start, a line
// past the last is the end, a column past a line's end is the end of its
// text, before \r\n or \n); a column inside a character is rounded down
// to its start; an end before the start is swapped with it.
func applyEditModel(text []byte, e TextEdit) []byte {
	if e.Range == nil {
		return []byte(e.Text)
	}
	a := modelOffset(text, e.Range.StartLine, e.Range.StartColumn)
	b := modelOffset(text, e.Range.EndLine, e.Range.EndColumn)
	if b < a {
		a, b = b, a
	}
	out := append([]byte{}, text[:a]...)
	out = append(out, e.Text...)
	return append(out, text[b:]...)
}

// modelOffset is the byte offset of a line and UTF-16 column.
func modelOffset(text []byte, line, col int) int {
	if line < 0 {
		return 0
	}
	start := 0
	for l := 0; l < line; l++ {
		i := bytes.IndexByte(text[start:], '\n')
		if i < 0 {
			return len(text)
		}
		start += i + 1
	}
	end := len(text)
	if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
		if end > start && text[end-1] == '\r' {
			end--
		}
	}
	units := 0
	for off := start; off < end; {
		r, size := utf8.DecodeRune(text[off:end])
		n := 1
		if r > 0xFFFF {
			n = 2 // a surrogate pair
		}
		if units+n > col {
			return off
		}
		units += n
		off += size
	}
	return end
}

// checkUTF16Positions checks that every position of a graph agrees with
// its byte offset: its line counts the \n before it, its column the UTF-16
// units (one per invalid byte) from the line's start.
func checkUTF16Positions(t *testing.T, text []byte, g *FileGraph) {
	check := func(what string, p Position) {
		if p.Offset < 0 || p.Offset > len(text) {
			t.Errorf("%s: offset %d outside the text (%d bytes)", what, p.Offset, len(text))
			return
		}
		line := bytes.Count(text[:p.Offset], []byte("\n"))
		start := bytes.LastIndexByte(text[:p.Offset], '\n') + 1
		col := 0
		for i := start; i < p.Offset; {
			r, size := utf8.DecodeRune(text[i:p.Offset])
			if r > 0xFFFF {
				col += 2
			} else {
				col++
			}
			i += size
		}
		if p.Line != line || p.Column != col {
			t.Errorf("%s: offset %d is at %d:%d, position says %d:%d", what, p.Offset, line, col, p.Line, p.Column)
		}
	}
	checkRange := func(what string, r Range) {
		check(what+" start", r.Start)
		check(what+" end", r.End)
		if r.Start.Offset > r.End.Offset {
			t.Errorf("%s: starts at %d after its end %d", what, r.Start.Offset, r.End.Offset)
		}
	}
	for _, s := range g.Symbols {
		checkRange("symbol "+s.QualifiedName, s.Range)
		if s.NameRange != (Range{}) {
			checkRange("name of "+s.QualifiedName, s.NameRange)
		}
	}
	for _, r := range g.Refs {
		checkRange("ref "+string(r.Kind)+" "+r.Name, r.Range)
	}
}

// checkTreePointsNoFatal is checkTreePoints for another goroutine than
// the test's.
func checkTreePointsNoFatal(t *testing.T, doc *Document) {
	if doc.tree == nil {
		return // typing in a damaged region: the text's tree is parsed later
	}
	root := doc.tree.RootNode()
	for i := 0; i < int(root.NamedChildCount()); i++ {
		n := root.NamedChild(i)
		want := point(doc.lines, int(n.StartByte()))
		if got := n.StartPoint(); got != want {
			t.Errorf("node %s at byte %d: tree-sitter point %+v, want %+v", n.Type(), n.StartByte(), got, want)
			return
		}
	}
}

// TestDocumentApplyAfterSyntaxError replays an input FuzzDocumentApply
// found: an edit that leaves users/repo.go with a syntax error (the root
// of the tree is an ERROR node), then one that makes it valid again, must
// give the graph of a fresh parse.
func TestDocumentApplyAfterSyntaxError(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(sampleRoot, "users", "repo.go"))
	if err != nil {
		t.Fatal(err)
	}
	lang, _ := NewLanguages().ByName("go")
	done := make(chan struct{})
	go func() {
		defer close(done)
		applyAndCheck(t, lang, docSeed{"go", "users/repo.go", src}, [][]TextEdit{
			{{Range: &EditRange{16, -57, -25, -61}, Text: "0("}},
			{{Range: &EditRange{-44, 0, -44, 0}, Text: "0"}, {Range: &EditRange{-25, -61, 16, -57}, Text: ""}},
		})
	}()
	<-done
}
