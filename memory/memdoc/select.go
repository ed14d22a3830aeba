package memdoc

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"

	"github.com/anchorage-dev/anchorage/retrieval/budget"
)

// Separator joins the sections that Select returns.
const Separator = "\n\n---\n\n"

// Select returns the bodies of the sections of content named by ids, in
// the order of ids, joined by Separator. The ids that content has no
// well-formed section for (absent, unclosed or otherwise broken) are
// returned in missing, in the order of ids; an id asked for twice is
// selected once. With a duplicate id, the first section is selected.
// Select never panics, whatever content holds.
func Select(content string, ids []string) (selected string, missing []string) {
	if len(ids) == 0 {
		return "", nil
	}
	_, body, _ := SplitFrontMatter(content)
	sections, _ := parseSections(content, body)
	first := make(map[string]Section, len(sections))
	for _, s := range sections {
		if _, ok := first[s.ID]; !ok {
			first[s.ID] = s
		}
	}
	var b strings.Builder
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		s, ok := first[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		if b.Len() > 0 {
			b.WriteString(Separator)
		}
		b.WriteString(s.Body(content))
	}
	return b.String(), missing
}

// TokenMetrics compares the tokens of a whole document with those of the
// part of it returned.
type TokenMetrics struct {
	FullTokens     int     `json:"full_tokens"`
	ReturnedTokens int     `json:"returned_tokens"`
	SavingsPct     float64 `json:"savings_pct"`
}

// Metrics counts the tokens of full and returned with the project's
// estimator (budget.Estimate) and the percentage saved,
// 100·(1 − returned/full) rounded to one decimal; 0 when full has no
// tokens.
func Metrics(full, returned string) TokenMetrics {
	m := TokenMetrics{FullTokens: budget.Estimate(full), ReturnedTokens: budget.Estimate(returned)}
	if m.FullTokens > 0 {
		pct := 100 * (1 - float64(m.ReturnedTokens)/float64(m.FullTokens))
		m.SavingsPct = math.Round(pct*10) / 10
	}
	return m
}

// hashContent identifies a document's content.
func hashContent(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:16])
}
