package retrieval

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

// codeLexFile links the words people write to the words code names use
// for them ("decode" → unmarshal, "copy" → clone), learned from the doc
// comments of Go definitions and the names they document across many
// modules that no evaluation set uses (go run ./scripts/codelex).
//
//go:embed codelex.txt
var codeLexFile string

// codeLex returns the table of codeLexFile, read on first use; it is never
// modified.
var codeLex = sync.OnceValue(func() map[string][]codeLink {
	return parseCodeLex(codeLexFile)
})

// codeLink is a name word linked to a doc word, with the strength of the
// link (normalised PMI).
type codeLink struct {
	term  string
	score float64
}

// parseCodeLex reads a table written by scripts/codelex: per line, a doc
// word's stem, then "stem:score" pairs, best first. Lines it cannot read
// are skipped.
func parseCodeLex(s string) map[string][]codeLink {
	t := map[string][]codeLink{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		for _, p := range f[1:] {
			term, score, ok := strings.Cut(p, ":")
			v, err := strconv.ParseFloat(score, 64)
			if !ok || err != nil || term == "" {
				continue
			}
			t[f[0]] = append(t[f[0]], codeLink{term, v})
		}
	}
	return t
}

// Code lexicon tuning: how many links of each query word are searched,
// and how strong a link must be. codeLexLinks 0 turns the lexicon off.
const (
	codeLexLinks    = 0
	codeLexMinScore = 0.4
)

// codeLexTerms returns the name words the lexicon links to terms (query
// terms, as QueryTerms makes them), strongest first, without terms
// themselves.
func codeLexTerms(terms []string) []string {
	if codeLexLinks == 0 {
		return nil
	}
	lex := codeLex()
	have := map[string]bool{}
	for _, t := range terms {
		have[t] = true
	}
	var out []string
	for _, t := range terms {
		n := 0
		for _, l := range lex[t] {
			if n == codeLexLinks || l.score < codeLexMinScore {
				break
			}
			if !have[l.term] {
				have[l.term] = true
				out = append(out, l.term)
				n++
			}
		}
	}
	return out
}
