package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestQueryWithinTopLevelNode checks that querying one top-level node of
// a file (what an edit of that node calls for) finds what a query of the
// whole file finds in it, on every sample file and the document seeds:
// the node's own subtree is walked, and the root's patterns run only when
// they name the node's type.
func TestQueryWithinTopLevelNode(t *testing.T) {
	langs := NewLanguages()
	type file struct {
		lang *Language
		name string
		src  []byte
	}
	var files []file
	for name, paths := range sampleFiles(t, langs) {
		lang, _ := langs.ByName(name)
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file{lang, filepath.ToSlash(path), src})
		}
	}
	for _, s := range docSeeds(t) {
		lang, _ := langs.ByName(s.lang)
		files = append(files, file{lang, s.path, s.src})
	}
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			tree, err := p.Parse(ctx, f.lang, f.src, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			root := tree.RootNode()
			whole := p.query(f.lang, f.src, root, nil)
			spans := topLevelSpans(root, 0)
			if want := topLevel(root); !reflect.DeepEqual(spans, want) {
				t.Fatalf("topLevelSpans = %v, topLevel = %v", spans, want)
			}
			chunks := splitChunks(f.src, whole, spans)
			if chunks == nil {
				t.Skip("something lies outside every top-level node")
			}
			for i, sp := range spans {
				found := p.query(f.lang, f.src, root, root.Child(i))
				var want rawGraph
				want.addShifted(&chunks[i].raw, int64(sp.start))
				if g, w := fmt.Sprintf("%+v", canonicalRaw(found)), fmt.Sprintf("%+v", canonicalRaw(want)); g != w {
					t.Errorf("node %d %q: query of the node\n%s\nwant (the whole file's)\n%s", i, firstLine(string(f.src[sp.start:sp.end])), g, w)
				}
			}
		})
	}
}

// TestPatternInner checks which node types the root's patterns name, per
// language: a query of a top-level node of another type skips them.
func TestPatternInner(t *testing.T) {
	langs := NewLanguages()
	cases := []struct {
		lang, root string
		named      []string
		unnamed    []string
	}{
		{"go", "source_file", []string{"comment"}, []string{"function_declaration", "method_declaration", "type_declaration"}},
		{"rust", "source_file", []string{"function_item", "type_item"}, []string{"impl_item", "struct_item"}},
		{"javascript", "program", []string{"lexical_declaration", "variable_declaration", "expression_statement"}, []string{"function_declaration", "class_declaration"}},
	}
	for _, c := range cases {
		lang, _ := langs.ByName(c.lang)
		if err := lang.compile(); err != nil {
			t.Fatal(err)
		}
		sym := func(name string) sitter.Symbol {
			for s := range sitter.Symbol(lang.grammar.SymbolCount()) {
				if lang.grammar.SymbolName(s) == name {
					return s
				}
			}
			t.Fatalf("%s has no node type %s", c.lang, name)
			return 0
		}
		inner := lang.inner[sym(c.root)]
		if inner == nil {
			t.Errorf("%s: no patterns listed at %s", c.lang, c.root)
			continue
		}
		for _, n := range c.named {
			if !inner.has(sym(n)) {
				t.Errorf("%s: the patterns at %s name %s, but it is not listed", c.lang, c.root, n)
			}
		}
		for _, n := range c.unnamed {
			if inner.has(sym(n)) {
				t.Errorf("%s: %s is listed under %s, which no pattern there names", c.lang, n, c.root)
			}
		}
	}
}

// TestNodeNames checks the reading of a query pattern's node types.
func TestNodeNames(t *testing.T) {
	cases := []struct {
		text  string
		names []string
		any   bool
	}{
		{"(source_file (comment) @comment)", []string{"source_file", "comment"}, false},
		{"((call (identifier) @name) (#eq? @name \"require\"))", []string{"call", "identifier"}, false},
		{"(program (_) @x)", []string{"program"}, true},
		{"(program \"use\" @x) ; a comment (not_a_node)", []string{"program"}, true},
		{"(module [(a) (b_c)] @x)\n; (d)\n", []string{"module", "a", "b_c"}, false},
		{"(block _ @x)", []string{"block"}, true},
	}
	for _, c := range cases {
		names, any := nodeNames([]byte(c.text))
		if !reflect.DeepEqual(names, c.names) || any != c.any {
			t.Errorf("nodeNames(%q) = %q, %v; want %q, %v", c.text, names, any, c.names, c.any)
		}
	}
}
