package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/anchorage-dev/anchorage/analysis"
)

// Names built of the rule's words: a function named checkDeltaChainDepth
// is the example of "check the delta chain depth" however many words its
// name has and in whatever order. Candidates come from the name index
// (the trigram index of lower-case names) by pairs of the rule's
// weightiest terms; a name counts by the share of its parts that are
// rule terms.
const (
	// anchorNameTerms caps the rule's terms whose pairs are looked up:
	// 4 terms are 6 lookups (5 were 10 and 6 were 15, for the same top
	// candidates of every rule set; 3, 3 lookups, also kept them all on
	// the 261 rules of the training sets, but leaves a rule of many
	// words only one pair beside its first).
	anchorNameTerms = 4
	// anchorNamePairRows caps the names read for one pair of terms.
	anchorNamePairRows = 80
	// anchorNameCands caps the candidates the name lookups add.
	anchorNameCands = 24
)

// nameSpell returns how well a symbol's own name spells the rule: the
// share of the name's parts (split identifier words, stemmed) that are
// rule terms, their code forms or two words of the rule written as one
// (wakeup), when at least two distinct terms of the
// rule are among them; else 0. validateHeader, for "check the magic and
// the version in the header", is 1: "validate" is a code form of "check".
func (rq *anchorQuery) nameSpell(name string) float64 {
	var parts []string
	analysis.CodeWords(name, func(w string, _, _ int, whole bool) error {
		if !whole && len(w) >= 2 && !anchorIsNumber(w) {
			parts = append(parts, analysis.Stem(w))
		}
		return nil
	})
	if len(parts) < 2 {
		return 0
	}
	covered, compounds := 0, 0
	terms := map[int]bool{}
	for _, p := range parts {
		if rq.compounds[p] && len(p) >= 5 {
			covered++
			compounds++
			continue
		}
		for k, t := range rq.terms {
			// Keywords count too: names are made of words (setDefault,
			// deferClose) whatever the language leaves out of its code.
			if !anchorFormMatches(t, p) {
				continue
			}
			covered++
			terms[k] = true
			break
		}
	}
	if len(terms)+compounds < 2 {
		return 0
	}
	return float64(covered) / float64(len(parts))
}

// anchorFormMatches reports whether a stemmed name part stands for term t:
// one of its forms, or a word of four letters or more that one begins
// with the other (validat, valid).
func anchorFormMatches(t anchorTerm, part string) bool {
	for _, f := range t.forms {
		if f == part || len(f) >= 4 && len(part) >= 4 && (strings.HasPrefix(part, f) || strings.HasPrefix(f, part)) {
			return true
		}
	}
	return false
}

// addNamed adds to the pool the definitions whose names hold two or more
// of the rule's weightiest terms (any of their code forms, as
// substrings of the lower-case name) and spell the rule for at least half
// of their parts, those that spell it best first.
func (a *Anchorer) addNamed(ctx context.Context, rq *anchorQuery, pool *anchorPool) error {
	type weighted struct {
		expr   string
		weight float64
	}
	var terms []weighted
	for _, t := range rq.terms {
		if !t.known {
			continue
		}
		var alts []string
		for _, f := range t.forms {
			if len(f) < 3 || !isLowerWord(f) {
				continue
			}
			// Names write a word shorter than its stem (configured →
			// config, validate → valid): its first letters find them
			// (and the stem), and nameSpell keeps those it begins.
			if len(f) >= 7 {
				f = f[:len(f)-2]
			}
			alts = anchorAppendNew(alts, `"`+f+`"`)
		}
		if len(alts) == 0 {
			continue
		}
		// The generic words of rules (check, read, handle) are what
		// names begin with: here they weigh as much as other words.
		w := t.weight
		if t.soft {
			w /= anchorSoftShare
		}
		terms = append(terms, weighted{"(" + strings.Join(alts, " OR ") + ")", w})
	}
	sort.SliceStable(terms, func(i, j int) bool { return terms[i].weight > terms[j].weight })
	if len(terms) > anchorNameTerms {
		terms = terms[:anchorNameTerms]
	}
	if len(terms) < 2 {
		return nil
	}
	type found struct {
		id    int64
		spell float64
	}
	seen := map[int64]bool{}
	var hits []found
	for i := 0; i < len(terms); i++ {
		for j := i + 1; j < len(terms); j++ {
			names, err := a.Searcher.Index.SymbolNamesMatching(ctx, terms[i].expr+" AND "+terms[j].expr, anchorNamePairRows)
			if err != nil {
				return fmt.Errorf("names holding the rule's terms: %w", err)
			}
			for _, n := range names {
				if seen[n.ID] {
					continue
				}
				seen[n.ID] = true
				if s := rq.nameSpell(n.Name); s >= 0.5 {
					hits = append(hits, found{n.ID, s})
				}
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].spell > hits[j].spell })
	n := 0
	for _, h := range hits {
		if n == anchorNameCands {
			break
		}
		if _, ok := pool.byID[h.id]; ok {
			continue
		}
		sym, ok, err := a.Searcher.Index.Symbol(ctx, h.id)
		if err != nil {
			return fmt.Errorf("names holding the rule's terms: %w", err)
		}
		if ok {
			pool.add(sym)
			n++
		}
	}
	return nil
}

// isLowerWord reports whether s is only lower-case letters and digits: a
// term safe to quote in a full-text query.
func isLowerWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLower(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}
