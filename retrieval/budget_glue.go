package retrieval

// TokenCounter counts the tokens of a text.
type TokenCounter interface {
	Count(text string) int
}

// fitBudget cuts results' snippets to budget tokens in all and returns the
// tokens used.
func fitBudget(rs []Result, budget int, c TokenCounter) int {
	return 0
}
