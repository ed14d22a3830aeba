package retrieval

import (
	"context"
	"testing"
)

// TestSearchNoExpansion checks that Searcher.NoExpansion leaves out the
// query expansion: a function that only the concept thesaurus finds
// ("slurp" → read all) is found with it and not without it.
func TestSearchNoExpansion(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"store/load.go": "package store\n\n// ReadAllRecords reads every record of the store at once.\nfunc ReadAllRecords(path string) []string { return nil }\n",
	})
	for _, tt := range []struct {
		noExpansion bool
		want        bool
	}{{false, true}, {true, false}} {
		s := *fx.s
		s.NoExpansion = tt.noExpansion
		resp, err := s.Search(context.Background(), Request{Query: "slurp the whole thing", Strategy: Semantic, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range resp.Results {
			found = found || r.Symbol == "store.ReadAllRecords"
		}
		if found != tt.want {
			t.Errorf("NoExpansion %v: store.ReadAllRecords found %v, want %v (results %+v)", tt.noExpansion, found, tt.want, resp.Results)
		}
	}
}
