package retrieval

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/lexicon"
)

// lexiconWeight is the weight of the lexicon's vote (lexiconOrder) in a
// search by meaning. It is 0, off: no weight tried lifted the
// function-level sets (see "The workspace's own lexicon" in
// testdata/eval/README.md), and at 0 the lexicon is not even learned.
const lexiconWeight = 0.0

// lexiconDocTerms is how many terms of a doc the lexicon learns from: the
// first paragraph says what a definition does; the rest, how.
const lexiconDocTerms = 40

// lexiconQualifier scales the links to a word of a candidate's class,
// receiver, package or module against those to its own name.
const lexiconQualifier = 0.5

// lexiconOf returns the workspace's lexicon (see package lexicon), learned
// from the index's documented definitions and kept with the index until
// a tenth of its symbols have changed.
func (s *Searcher) lexiconOf(ctx context.Context) (*lexicon.Lexicon, error) {
	fresh := func(old, now analysis.DerivedKey) bool {
		limit := max(now.Count/10, 100)
		d := now.Count - old.Count
		return now.MaxID-old.MaxID < limit && d < limit && -d < limit
	}
	v, err := s.Index.Derived(ctx, "lexicon", fresh, func(ctx context.Context) (any, error) {
		return learnLexicon(ctx, s.Index)
	})
	if err != nil {
		return nil, err
	}
	return v.(*lexicon.Lexicon), nil
}

// learnLexicon counts the doc words and the code words of every
// documented definition of ix outside tests: the words of its qualified
// name (its own, its class or receiver, its package or module), of its
// file's name and of its directory's.
func learnLexicon(ctx context.Context, ix *analysis.Index) (*lexicon.Lexicon, error) {
	var b lexicon.Builder
	var buf []byte
	err := ix.DocumentedSymbols(ctx, func(d analysis.DocumentedSymbol) error {
		if IsTestPath(d.Path) || IsFixturePath(d.Path) {
			return nil
		}
		doc := d.Doc
		if i := strings.Index(doc, "\n\n"); i > 0 {
			doc = doc[:i]
		}
		buf = analysis.AppendTerms(buf[:0], doc)
		docWords := strings.Fields(string(buf))
		if len(docWords) > lexiconDocTerms {
			docWords = docWords[:lexiconDocTerms]
		}
		dir, file := path.Split(d.Path)
		buf = analysis.AppendTerms(buf[:0], d.QualifiedName)
		buf = append(buf, ' ')
		buf = analysis.AppendTerms(buf, strings.TrimSuffix(file, path.Ext(file)))
		buf = append(buf, ' ')
		buf = analysis.AppendTerms(buf, path.Base(dir))
		b.Add(docWords, strings.Fields(string(buf)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("learn the workspace's lexicon: %w", err)
	}
	return b.Build(lexicon.DefaultOptions), nil
}

// lexiconVote returns the lexicon's order of the candidates of a search
// by meaning (lexiconOrder); nil when its weight is 0 or the search does
// without expansion.
func (s *Searcher) lexiconVote(ctx context.Context, query string, candidates []analysis.ChunkHit) ([]int64, []analysis.ChunkHit, error) {
	if s.NoExpansion || lexiconWeight == 0 {
		return nil, candidates, nil
	}
	lex, err := s.lexiconOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	return lexiconOrder(lex, query, candidates), candidates, nil
}

// lexiconOrder orders the candidates whose names the lexicon links the
// query's words to: each query word adds its idf times its best link to
// a word of the candidate's own name, or, scaled by lexiconQualifier, of
// its qualifier. A word of the query that is in the name itself adds
// nothing (BM25 counts it). Candidates with no link are left out.
func lexiconOrder(lex *lexicon.Lexicon, query string, candidates []analysis.ChunkHit) []int64 {
	type link struct {
		to  map[string]float64
		idf float64
	}
	var links []link
	for _, q := range QueryTerms(query) {
		ls := lex.Links(q)
		if len(ls) == 0 {
			continue
		}
		to := make(map[string]float64, len(ls))
		for _, l := range ls {
			to[l.Word] = l.Score
		}
		links = append(links, link{to, lex.IDF(q)})
	}
	if len(links) == 0 {
		return nil
	}
	type scored struct {
		id    int64
		score float64
	}
	var out []scored
	seen := map[int64]bool{}
	for _, h := range candidates {
		if seen[h.ID] || h.Symbol == "" {
			continue
		}
		seen[h.ID] = true
		own := QueryTerms(h.Symbol)
		qual := QueryTerms(qualifierOf(h.ChunkInfo))
		total := 0.0
		for _, l := range links {
			best := 0.0
			for _, w := range own {
				best = max(best, l.to[w])
			}
			for _, w := range qual {
				best = max(best, lexiconQualifier*l.to[w])
			}
			total += l.idf * best
		}
		if total > 0 {
			out = append(out, scored{h.ID, total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	ids := make([]int64, len(out))
	for i, s := range out {
		ids[i] = s.id
	}
	return ids
}
