package analysis

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDamageInC checks that the walk in C finds the damage damageIn finds,
// and counts the errors the walk through the binding counts, on every
// sample file of every language broken by an unfinished line (a header, a
// bracket, a string) typed at the start of its lines: on the whole tree,
// from where the break was typed, and inside each ERROR node.
func TestDamageInC(t *testing.T) {
	if !canCollect {
		t.Skip("the Go bindings' layout is not the one the C walk reads")
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	breaks := []string{"func (", "def f(", "class X {", "{", "\"", "(", "fn x(", "if (", "<div", "}", "x = [", "/* ", "@", "\u00a0{", "é("}
	compared, found := 0, 0
	counted, errored := 0, 0 // the counts of errors compared, and those with errors
	for lang, files := range sampleFiles(t, langs) {
		l, err := langs.ByName(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(src), "\n")
			step := max(1, len(lines)/12)
			for i := 0; i < len(lines); i += step {
				at := len(strings.Join(lines[:i], ""))
				for _, b := range breaks {
					text := []byte(string(src[:at]) + b + "\n" + string(src[at:]))
					tree, err := p.Parse(ctx, l, text, nil)
					if err != nil {
						t.Fatal(err)
					}
					root := tree.RootNode()
					if got, ok := countErrorsC(root); ok {
						counted++
						if want := countErrorsGo(root); got != want {
							t.Errorf("%s with %q typed at line %d: the C count of errors is %d, countErrors' %d", file, b, i, got, want)
						}
						if got > 0 {
							errored++
						} else if root.HasError() {
							t.Errorf("%s with %q typed at line %d: the tree has an error and none is counted", file, b, i)
						}
					}
					for _, from := range []uint32{0, uint32(at), uint32(at + len(b))} {
						wantAt, wantFound := damageIn(root, text, from)
						gotAt, gotFound, ok := damageInC(root, text, from)
						if !ok {
							continue // damageIn decides: nothing to compare
						}
						compared++
						if gotFound {
							found++
						}
						if gotAt != wantAt || gotFound != wantFound {
							t.Errorf("%s with %q typed at line %d, from %d: C walk = %d, %v; damageIn = %d, %v", file, b, i, from, gotAt, gotFound, wantAt, wantFound)
						}
					}
					tree.Close()
				}
			}
		}
	}
	if counted == 0 || errored == 0 {
		t.Fatalf("compared %d counts of errors, %d with errors: the test compared nothing", counted, errored)
	}
	if compared == 0 || found == 0 {
		t.Fatalf("compared %d walks, %d found damage: the test compared nothing", compared, found)
	}
	t.Logf("compared %d walks, %d found damage", compared, found)
}

// TestCountErrorsHidden checks that an error a tree cursor does not visit
// is counted: Python's MISSING _newline, in a text FuzzDocumentApply
// found, whose graph said it had no syntax errors.
func TestCountErrorsHidden(t *testing.T) {
	text := []byte("class ApiError(Exception):\n#ef f(:\n    \"\"\"Doc.\"\"\"\n''A\n    def __init__(self):\n        pass\n")
	lang, err := NewLanguages().ByName("python")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(context.Background(), lang, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if !root.HasError() {
		t.Fatalf("the parse has no error: %s", root.String())
	}
	if n := countErrorsGo(root); n != 1 {
		t.Errorf("countErrorsGo = %d, want 1 (%s)", n, root.String())
	}
	if n, ok := countErrorsC(root); ok && n != 1 {
		t.Errorf("countErrorsC = %d, want 1", n)
	}
	g, err := p.Extract(context.Background(), lang, "x.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if g.ParseErrors == 0 {
		t.Error("the graph reports no syntax errors")
	}
}
