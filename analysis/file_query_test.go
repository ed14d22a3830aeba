package analysis

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestIndexFacts checks the queries that other packages ask of the index
// in place of SQL on its tables: file times and hashes, defined names and
// the terms related to a stem.
func TestIndexFacts(t *testing.T) {
	ctx := context.Background()
	ix := indexSample(t)

	times, err := ix.FileModTimes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 22 {
		t.Errorf("FileModTimes: %d times, want one per file (22)", len(times))
	}

	text, err := os.ReadFile(filepath.Join(sampleRoot, "internal", "db", "db.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		indexed bool
	}{{"internal/db/db.go", true}, {"no/such/file.go", false}} {
		h, ok, err := ix.FileHash(ctx, tc.path)
		if err != nil || ok != tc.indexed {
			t.Errorf("FileHash(%s) = %v, %v; want indexed %v", tc.path, ok, err, tc.indexed)
		}
		if ok && h != xxhash.Sum64(text) {
			t.Errorf("FileHash(%s) = %x, want the xxhash of its text %x", tc.path, h, xxhash.Sum64(text))
		}
	}

	for _, tc := range []struct {
		names, want []string
	}{
		{nil, nil},
		{[]string{"open", "nosuchname", "open"}, []string{"open"}},
		{[]string{"findbyid", "queryrow"}, []string{"findbyid", "queryrow"}},
	} {
		got, err := ix.DefinedNames(ctx, tc.names)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("DefinedNames(%q) = %q, %v; want %q", tc.names, got, err, tc.want)
		}
	}

	for _, stem := range []string{"han", "zzzzzzzz"} {
		if term, _, err := ix.RelatedTerm(ctx, stem); err != nil || term != "" {
			t.Errorf("RelatedTerm(%q) = %q, %v; want none", stem, term, err)
		}
	}
	// A stem that begins a term finds it; a longer word that a term
	// begins finds that term.
	term, docs, err := ix.RelatedTerm(ctx, "handl")
	if err != nil || !strings.HasPrefix(term, "handl") || docs <= 0 {
		t.Fatalf("RelatedTerm(handl) = %q, %d, %v; want a term beginning with it", term, docs, err)
	}
	if got, _, err := ix.RelatedTerm(ctx, term+"zz"); err != nil || got != term {
		t.Errorf("RelatedTerm(%q) = %q, %v; want %q", term+"zz", got, err, term)
	}
}
