package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRecoveryRealCode types unfinished code into files of other projects
// (testdata/realcode; see its README) where the unfinished code nests
// validly in what follows it: a Java class or a Rust function or impl
// opened in a body takes in every member after it as its own, and a
// template string every line up to the next backquote. Error recovery
// then reports only a missing brace at the end of the container, far from
// the edit. Or the edit is the first unit after a clause that continues
// its container (a Python except:), which is no unit to cut on its own.
// In the indexer (a file on disk, no editor's hint) and in an open
// document typed key by key, every definition of the file keeps its kind,
// name, qualified name, container and start; those outside the edited one
// keep their whole range.
func TestRecoveryRealCode(t *testing.T) {
	tests := []struct {
		name, file string
		// before is the 1-based line above which the editor opens a line
		// and the text is typed in it.
		before int
		typed  string
		// whole checks the document only once the text is typed in full.
		// Known limit: "half()" alone is a valid call where a unit is
		// parsed on its own, so it never qualifies as a damaged region by
		// itself, and the method below it is cut with it until the brace
		// is typed.
		whole bool
	}{
		{"Java class opened above an annotated method", "RNCWebViewClient.java", 49, "    class Half {", false},
		{"Java class opened between an annotation and its method", "RNCWebViewClient.java", 50, "    class Half {", false},
		{"Java unclosed string between methods", "RNCWebViewClient.java", 137, "    String s = \"unclosed", false},
		{"Java method opened above the last but one method", "RNCWebViewClient.java", 306, "    public void half() {", false},
		{"Java unclosed string in a method body", "RNCWebViewClient.java", 139, "        String s = \"unclosed", false},
		{"Java class opened in an annotated class", "AsyncStorageModule.java", 77, "    class Half {", false},
		{"Java unclosed string in an annotated class", "AsyncStorageModule.java", 77, "    String s = \"unclosed", false},
		{"Java unclosed string between an annotation and its method", "RNCWebViewClient.java", 50, "    String s = \"unclosed", false},
		{"Java class opened above a method, some members indented less", "RNCWebView.java", 94, "    class Half {", false},
		{"Java method opened above a method, some members indented less", "RNCWebView.java", 153, "    public void half() {", false},
		{"Java unclosed string between methods, some members indented less", "RNCWebView.java", 276, "    String s = \"unclosed", false},
		{"Rust function opened in an impl", "identifier.rs", 90, "    fn half() {", false},
		{"Rust unclosed string in an impl", "identifier.rs", 155, "    let x = \"unclosed", false},
		{"Rust function opened in a function body", "identifier.rs", 157, "        fn half() {", false},
		{"Rust function opened between attributes and a nested function", "identifier.rs", 364, "        fn half() {", false},
		{"Rust impl opened in an impl", "impls.rs", 149, "    impl Foo {", false},
		{"TypeScript function opened in a method body", "Subscriber.ts", 35, "    function half(): void {", false},
		{"TypeScript function opened in a method body, the method's parameters one to a line", "Observable.ts", 211, "    function half(): void {", false},
		{"Python unclosed call in an except clause above a class", "queue.py", 19, "    foo(", false},
		{"JavaScript unclosed template string in a class", "semver.js", 105, "  x = `tmpl", false},
		{"JavaScript method opened in a class", "semver.js", 109, "  half() {", true},
		{"JavaScript unclosed bracket in a method body", "semver.js", 110, "    const x = (", false},
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", "realcode", tt.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lang, _ := langs.ForPath(tt.file)
			want, err := p.Extract(ctx, lang, tt.file, src)
			if err != nil {
				t.Fatal(err)
			}
			if want.ParseErrors > 0 {
				t.Fatalf("%s has %d syntax errors of its own", tt.file, want.ParseErrors)
			}
			at := 0
			for range tt.before - 1 {
				at += strings.IndexByte(string(src[at:]), '\n') + 1
			}
			text := slices.Concat(src[:at], []byte(tt.typed+"\n"), src[at:])
			shift := 1
			line := tt.before - 1 // 0-based line of the edit
			check := func(what string, got *FileGraph) {
				t.Helper()
				if got.ParseErrors == 0 {
					t.Errorf("%s: no syntax errors reported", what)
				}
				have := map[string]bool{}
				for _, s := range got.Symbols[1:] {
					have[realCodeKey(got, s, 0, false)] = true
					have[realCodeKey(got, s, 0, true)] = true
				}
				missing := 0
				for _, s := range want.Symbols[1:] {
					d := 0
					if s.Range.Start.Line >= line {
						d = shift
					}
					// A definition holding the edit keeps its start; its
					// end moves with what is typed.
					holds := s.Range.Start.Line < line && s.Range.End.Line >= line
					k := realCodeKey(want, s, d, !holds)
					if !have[k] {
						missing++
						if missing <= 5 {
							var near []string
							for _, g := range got.Symbols[1:] {
								if g.Name == s.Name {
									near = append(near, realCodeKey(got, g, 0, true))
								}
							}
							t.Errorf("%s: missing %s; have %q", what, k, near)
						}
					}
				}
				if missing > 5 {
					t.Errorf("%s: %d definitions missing in all", what, missing)
				}
			}
			g, err := p.Extract(ctx, lang, tt.file, text)
			if err != nil {
				t.Fatal(err)
			}
			check("indexer", g)

			doc, err := p.OpenDocument(ctx, lang, tt.file, 1, src)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			// The editor opens a line, then the text is typed in it key by
			// key.
			if err := doc.Apply(ctx, p, 2, []TextEdit{{Range: &EditRange{line, 0, line, 0}, Text: "\n"}}); err != nil {
				t.Fatal(err)
			}
			col := 0
			for i, r := range tt.typed {
				if err := doc.Apply(ctx, p, int32(i+3), []TextEdit{{Range: &EditRange{line, col, line, col}, Text: string(r)}}); err != nil {
					t.Fatal(err)
				}
				col += utf16Len([]byte(string(r)))
				if g := doc.Graph(); g.ParseErrors > 0 && col < len(tt.typed) && !tt.whole {
					check(fmt.Sprintf("document with %q typed", tt.typed[:col]), g)
				}
			}
			if string(doc.Text()) != string(text) {
				t.Fatalf("typed text differs from the expected text")
			}
			check("document", doc.Graph())
		})
	}
}

// realCodeKey describes a symbol by its kind, names, container and start
// line shifted by d, with its end line when withEnd is set.
func realCodeKey(g *FileGraph, s Symbol, d int, withEnd bool) string {
	container := ""
	if s.Parent >= 0 {
		container = g.Symbols[s.Parent].QualifiedName
	}
	k := fmt.Sprintf("%s %s %s in %s at line %d", s.Kind, s.Name, s.QualifiedName, container, s.Range.Start.Line+d+1)
	if withEnd {
		k += fmt.Sprintf("-%d", s.Range.End.Line+d+1)
	}
	return k
}
