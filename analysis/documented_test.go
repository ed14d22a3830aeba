package analysis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDocumentedSymbols(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"fmtx/fmt.go": `// Package fmtx formats things.
package fmtx

// Pretty formats v on several lines.
func Pretty(v any) string { return "" }

func plain() {}

// Printer prints.
type Printer struct{}

// Print writes v.
func (p *Printer) Print(v any) {}
`,
		"util.py": `"""Utilities."""

def pformat(obj):
    """Format an object into a pretty-printed representation."""
    return repr(obj)

def bare():
    return 1
`,
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	var got []string
	docs := map[string]string{}
	if err := ix.DocumentedSymbols(ctx, func(d DocumentedSymbol) error {
		got = append(got, d.QualifiedName)
		docs[d.QualifiedName] = d.Doc
		if d.Kind == KindModule {
			t.Errorf("module %s listed", d.Path)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"Printer.Print", "fmtx.Pretty", "fmtx.Printer", "util.pformat"}
	if !slices.Equal(got, want) {
		t.Errorf("DocumentedSymbols = %v, want %v", got, want)
	}
	if d := docs["util.pformat"]; d == "" || !strings.Contains(d, "pretty-printed") {
		t.Errorf("pformat's doc = %q, want its docstring", d)
	}
	stop := errors.New("stop")
	n := 0
	if err := ix.DocumentedSymbols(ctx, func(DocumentedSymbol) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("DocumentedSymbols after an error: %v after %d calls, want the error after 1", err, n)
	}
}

func TestDerived(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"a.go": "package a\n\n// F does f.\nfunc F() {}\n"})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	builds := 0
	build := func(context.Context) (any, error) { builds++; return builds, nil }
	get := func(fresh func(old, now DerivedKey) bool) int {
		t.Helper()
		v, err := ix.Derived(ctx, "count", fresh, build)
		if err != nil {
			t.Fatal(err)
		}
		return v.(int)
	}
	if v := get(nil); v != 1 {
		t.Fatalf("first value = %d, want 1", v)
	}
	if v := get(nil); v != 1 {
		t.Errorf("unchanged index: value = %d, want the kept 1", v)
	}
	writeWorkspace(t, root, map[string]string{"b.go": "package a\n\n// G does g.\nfunc G() {}\n"})
	mustUpdate(t, ix)
	if v := get(func(old, now DerivedKey) bool { return now.Count-old.Count < 10 }); v != 1 {
		t.Errorf("changed index, fresh enough: value = %d, want the kept 1", v)
	}
	if v := get(nil); v != 2 {
		t.Errorf("changed index: value = %d, want a new build (2)", v)
	}
	failed := errors.New("failed")
	if _, err := ix.Derived(ctx, "other", nil, func(context.Context) (any, error) { return nil, failed }); !errors.Is(err, failed) {
		t.Errorf("a failed build: %v, want its error", err)
	}
	if v := get(nil); v != 2 {
		t.Errorf("after another name's failure: value = %d, want 2", v)
	}
}
