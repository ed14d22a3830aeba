package retrieval

import "github.com/anchorage-dev/anchorage/retrieval/budget"

// TokenCounter counts the tokens of a text (see package budget).
type TokenCounter = budget.Counter

// fitBudget cuts the results' snippets, in rank order, to budget tokens
// in all (see budget.Fit): the first result that does not fit is cut and
// marked Truncated, those after it are dropped. It returns the results
// kept and the tokens they use. A nil counter estimates.
func fitBudget(rs []Result, limit int, c TokenCounter) ([]Result, int) {
	items := make([]budget.Item, len(rs))
	for i, r := range rs {
		items[i] = budget.Item{Text: r.Snippet}
	}
	kept, _ := budget.Fit(items, limit, c)
	used := 0
	for i, it := range kept {
		rs[i].Snippet, rs[i].Truncated = it.Text, it.Truncated
		used += it.Tokens
	}
	return rs[:len(kept)], used
}
