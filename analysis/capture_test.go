package analysis

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCollectMatchesNextMatch checks that queries read through collect
// find what go-tree-sitter's NextMatch finds, in the sample app's files of
// every language, in files with syntax errors and invalid UTF-8, and in a
// few large files of the Go distribution, whole and within top-level
// nodes.
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
	fast, slow := NewParser(), NewParser()
	defer fast.Close()
	defer slow.Close()
	slow.noCollect = true
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			tree, err := fast.Parse(ctx, f.lang, f.src, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			root := tree.RootNode()
			want := slow.query(f.lang, f.src, root, nil)
			got := fast.query(f.lang, f.src, root, nil)
			if len(want.defs)+len(want.refs) == 0 && !strings.HasSuffix(f.name, "(cut)") {
				t.Fatalf("NextMatch found nothing in %s", f.name)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("collect found\n%+v\nNextMatch found\n%+v", got, want)
			}
			for i := 0; i < int(root.NamedChildCount()); i++ {
				n := root.NamedChild(i)
				want := slow.query(f.lang, f.src, root, n)
				got := fast.query(f.lang, f.src, root, n)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("within %s at %d: collect found\n%+v\nNextMatch found\n%+v", n.Type(), n.StartByte(), got, want)
				}
			}
		})
	}
}
