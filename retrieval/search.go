package retrieval

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
)

// Searcher answers queries about one workspace: it routes each query and
// runs the backends the route names over the workspace's index. A Searcher
// is safe for concurrent use once set up.
type Searcher struct {
	// Index is the workspace's code graph, chunks and files.
	Index *analysis.Index
	// Router classifies queries; nil uses DefaultRouter's.
	Router *Router
	// Vectors, if set, adds a vector signal to the semantic backend. It
	// must be the model whose vectors the index stores. If it is also an
	// Expander (the built-in word vectors are), it expands queries too.
	Vectors Vectorizer
	// Overlay gives the text of files open in an editor, by root-relative
	// path, for the keyword backend; nil reads every file from disk.
	Overlay func(path string) ([]byte, bool)
	// Partial, if set, says whether the index is still being built, and
	// what of it: answers are then marked partial.
	Partial func() (partial bool, reason string)
	// Budget, if set, counts the tokens of result text for Request.Budget;
	// nil uses an estimate.
	Budget TokenCounter
	// Feedback, if set, records each search for routing statistics.
	Feedback *feedback.Store

	// IgnoreVisibility ranks unexported code like exported code. Search
	// otherwise puts the entry points of a package first, as answers to a
	// question; looking for examples of a practice, where any function may
	// be one, it should not.
	IgnoreVisibility bool

	// NoExpansion leaves out the query expansion of a search by meaning
	// (the words code uses for the query's phrases, and the words near
	// them in vector space): a second search of the index. Anchoring,
	// which scores every word of a rule itself, does without it.
	NoExpansion bool

	// noPopularity leaves the popularity signal out of semantic search,
	// for the evaluation to measure what it adds.
	noPopularity bool
	// candidates, when positive, replaces semanticCandidates (evaluation).
	candidates int
	// vectorWeight, when positive, replaces the weight of the vector
	// list in a search by meaning (evaluation).
	vectorWeight float64
	// traceLists, when set, is given the ranked lists of each search by
	// meaning and their weights before they are fused (evaluation).
	traceLists func(lists [][]int64, weights []float64)
}

// Vectorizer embeds text for the semantic backend's vector signal. The
// index stores chunk vectors made by the same model (analysis.Embedder),
// unless the model is cheap enough to embed a search's candidates as it
// runs (analysis.InlineEmbedder).
type Vectorizer interface {
	Model() string
	Embed(text string) []byte
	// Similarity compares two vectors made by Embed: higher is closer.
	Similarity(a, b []byte) float64
}

// Request is one search.
type Request struct {
	Query string `json:"query"`
	// TopK is how many results to return; 0 means DefaultTopK.
	TopK int `json:"top_k,omitempty"`
	// Strategy forces a strategy; "" routes the query.
	Strategy Strategy `json:"strategy,omitempty"`
	// Budget, when positive, returns each result's whole text (its
	// chunk, its definition) and cuts the results to that many tokens in
	// all; otherwise snippets are a few lines.
	Budget int `json:"budget,omitempty"`
	// Group, when GroupFiles, also returns the results as files, each
	// with its best functions and why it was chosen (Response.Files).
	Group string `json:"group,omitempty"`
}

// GroupFiles groups a search's results by file (Request.Group).
const GroupFiles = "files"

// Response is what a search found.
type Response struct {
	Query      string   `json:"query"`
	Strategy   Strategy `json:"strategy"`
	Confidence float64  `json:"confidence"`
	Reasoning  string   `json:"reasoning"`
	ElapsedMS  float64  `json:"elapsed_ms"`
	Results    []Result `json:"results"`
	// Total counts what the backends found before TopK: for a keyword
	// search, every occurrence; for the others, up to 100 results (or
	// TopK, when larger).
	Total int `json:"total"`
	// Partial is set when the index was still being built; Notice says
	// what else the user should know (a cut query, a missing symbol).
	Partial bool   `json:"partial,omitempty"`
	Notice  string `json:"notice,omitempty"`
	// Tokens is the size of the results' text when a budget applied.
	Tokens int `json:"tokens,omitempty"`
	// FeedbackID identifies the search for anchorage.search.used.
	FeedbackID int64 `json:"feedback_id,omitempty"`
	// Files are the results grouped by file, best first, when the
	// request asked for them (Request.Group).
	Files []FileResult `json:"files,omitempty"`
	// Evidence is what a task description mentions (files, modules,
	// names), for a task search.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Result is one place in the code that answers a query.
type Result struct {
	// File is relative to the workspace root, with forward slashes.
	File string `json:"file"`
	// Line and EndLine are 1-based.
	Line    int     `json:"line"`
	EndLine int     `json:"end_line"`
	Symbol  string  `json:"symbol"`
	Kind    string  `json:"kind"`
	Score   float64 `json:"score"`
	// Strategy is the backend that found it; MultiStrategy is set when
	// more than one did (a hybrid search).
	Strategy      Strategy `json:"strategy"`
	MultiStrategy bool     `json:"multi_strategy"`
	Snippet       string   `json:"snippet"`
	// Doc is the first line of the symbol's doc comment, when it has one.
	Doc string `json:"doc,omitempty"`
	// Truncated is set when the snippet was cut to fit the token budget.
	Truncated bool `json:"truncated,omitempty"`

	// node is the id of the result's symbol in the index, when known.
	node int64
}

// Query limits.
const (
	DefaultTopK = 10
	MaxTopK     = 1000
	// candidateResults is how many results the backends other than
	// keyword look for, to count them in Total.
	candidateResults = 100
	// snippetLines is how many lines of a result a snippet shows when no
	// token budget asks for whole texts.
	snippetLines = 12
)

// QueryError reports a query that cannot be searched: empty, not text, an
// invalid regular expression, an unknown strategy. Other errors are
// failures of the index.
type QueryError struct {
	Reason string
	Err    error
}

func (e *QueryError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *QueryError) Unwrap() error { return e.Err }

// ErrEmptyQuery reports a query with nothing to search for.
var ErrEmptyQuery = &QueryError{Reason: "empty query: type what to search for"}

// Search routes a query (unless the request forces a strategy), runs the
// backends and returns the best results.
func (s *Searcher) Search(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	query, notice, err := cleanQuery(req.Query)
	if err != nil {
		return nil, err
	}
	topK := req.TopK
	switch {
	case topK <= 0:
		topK = DefaultTopK
	case topK > MaxTopK:
		topK = MaxTopK
	}
	router := s.Router
	if router == nil {
		router = DefaultRouter()
	}
	var rt Route
	switch req.Strategy {
	case "":
		rt = router.Route(query)
	case Semantic, Structural, Keyword, Hybrid:
		// The router's own reading when it agrees, for its richer parts
		// (a regex, an operation); otherwise the strategy's prefix.
		if rt = router.Route(query); rt.Strategy == req.Strategy {
			break
		}
		bare := stripPrefix(query)
		if bare == "" {
			return nil, &QueryError{Reason: fmt.Sprintf("nothing to search for after %q", query)}
		}
		if rt = router.Route(bare); rt.Strategy != req.Strategy {
			rt = router.Route(string(req.Strategy) + ": " + bare)
			rt.Reasoning = "the strategy was chosen for this search"
		}
	default:
		return nil, &QueryError{Reason: fmt.Sprintf("unknown strategy %q: use semantic, structural, keyword or hybrid", req.Strategy)}
	}
	if (rt.Strategy == Semantic || rt.Strategy == Hybrid) && !rt.Task && req.Strategy != "" {
		// A task pasted with a forced semantic or hybrid strategy is
		// still a task: searched by its evidence, and for hybrid fused
		// with the graph around what that finds.
		if why := taskShape(query); why != "" {
			rt.Task, rt.Reasoning = true, rt.Reasoning+"; "+why+": searched as a task description"
		}
	}
	if !rt.Task && len(query) > MaxQuery {
		query = cutQuery(query, MaxQuery)
		notice = joinNotice(notice, fmt.Sprintf("the query was cut to its first %d bytes", MaxQuery))
	}
	resp := &Response{Query: query, Strategy: rt.Strategy, Confidence: rt.Confidence, Reasoning: rt.Reasoning, Results: []Result{}}
	if rt.Task {
		rt.SemanticQuery = query
	}
	found, files, err := s.run(ctx, rt, topK, resp)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 && req.Strategy == "" {
		// Nothing found, or the strategy could not run: the next one.
		if next, ok := fallback(rt, query); ok {
			resp.Strategy, resp.Reasoning = next.Strategy, rt.Reasoning+"; "+next.Reasoning
			rt = next
			found, files, err = s.run(ctx, rt, topK, resp)
			if err != nil {
				return nil, err
			}
		}
	}
	if len(found) > topK {
		found = found[:topK]
	}
	if req.Group == GroupFiles {
		if files == nil {
			files = groupByFile(found)
		}
		resp.Files = files[:min(len(files), topK)]
	}
	if err := s.fillText(ctx, found, req.Budget > 0); err != nil {
		return nil, err
	}
	if req.Budget > 0 {
		found, resp.Tokens = fitBudget(found, req.Budget, s.Budget)
	}
	resp.Results = append(resp.Results, found...)
	if notice != "" {
		resp.Notice = joinNotice(notice, resp.Notice)
	}
	if s.Partial != nil {
		if partial, why := s.Partial(); partial {
			resp.Partial = true
			resp.Notice = joinNotice(resp.Notice, "the index is still being built ("+why+"): results may be missing")
		}
	}
	if len(resp.Results) == 0 && resp.Notice == "" {
		resp.Notice = "nothing matched"
	}
	if s.Feedback != nil {
		// Statistics are secondary to the answer: a search that cannot be
		// recorded still answers, and says so.
		id, err := s.Feedback.Record(ctx, feedback.Entry{
			Query: query, Strategy: string(rt.Strategy), Confidence: rt.Confidence,
			Results: len(resp.Results), Root: s.Index.Root(),
		})
		if err != nil {
			resp.Notice = joinNotice(resp.Notice, "this search was not recorded for routing statistics: "+err.Error())
		}
		resp.FeedbackID = id
	}
	resp.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// run runs the backend a route names. Results of a task search come with
// their grouping by file.
func (s *Searcher) run(ctx context.Context, rt Route, topK int, resp *Response) ([]Result, []FileResult, error) {
	// The backends find up to want results, so that Total says how many
	// there were beyond TopK.
	want := max(topK, candidateResults)
	var (
		found []Result
		files []FileResult
		err   error
	)
	switch {
	case rt.Task && rt.Strategy == Hybrid:
		found, files, err = s.hybrid(ctx, rt, want, resp)
		resp.Total = len(found)
	case rt.Task:
		found, files, err = s.task(ctx, rt.SemanticQuery, topK, resp)
		resp.Total = len(found)
	case rt.Strategy == Keyword:
		found, resp.Total, err = s.keyword(ctx, rt, topK, resp)
	case rt.Strategy == Structural:
		found, err = s.structural(ctx, rt, want, resp)
		resp.Total = len(found)
	case rt.Strategy == Semantic:
		found, files, err = s.semanticLevels(ctx, rt.SemanticQuery, want)
		resp.Total = len(found)
	case rt.Strategy == Hybrid:
		found, files, err = s.hybrid(ctx, rt, want, resp)
		resp.Total = len(found)
	}
	return found, files, err
}

// fallback returns the strategy to try when a routed one found nothing:
// a search by meaning after an exact-text search for what the router took
// for a fragment of code in a sentence. An exact text or a symbol the user
// asked for that is not there is an answer in itself ("nothing matched",
// "no symbol named X, did you mean …"), not a reason to show other code.
//
// Quoted text inside a sentence is the exception: "split 'John Smith
// <john@example.com>' into the name and the address" quotes an example
// of the input, and when that text is nowhere in the code the sentence
// is still a question.
func fallback(rt Route, query string) (Route, bool) {
	if rt.Task || rt.Strategy != Keyword || len(strings.Fields(query)) < 3 {
		return Route{}, false
	}
	if rt.Confidence > fragmentConfidence && !quotedInProse(rt, query) {
		return Route{}, false
	}
	return Route{Strategy: Semantic, Confidence: 0.5, SemanticQuery: query,
		Reasoning: "the exact-text search found nothing, so the query was searched by meaning"}, true
}

// quotedInProse reports whether a keyword route searches for text the
// query quotes in a sentence of at least three more words, rather than
// for text the query asks to grep for ("grep for 'x'", a regular
// expression), which routes with a higher confidence.
func quotedInProse(rt Route, query string) bool {
	kq := rt.KeywordQuery
	if rt.KeywordRegex || kq == "" || rt.Confidence >= 0.95 {
		return false
	}
	for _, q := range [][2]string{{"'", "'"}, {`"`, `"`}, {"`", "`"}, {"“", "”"}, {"‘", "’"}} {
		quoted := q[0] + kq + q[1]
		if i := strings.Index(query, quoted); i >= 0 {
			return len(strings.Fields(query[:i]+" "+query[i+len(quoted):])) >= 3
		}
	}
	return false
}

// groupByFile groups results by file, in the order of each file's best.
func groupByFile(rs []Result) []FileResult {
	var out []FileResult
	at := map[string]int{}
	for _, r := range rs {
		i, ok := at[r.File]
		if !ok {
			i = len(out)
			at[r.File] = i
			out = append(out, FileResult{File: r.File, Score: r.Score, Why: []string{"found by the " + string(r.Strategy) + " search"}})
		}
		if len(out[i].Functions) < taskFunctions {
			out[i].Functions = append(out[i].Functions, r)
		}
	}
	return out
}

// cutQuery cuts q to at most n bytes at a character boundary.
func cutQuery(q string, n int) string {
	if len(q) <= n {
		return q
	}
	for n > 0 && !utf8.RuneStart(q[n]) {
		n--
	}
	return strings.TrimSpace(q[:n])
}

// cleanQuery checks a query: empty and binary ones are refused, and one
// longer than MaxTaskQuery is cut, with a notice saying so.
func cleanQuery(q string) (string, string, error) {
	if problem := NotText(q); problem != "" {
		return "", "", &QueryError{Reason: "the query is not text: " + problem}
	}
	q = strings.TrimSpace(q)
	if q == "" {
		return "", "", ErrEmptyQuery
	}
	notice := ""
	if len(q) > MaxTaskQuery {
		q = cutQuery(q, MaxTaskQuery)
		notice = fmt.Sprintf("the query was cut to its first %d bytes", MaxTaskQuery)
	}
	return q, notice, nil
}

// NotText says why s is not text a person typed — it holds NUL bytes,
// invalid UTF-8 or a control character other than tabs and line breaks —
// or returns "" when it is text. Queries and rules are checked with it.
func NotText(s string) string {
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return "it holds NUL bytes or invalid UTF-8"
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return fmt.Sprintf("it holds the control character %U", r)
		}
	}
	return ""
}

// stripPrefix removes a strategy prefix the user typed ("kw: TODO").
func stripPrefix(q string) string {
	if i := strings.IndexByte(q, ':'); i > 0 && i <= len("structural") {
		switch strings.ToLower(q[:i]) {
		case "kw", "key", "keyword", "grep", "re", "regex", "sym", "symbol", "struct", "structural", "sem", "semantic", "hyb", "hybrid":
			return strings.TrimSpace(q[i+1:])
		}
	}
	return q
}

func joinNotice(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
