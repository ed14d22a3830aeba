package retrieval

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"

	"github.com/anchorage-dev/anchorage/analysis"
)

// conceptFile is a thesaurus from the words of questions to the words of
// code: "phrase: term term…" per line, where the phrase is what people
// ask ("mkdir p", "pretty print", "slurp") and the terms are what
// identifiers and doc comments say for it ("mkdir all parents", "indent",
// "read all"). It was written as general programming vocabulary across
// languages, without looking at any evaluation set.
//
//go:embed concepts.txt
var conceptFile string

// concepts returns the table of conceptFile, read on first use (by a
// search; other commands never read it); it is never modified.
var concepts = sync.OnceValue(func() conceptTable { return loadConcepts(conceptFile) })

// maxConceptWords is the most words a phrase of the thesaurus has.
const maxConceptWords = 3

// conceptTable maps a phrase, as the stems of its words joined by spaces,
// to the terms of code it stands for.
type conceptTable map[string][]string

// loadConcepts reads a thesaurus; lines that are not "phrase: terms" are
// skipped.
func loadConcepts(text string) conceptTable {
	t := conceptTable{}
	for _, line := range strings.Split(text, "\n") {
		phrase, terms, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		words := conceptWords(phrase)
		if len(words) == 0 || len(words) > maxConceptWords {
			continue
		}
		key := strings.Join(words, " ")
		for _, term := range strings.Fields(strings.ToLower(terms)) {
			t[key] = appendNew(t[key], term)
		}
	}
	return t
}

// terms returns the terms of code for the phrases of query, longest
// phrases first, each once: "mkdir -p equivalent" gives those of
// "mkdir p" and not also those of "mkdir" alone.
func (t conceptTable) terms(query string) []string {
	words := conceptWords(query)
	var out []string
	used := make([]bool, len(words))
	for n := maxConceptWords; n >= 1; n-- {
	next:
		for i := 0; i+n <= len(words); i++ {
			for j := i; j < i+n; j++ {
				if used[j] {
					continue next
				}
			}
			terms, ok := t[strings.Join(words[i:i+n], " ")]
			if !ok {
				continue
			}
			for j := i; j < i+n; j++ {
				used[j] = true
			}
			for _, term := range terms {
				out = appendNew(out, term)
			}
		}
	}
	return out
}

// conceptWords splits text into lower-case words of letters and digits,
// stemmed as the text index stems them.
func conceptWords(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		fields[i] = analysis.Stem(f)
	}
	return fields
}

// appendNew appends s to list unless list has it.
func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
