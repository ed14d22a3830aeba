package analysis

import (
	"math"
	"sync"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// Compound names. A lower-case name that runs several words together
// (updatecache, fromtarfile, iterparse, readdirnames) is one word to the
// tokenizer, so a question that says "update the cache" cannot find it by
// its name. compoundParts splits such a name into known English or code
// words, and the name column of the text index holds the parts as well
// as the whole (see appendChunkTerms).

const (
	// compoundMinPart is the shortest part a compound is split into:
	// shorter pieces ("is", "to", "re") split too much by chance.
	compoundMinPart = 3
	// compoundShortRank is the least frequent (by GloVe frequency rank) a
	// part of compoundMinPart letters may be: rare three-letter words are
	// mostly abbreviations that split words by chance (dec+ode, loc+ale).
	compoundShortRank = 15000
	// compoundTopWords is the number of English words of the word vectors,
	// in frequency order; the rows after them are words of code (see
	// retrieval/wordvec/data/README.md).
	compoundTopWords = 60000
	// compoundCodeWordRank is the rank a word of code counts as.
	compoundCodeWordRank = 5000
	// compoundMaxLen is the longest word tried (the split is quadratic).
	compoundMaxLen = 32
)

// compoundVocab is the vocabulary compounds are split into: the built-in
// word vectors' words, read-only once loaded.
var compoundVocab = sync.OnceValue(func() *wordvec.Model {
	m, err := wordvec.Load()
	if err != nil {
		return nil
	}
	return m
})

// compoundParts returns the parts of w, a lower-case word, when w is not a
// known word itself and splits wholly into known words of at least
// compoundMinPart letters: the split with the fewest parts, and of those
// the one whose parts are most frequent (the least sum of log ranks). It returns nil otherwise.
func compoundParts(w string) []string {
	m := compoundVocab()
	if m == nil {
		return nil
	}
	return splitCompound(w, func(s string) int {
		row := m.Row(s)
		if row < 0 {
			return -1
		}
		if row >= compoundTopWords {
			// A word of code beyond the English words (dir, tar, cmd):
			// as good a part as a common word.
			return compoundCodeWordRank
		}
		return m.Rank(row)
	})
}

// splitCompound splits w as compoundParts does, with rank giving a word's
// frequency rank (1 for the most frequent) or -1 for an unknown word.
func splitCompound(w string, rank func(string) int) []string {
	n := len(w)
	if n < 2*compoundMinPart || n > compoundMaxLen {
		return nil
	}
	for i := 0; i < n; i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return nil
		}
	}
	if rank(w) >= 0 {
		return nil
	}
	// best[i] is the best split of w[:i]: its number of parts, the sum of
	// its parts' log ranks, and where its last part starts.
	type cell struct {
		parts int
		cost  float64
		from  int
	}
	var bestBuf [compoundMaxLen + 1]cell
	best := bestBuf[:n+1]
	for i := 1; i <= n; i++ {
		best[i].parts = -1
		for j := 0; j+compoundMinPart <= i; j++ {
			if j > 0 && best[j].parts < 0 || j > 0 && j < compoundMinPart {
				continue
			}
			part := w[j:i]
			r := rank(part)
			if r < 0 || len(part) == compoundMinPart && r > compoundShortRank || isAffix(part) {
				continue
			}
			c := cell{parts: 1, cost: math.Log(float64(r + 1)), from: j}
			if j > 0 {
				c.parts += best[j].parts
				c.cost += best[j].cost
			}
			if best[i].parts < 0 || c.parts < best[i].parts || c.parts == best[i].parts && c.cost < best[i].cost {
				best[i] = c
			}
		}
	}
	if best[n].parts < 2 {
		return nil
	}
	parts := make([]string, best[n].parts)
	for i, k := n, len(parts)-1; i > 0; k-- {
		parts[k] = w[best[i].from:i]
		i = best[i].from
	}
	return parts
}

// isAffix reports whether a word is more often a prefix or suffix of a
// longer word than a word of its own in a name (con+jug+ate, num+era+tor).
func isAffix(w string) bool {
	switch w {
	case "ate", "able", "ible", "ing", "ion", "ions", "ment", "ness", "ity", "ous", "ful", "less",
		"ers", "est", "ive", "ise", "ize", "ent", "ant", "ence", "ance", "ter", "ted", "tor", "ator",
		"con", "com", "pro", "pre", "per", "dis", "isa", "ser", "sel", "ren", "era", "ine", "ode",
		"ale", "ade", "ide", "ure", "age", "ally", "ical", "ular":
		return true
	}
	return false
}
