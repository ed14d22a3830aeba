// Package codelex links the words people write about code to the words
// code names use for them: "decode" to unmarshal, "copy" to clone,
// "verification" to verify. The links are learned offline from the doc
// comments and docstrings of definitions paired with the words of the
// names they document, counted across Go modules and Python packages that
// no evaluation set of retrieval/testdata/eval uses (go run
// ./scripts/codelex writes codelex.txt), and embedded in the binary.
//
// Words are search terms as analysis.AppendTerms makes them (stems).
package codelex

import (
	_ "embed"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// data is the table written by scripts/codelex.
//
//go:embed codelex.txt
var data string

// Link is a word linked to another, with the strength of the link: the
// normalised pointwise mutual information of the two words over the
// corpus's definitions, in (0, 1].
type Link struct {
	Term  string
	Score float64
}

// Table holds the links both ways. It is read-only and safe for
// concurrent use.
type Table struct {
	code map[string][]Link // doc word → name words, best first
	doc  map[string][]Link // name word → doc words, best first
}

// Builtin returns the embedded table, read on first use.
var Builtin = sync.OnceValue(func() *Table { return Parse(data) })

// Parse reads a table in the format scripts/codelex writes: per line, a
// doc word, then "nameword:score" pairs; lines starting with # are
// comments. Pairs it cannot read are skipped.
func Parse(s string) *Table {
	t := &Table{code: map[string][]Link{}, doc: map[string][]Link{}}
	for line := range strings.SplitSeq(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		for _, p := range f[1:] {
			term, score, ok := strings.Cut(p, ":")
			v, err := strconv.ParseFloat(score, 64)
			if !ok || err != nil || term == "" || !(v > 0 && v <= 1) {
				continue
			}
			t.code[f[0]] = append(t.code[f[0]], Link{term, v})
			t.doc[term] = append(t.doc[term], Link{f[0], v})
		}
	}
	for _, m := range []map[string][]Link{t.code, t.doc} {
		for _, l := range m {
			sort.SliceStable(l, func(i, j int) bool {
				if l[i].Score != l[j].Score {
					return l[i].Score > l[j].Score
				}
				return l[i].Term < l[j].Term
			})
		}
	}
	return t
}

// Code returns the name words linked to a doc word, best first. The slice
// must not be modified.
func (t *Table) Code(docTerm string) []Link { return t.code[docTerm] }

// Doc returns the doc words linked to a name word, best first. The slice
// must not be modified.
func (t *Table) Doc(nameTerm string) []Link { return t.doc[nameTerm] }

// Len returns the number of links.
func (t *Table) Len() int {
	n := 0
	for _, l := range t.code {
		n += len(l)
	}
	return n
}
