// Package lexicon learns which words of a workspace's code stand for the
// words its users write, from the workspace itself.
//
// Every documented definition pairs two vocabularies: its doc comment or
// docstring says what it does in a reader's words ("Format a Python
// object into a pretty-printed representation"), and its name, class and
// module say it in the code's (pprint, pformat). Counting which doc words
// and which code words occur together across all the definitions of a
// workspace gives a sparse association between the two, scored by
// normalised pointwise mutual information: a question's "pretty" then
// points at pformat and pprint, though no name contains the word.
//
// The package only counts: callers split and stem the words (as the
// search index does) and decide which words of a definition are its
// code words.
package lexicon

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Options tune what a Lexicon keeps.
type Options struct {
	// MinPairs is how many definitions must pair a doc word with a code
	// word for the pair to count: one pairing is chance.
	MinPairs int
	// MaxShare is the share of definitions above which a word, doc or
	// code, is too common to mean anything (an idf floor). A word of at
	// most minCommon definitions is never too common: in a small
	// workspace a share is a handful.
	MaxShare float64
	// PerWord is how many code words each doc word keeps, best first.
	PerWord int
	// MinScore is the normalised PMI (in (0, 1]) under which a pair is
	// dropped.
	MinScore float64
}

// DefaultOptions are the options search uses.
var DefaultOptions = Options{MinPairs: 2, MaxShare: 0.05, PerWord: 8, MinScore: 0.25}

// minCommon is the count of definitions up to which a word is never too
// common (see Options.MaxShare).
const minCommon = 10

// Builder counts the pairs of doc words and code words of definitions.
// The zero value is ready to use. A Builder is not safe for concurrent
// use.
type Builder struct {
	ids   map[string]uint32
	words []string
	doc   []int32 // by word id: definitions whose doc has the word
	code  []int32 // by word id: definitions whose code words have it
	pairs map[uint64]int32
	n     int
	// scratch
	d, c []uint32
}

// Add counts one definition: the words of its doc and its code words.
// Repeats within a list count once. A word in both lists is left out of
// the doc's: the doc of a Go function starts with its name, and a word
// naming itself teaches nothing.
func (b *Builder) Add(docWords, codeWords []string) {
	if len(docWords) == 0 || len(codeWords) == 0 {
		return
	}
	if b.ids == nil {
		b.ids = map[string]uint32{}
		b.pairs = map[uint64]int32{}
	}
	b.c = b.c[:0]
	for _, w := range codeWords {
		if w == "" {
			continue
		}
		if id := b.id(w); !slices.Contains(b.c, id) {
			b.c = append(b.c, id)
		}
	}
	b.d = b.d[:0]
	for _, w := range docWords {
		if w == "" {
			continue
		}
		if id := b.id(w); !slices.Contains(b.d, id) && !slices.Contains(b.c, id) {
			b.d = append(b.d, id)
		}
	}
	if len(b.d) == 0 || len(b.c) == 0 {
		return
	}
	b.n++
	for _, c := range b.c {
		b.code[c]++
	}
	for _, d := range b.d {
		b.doc[d]++
		for _, c := range b.c {
			b.pairs[uint64(d)<<32|uint64(c)]++
		}
	}
}

func (b *Builder) id(w string) uint32 {
	if id, ok := b.ids[w]; ok {
		return id
	}
	id := uint32(len(b.words))
	w = strings.Clone(w)
	b.ids[w] = id
	b.words = append(b.words, w)
	b.doc = append(b.doc, 0)
	b.code = append(b.code, 0)
	return id
}

// Definitions returns how many definitions were counted.
func (b *Builder) Definitions() int { return b.n }

// Build returns the association the counts give under o.
func (b *Builder) Build(o Options) *Lexicon {
	l := &Lexicon{links: map[string][]Link{}, idf: map[string]float64{}, docs: b.n}
	if b.n == 0 {
		return l
	}
	maxCount := int32(max(minCommon, o.MaxShare*float64(b.n)))
	n := float64(b.n)
	byDoc := map[uint32][]Link{}
	for key, k := range b.pairs {
		if int(k) < max(o.MinPairs, 1) {
			continue
		}
		d, c := uint32(key>>32), uint32(key)
		nd, nc := b.doc[d], b.code[c]
		if nd > maxCount || nc > maxCount {
			continue
		}
		pmi := math.Log(float64(k) * n / (float64(nd) * float64(nc)))
		if pmi <= 0 {
			continue
		}
		score := pmi / -math.Log(float64(k)/n)
		if score < o.MinScore {
			continue
		}
		byDoc[d] = append(byDoc[d], Link{Word: b.words[c], Score: score})
	}
	for d, links := range byDoc {
		sort.Slice(links, func(i, j int) bool {
			if links[i].Score != links[j].Score {
				return links[i].Score > links[j].Score
			}
			return links[i].Word < links[j].Word
		})
		if o.PerWord > 0 && len(links) > o.PerWord {
			links = links[:o.PerWord]
		}
		w := b.words[d]
		l.links[w] = slices.Clip(links)
		l.idf[w] = math.Log(n / float64(b.doc[d]))
	}
	return l
}

// Link is a code word a doc word points at, with the strength of their
// association: normalised PMI, in (0, 1].
type Link struct {
	Word  string
	Score float64
}

// Lexicon maps the words of docs (as a question uses them) to the code
// words they go with. It is immutable and safe for concurrent use.
type Lexicon struct {
	links map[string][]Link
	idf   map[string]float64
	docs  int
}

// Links returns the code words that word points at, best first; nil when
// it points at none. The slice is shared: callers must not modify it.
func (l *Lexicon) Links(word string) []Link {
	if l == nil {
		return nil
	}
	return l.links[word]
}

// IDF returns the inverse document frequency of word among the docs, for
// a word that has links (0 otherwise).
func (l *Lexicon) IDF(word string) float64 {
	if l == nil {
		return 0
	}
	return l.idf[word]
}

// Words returns how many doc words have links.
func (l *Lexicon) Words() int {
	if l == nil {
		return 0
	}
	return len(l.links)
}

// Definitions returns how many definitions the lexicon was learned from.
func (l *Lexicon) Definitions() int {
	if l == nil {
		return 0
	}
	return l.docs
}
