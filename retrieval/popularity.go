package retrieval

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
)

// popularityOrder returns the ids of the function chunks among hits that
// the workspace calls by their package's name (io.Copy, strconv.Atoi), the
// most called first; chunks nobody calls that way are left out. An API
// the rest of the code leans on is more often the answer to "how do I …"
// than a helper with the same words in it.
func (s *Searcher) popularityOrder(ctx context.Context, hits []analysis.ChunkHit) ([]int64, error) {
	names := map[string]bool{}
	for _, h := range hits {
		if h.Kind == analysis.KindFunction && h.Symbol != "" {
			names[h.Symbol] = true
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	calls, err := s.Index.QualifiedCallCounts(ctx, list)
	if err != nil {
		return nil, err
	}
	type counted struct {
		id int64
		n  int
	}
	var order []counted
	for _, h := range hits {
		if !names[h.Symbol] || h.Kind != analysis.KindFunction || IsTestPath(h.Path) {
			continue
		}
		if n := calls[analysis.CallName{Name: h.Symbol, Qualifier: packageName(h.Path)}]; n >= minPopularCalls {
			order = append(order, counted{h.ID, n})
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].n > order[j].n })
	out := make([]int64, len(order))
	for i, o := range order {
		out[i] = o.id
	}
	return out, nil
}

// minPopularCalls is how many qualified calls make a function popular.
const minPopularCalls = 3

// packageName is the name other code qualifies a file's exports with: the
// directory's for Go (and Java, Rust modules by folder), the file's stem
// for Python and JavaScript modules.
func packageName(p string) string {
	switch path.Ext(p) {
	case ".go", ".java", ".rs":
		return path.Base(path.Dir(p))
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}
