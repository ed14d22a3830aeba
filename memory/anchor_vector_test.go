package memory

import (
	"context"
	"testing"
)

// TestAnchorVector checks the code-search similarity of a rule and its
// candidates: the function that does what the rule says is nearer the
// rule than code about something else, and every value is within [0, 1].
func TestAnchorVector(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	tests := []struct {
		rule string
		// near is the example; far a candidate about something else.
		near, far string
	}{
		{"Evict the least recently used entry when the cache is over capacity", "LruCache.evictOldest", "api.writeError"},
		{"Ping the database right after opening the connection", "db.Open", "LruCache.evictOldest"},
		{"Queue jobs in a deque and run them in order", "Runner.drain", "db.Open"},
	}
	for _, tc := range tests {
		scored, _, err := a.rank(ctx, tc.rule, nil, nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.rule, err)
		}
		got := map[string]float64{}
		for _, s := range scored {
			v := s.features.Vector
			if v < 0 || v > 1 {
				t.Errorf("%q: %s has vector similarity %v, outside [0, 1]", tc.rule, s.Symbol, v)
			}
			got[s.Symbol] = v
		}
		near, ok := got[tc.near]
		if !ok {
			t.Fatalf("%q: %s is no candidate (%d candidates)", tc.rule, tc.near, len(scored))
		}
		far := a.vectorOf(t, tc.rule, tc.far)
		if near <= far {
			t.Errorf("%q: %s is no nearer the rule (%.3f) than %s (%.3f)", tc.rule, tc.near, near, tc.far, far)
		}
	}
}

// vectorOf returns the vector similarity of rule and the source of the
// symbol named qualified.
func (a *Anchorer) vectorOf(t *testing.T, rule, qualified string) float64 {
	t.Helper()
	ctx := context.Background()
	rq := analyzeAnchorRule(rule)
	if err := a.weighTerms(ctx, &rq); err != nil {
		t.Fatal(err)
	}
	defs, err := anchorLookup(ctx, a.Searcher.Index, qualified)
	if err != nil || len(defs) == 0 {
		t.Fatalf("no definition of %s: %v", qualified, err)
	}
	text, _, ok, err := a.files().symbolText(defs[0])
	if err != nil || !ok {
		t.Fatalf("read %s: ok %v, %v", qualified, ok, err)
	}
	return rq.vectorSimilarity(text)
}

// TestAnchorVectorUnknownWords checks that a rule none of whose words
// the code-search model knows gets no similarity rather than an
// arbitrary one.
func TestAnchorVectorUnknownWords(t *testing.T) {
	a, _ := sampleAnchorer(t)
	rq := analyzeAnchorRule("Qzxv wplk frobnicated zzyzx")
	if err := a.weighTerms(context.Background(), &rq); err != nil {
		t.Fatal(err)
	}
	if got := rq.vectorSimilarity("func evictOldest() { delete(c.items, key) }"); rq.vec != nil || got != 0 {
		t.Errorf("unknown words: vector %v, similarity %v; want none and 0", rq.vec != nil, got)
	}
}
