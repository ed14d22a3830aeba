package memory

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// TestAnchorCacheFollowsFiles checks that what an Anchorer keeps of a
// file between rules is read again once the file changes: another
// size, or the same size at another time; and that the overlay's
// documents are never kept.
func TestAnchorCacheFollowsFiles(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.go")
	sym := analysis.SymbolInfo{Path: "a.go", Range: analysis.Range{Start: analysis.Position{Line: 1}, End: analysis.Position{Line: 1}}}
	var cache anchorCache
	read := func(s *retrieval.Searcher) (string, map[string]bool) {
		t.Helper()
		fc := newAnchorFiles(root, s)
		fc.cache = &cache
		text, _, ok, err := fc.symbolText(sym)
		if err != nil || !ok {
			t.Fatalf("symbolText: %q, %v, %v", text, ok, err)
		}
		body, code := fc.cache.spanStems(fc.stemKey(sym), text, "go")
		for st := range code {
			if !body[st] {
				t.Fatalf("the statements' stem %q is not among the whole span's %v", st, body)
			}
		}
		return text, body
	}
	write := func(src string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	disk := &retrieval.Searcher{}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recent := time.Now()
	for _, c := range []struct {
		what, src string
		mtime     time.Time
		want      string
	}{
		{"first read", "package a\nfunc Open() {}\n", t0, "func Open() {}"},
		{"unchanged", "package a\nfunc Open() {}\n", t0, "func Open() {}"},
		{"another size", "package a\nfunc OpenDB() {}\n", t0, "func OpenDB() {}"},
		{"same size, another time", "package a\nfunc CloseDB() {}\n", t0.Add(time.Second), "func CloseDB() {}"},
		// Written within one tick of the clock: same size, same time.
		{"just written", "package a\nfunc AAAAAAA() {}\n", recent, "func AAAAAAA() {}"},
		{"written again in the same tick", "package a\nfunc BBBBBBB() {}\n", recent, "func BBBBBBB() {}"},
	} {
		write(c.src, c.mtime)
		text, stems := read(disk)
		if text != c.want {
			t.Errorf("%s: %q, want %q", c.what, text, c.want)
		}
		if want := anchorStems(c.want); len(stems) != len(want) {
			t.Errorf("%s: stems %v, want %v", c.what, stems, want)
		}
	}
	edited := &retrieval.Searcher{Overlay: func(p string) ([]byte, bool) {
		return []byte("package a\nfunc Edited() {}\n"), p == "a.go"
	}}
	if text, stems := read(edited); text != "func Edited() {}" || !stems["edit"] {
		t.Errorf("overlay: %q %v, want the editor's text", text, stems)
	}
	if text, _ := read(disk); text != "func BBBBBBB() {}" {
		t.Errorf("after the overlay: %q, want the file's text", text)
	}
}

// TestAnchorBuildIgnored checks which Go files are never built, and so
// hold no examples: an ignore constraint before the package clause.
func TestAnchorBuildIgnored(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"gen.go", "// Copyright\n\n//go:build ignore\n\npackage main\n\nfunc main() {}\n", true},
		{"old.go", "// +build ignore\n\npackage main\n\nfunc main() {}\n", true},
		{"linux.go", "//go:build linux\n\npackage a\n\nfunc F() {}\n", false},
		{"late.go", "package a\n\n//go:build ignore\nfunc F() {}\n", false},
		{"plain.go", "package a\n\nfunc F() {}\n", false},
		{"gen.py", "#go:build ignore\ndef f(): pass\n", false},
	} {
		if err := os.WriteFile(filepath.Join(root, c.name), []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		fc := newAnchorFiles(root, &retrieval.Searcher{})
		sym := analysis.SymbolInfo{Path: c.name, Range: analysis.Range{Start: analysis.Position{Line: 1}, End: analysis.Position{Line: 1}}}
		if _, _, ok, err := fc.symbolText(sym); err != nil || !ok {
			t.Fatalf("%s: %v %v", c.name, ok, err)
		}
		if got := fc.buildIgnored(c.name); got != c.want {
			t.Errorf("buildIgnored(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}
