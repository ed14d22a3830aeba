package analysis

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestTermStatsFollowChanges checks that the chunk counts of terms, kept
// in memory between searches, follow every change of the chunks: this
// Store's writes and another's on the same database.
func TestTermStatsFollowChanges(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "index.db")
	open := func() *Index {
		t.Helper()
		ix, err := Open(ctx, Options{Root: root, DBPath: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	ix := open()
	terms := []string{"walrus", "narwhal", "zebra", "walrus"}
	check := func(step string, want map[string]int) {
		t.Helper()
		// Twice: the second answer comes from the cache.
		for range 2 {
			got, total, err := ix.TermStats(ctx, terms)
			if err != nil {
				t.Fatalf("%s: TermStats: %v", step, err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s: TermStats = %v, want %v", step, got, want)
			}
			n, err := ix.ChunkCount(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if total != n {
				t.Errorf("%s: TermStats counts %d chunks, ChunkCount %d", step, total, n)
			}
		}
	}

	write("a.go", "package p\n\n// Feed feeds the walrus.\nfunc Feed() { walrus() }\n")
	mustUpdate(t, ix)
	check("a.go", map[string]int{"walrus": 1})

	write("b.go", "package p\n\n// Swim moves the walrus and the narwhal.\nfunc Swim() { narwhal() }\n")
	mustUpdate(t, ix)
	check("a.go and b.go", map[string]int{"walrus": 2, "narwhal": 1})

	// Another Store (another process) changes the chunks.
	other := open()
	if err := os.Remove(filepath.Join(root, "a.go")); err != nil {
		t.Fatal(err)
	}
	write("c.go", "package p\n\n// Stripes counts a zebra's stripes.\nfunc Stripes() {}\n")
	mustUpdate(t, other)
	check("b.go and c.go, written by another Store", map[string]int{"walrus": 1, "narwhal": 1, "zebra": 1})

	// A delete alone (no chunk added) by another Store.
	if err := os.Remove(filepath.Join(root, "c.go")); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, other)
	check("b.go, c.go deleted by another Store", map[string]int{"walrus": 1, "narwhal": 1})

	got, total, err := ix.TermStats(ctx, nil)
	if err != nil || len(got) != 0 || total == 0 {
		t.Errorf("TermStats(nil) = %v, %d, %v; want no terms and the chunk count", got, total, err)
	}
}
