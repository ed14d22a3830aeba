package analysis

import (
	"context"
	"strings"
	"testing"
)

// TestDocComments checks which comments become a definition's doc.
func TestDocComments(t *testing.T) {
	tests := []struct {
		name, lang, path, src, symbol, want string
	}{
		{"go line comments", "go", "a.go", "package a\n\n// Open opens.\n// It may fail.\nfunc Open() {}\n", "Open", "Open opens.\nIt may fail."},
		{"go blank line detaches", "go", "a.go", "package a\n\n// About the file.\n\nfunc Open() {}\n", "Open", ""},
		{"go trailing comment is not a doc", "go", "a.go", "package a\n\nvar x = 1 // note\nfunc Open() {}\n", "Open", ""},
		{"go type declaration", "go", "a.go", "package a\n\n// T is a type.\ntype T struct{}\n", "T", "T is a type."},
		{"go grouped type", "go", "a.go", "package a\n\ntype (\n\t// A is first.\n\tA int\n\t// B is second.\n\tB string\n)\n", "B", "B is second."},
		{"rust doc over attributes", "rust", "a.rs", "/// A user.\n#[derive(Debug)]\n#[serde(rename_all = \"camelCase\")]\npub struct User {}\n", "User", "A user."},
		{"rust plain comment over attribute", "rust", "a.rs", "// Config.\n#[derive(Debug)]\nstruct Config;\n", "Config", "Config."},
		{"rust blank line after doc detaches", "rust", "a.rs", "/// Orphan.\n\nfn f() {}\n", "f", ""},
		{"typescript export", "typescript", "a.ts", "/** Loads users. */\nexport class Loader {}\n", "Loader", "Loads users."},
		{"java javadoc over annotation", "java", "A.java", "class A {\n  /**\n   * Finds.\n   */\n  @Override\n  public void find() {}\n}\n", "find", "Finds."},
		{"python decorator", "python", "a.py", "# Cached.\n@cache\ndef f():\n    pass\n", "f", "Cached."},
		{"python docstring wins", "python", "a.py", "# Comment.\ndef f():\n    \"\"\"Docstring.\"\"\"\n", "f", "Docstring."},
		{"python docstring starting with r", "python", "a.py", "def f():\n    \"\"\"returns nothing\"\"\"\n", "f", "returns nothing"},
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang, err := langs.ByName(tt.lang)
			if err != nil || lang == nil {
				t.Fatalf("language %s: %v", tt.lang, err)
			}
			g, err := p.Extract(context.Background(), lang, tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range g.Symbols {
				if s.Name == tt.symbol {
					if s.Doc != tt.want {
						t.Errorf("doc of %s = %q, want %q", tt.symbol, s.Doc, tt.want)
					}
					return
				}
			}
			t.Fatalf("no symbol %s in %+v", tt.symbol, g.Symbols)
		})
	}
}

// TestDocCommentOverlapping checks that comments that overlap (one read
// in the text without a damaged region, running over the region's own
// comments, as two fuzzed files with syntax errors made them) give no doc
// and no panic, in docComment and in docStart.
func TestDocCommentOverlapping(t *testing.T) {
	src := []byte("/* a\n// b\nx */\n// c\nclass C {}\n")
	def := strings.Index(string(src), "class")
	c := strings.Index(string(src), "// c")
	comments := []span{
		{0, uint32(c + len("// c"))}, // runs over "// b" to the end of "// c"
		{uint32(c), uint32(c + len("// c"))},
	}
	if got := docComment(src, comments, def); got != "// c" {
		t.Errorf("docComment = %q, want %q", got, "// c")
	}
	if got := docStart(src, comments, def); got != c {
		t.Errorf("docStart = %d, want %d", got, c)
	}
	over := []span{{0, uint32(len(src) - 1)}, {5, 9}}
	if got := docComment(src, over, def); got != "" {
		t.Errorf("docComment with a comment over the def = %q, want none", got)
	}
	if got := docStart(src, over, def); got != def {
		t.Errorf("docStart with a comment over the def = %d, want %d", got, def)
	}
}
