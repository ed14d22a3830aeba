package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a root with a file, a directory, links inside and out, and
// a file outside; it returns the root (links resolved) and the outside
// directory.
func tree(t testing.TB) (root, outside string) {
	t.Helper()
	dir := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	root, outside = filepath.Join(dir, "root"), filepath.Join(dir, "out")
	for _, d := range []string{filepath.Join(root, "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "pkg", "a.go"), filepath.Join(outside, "b.go")} {
		if err := os.WriteFile(f, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"inlink.go":   filepath.Join(root, "pkg", "a.go"),
		"outlink.go":  filepath.Join(outside, "b.go"),
		"outdir":      outside,
		"relout.go":   filepath.Join("..", "out", "b.go"),
		"dangling.go": filepath.Join(root, "nowhere.go"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestResolveFile(t *testing.T) {
	root, outside := tree(t)
	tests := []struct {
		name, file string
		want       string
		outside    bool   // the error is ErrOutsideRoot
		err        string // else the error contains this
	}{
		{name: "relative", file: "pkg/a.go", want: "pkg/a.go"},
		{name: "dot segments inside", file: "./pkg/../pkg/a.go", want: "pkg/a.go"},
		{name: "absolute inside", file: filepath.Join(root, "pkg", "a.go"), want: "pkg/a.go"},
		{name: "link inside", file: "inlink.go", want: "pkg/a.go"},
		{name: "parent", file: "../out/b.go", outside: true},
		{name: "deep parent", file: "pkg/../../out/b.go", outside: true},
		{name: "absolute outside", file: filepath.Join(outside, "b.go"), outside: true},
		{name: "root itself", file: ".", outside: true},
		{name: "link outside", file: "outlink.go", outside: true},
		{name: "relative link outside", file: "relout.go", outside: true},
		{name: "through linked dir", file: "outdir/b.go", outside: true},
		{name: "missing", file: "pkg/none.go", err: "no such file"},
		{name: "dangling link", file: "dangling.go", err: "no such file"},
		{name: "directory", file: "pkg", err: "not a file"},
		{name: "empty", file: " ", err: "empty path"},
		{name: "NUL", file: "pkg/a.go\x00x", err: "not a file name"},
		{name: "invalid UTF-8", file: "pkg/\xff.go", err: "not a file name"},
		{name: "huge", file: strings.Repeat("a/", MaxPathBytes), err: "the limit is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveFile(root, tc.file)
			switch {
			case tc.outside:
				if !errors.Is(err, ErrOutsideRoot) {
					t.Errorf("ResolveFile(%q) = %q, %v; want ErrOutsideRoot", tc.file, got, err)
				}
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ResolveFile(%q) = %q, %v; want an error with %q", tc.file, got, err, tc.err)
				}
			case err != nil || got != tc.want:
				t.Errorf("ResolveFile(%q) = %q, %v; want %q", tc.file, got, err, tc.want)
			}
		})
	}
}

// FuzzResolveFile checks that no path argument resolves to a file outside
// the root, and that none panics.
func FuzzResolveFile(f *testing.F) {
	for _, s := range []string{"pkg/a.go", "../out/b.go", "outlink.go", "outdir/b.go", "/etc/passwd", "", ".", "a/../../b", "pkg/\x00"} {
		f.Add(s)
	}
	root, _ := tree(f)
	f.Fuzz(func(t *testing.T, file string) {
		rel, err := ResolveFile(root, file)
		if err != nil {
			return
		}
		if rel == "" || strings.HasPrefix(rel, "../") || rel == ".." || filepath.IsAbs(rel) {
			t.Fatalf("ResolveFile(%q) = %q", file, rel)
		}
		abs, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatalf("ResolveFile(%q) = %q, which does not resolve: %v", file, rel, err)
		}
		if !strings.HasPrefix(abs, root+string(filepath.Separator)) {
			t.Fatalf("ResolveFile(%q) = %q, which is %s, outside %s", file, rel, abs, root)
		}
	})
}

func TestElideQuoted(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct{ in, want string }{
		{`no quotes`, `no quotes`},
		{`short "abc" kept`, `short "abc" kept`},
		{`long "` + long + `" cut`, `long "` + strings.Repeat("x", 10) + `… (90 more bytes)" cut`},
		{`unclosed "` + long, `unclosed "` + strings.Repeat("x", 10) + `… (90 more bytes)`},
		{`runes "` + strings.Repeat("é", 20) + `"`, `runes "` + strings.Repeat("é", 5) + `… (30 more bytes)"`},
		{`two "a" "b"`, `two "a" "b"`},
		{`ends with quote"`, `ends with quote"`},
	}
	for _, tc := range tests {
		if got := elideQuoted(tc.in, 10); got != tc.want {
			t.Errorf("elideQuoted(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	for _, name := range Profiles() {
		p, err := ParseProfile(strings.ToUpper(name))
		if err != nil || string(p) != name || len(p.Tools()) == 0 {
			t.Errorf("ParseProfile(%q) = %q, %v", name, p, err)
		}
	}
	if _, err := ParseProfile("everything"); err == nil || !strings.Contains(err.Error(), "core, graph, memory, all") {
		t.Errorf("unknown profile: %v", err)
	}
	for _, tool := range ProfileAll.Tools() {
		in := 0
		for _, p := range []Profile{ProfileCore, ProfileGraph, ProfileMemory} {
			if p.Has(tool) {
				in++
			}
		}
		if in == 0 {
			t.Errorf("%s is in no profile but all", tool)
		}
	}
}

func TestElideMiddle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789abcdefghij", 10, "01234… (10 bytes left out) …fghij"},
		{"ééééééééééé", 10, "éé… (14 bytes left out) …éé"},
	} {
		if got := elideMiddle(tc.in, tc.n); got != tc.want {
			t.Errorf("elideMiddle(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
