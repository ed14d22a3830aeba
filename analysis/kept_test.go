package analysis

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestKeptParseMatchesFresh types a definition into a sample file of
// every language a character at a time, then deletes it the same way: the
// text is damaged (an opening bracket) and complete again by turns, and
// the parse of the text without the definition, kept from the last time
// it was damaged, answers the search's trial of that text (Document.keep).
// After every keystroke the graph must be a fresh parse's, and the kept
// parse must have been used.
func TestKeptParseMatchesFresh(t *testing.T) {
	typed := map[string]string{
		"go":         "func Ping(n int) error {\n\tif n > 0 {\n\t\treturn nil\n\t}\n\treturn nil\n}\n\n",
		"python":     "def ping(n):\n    if n > 0:\n        return [n, (n)]\n    return None\n\n",
		"javascript": "function ping(n) {\n  if (n > 0) {\n    return [n];\n  }\n}\n\n",
		"typescript": "function ping(n: number): number {\n  if (n > 0) {\n    return n;\n  }\n  return 0;\n}\n\n",
		"tsx":        "function Ping(n: number) {\n  if (n > 0) {\n    return n;\n  }\n}\n\n",
		"rust":       "fn ping(n: u8) -> u8 {\n    if n > 0 {\n        return n;\n    }\n    0\n}\n\n",
		"java":       "class Ping {\n  int ping(int n) {\n    return n;\n  }\n}\n\n",
	}
	langs := NewLanguages()
	files := sampleFiles(t, langs)
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	ctx := context.Background()
	for _, name := range Names() {
		def, ok := typed[name]
		if !ok {
			t.Errorf("no definition to type in %s", name)
			continue
		}
		if len(files[name]) == 0 {
			t.Errorf("no sample file in %s", name)
			continue
		}
		// The smallest file: a fresh parse follows every keystroke.
		file, size := "", int64(-1)
		for _, f := range files[name] {
			if st, err := os.Stat(f); err == nil && (size < 0 || st.Size() < size) {
				file, size = f, st.Size()
			}
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lang, _ := langs.ByName(name)
			// Above the last top-level node, at the start of its line.
			tree, err := fresh.Parse(ctx, lang, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			spans := topLevel(tree.RootNode())
			tree.Close()
			if len(spans) < 2 {
				t.Skipf("%s has fewer than two top-level nodes", file)
			}
			at := bytes.LastIndexByte(src[:spans[len(spans)-1].start], '\n') + 1
			line := bytes.Count(src[:at], []byte{'\n'})
			doc, err := p.OpenDocument(ctx, lang, filepath.Base(file), 1, src)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			text := src
			version := int32(1)
			key := func(e TextEdit) {
				t.Helper()
				version++
				if err := doc.Apply(ctx, p, version, []TextEdit{e}); err != nil {
					t.Fatal(err)
				}
				text = applyEditModel(text, e)
				want, err := fresh.Extract(ctx, lang, doc.Path, text)
				if err != nil {
					t.Fatal(err)
				}
				if diff := sameGraph(lang, doc, want); diff != "" {
					t.Fatalf("after %v: the graph differs from a fresh parse:\n%s\ntext:\n%s", describeEdits([]TextEdit{e}), diff, text)
				}
				if got := doc.Graph().ParseErrors; (got == 0) != (want.ParseErrors == 0) {
					t.Fatalf("after %v: %d syntax errors, a fresh parse has %d", describeEdits([]TextEdit{e}), got, want.ParseErrors)
				}
			}
			for round := 0; round < 2; round++ {
				l, c := line, 0
				for _, r := range def {
					key(TextEdit{Range: &EditRange{l, c, l, c}, Text: string(r)})
					if r == '\n' {
						l, c = l+1, 0
					} else {
						c += len(string(r))
					}
				}
				// Deleted from its end, a character at a time.
				for n := len(def); n > 0; n-- {
					pre := def[:n-1]
					l := line + bytes.Count([]byte(pre), []byte{'\n'})
					c := len(pre) - (bytes.LastIndexByte([]byte(pre), '\n') + 1)
					if def[n-1] == '\n' {
						key(TextEdit{Range: &EditRange{l, c, l + 1, 0}})
					} else {
						key(TextEdit{Range: &EditRange{l, c, l, c + 1}})
					}
				}
				if !bytes.Equal(text, src) {
					t.Fatalf("round %d: the text typed and deleted is not the file's", round)
				}
			}
			if doc.keptCopies == 0 {
				t.Errorf("no trial parse was answered by the kept parse: the test no longer tests it")
			}
		})
	}
}

// TestLinkReuseMatchesFreshDocument edits sample files of every language
// at random (edits of every size, comments and blank lines between a doc
// comment and its definition included) and checks, after each batch,
// that the open document's symbols, which link takes in part from the
// snapshot before the edits, are those of the same text opened afresh,
// field by field, and that link took some.
func TestLinkReuseMatchesFreshDocument(t *testing.T) {
	langs := NewLanguages()
	files := sampleFiles(t, langs)
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, name := range Names() {
		if len(files[name]) == 0 {
			t.Errorf("no sample file in %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			lang, _ := langs.ByName(name)
			reused := 0
			for fi, file := range files[name] {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(uint64(len(src)), uint64(fi)))
				doc, err := p.OpenDocument(ctx, lang, "f", 1, src)
				if err != nil {
					t.Fatal(err)
				}
				for step := 0; step < 30; step++ {
					var edits []TextEdit
					if r.IntN(2) == 0 {
						edits = randomEdits(r, doc.Text())
					} else {
						// A keystroke: one character typed or deleted.
						at := randomOffset(r, doc.Text())
						pos := doc.lines.position(at)
						if r.IntN(3) == 0 && at < len(doc.Text()) {
							end := doc.lines.position(at + 1)
							edits = []TextEdit{{Range: &EditRange{pos.Line, pos.Column, end.Line, end.Column}}}
						} else {
							edits = []TextEdit{{Range: &EditRange{pos.Line, pos.Column, pos.Line, pos.Column}, Text: string("x\n/ #{}"[r.IntN(7)])}}
						}
					}
					if err := doc.Apply(ctx, p, int32(step+2), edits); err != nil {
						t.Fatal(err)
					}
					fresh, err := p.OpenDocument(ctx, lang, "f", 1, doc.Text())
					if err != nil {
						t.Fatal(err)
					}
					got, want := doc.Graph(), fresh.Graph()
					if !reflect.DeepEqual(got.Symbols, want.Symbols) {
						for i := range min(len(got.Symbols), len(want.Symbols)) {
							if !reflect.DeepEqual(got.Symbols[i], want.Symbols[i]) {
								t.Fatalf("%s step %d %v: symbol %d is\n%+v\nafresh\n%+v\ntext:\n%s", file, step, describeEdits(edits), i, got.Symbols[i], want.Symbols[i], doc.Text())
							}
						}
						t.Fatalf("%s step %d %v: %d symbols, afresh %d", file, step, describeEdits(edits), len(got.Symbols), len(want.Symbols))
					}
					if !reflect.DeepEqual(got.Refs, want.Refs) {
						t.Fatalf("%s step %d %v: the references differ from a fresh document's", file, step, describeEdits(edits))
					}
					fresh.Close()
				}
				reused += doc.linkReused
				doc.Close()
			}
			if reused == 0 {
				t.Errorf("link took no piece from the snapshot before: the test no longer tests it")
			}
		})
	}
}
