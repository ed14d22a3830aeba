package analysis

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

func TestLineIndexOffsets(t *testing.T) {
	src := []byte("a😀b\r\nxyz\n\nlast")
	li := newLineIndex(src)
	tests := []struct {
		line, col, want int
	}{
		{0, 0, 0},
		{0, 1, 1},  // before the emoji
		{0, 2, 1},  // inside the surrogate pair: rounded to its start
		{0, 3, 5},  // after the emoji (4 bytes, 2 UTF-16 units)
		{0, 4, 6},  // end of line, before \r\n
		{0, 99, 6}, // past the end of the line
		{1, 2, 10},
		{2, 0, 12},
		{3, 4, 17},
		{3, 9, 17},
		{9, 0, 17}, // past the last line
		{-1, 0, 0},
	}
	for _, tt := range tests {
		if got := li.offset(tt.line, tt.col); got != tt.want {
			t.Errorf("offset(%d, %d) = %d, want %d", tt.line, tt.col, got, tt.want)
		}
	}
	if p := li.position(5); p.Line != 0 || p.Column != 3 {
		t.Errorf("position(5) = %+v, want line 0 column 3", p)
	}
	if p := li.position(len(src)); p.Line != 3 || p.Column != 4 {
		t.Errorf("position(end) = %+v, want line 3 column 4", p)
	}
}

// TestLineIndexEdited checks that the line index of an edited text, made
// from the index before the edit, is the one the text itself gives: line
// breaks inserted, removed, at the edges of the edit, and \r\n split.
func TestLineIndexEdited(t *testing.T) {
	cases := []struct {
		text       string
		start, end int
		insert     string
	}{
		{"a\nb\nc\n", 0, 0, "x"},
		{"a\nb\nc\n", 1, 2, ""},            // the first line break removed
		{"a\nb\nc\n", 2, 2, "new\nline\n"}, // lines inserted at a line start
		{"a\nb\nc\n", 1, 5, "\n"},          // several breaks replaced by one
		{"a\nb\nc", 5, 5, "\n"},            // at the end
		{"a\r\nb", 1, 2, ""},               // \r\n split
		{"", 0, 0, "\n\n"},
		{"\n\n\n", 0, 3, "x"},
		{"😀\n𝔉\n", 4, 5, "é\n"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		text := []byte(strings.Repeat("ab\ncd\r\n\n", 1+r.IntN(4)))
		a, b := r.IntN(len(text)+1), r.IntN(len(text)+1)
		if a > b {
			a, b = b, a
		}
		cases = append(cases, struct {
			text       string
			start, end int
			insert     string
		}{string(text), a, b, []string{"", "x", "\n", "y\nz\n", "\r\n"}[r.IntN(5)]})
	}
	for _, c := range cases {
		old := newLineIndex([]byte(c.text))
		next := []byte(c.text[:c.start] + c.insert + c.text[c.end:])
		got := old.edited(next, c.start, c.end, len(c.insert))
		if want := newLineIndex(next); !slices.Equal(got.starts, want.starts) {
			t.Errorf("%q with %d..%d replaced by %q: line starts %v, want %v", c.text, c.start, c.end, c.insert, got.starts, want.starts)
		}
	}
}

// TestDocumentEditsMatchFreshParse applies random edit sequences to each
// sample file and checks, after every batch, that the incrementally
// reparsed document's graph equals the graph of a fresh parse of the same
// text, ranges included.
func TestDocumentEditsMatchFreshParse(t *testing.T) {
	langs := NewLanguages()
	files := sampleFiles(t, langs)
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	ctx := context.Background()
	for _, name := range Names() {
		for _, file := range files[name] {
			t.Run(filepath.Base(file), func(t *testing.T) {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				lang, _ := langs.ByName(name)
				r := rand.New(rand.NewPCG(uint64(len(src)), 7))
				doc, err := p.OpenDocument(ctx, lang, "f", 1, src)
				if err != nil {
					t.Fatal(err)
				}
				defer doc.Close()
				for step := 0; step < 40; step++ {
					edits := randomEdits(r, doc.Text())
					if err := doc.Apply(ctx, p, int32(step+2), edits); err != nil {
						t.Fatal(err)
					}
					want, err := fresh.Extract(ctx, lang, "f", doc.Text())
					if err != nil {
						t.Fatal(err)
					}
					if diff := sameGraph(lang, doc, want); diff != "" {
						t.Fatalf("step %d (%d edits): incremental graph differs from a fresh parse:\n%s\ntext:\n%s", step, len(edits), diff, doc.Text())
					}
					checkTreePoints(t, doc)
				}
			})
		}
	}
}

// checkTreePoints checks that the rows and byte columns tree-sitter keeps
// for the top-level nodes agree with the text after incremental edits
// (see editTree).
func checkTreePoints(t *testing.T, doc *Document) {
	t.Helper()
	if doc.tree == nil {
		return // typing in a damaged region: the text's tree is parsed later
	}
	root := doc.tree.RootNode()
	for i := 0; i < int(root.NamedChildCount()); i++ {
		n := root.NamedChild(i)
		want := point(doc.lines, int(n.StartByte()))
		if got := n.StartPoint(); got != want {
			t.Fatalf("node %s at byte %d: tree-sitter point %+v, want %+v", n.Type(), n.StartByte(), got, want)
		}
	}
}

func graphJSON(t *testing.T, g *FileGraph) string {
	t.Helper()
	b, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fragments are pieces of code and text that random edits insert.
var fragments = []string{
	"x", "\n", "\r\n", "}", "{", "(", ")", " ", "\t", "😀", "é", "// c\n", "# c\n",
	"func added() { helper() }\n", "def added(self):\n    return self.run()\n",
	"function added() { return helper(); }\n", "fn added() { helper(); }\n",
	"void added() { helper(); }\n", "class Added extends Base {}\n", "Renamed", "\"", "'",
}

// randomEdits returns one to three edits at random places of text, in the
// editor's coordinates (lines and UTF-16 columns), applied in order.
func randomEdits(r *rand.Rand, text []byte) []TextEdit {
	var edits []TextEdit
	cur := text
	for n := 1 + r.IntN(3); n > 0; n-- {
		li := newLineIndex(cur)
		a := randomOffset(r, cur)
		b := a
		if r.IntN(2) == 0 {
			b = min(len(cur), a+r.IntN(40))
			for b < len(cur) && !utf8.RuneStart(cur[b]) {
				b++
			}
		}
		insert := ""
		if r.IntN(4) != 0 {
			insert = fragments[r.IntN(len(fragments))]
		}
		if r.IntN(10) == 0 && a > 0 {
			// Sometimes a position past the end of the line: clamped.
			pa := li.position(a)
			edits = append(edits, TextEdit{Range: &EditRange{pa.Line, pa.Column + 1000, pa.Line, pa.Column + 1000}, Text: insert})
			cur = applyByOffset(cur, li.offset(pa.Line, pa.Column+1000), li.offset(pa.Line, pa.Column+1000), insert)
			continue
		}
		pa, pb := li.position(a), li.position(b)
		edits = append(edits, TextEdit{Range: &EditRange{pa.Line, pa.Column, pb.Line, pb.Column}, Text: insert})
		cur = applyByOffset(cur, a, b, insert)
	}
	return edits
}

// randomOffset picks an offset at a character boundary, often at the end.
func randomOffset(r *rand.Rand, text []byte) int {
	if len(text) == 0 || r.IntN(8) == 0 {
		return len(text)
	}
	o := r.IntN(len(text))
	for o > 0 && !utf8.RuneStart(text[o]) {
		o--
	}
	// Never split a \r\n: editors do not place positions between them.
	if o > 0 && text[o] == '\n' && text[o-1] == '\r' {
		o--
	}
	return o
}

func applyByOffset(text []byte, a, b int, insert string) []byte {
	return []byte(string(text[:a]) + insert + string(text[b:]))
}

func TestDocumentFullReplaceAndClamp(t *testing.T) {
	langs := NewLanguages()
	lang, _ := langs.ByName("go")
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	doc, err := p.OpenDocument(ctx, lang, "a.go", 1, []byte("package a\n\nfunc A() {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	err = doc.Apply(ctx, p, 2, []TextEdit{
		{Text: "package a\n\nfunc B() {}\n"},
		{Range: &EditRange{99, 0, 99, 0}, Text: "func C() { B() }\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != 2 {
		t.Errorf("version %d, want 2", doc.Version)
	}
	var names []string
	for _, s := range doc.Graph().Symbols[1:] {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "B,C" {
		t.Errorf("symbols %s, want B,C", got)
	}
}

// TestDocumentIncrementalExtraction checks that a valid edit inside one
// function queries only that function again, and that the result still
// equals a fresh parse.
func TestDocumentIncrementalExtraction(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "sampleapp", "users", "service.go"))
	if err != nil {
		t.Fatal(err)
	}
	lang, _ := NewLanguages().ByName("go")
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	doc, err := p.OpenDocument(ctx, lang, "users/service.go", 1, src)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	// Insert a call at the start of GetUser's body, then a new line before
	// Rename: both shift what follows.
	li := newLineIndex(src)
	body := strings.Index(string(src), "id = strings.TrimSpace(id)")
	pos := li.position(body)
	edits := [][]TextEdit{
		{{Range: &EditRange{pos.Line, pos.Column, pos.Line, pos.Column}, Text: "audit(id)\n\t"}},
		{{Range: &EditRange{0, 0, 0, 0}, Text: "// Package users.\n"}},
	}
	for i, e := range edits {
		if err := doc.Apply(ctx, p, int32(i+2), e); err != nil {
			t.Fatal(err)
		}
		if doc.queried < 0 || doc.queried > 2 {
			t.Errorf("edit %d queried %d top-level nodes, want at most 2", i, doc.queried)
		}
		want, err := p.Extract(ctx, lang, "users/service.go", doc.Text())
		if err != nil {
			t.Fatal(err)
		}
		if g, w := graphJSON(t, doc.GraphWithChunks()), graphJSON(t, want); g != w {
			t.Fatalf("edit %d: incremental graph differs from a fresh parse:\n%s", i, firstDiff(w, g))
		}
	}
	var calls []string
	for _, r := range doc.Graph().Refs {
		if r.Kind == EdgeCalls && doc.Graph().Symbols[r.Source].Name == "GetUser" {
			calls = append(calls, r.Name)
		}
	}
	if !strings.Contains(strings.Join(calls, ","), "audit") {
		t.Errorf("calls from GetUser = %v, want audit among them", calls)
	}
}

// TestEditTreePoints checks that an edit recorded on a tree moves the
// points of the nodes after it, before any reparse: the binding's
// Tree.Edit passed the old end point as the new one, and the nodes after
// two inserted lines kept their rows.
func TestEditTreePoints(t *testing.T) {
	lang, err := NewLanguages().ByName("go")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	defer p.Close()
	from := []byte("package p\n\nfunc A() {}\n\nfunc B() {}\n")
	to := []byte("package p\n\n// one\n// two, longer\nfunc A() {}\n\nfunc B() {}\n")
	tree, err := p.Parse(context.Background(), lang, from, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	at := len("package p\n\n")
	ins := len(to) - len(from)
	editTree(tree, sitter.EditInput{
		StartIndex:  uint32(at),
		OldEndIndex: uint32(at),
		NewEndIndex: uint32(at + ins),
		StartPoint:  pointOf(from, at),
		OldEndPoint: pointOf(from, at),
		NewEndPoint: pointOf(to, at+ins),
	})
	root := tree.RootNode()
	for i := 0; i < int(root.NamedChildCount()); i++ {
		n := root.NamedChild(i)
		if want := pointOf(to, int(n.StartByte())); n.StartPoint() != want {
			t.Errorf("%s at byte %d: point %+v after the edit, want %+v", n.Type(), n.StartByte(), n.StartPoint(), want)
		}
	}
}
