package memdoc

import (
	"strings"
	"unicode"
)

// TriggerBoost is what each trigger phrase found in a query adds to a
// document's rank multiplier, and MaxTriggerBoost the most that all of
// them add together.
const (
	TriggerBoost    = 0.25
	MaxTriggerBoost = 0.75
)

// MatchedTriggers returns the trigger phrases of d found in query: a
// phrase matches when its words appear in the query one after another,
// ignoring case and punctuation ("retry policy" matches "What is the
// Retry-Policy?" but not "retrying").
func (d *Document) MatchedTriggers(query string) []string {
	return MatchTriggers(d.TriggerPhrases, query)
}

// MatchTriggers returns the phrases found in query, as MatchedTriggers.
func MatchTriggers(phrases []string, query string) []string {
	if len(phrases) == 0 {
		return nil
	}
	q := words(query)
	var out []string
	for _, p := range phrases {
		if pw := words(p); len(pw) > 0 && containsRun(q, pw) {
			out = append(out, p)
		}
	}
	return out
}

// Boost returns the multiplier memory search applies to d's score for
// query: TierBoost of its importance tier times one plus TriggerBoost for
// each trigger phrase found in the query (at most MaxTriggerBoost).
func (d *Document) Boost(query string) float64 {
	return TierBoost(d.ImportanceTier) * TriggerFactor(d.TriggerPhrases, query)
}

// TriggerFactor is the part of Boost that trigger phrases give: one plus
// TriggerBoost for each of phrases found in query (MatchTriggers), at
// most MaxTriggerBoost.
func TriggerFactor(phrases []string, query string) float64 {
	t := TriggerBoost * float64(len(MatchTriggers(phrases, query)))
	return 1 + min(t, MaxTriggerBoost)
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// containsRun reports whether sub occurs in s as consecutive elements.
func containsRun(s, sub []string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := range sub {
			if s[i+j] != sub[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
