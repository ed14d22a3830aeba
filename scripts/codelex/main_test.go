package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableIsGenerated checks that retrieval/codelex/codelex.txt is what
// the generator makes from the modules and packages its header lists. It
// is skipped where one of them is missing (another machine's module cache
// or Python install).
func TestTableIsGenerated(t *testing.T) {
	const table = "../../retrieval/codelex/codelex.txt"
	want, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	modcache := strings.TrimSpace(string(out))
	const pyroot = "/usr/lib/python3/dist-packages"
	var mods, pkgs []string
	for _, line := range strings.Split(string(want), "\n") {
		name, ok := strings.CutPrefix(line, "#   ")
		if !ok {
			continue
		}
		dir := filepath.Join(modcache, name)
		if p, ok := strings.CutPrefix(name, "python:"); ok {
			pkgs = append(pkgs, p)
			dir = filepath.Join(pyroot, p)
		} else {
			mods = append(mods, name)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("the corpus is not on this machine: no %s", dir)
		}
	}
	if len(mods) == 0 {
		t.Fatalf("%s lists no modules", table)
	}
	if len(pkgs) > 0 {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
	}
	got, err := generateFrom(modcache, mods, pyroot, pkgs, "pydocs.py")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the generator makes (%d bytes against %d): run go run ./scripts/codelex", table, len(got), len(want))
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"Clone returns a copy of m. It is shallow.", "Clone returns a copy of m"},
		{"Reset clears the buffer\nand its marks.\n\nDetails.", "Reset clears the buffer\nand its marks."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.doc); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
