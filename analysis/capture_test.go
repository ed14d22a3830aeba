package analysis

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCollectMatchesNextMatch checks that queries read through collect,
// on the whole tree and from the patterns' root nodes, find what
// go-tree-sitter's NextMatch finds, in the sample app's files of every
// language, in files with syntax errors and invalid UTF-8, and in a few
// large files of the Go distribution, whole and within top-level nodes.
func TestCollectMatchesNextMatch(t *testing.T) {
	if !canCollect {
		t.Fatal("go-tree-sitter's QueryCursor or Node changed layout: queries fall back to NextMatch, which is slower; update capture.go")
	}
	langs := NewLanguages()
	type file struct {
		lang *Language
		name string
		src  []byte
	}
	var files []file
	for lang, paths := range sampleFiles(t, langs) {
		l, err := langs.ByName(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file{l, filepath.ToSlash(p), src})
			// Cut in the middle: syntax errors.
			files = append(files, file{l, p + " (cut)", src[:len(src)/2]})
		}
	}
	goLang, err := langs.ByName("go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, file{goLang, "invalid UTF-8", []byte("package p\n\n// Doc \xff\xfe.\nfunc F\xff() { g\xc3(); x.H() }\n")})
	if goroot, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		for _, rel := range []string{"net/http/server.go", "go/types/expr.go", "runtime/proc.go"} {
			if src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", rel)); err == nil {
				files = append(files, file{goLang, rel, src})
			}
		}
	}
	ctx := context.Background()
	fast, whole, slow := NewParser(), NewParser(), NewParser()
	defer fast.Close()
	defer whole.Close()
	defer slow.Close()
	slow.noCollect = true
	whole.noRooted = true
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			tree, err := fast.Parse(ctx, f.lang, f.src, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			root := tree.RootNode()
			if f.lang.roots == nil {
				t.Fatalf("the %s patterns' root node types are unknown: queries run on the whole tree", f.lang.Name)
			}
			want := slow.query(f.lang, f.src, root, nil)
			if len(want.defs)+len(want.refs) == 0 && !strings.HasSuffix(f.name, "(cut)") {
				t.Fatalf("NextMatch found nothing in %s", f.name)
			}
			if got := whole.query(f.lang, f.src, root, nil); !reflect.DeepEqual(got, want) {
				t.Fatalf("collect found\n%+v\nNextMatch found\n%+v", got, want)
			}
			// From the root nodes, matches come in another order.
			got := fast.query(f.lang, f.src, root, nil)
			if got, want := canonicalRaw(got), canonicalRaw(want); !reflect.DeepEqual(got, want) {
				t.Fatalf("rooted collect found\n%+v\nNextMatch found\n%+v", got, want)
			}
			for i := 0; i < int(root.NamedChildCount()); i++ {
				n := root.NamedChild(i)
				// The node's own subtree is walked from its root nodes too.
				want := canonicalRaw(slow.query(f.lang, f.src, root, n))
				got := canonicalRaw(fast.query(f.lang, f.src, root, n))
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("within %s at %d: collect found\n%+v\nNextMatch found\n%+v", n.Type(), n.StartByte(), got, want)
				}
			}
		})
	}
}

// canonicalRaw returns r with its definitions, references and comments
// sorted.
func canonicalRaw(r rawGraph) rawGraph {
	r.defs, r.refs, r.comments = slices.Clone(r.defs), slices.Clone(r.refs), slices.Clone(r.comments)
	slices.SortFunc(r.defs, func(a, b definition) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.nameStart, b.nameStart),
			cmp.Compare(a.kind, b.kind), cmp.Compare(a.owner, b.owner))
	})
	slices.SortFunc(r.refs, func(a, b pendingRef) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end),
			cmp.Compare(a.ref.Kind, b.ref.Kind), cmp.Compare(a.ref.Name, b.ref.Name), cmp.Compare(a.ref.Qualifier, b.ref.Qualifier))
	})
	slices.SortFunc(r.comments, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	return r
}

// TestRootedCollectGrows checks that collecting from the root nodes
// completes a file whose matches overflow the first buffers.
func TestRootedCollectGrows(t *testing.T) {
	langs := NewLanguages()
	lang, err := langs.ByName("go")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("package p\n\nfunc F() {\n")
	const calls = 20000
	for i := range calls {
		fmt.Fprintf(&b, "\tx.G%d()\n", i)
	}
	b.WriteString("}\n")
	p := NewParser()
	defer p.Close()
	g, err := p.Extract(context.Background(), lang, "p.go", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Refs) != calls {
		t.Fatalf("got %d references, want %d", len(g.Refs), calls)
	}
	if r := g.Refs[calls-1]; r.Name != fmt.Sprintf("G%d", calls-1) || r.Qualifier != "x" {
		t.Fatalf("last reference %+v", r)
	}
}
