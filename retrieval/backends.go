package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/keyword"
)

// rrfK is the constant of reciprocal rank fusion: a result at rank r (from
// 1) of a list scores 1/(rrfK + r).
const rrfK = 60

// Semantic backend tuning: how many candidates BM25 brings, and the
// weights of the vector and popularity signals that re-rank them against
// BM25's own order.
const (
	semanticCandidates = 100
	vectorWeight       = 0.5
	expansionWeight    = 0.5
	popularityWeight   = 0.3
)

// keyword runs an exact-text or regex search over the indexed files.
func (s *Searcher) keyword(ctx context.Context, rt Route, topK int, resp *Response) ([]Result, int, error) {
	paths, err := s.Index.FilePaths(ctx)
	if err != nil {
		return nil, 0, err
	}
	if rt.KeywordScope != "" {
		if in := inScope(paths, rt.KeywordScope); len(in) > 0 {
			paths = in
		} else {
			resp.Notice = joinNotice(resp.Notice, fmt.Sprintf("no folder or file %s in the index: searched everywhere", rt.KeywordScope))
		}
	}
	files := make([]keyword.File, len(paths))
	root := s.Index.Root()
	for i, p := range paths {
		files[i] = keyword.File{Path: p, Abs: filepath.Join(root, filepath.FromSlash(p))}
	}
	pattern := rt.KeywordQuery
	if !rt.KeywordRegex && len(pattern) > keyword.MaxPatternLen {
		// Exact text longer than a pattern may be is searched by its start.
		pattern = cutQuery(pattern, keyword.MaxPatternLen)
		resp.Notice = joinNotice(resp.Notice, fmt.Sprintf("the text to find was cut to its first %d bytes", keyword.MaxPatternLen))
	}
	res, err := keyword.Search(ctx, files, pattern, keyword.Options{
		Regex: rt.KeywordRegex, MaxMatches: max(topK, 1), Overlay: s.Overlay,
	})
	var pe *keyword.PatternError
	if errors.As(err, &pe) {
		return nil, 0, &QueryError{Reason: "keyword search", Err: err}
	}
	if err != nil {
		return nil, 0, err
	}
	if res.ErrorCount > 0 {
		resp.Notice = joinNotice(resp.Notice, fmt.Sprintf("%d files could not be searched (%s)", res.ErrorCount, res.Errors[0]))
	}
	out := make([]Result, 0, len(res.Matches))
	for i, m := range res.Matches {
		r := Result{
			File: m.Path, Line: m.Line, EndLine: m.Line, Snippet: m.Text,
			Score: 1 / float64(i+1), Strategy: Keyword,
		}
		if sym, ok, err := s.Index.EnclosingSymbol(ctx, m.Path, m.Line-1); err != nil {
			return nil, 0, err
		} else if ok {
			r.Symbol, r.Kind = sym.QualifiedName, string(sym.Kind)
		}
		out = append(out, r)
	}
	return out, res.Total, nil
}

// inScope keeps the root-relative paths under a folder or naming a file
// that scope names: "net/http" keeps net/http/server.go, "http" keeps it
// too (a folder of that name anywhere), "server.go" keeps every server.go.
func inScope(paths []string, scope string) []string {
	scope = strings.Trim(path.Clean("/"+filepath.ToSlash(scope)), "/")
	if scope == "" {
		return paths
	}
	var out []string
	for _, p := range paths {
		if p == scope || strings.HasPrefix(p, scope+"/") || strings.HasSuffix(p, "/"+scope) || strings.Contains(p, "/"+scope+"/") {
			out = append(out, p)
		}
	}
	return out
}

// structural asks the code graph what the route asks.
func (s *Searcher) structural(ctx context.Context, rt Route, topK int, resp *Response) ([]Result, error) {
	if rt.StructuralQuery == "" {
		resp.Notice = joinNotice(resp.Notice, "no symbol named in the query")
		return nil, nil
	}
	if rt.StructuralOperation == OpImports {
		return s.imports(ctx, rt.StructuralQuery, topK, resp)
	}
	// More than asked for, to put test code last among them.
	syms, err := StructuralSymbols(ctx, s.Index, rt, max(topK, 50))
	if err != nil {
		return nil, err
	}
	if len(syms) == 0 {
		defs, err := s.Index.Lookup(ctx, rt.StructuralQuery)
		if err != nil {
			return nil, err
		}
		if len(defs) == 0 {
			resp.Notice = joinNotice(resp.Notice, noSymbolNotice(ctx, s.Index, rt.StructuralQuery))
		} else {
			resp.Notice = joinNotice(resp.Notice, fmt.Sprintf("%s has no %s in the index", rt.StructuralQuery, strings.ReplaceAll(rt.StructuralOperation, "_", " ")))
		}
		return nil, nil
	}
	// Code in test files comes after the rest: "who uses X" is first
	// answered by the code that ships.
	sort.SliceStable(syms, func(i, j int) bool { return !IsTestPath(syms[i].Path) && IsTestPath(syms[j].Path) })
	syms = syms[:min(len(syms), topK)]
	out := make([]Result, 0, len(syms))
	for i, sym := range syms {
		out = append(out, symbolResult(sym, 1/float64(i+1), Structural))
	}
	return out, nil
}

// noSymbolNotice says that a symbol is not in the index, with the closest
// names that are.
func noSymbolNotice(ctx context.Context, st *analysis.Index, name string) string {
	msg := fmt.Sprintf("no symbol named %s in the index", name)
	if matches, err := st.Symbols(ctx, lastIdentifierOf(name), 3); err == nil && len(matches) > 0 {
		var names []string
		for _, m := range matches {
			names = append(names, m.QualifiedName)
		}
		msg += " (did you mean " + strings.Join(names, ", ") + "?)"
	}
	return msg
}

// imports answers which files import a module or file.
func (s *Searcher) imports(ctx context.Context, target string, topK int, resp *Response) ([]Result, error) {
	_, _, importedBy, err := s.Index.Imports(ctx, target)
	if err != nil {
		return nil, err
	}
	importedBy = TestsLast(importedBy)
	var out []Result
	for i, imp := range importedBy {
		if len(out) == topK {
			break
		}
		out = append(out, Result{File: imp.Path, Line: imp.Line, EndLine: imp.Line, Symbol: imp.Name, Kind: "import",
			Score: 1 / float64(i+1), Strategy: Structural})
	}
	if len(out) == 0 {
		resp.Notice = joinNotice(resp.Notice, "nothing in the index imports "+target)
	}
	return out, nil
}

// TestsLast returns the imports with those written in test files after
// the others, each group in its order: "which files import zapcore" is
// first answered by the code that ships.
func TestsLast(imports []analysis.Import) []analysis.Import {
	out := append([]analysis.Import(nil), imports...)
	sort.SliceStable(out, func(i, j int) bool { return !IsTestPath(out[i].Path) && IsTestPath(out[j].Path) })
	return out
}

func symbolResult(sym analysis.SymbolInfo, score float64, strategy Strategy) Result {
	return Result{
		File: sym.Path, Line: sym.Range.Start.Line + 1, EndLine: sym.Range.End.Line + 1,
		Symbol: sym.QualifiedName, Kind: string(sym.Kind), Score: score, Strategy: strategy,
		Doc: firstLine(sym.Doc), node: sym.ID,
	}
}

// firstLine returns the first non-blank line of text, trimmed.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// semantic ranks chunks by BM25 over their terms, fused with the vector
// signal when there is one, and returns one result per symbol, each
// further result of a file already listed scaled by fileDecay (past the
// first fileFree): the list a task search reads files from, and hybrid
// search fuses.
func (s *Searcher) semantic(ctx context.Context, query string, topK int) ([]Result, error) {
	ranked, chunks, err := s.semanticRank(ctx, query, topK)
	if err != nil {
		return nil, err
	}
	ranked = diversify(ranked, func(id int64) string { return chunks[id].Path }, fileDecay)
	return semanticResults(ranked, chunks, topK), nil
}

// semanticLevels answers a search by meaning at two levels. The functions
// are ranked by their own scores, with no penalty for sharing a file: the
// best functions of a question often sit together in one file (a
// package's parsing code in its parse.go), and scaling down the second
// of them hides an answer. The files are ranked separately, each by its
// best chunk, each with its best functions: a file-level answer does not
// stop at the files of the first topK functions.
func (s *Searcher) semanticLevels(ctx context.Context, query string, topK int) ([]Result, []FileResult, error) {
	ranked, chunks, err := s.semanticRank(ctx, query, topK)
	if err != nil {
		return nil, nil, err
	}
	var files []FileResult
	at := map[string]int{}
	for _, r := range semanticResults(ranked, chunks, len(ranked)) {
		i, ok := at[r.File]
		if !ok {
			if len(files) == topK {
				continue
			}
			i = len(files)
			at[r.File] = i
			files = append(files, FileResult{File: r.File, Score: r.Score, Why: []string{"the question's words in its code"}})
		}
		if len(files[i].Functions) < taskFunctions {
			files[i].Functions = append(files[i].Functions, r)
		}
	}
	return semanticResults(functionsFirst(ranked, chunks), chunks, topK), files, nil
}

// goTypePenalty scales the score of a Go type declaration (a struct,
// an interface, a named type) in the function list of a search by
// meaning: a question in words most often asks what to call, and a
// type's fields and doc comment share the words of the functions that
// use it, so it would push them down the list. The file ranking is not
// scaled: the type still puts its file forward. Python and JavaScript
// classes are called, and keep their scores.
const goTypePenalty = 0.8

// functionsFirst returns ranked, re-sorted, with the scores of Go type
// declarations scaled by goTypePenalty.
func functionsFirst(ranked []fused, chunks map[int64]analysis.ChunkInfo) []fused {
	out := slices.Clone(ranked)
	changed := false
	for i := range out {
		c := chunks[out[i].id]
		switch c.Kind {
		case analysis.KindStruct, analysis.KindInterface, analysis.KindType:
		default:
			continue
		}
		if c.Language != "go" {
			continue
		}
		out[i].score *= goTypePenalty
		changed = true
	}
	if changed {
		sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	}
	return out
}

// semanticResults turns ranked chunks into up to topK results, one per
// symbol (or per module-level chunk), stopping at semanticFloor.
func semanticResults(ranked []fused, chunks map[int64]analysis.ChunkInfo, topK int) []Result {
	var out []Result
	seen := map[string]bool{}
	for _, f := range ranked {
		if f.score < semanticFloor*ranked[0].score {
			break // far below the best: noise, not an answer
		}
		c, ok := chunks[f.id]
		if !ok {
			continue
		}
		key := c.Path + "\x00" + c.Name
		if c.Kind == analysis.KindModule {
			key = fmt.Sprintf("%s\x00%d", c.Path, c.StartLine)
		}
		if seen[key] {
			continue // another part of the same symbol ranks higher
		}
		seen[key] = true
		sym := c.Name
		if c.Kind == analysis.KindModule {
			sym = ""
		}
		out = append(out, Result{
			File: c.Path, Line: c.StartLine + 1, EndLine: c.EndLine + 1, Symbol: sym, Kind: string(c.Kind),
			Score: f.score, Strategy: Semantic, Snippet: c.Text, node: c.NodeID,
		})
		if len(out) == topK {
			break
		}
	}
	return out
}

// semanticRank returns the candidate chunks of a search by meaning, best
// first, with their fused scores, and the chunks by id.
func (s *Searcher) semanticRank(ctx context.Context, query string, topK int) ([]fused, map[int64]analysis.ChunkInfo, error) {
	words := QueryTerms(query)
	terms := aliases().expand(words)
	// The search for related words runs beside the main one: finding the
	// words near the query's in vector space takes as long as a search.
	var (
		expanded    []analysis.ChunkHit
		expandedErr error
		wg          sync.WaitGroup
	)
	named := concepts().terms(query)
	e, _ := s.Vectors.(Expander)
	expand := !s.NoExpansion && (len(named) > 0 || e != nil)
	if expand {
		wg.Go(func() {
			var near []string
			if e != nil {
				near = e.Expand(query)
			}
			n := semanticCandidates
			if s.candidates > 0 {
				n = s.candidates
			}
			expanded, expandedErr = s.expandedSearch(ctx, words, named, near, max(n, topK))
		})
	}
	n := semanticCandidates
	if s.candidates > 0 {
		n = s.candidates
	}
	bm, err := s.Index.SearchChunks(ctx, terms, max(n, topK))
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	if expandedErr != nil {
		return nil, nil, expandedErr
	}
	lists := [][]int64{ids(bm)}
	weights := []float64{1}

	// The candidates are what BM25 found, then what the expanded search
	// adds: the words code uses for the query's phrases ("mkdir -p" →
	// mkdir all) and the words near the query's in vector space
	// ("hostname" → host, addr) find what BM25 misses for want of the
	// exact word.
	candidates := slices.Clip(bm)
	chunks := map[int64]analysis.ChunkInfo{}
	for _, h := range bm {
		chunks[h.ID] = h.ChunkInfo
	}
	for _, h := range expanded {
		if _, ok := chunks[h.ID]; !ok {
			chunks[h.ID] = h.ChunkInfo
			candidates = append(candidates, h)
		}
	}
	if s.Vectors != nil && len(candidates) > 1 {
		// The vectors re-rank the candidates: on their own, word vectors
		// bring in more noise than answers (see the evaluation).
		byVector, err := s.vectorOrder(ctx, query, candidates)
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, byVector)
		w := vectorWeight
		if s.vectorWeight > 0 {
			w = s.vectorWeight
		}
		weights = append(weights, w)
	}
	if len(expanded) > 0 {
		lists = append(lists, ids(expanded))
		weights = append(weights, expansionWeight)
	}
	if !s.noPopularity {
		// Functions the rest of the code calls often are the likelier
		// answer to "how do I …": a light vote for them.
		byCalls, err := s.popularityOrder(ctx, candidates)
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, byCalls)
		weights = append(weights, popularityWeight)
	}
	if s.traceLists != nil {
		s.traceLists(lists, weights)
	}
	ranked := fuse(lists, weights)
	wantsAside := asksForAside(query)
	// "How do I …" is answered by an entry point; "where is … done",
	// "what handles …", "how does … work" by the code that does it,
	// wherever it is, often a helper behind the entry point.
	visibility := unexportedPenalty
	if asksWhere(query) {
		visibility = 1
	}
	for i := range ranked {
		c, ok := chunks[ranked[i].id]
		if !ok {
			continue
		}
		switch {
		case IsTestPath(c.Path) || IsFixturePath(c.Path):
			ranked[i].score *= testPenalty
		case !wantsAside && isAsidePath(c.Path):
			ranked[i].score *= testPenalty
		}
		if !s.IgnoreVisibility && isUnexported(c) {
			ranked[i].score *= visibility
		}
		if c.Kind == analysis.KindModule {
			ranked[i].score *= modulePenalty
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].score > ranked[j].score })
	return ranked, chunks, nil
}

// Expander proposes words related to the words of a query, for a second
// BM25 search. The built-in word vectors are one.
type Expander interface {
	Expand(query string) []string
}

// expansionMinChunks is how many chunks must hold a word an Expander
// proposes for it to be searched: the vectors know English words the code
// never uses.
const expansionMinChunks = 3

// expandedSearch searches the chunks for the query's words (its terms, as
// QueryTerms makes them), the words of the concept thesaurus for its
// phrases (named), and the words an Expander proposes (near) that the
// code uses; it returns nil when neither adds a word.
func (s *Searcher) expandedSearch(ctx context.Context, words, named, near []string, limit int) ([]analysis.ChunkHit, error) {
	terms := slices.Clone(words)
	have := map[string]bool{}
	for _, t := range terms {
		have[t] = true
	}
	added := false
	for _, w := range named {
		for _, t := range QueryTerms(w) {
			if !have[t] {
				terms = append(terms, t)
				have[t] = true
				added = true
			}
		}
	}
	var candidates []string
	for _, w := range near {
		if ts := QueryTerms(w); len(ts) == 1 && !have[ts[0]] {
			candidates = append(candidates, ts[0])
		}
	}
	if len(candidates) > 0 {
		docs, err := s.Index.TermChunks(ctx, candidates)
		if err != nil {
			return nil, err
		}
		for _, t := range candidates {
			if !have[t] && docs[t] >= expansionMinChunks {
				terms = append(terms, t)
				have[t] = true
				added = true
			}
		}
	}
	if !added {
		return nil, nil
	}
	return s.Index.SearchChunks(ctx, aliases().expand(terms), limit)
}

// fileDecay scales the score of each further result from a file already
// ranked above it: the answer to a question is more often in another file
// than in a third function of the first one.
const fileDecay = 0.6

// semanticFloor is the share of the best result's score under which a
// semantic result is not listed: ten weak matches of one common word are
// not answers.
const semanticFloor = 0.2

// fileFree is how many results of a file rank by their own score before
// fileDecay applies: the best functions of a question often sit together
// in one file (a package's parsing code in its parse.go), and pushing the
// second of them out of the list hides an answer.
const fileFree = 1

// diversify reorders ranked, best first, by scores scaled by decay^n where
// n is the number of items from the same file placed before each, past the
// first fileFree, and
// returns them with these scores (which never increase down the list).
func diversify(ranked []fused, file func(int64) string, decay float64) []fused {
	if decay >= 1 || len(ranked) < 2 {
		return ranked
	}
	out := make([]fused, 0, len(ranked))
	placed := map[string]int{}
	rest := slices.Clone(ranked)
	for len(rest) > 0 {
		best, bestScore := 0, -1.0
		for i, f := range rest {
			sc := f.score * math.Pow(decay, float64(max(0, placed[file(f.id)]-fileFree)))
			if sc > bestScore {
				best, bestScore = i, sc
			}
			if f.score <= bestScore {
				break // sorted: no later item can beat it
			}
		}
		f := rest[best]
		rest = slices.Delete(rest, best, best+1)
		placed[file(f.id)]++
		out = append(out, fused{f.id, bestScore})
	}
	return out
}

// testPenalty scales the score of code in test files and test fixtures: a
// question about how something works is answered by its implementation
// first.
const testPenalty = 0.5

// modulePenalty scales the score of module-level code (the code between
// definitions, a module's docstring, tables of data): a question in
// words is answered by a function, a method or a type first, and a
// module-level chunk, long and full of words (a module of documentation
// strings matches every question), would otherwise push them down. It
// still ranks where nothing else matches its words.
const modulePenalty = 0.6

// isAsidePath reports whether a root-relative path holds code beside the
// product (examples, documentation, benchmarks, the tests of a
// standard library) rather than the code itself; tests and fixtures are
// IsTestPath and IsFixturePath.
func isAsidePath(p string) bool {
	// Not "example": Java keeps its code under com/example/….
	for _, dir := range []string{"test", "examples", "_examples", "docs", "benchmarks"} {
		if strings.HasPrefix(p, dir+"/") || strings.Contains(p, "/"+dir+"/") {
			return true
		}
	}
	return false
}

// asksForAside reports whether a question asks for code beside the
// product: examples, documentation or benchmarks.
func asksForAside(query string) bool {
	for _, t := range QueryTerms(query) {
		switch t {
		case "exampl", "doc", "documentat", "benchmark", "bench", "test":
			return true
		}
	}
	return false
}

// asksWhere reports whether a question asks where or how something is
// done in the code ("where is the header parsed", "what decides …",
// "how does the logger …") rather than how to do it: its answer is the
// implementation, exported or not.
func asksWhere(query string) bool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) < 3 {
		return false
	}
	switch strings.Trim(words[0], "?,.:;'\"") {
	case "where", "what", "which", "who", "why":
		return true
	case "how":
		switch words[1] {
		case "does", "do", "is", "are", "did":
			// "how do I …" and "how do you …" ask for the entry point.
			return words[1] != "do" || (words[2] != "i" && words[2] != "you" && words[2] != "we")
		}
	}
	return false
}

// unexportedPenalty scales the score of code other packages cannot call:
// of an exported function and an unexported one that answer a question
// about as well, the exported one is the entry point to show first (the
// other is reached through it). Fused scores lie close together, so this
// moves an unexported function below the exported ones that several
// signals found. On the Go standard library's questions it lifts pooled
// hit@5 from 0.74 to 0.79 (0.77 at 0.9); on the sample app, where most
// answers are unexported, hit@5 stays the same.
const unexportedPenalty = 0.8

// isUnexported reports whether a chunk's symbol is private to its package
// or module by its language's convention: a Go name not starting with a
// capital letter, or a name starting with an underscore (Python,
// JavaScript) other than Python's __special__ methods. Module-level code
// and languages that say it with keywords (Java, Rust) are never.
func isUnexported(c analysis.ChunkInfo) bool {
	name := c.Symbol
	if c.Kind == analysis.KindModule || name == "" {
		return false
	}
	if c.Language == "go" {
		if name == "main" && c.Kind == analysis.KindFunction {
			return false // a command's entry point
		}
		r, _ := utf8.DecodeRuneInString(name)
		if !unicode.IsUpper(r) {
			return true
		}
	} else if strings.HasPrefix(name, "_") && !(strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")) {
		return true
	}
	// A method of a type other packages cannot name is reached through
	// the exported API, not called as one.
	if c.Kind == analysis.KindMethod {
		recv := lastIdentifierOf(qualifierOf(c))
		if recv == "" {
			return false
		}
		if c.Language == "go" {
			r, _ := utf8.DecodeRuneInString(recv)
			return !unicode.IsUpper(r)
		}
		return strings.HasPrefix(recv, "_")
	}
	return false
}

// IsFixturePath reports whether a root-relative path is under a testdata
// directory, where Go (and many projects in other languages) keep the
// inputs of tests.
func IsFixturePath(p string) bool {
	return strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/")
}

// IsTestPath reports whether a root-relative path names a test file in
// one of the conventions of the languages indexed.
func IsTestPath(p string) bool {
	base := path.Base(p)
	dir := "/" + path.Dir(p) + "/"
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"),
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec."),
		strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java"),
		strings.Contains(dir, "/__tests__/") || strings.Contains(dir, "/tests/") || strings.Contains(dir, "/src/test/"):
		return true
	}
	return false
}

// vectorOrder returns the ids of hits ordered by the similarity of their
// vectors to the query's, most similar first; hits without a vector are
// left out. The vectors are the index's, or computed now when the vector
// signal is inline (analysis.InlineEmbedder).
func (s *Searcher) vectorOrder(ctx context.Context, query string, hits []analysis.ChunkHit) ([]int64, error) {
	q := s.Vectors.Embed(query)
	if len(q) == 0 {
		return nil, nil
	}
	var vecs [][]byte
	if _, inline := s.Vectors.(analysis.InlineEmbedder); inline {
		vecs = s.embedHits(hits)
	} else {
		vs, err := s.Index.ChunkVectors(ctx)
		if err != nil {
			return nil, err
		}
		vecs = make([][]byte, len(hits))
		for i, h := range hits {
			vecs[i] = vs.Of(h.ID)
		}
	}
	type scored struct {
		id  int64
		sim float64
	}
	var order []scored
	for i, h := range hits {
		if v := vecs[i]; len(v) > 0 {
			order = append(order, scored{h.ID, s.Vectors.Similarity(q, v)})
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].sim > order[j].sim })
	out := make([]int64, len(order))
	for i, o := range order {
		out[i] = o.id
	}
	return out, nil
}

// embedHits embeds the hits' texts as the index would have
// (analysis.ChunkEmbeddingText), on up to GOMAXPROCS goroutines.
func (s *Searcher) embedHits(hits []analysis.ChunkHit) [][]byte {
	vecs := make([][]byte, len(hits))
	workers := min(runtime.GOMAXPROCS(0), (len(hits)+15)/16)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(hits); i += workers {
				h := hits[i]
				vecs[i] = s.Vectors.Embed(analysis.ChunkEmbeddingText(h.Context, h.Callers, h.Text))
			}
		})
	}
	wg.Wait()
	return vecs
}

func ids(hits []analysis.ChunkHit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// fused is an item of a reciprocal rank fusion with its score.
type fused struct {
	id    int64
	score float64
}

// fuse merges ranked lists by weighted reciprocal rank fusion: an item
// scores the sum over lists of weight/(rrfK + rank). Ties keep the order
// of first appearance.
func fuse(lists [][]int64, weights []float64) []fused {
	score := map[int64]float64{}
	var order []int64
	for l, list := range lists {
		for r, id := range list {
			if _, ok := score[id]; !ok {
				order = append(order, id)
			}
			score[id] += weights[l] / float64(rrfK+r+1)
		}
	}
	out := make([]fused, len(order))
	for i, id := range order {
		out[i] = fused{id, score[id]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// hybrid fuses a semantic search with the graph around its subject: the
// symbol the query names, or else the best semantic hit, and what depends
// on it. Results found by both are marked multi-strategy. For a task
// description (rt.Task) the semantic side is the task search, by the
// evidence the text carries, and the files are that search's, each
// with its best functions.
func (s *Searcher) hybrid(ctx context.Context, rt Route, topK int, resp *Response) ([]Result, []FileResult, error) {
	query := rt.SemanticQuery
	if query == "" {
		query = rt.StructuralQuery
	}
	var (
		sem   []Result
		files []FileResult
		err   error
	)
	if rt.Task {
		sem, files, err = s.task(ctx, query, max(topK, 20), resp)
	} else {
		sem, err = s.semantic(ctx, query, max(topK, 20))
	}
	if err != nil {
		return nil, nil, err
	}
	limit := max(topK, 20)
	var structural []Result
	if rt.StructuralQuery != "" {
		st := rt
		if st.StructuralOperation == "" || st.StructuralOperation == OpSearch {
			st.StructuralOperation = OpBlastRadius
		}
		var ignored Response
		if structural, err = s.structural(ctx, st, limit, &ignored); err != nil {
			return nil, nil, err
		}
		// The subject itself belongs to the structural answer.
		if defs, err := s.Index.Lookup(ctx, st.StructuralQuery); err == nil && len(defs) > 0 {
			structural = append([]Result{symbolResult(defs[0], 1, Structural)}, structural...)
		}
	} else {
		// The subject is the best semantic hit that is a symbol: the
		// graph around that very definition.
		for _, r := range sem {
			if r.node == 0 {
				continue
			}
			def, ok, err := s.Index.Symbol(ctx, r.node)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			rels, err := s.Index.BlastRadiusLimit(ctx, def, 2, limit)
			if err != nil {
				return nil, nil, err
			}
			structural = append(structural, symbolResult(def, 1, Structural))
			for i, rel := range rels {
				if rel.Symbol.ID != 0 {
					structural = append(structural, symbolResult(rel.Symbol, 1/float64(i+2), Structural))
				}
			}
			break
		}
	}
	return fuseResults(topK, sem, structural), files, nil
}

// fuseResults merges result lists of different strategies by reciprocal
// rank fusion, one result per symbol (or file and line), marking those
// that several lists found.
func fuseResults(topK int, lists ...[]Result) []Result {
	type acc struct {
		r          Result
		score      float64
		strategies map[Strategy]bool
	}
	byKey := map[string]*acc{}
	var order []string
	for _, list := range lists {
		for rank, r := range list {
			key := r.File + "\x00" + r.Symbol
			if r.Symbol == "" {
				key = fmt.Sprintf("%s\x00%d", r.File, r.Line)
			}
			a := byKey[key]
			if a == nil {
				a = &acc{r: r, strategies: map[Strategy]bool{}}
				byKey[key] = a
				order = append(order, key)
			} else if a.r.Snippet == "" {
				a.r.Snippet = r.Snippet
			}
			a.score += 1 / float64(rrfK+rank+1)
			a.strategies[r.Strategy] = true
		}
	}
	out := make([]Result, 0, len(order))
	for _, k := range order {
		a := byKey[k]
		a.r.Score = a.score
		a.r.MultiStrategy = len(a.strategies) > 1
		if a.r.MultiStrategy {
			a.r.Strategy = Hybrid
		}
		out = append(out, a.r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > topK {
		out = out[:topK]
	}
	return out
}

// fillText gives each result its text: the whole chunk or definition when
// whole is set, else its first lines. Results that have a snippet keep it
// (a keyword match's line) unless whole is set.
func (s *Searcher) fillText(ctx context.Context, rs []Result, whole bool) error {
	files := map[string][]string{}
	for i := range rs {
		r := &rs[i]
		if r.Doc == "" && r.node != 0 {
			sym, ok, err := s.Index.Symbol(ctx, r.node)
			if err != nil {
				return err
			}
			if ok {
				r.Doc = firstLine(sym.Doc)
			}
		}
		if r.Snippet != "" && (!whole || r.Strategy == Keyword) {
			if !whole {
				r.Snippet = firstLines(r.Snippet, snippetLines)
			}
			continue
		}
		lines, ok := files[r.File]
		if !ok {
			text, err := s.readFile(r.File)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("read %s: %w", r.File, err)
			}
			lines = strings.Split(strings.ToValidUTF8(string(text), "\uFFFD"), "\n")
			files[r.File] = lines
		}
		from, to := r.Line-1, r.EndLine
		if !whole {
			to = min(to, from+snippetLines)
		}
		if from < 0 || from >= len(lines) {
			continue
		}
		r.Snippet = strings.TrimRight(strings.Join(lines[from:min(to, len(lines))], "\n"), "\r\n ")
	}
	return nil
}

func (s *Searcher) readFile(rel string) ([]byte, error) {
	if s.Overlay != nil {
		if text, ok := s.Overlay(rel); ok {
			return text, nil
		}
	}
	return os.ReadFile(filepath.Join(s.Index.Root(), filepath.FromSlash(rel)))
}

// firstLines returns the first n lines of text.
func firstLines(text string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return text
		}
		i += j + 1
	}
	return strings.TrimRight(text[:i], "\r\n")
}

// QueryTerms returns the search terms of a query, as the chunk index holds
// them (see analysis.AppendTerms), without repeats.
func QueryTerms(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Fields(string(analysis.AppendTerms(nil, query))) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// lastIdentifierOf returns the last dotted part of a name.
func lastIdentifierOf(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// qualifierOf returns the part of a chunk's qualified name before its
// own name: a method's class or receiver, a function's package or module.
func qualifierOf(c analysis.ChunkInfo) string {
	return strings.TrimRight(strings.TrimSuffix(c.Name, c.Symbol), ".:")
}
