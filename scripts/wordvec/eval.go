package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// evalPair is one code-search question: a doc comment's first sentence
// (without the function's name) and the function it documents, without
// its doc comment.
type evalPair struct {
	name, query, code string
}

// evalPairs collects up to max pairs from the Go files under root, taking
// functions in file order (files sorted), at most perFile from each file,
// skipping tests, testdata and vendor. Queries of fewer than 4 words are
// skipped.
func evalPairs(root string, limit, perFile int) ([]evalPair, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	// Spread the sample over the whole tree: every stride-th file.
	stride := max(1, len(files)*perFile/max(1, limit)/2)
	var pairs []evalPair
	fset := token.NewFileSet()
	for i, path := range files {
		if i%stride != 0 {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			continue
		}
		n := 0
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil || fd.Body == nil || n == perFile {
				continue
			}
			q := firstSentence(fd.Doc.Text())
			q = strings.TrimPrefix(q, fd.Name.Name+" ")
			if len(strings.Fields(q)) < 4 || strings.HasPrefix(q, "Deprecated") {
				continue
			}
			code := string(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset])
			pairs = append(pairs, evalPair{name: filepath.Base(path) + ":" + fd.Name.Name, query: q, code: code})
			n++
			if len(pairs) == limit {
				return pairs, nil
			}
		}
	}
	return pairs, nil
}

func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	return strings.TrimSuffix(doc, ".")
}

// evalResult is how well one scorer ranks each query's own function among
// all functions.
type evalResult struct {
	mrr, r1, r10 float64
}

func (r evalResult) String() string {
	return fmt.Sprintf("MRR %.3f  R@1 %.3f  R@10 %.3f", r.mrr, r.r1, r.r10)
}

// rankOf returns the 1-based rank of scores[own] (ties count against).
func rankOf(scores []float64, own int) int {
	r := 1
	for i, s := range scores {
		if i != own && s >= scores[own] {
			r++
		}
	}
	return r
}

func summarize(ranks []int) evalResult {
	var e evalResult
	for _, r := range ranks {
		e.mrr += 1 / float64(r)
		if r == 1 {
			e.r1++
		}
		if r <= 10 {
			e.r10++
		}
	}
	n := float64(len(ranks))
	return evalResult{e.mrr / n, e.r1 / n, e.r10 / n}
}

// evaluate ranks every pair's function for its query by: cosine of word
// vectors, TF-IDF cosine over the same words (a lexical baseline), and
// the two fused by reciprocal rank (k = 60). It prints one line each.
func evaluate(w io.Writer, m *wordvec.Model, pairs []evalPair) {
	n := len(pairs)
	docs := make([][]float32, n)
	queries := make([][]float32, n)
	for i, p := range pairs {
		docs[i] = m.Embed(p.code)
		queries[i] = m.Embed(p.query)
	}
	lex := newTFIDF(pairs)
	var vecRanks, lexRanks, fusedRanks, mixRanks []int
	zeroQ := 0
	for i := range pairs {
		vs := make([]float64, n)
		ls := make([]float64, n)
		for j := range pairs {
			vs[j] = float64(wordvec.Cosine(queries[i], docs[j]))
			ls[j] = lex.score(i, j)
		}
		if wordvec.Cosine(queries[i], queries[i]) == 0 {
			zeroQ++
		}
		vecRanks = append(vecRanks, rankOf(vs, i))
		lexRanks = append(lexRanks, rankOf(ls, i))
		fused := make([]float64, n)
		vr, lr := ranks(vs), ranks(ls)
		for j := range fused {
			fused[j] = 1/float64(60+vr[j]) + 1/float64(60+lr[j])
		}
		fusedRanks = append(fusedRanks, rankOf(fused, i))
		for j := range fused {
			fused[j] = ls[j] + 0.25*vs[j]
		}
		mixRanks = append(mixRanks, rankOf(fused, i))
	}
	fmt.Fprintf(w, "%s: %d functions, %d queries with no known word\n", m.Name(), n, zeroQ)
	var known, total [2]int
	for _, p := range pairs {
		for i, text := range []string{p.query, p.code} {
			for _, word := range wordvec.SplitWords(text) {
				if len(word) > 1 && !isNumber(word) {
					total[i]++
					if m.Row(word) >= 0 {
						known[i]++
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "  known words: %.1f%% of query words, %.1f%% of code words\n",
		100*float64(known[0])/float64(total[0]), 100*float64(known[1])/float64(total[1]))
	fmt.Fprintf(w, "  word vectors   %v\n", summarize(vecRanks))
	fmt.Fprintf(w, "  tf-idf         %v\n", summarize(lexRanks))
	fmt.Fprintf(w, "  fused (RRF)    %v\n", summarize(fusedRanks))
	fmt.Fprintf(w, "  tfidf+0.25·cos %v\n", summarize(mixRanks))
}

// ranks returns the 1-based rank of each score, best first; ties share
// order by index.
func ranks(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	r := make([]int, len(scores))
	for pos, i := range idx {
		r[i] = pos + 1
	}
	return r
}

// tfidf is a lexical baseline: cosine of TF-IDF vectors (log tf) over the
// words of SplitWords.
type tfidf struct {
	queries, docs []map[string]float64
}

func newTFIDF(pairs []evalPair) *tfidf {
	df := map[string]int{}
	t := &tfidf{}
	count := func(text string) map[string]float64 {
		c := map[string]float64{}
		for _, w := range wordvec.SplitWords(text) {
			if len(w) > 1 {
				c[w]++
			}
		}
		return c
	}
	for _, p := range pairs {
		d := count(p.code)
		for w := range d {
			df[w]++
		}
		t.docs = append(t.docs, d)
		t.queries = append(t.queries, count(p.query))
	}
	weigh := func(c map[string]float64) {
		var ss float64
		for w, n := range c {
			idf := math.Log(float64(len(pairs)+1) / float64(df[w]+1))
			c[w] = (1 + math.Log(n)) * idf
			ss += c[w] * c[w]
		}
		for w := range c {
			c[w] /= math.Sqrt(ss)
		}
	}
	for i := range pairs {
		weigh(t.docs[i])
		weigh(t.queries[i])
	}
	return t
}

func (t *tfidf) score(q, d int) float64 {
	var s float64
	for w, x := range t.queries[q] {
		s += x * t.docs[d][w]
	}
	return s
}
