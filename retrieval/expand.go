package retrieval

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/anchorage-dev/anchorage/analysis"
)

// aliasFile lists the abbreviations code uses for words ("conn" for
// connection, "env" for environment), one "alias target..." per line. The
// word vectors are built from the same list (scripts/wordvec).
//
//go:embed aliases.txt
var aliasFile string

// aliases returns the table of aliasFile, read on first use (by a search;
// other commands never read it); it is never modified.
var aliases = sync.OnceValue(loadAliases)

// aliasTable maps the stem of a word to the stems of the words that stand
// for it in code, and back.
type aliasTable map[string][]string

// loadAliases reads aliasFile.
func loadAliases() aliasTable {
	t := aliasTable{}
	for _, line := range strings.Split(aliasFile, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		alias := analysis.Stem(strings.ToLower(f[0]))
		if len(f) != 2 {
			continue // "cli command line": a phrase, not a word
		}
		target := analysis.Stem(strings.ToLower(f[1]))
		if alias != target {
			t[alias] = appendNew(t[alias], target)
			t[target] = appendNew(t[target], alias)
		}
	}
	return t
}

// expand adds to the terms of a query the abbreviations of its words and
// the words its abbreviations stand for, so that "read an environment
// variable" finds Getenv.
func (t aliasTable) expand(terms []string) []string {
	out := terms
	for _, term := range terms {
		out = append(out, t[term]...)
	}
	return out
}
