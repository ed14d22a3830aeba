package analysis

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// postingQueries are searches whose in-memory ranking must be SQLite's:
// one word, several, rare and common ones, names, a word no chunk holds.
var postingQueries = []string{
	"retry failed jobs",
	"user repository find by id",
	"FindByID",
	"cache evict least recently used entry",
	"http handler returns json error",
	"the of and",
	"zzzznotaword",
	"parse config file read settings environment",
	"worker queue job retry backoff sleep attempts max",
}

// compareWithFTS checks that SearchChunks from memory ranks as SQLite's
// text index does: the same chunks, in the same order where scores
// differ, with the same scores.
func compareWithFTS(t *testing.T, ix *Index, label string) {
	t.Helper()
	ctx := context.Background()
	s := ix.store
	key, err := s.chunksState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := s.memIndexFor(key)
	if m == nil {
		t.Fatalf("%s: the in-memory index is not ready after LoadTermsInMemory", label)
	}
	for _, q := range postingQueries {
		terms := strings.Fields(string(AppendTerms(nil, q)))
		for _, limit := range []int{5, 100} {
			want, err := s.ftsSearchChunks(ctx, dedup(terms), limit, chunkColumns)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.memSearch(ctx, m, dedup(terms), limit, chunkColumns)
			if err != nil || !ok {
				t.Fatalf("%s: memSearch(%q) = %v, %v", label, q, ok, err)
			}
			if len(got) != len(want) {
				t.Errorf("%s %q limit %d: %d hits from memory, %d from SQLite", label, q, limit, len(got), len(want))
				continue
			}
			for i := range got {
				if math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
					t.Errorf("%s %q #%d: score %v from memory (chunk %d %s), %v from SQLite (chunk %d %s)",
						label, q, i, got[i].Score, got[i].ID, got[i].Name, want[i].Score, want[i].ID, want[i].Name)
					break
				}
				// Equal scores may come in either order; the last ones
				// may differ where a tie straddles the limit.
				if got[i].ID != want[i].ID && !hasTie(want, i) {
					t.Errorf("%s %q #%d: chunk %d (%s) from memory, %d (%s) from SQLite",
						label, q, i, got[i].ID, got[i].Name, want[i].ID, want[i].Name)
					break
				}
			}
		}
	}
}

func dedup(terms []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// hasTie reports whether hit i has the score of another hit.
func hasTie(hits []ChunkHit, i int) bool {
	for j := range hits {
		if j != i && math.Abs(hits[j].Score-hits[i].Score) <= 1e-12*math.Abs(hits[i].Score) {
			return true
		}
	}
	return false
}

// TestTermsInMemoryRankAsSQLite checks the in-memory ranking against
// SQLite's on the sample app, as first loaded and after files change,
// are added and are removed (each read again from the changed files
// alone).
func TestTermsInMemoryRankAsSQLite(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	ix := openTestIndex(t, root, func(o *Options) { o.TermsInMemory = true })
	mustUpdate(t, ix)
	if err := ix.LoadTermsInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	compareWithFTS(t, ix, "first load")
	first := ix.store.mem.idx

	// A changed file, a new one and a removed one.
	writeWorkspace(t, root, map[string]string{
		"worker/jobs.py": "def retry_failed_jobs(queue, attempts):\n    \"\"\"Retry each failed job with backoff.\"\"\"\n    for job in queue:\n        job.retry(attempts)\n",
		"extra/cache.go": "package extra\n\n// Evict drops the least recently used entry of the cache.\nfunc Evict(c map[string]int) {}\n",
	})
	if err := os.Remove(filepath.Join(root, "users", "service.go")); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, ix)
	if err := ix.LoadTermsInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.store.mem.idx == first {
		t.Fatal("the in-memory index was not refreshed after the index changed")
	}
	if got, want := len(ix.store.mem.idx.ids), len(first.ids); got <= want {
		t.Errorf("refresh read %d documents in all, want more than the %d of the first load (it appends the changed files')", got, want)
	}
	compareWithFTS(t, ix, "after changes")

	hits, err := ix.SearchChunks(ctx, strings.Fields(string(AppendTerms(nil, "retry failed jobs"))), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "worker/jobs.py" {
		t.Errorf("search after the change: %v, want worker/jobs.py first", hits)
	}
}

// TestTermsInMemoryStaleFallsBack checks that a search meeting chunks the
// in-memory index knows but the database no longer has answers from
// SQLite, and that the next load reads everything again.
func TestTermsInMemoryStaleFallsBack(t *testing.T) {
	ctx := context.Background()
	ix := openTestIndex(t, filepath.Join("..", "testdata", "sampleapp"), func(o *Options) { o.TermsInMemory = true })
	mustUpdate(t, ix)
	if err := ix.LoadTermsInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	// Point every document at a chunk id that does not exist.
	m := ix.store.mem.idx
	broken := *m
	broken.ids = make([]int64, len(m.ids))
	for i := range broken.ids {
		broken.ids[i] = -1 - int64(i)
	}
	ix.store.mem.mu.Lock()
	ix.store.mem.idx = &broken
	ix.store.mem.mu.Unlock()

	terms := strings.Fields(string(AppendTerms(nil, "retry failed jobs")))
	hits, err := ix.SearchChunks(ctx, terms, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hits: the search did not fall back to SQLite")
	}
	if err := ix.LoadTermsInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.store.mem.idx == &broken {
		t.Fatal("the stale in-memory index was kept")
	}
	compareWithFTS(t, ix, "reloaded")
}
