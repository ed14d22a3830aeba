package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/budget"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// searchFixture is a Searcher over a private copy of the sample app, with
// word vectors and routing feedback in temporary directories.
type searchFixture struct {
	root string
	s    *Searcher
	fb   *feedback.Store
}

// newSearchFixture copies testdata/sampleapp into a temporary directory,
// adds the extra files (root-relative path → text), indexes it and returns
// a Searcher over it.
func newSearchFixture(tb testing.TB, extra map[string]string) *searchFixture {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		tb.Fatal(err)
	}
	writeFixtureFiles(tb, root, extra)
	vec, err := NewWordVectors()
	if err != nil {
		tb.Fatal(err)
	}
	return indexSearchFixture(tb, root, vec)
}

// writeFixtureFiles writes files (root-relative path → text) under root.
func writeFixtureFiles(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// indexSearchFixture indexes root and returns a Searcher over it with the
// word vectors vec.
func indexSearchFixture(tb testing.TB, root string, vec *WordVectors) *searchFixture {
	tb.Helper()
	ctx := context.Background()
	state := tb.TempDir()
	ix, err := analysis.Open(ctx, analysis.Options{
		Root: root, DBPath: filepath.Join(state, "index.db"), Workers: runtime.NumCPU(), Embedder: vec,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	fb, err := feedback.Open(ctx, filepath.Join(state, "memory.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fb.Close() })
	return &searchFixture{root: root, s: &Searcher{Index: ix, Vectors: vec, Feedback: fb}, fb: fb}
}

// search runs a search that must succeed.
func (fx *searchFixture) search(t *testing.T, req Request) *Response {
	t.Helper()
	resp, err := fx.s.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	if resp == nil {
		t.Fatalf("Search(%+v): nil response and no error", req)
	}
	return resp
}

// lines returns the lines of a root-relative file, without their "\n".
func (fx *searchFixture) lines(t *testing.T, rel string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("result file %s: %v", rel, err)
	}
	ls := strings.Split(string(b), "\n")
	if len(ls) > 1 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1] // the final line break ends the last line
	}
	return ls
}

// lineOf returns the 1-based line of the first occurrence of text in a
// root-relative file.
func (fx *searchFixture) lineOf(t *testing.T, rel, text string) int {
	t.Helper()
	for i, l := range fx.lines(t, rel) {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%q is not in %s", text, rel)
	return 0
}

// truncationMarker starts the line budget.Truncate ends a cut text with.
var truncationMarker = regexp.MustCompile(`\n?… \[truncated: \d+ of \d+ tokens shown\]$`)

// checkResults checks what every response must satisfy: the JSON shape,
// relative '/'-separated paths of files that exist, 1-based lines within
// the file, scores in decreasing order, and snippets that are the file's
// text at those lines (whole when whole is set, else at most 12 lines).
func (fx *searchFixture) checkResults(t *testing.T, resp *Response, whole bool) {
	t.Helper()
	checkJSONShape(t, resp)
	if resp.Query == "" || resp.Reasoning == "" {
		t.Errorf("query %q, reasoning %q: want both", resp.Query, resp.Reasoning)
	}
	if !slices.Contains([]Strategy{Semantic, Structural, Keyword, Hybrid}, resp.Strategy) {
		t.Errorf("strategy %q", resp.Strategy)
	}
	if resp.Confidence < 0 || resp.Confidence > 1 {
		t.Errorf("confidence %v, want within [0, 1]", resp.Confidence)
	}
	if resp.Total < len(resp.Results) {
		t.Errorf("total %d < %d results", resp.Total, len(resp.Results))
	}
	for i, r := range resp.Results {
		where := fmt.Sprintf("result %d (%s:%d %s)", i, r.File, r.Line, r.Symbol)
		if r.File == "" || filepath.IsAbs(r.File) || strings.Contains(r.File, `\`) || path.Clean(r.File) != r.File || strings.HasPrefix(r.File, "../") {
			t.Errorf("%s: file %q is not a clean relative '/'-separated path", where, r.File)
			continue
		}
		lines := fx.lines(t, r.File)
		if r.Line < 1 || r.EndLine < r.Line || r.EndLine > len(lines) {
			t.Errorf("%s: lines %d-%d, want 1 ≤ line ≤ end_line ≤ %d (the file's lines)", where, r.Line, r.EndLine, len(lines))
			continue
		}
		if r.Score <= 0 {
			t.Errorf("%s: score %v, want > 0", where, r.Score)
		}
		if i > 0 && r.Score > resp.Results[i-1].Score {
			t.Errorf("%s: score %v above the previous result's %v", where, r.Score, resp.Results[i-1].Score)
		}
		switch r.Strategy {
		case Semantic, Structural, Keyword, Hybrid:
		default:
			t.Errorf("%s: strategy %q", where, r.Strategy)
		}
		if r.MultiStrategy != (r.Strategy == Hybrid) {
			t.Errorf("%s: strategy %q with multi_strategy %v", where, r.Strategy, r.MultiStrategy)
		}
		if r.Strategy != Keyword && r.Kind == "" {
			t.Errorf("%s: no kind", where)
		}
		if !utf8.ValidString(r.Snippet) || r.Snippet == "" {
			t.Errorf("%s: snippet %q, want valid non-empty text", where, r.Snippet)
			continue
		}
		if r.Strategy == Keyword {
			if want := strings.TrimSpace(lines[r.Line-1]); len(want) <= 200 && r.Snippet != want {
				t.Errorf("%s: snippet %q, want the line %q", where, r.Snippet, want)
			}
			continue
		}
		to := r.EndLine
		if !whole {
			to = min(to, r.Line-1+snippetLines)
			if n := len(strings.Split(strings.TrimRight(r.Snippet, "\n"), "\n")); n > snippetLines {
				t.Errorf("%s: snippet of %d lines, want at most %d", where, n, snippetLines)
			}
		}
		want := strings.TrimRight(strings.Join(lines[r.Line-1:to], "\n"), "\r\n ")
		got := strings.TrimRight(r.Snippet, "\r\n ")
		if r.Truncated {
			got = truncationMarker.ReplaceAllString(r.Snippet, "")
			if got == r.Snippet && r.Snippet != "…" {
				t.Errorf("%s: truncated snippet without the truncation marker: %q", where, r.Snippet)
			}
			if !strings.HasPrefix(want, got) {
				t.Errorf("%s: truncated snippet\n%s\nis not a prefix of lines %d-%d:\n%s", where, got, r.Line, to, want)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: snippet\n%s\nwant lines %d-%d of the file:\n%s", where, got, r.Line, to, want)
		}
	}
}

// checkJSONShape checks the JSON fields of a response and its results.
func checkJSONShape(t *testing.T, resp *Response) {
	t.Helper()
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"query", "strategy", "confidence", "reasoning", "elapsed_ms", "results", "total"} {
		if _, ok := m[k]; !ok {
			t.Errorf("response JSON has no %q: %s", k, b)
		}
	}
	for k, present := range map[string]bool{"partial": resp.Partial, "notice": resp.Notice != "", "tokens": resp.Tokens != 0, "feedback_id": resp.FeedbackID != 0} {
		if _, ok := m[k]; ok != present {
			t.Errorf("response JSON has %q: %v, want %v: %s", k, ok, present, b)
		}
	}
	var results []map[string]json.RawMessage
	if err := json.Unmarshal(m["results"], &results); err != nil || results == nil {
		t.Fatalf("results %s (%v): want a list, [] when empty", m["results"], err)
	}
	for i, r := range results {
		for _, k := range []string{"file", "line", "end_line", "symbol", "kind", "score", "strategy", "multi_strategy", "snippet"} {
			if _, ok := r[k]; !ok {
				t.Errorf("result %d JSON has no %q", i, k)
			}
		}
		if _, ok := r["truncated"]; ok != resp.Results[i].Truncated {
			t.Errorf("result %d JSON has \"truncated\": %v, want %v", i, ok, resp.Results[i].Truncated)
		}
	}
}

// sourceFiles returns the text of every file the index holds, by
// root-relative path: the files a keyword search searches.
func (fx *searchFixture) sourceFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := fx.s.Index.FilePaths(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(fx.root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}

// TestSearch runs the tests that share one index of the sample app, in
// parallel: a Searcher is safe for concurrent use.
func TestSearch(t *testing.T) {
	fx := newSearchFixture(t, nil)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *searchFixture)
	}{
		{"Strategies", testSearchStrategies},
		{"ForcedStrategy", testSearchForcedStrategy},
		{"BadQueries", testSearchBadQueries},
		{"LongQuery", testSearchLongQuery},
		{"Task", testSearchTask},
		{"Keyword", testSearchKeyword},
		{"KeywordOverlay", testSearchKeywordOverlay},
		{"Structural", testSearchStructural},
		{"Hybrid", testSearchHybrid},
		{"Budget", testSearchBudget},
		{"Partial", testSearchPartial},
		{"Feedback", testSearchFeedback},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, fx)
		})
	}
}

// withFreshFeedback returns the fixture with a Searcher of its own that
// records searches in a new, empty feedback store.
func (fx *searchFixture) withFreshFeedback(tb testing.TB) *searchFixture {
	tb.Helper()
	fb, err := feedback.Open(context.Background(), filepath.Join(tb.TempDir(), "memory.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fb.Close() })
	s := *fx.s
	s.Feedback = fb
	return &searchFixture{root: fx.root, s: &s, fb: fb}
}

func testSearchStrategies(t *testing.T, fx *searchFixture) {
	tests := []struct {
		name  string
		req   Request
		want  Strategy
		files []string // files that must be among the results (not for rankings)
	}{
		{"semantic", Request{Query: "how are users loaded from the database"}, Semantic, nil},
		{"structural", Request{Query: "who calls FindByID"}, Structural, []string{"users/service.go"}},
		{"structural definition", Request{Query: "UserRepository"}, Structural, []string{"users/repo.go", "java/src/main/java/com/example/users/UserRepository.java"}},
		{"structural imports", Request{Query: "what imports internal/db"}, Structural, []string{"users/repo.go", "cmd/server/main.go"}},
		{"keyword", Request{Query: `lines containing "FindByID"`}, Keyword, []string{"users/repo.go", "users/service.go", "users/user.go"}},
		{"keyword regex", Request{Query: `re: func \(\w+ \*\w+\) \w+`}, Keyword, []string{"users/repo.go"}},
		{"hybrid", Request{Query: "the user repository and what depends on it"}, Hybrid, nil},
		{"hybrid everything", Request{Query: "everything about users"}, Hybrid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := fx.search(t, tt.req)
			if resp.Strategy != tt.want {
				t.Fatalf("strategy %s (%s), want %s", resp.Strategy, resp.Reasoning, tt.want)
			}
			if len(resp.Results) == 0 {
				t.Fatalf("no results; notice %q", resp.Notice)
			}
			if len(resp.Results) > DefaultTopK {
				t.Errorf("%d results, want at most the default top k %d", len(resp.Results), DefaultTopK)
			}
			fx.checkResults(t, resp, false)
			var files []string
			for _, r := range resp.Results {
				files = append(files, r.File)
			}
			for _, f := range tt.files {
				if !slices.Contains(files, f) {
					t.Errorf("results %v lack %s", files, f)
				}
			}
		})
	}
}

func testSearchForcedStrategy(t *testing.T, fx *searchFixture) {
	count := 0
	for _, text := range fx.sourceFiles(t) {
		count += strings.Count(text, "FindByID")
	}
	tests := []struct {
		name     string
		req      Request
		want     Strategy
		resultIn []Strategy // strategies its results may have
	}{
		{"routed identifier", Request{Query: "FindByID"}, Structural, []Strategy{Structural}},
		{"forced structural, as routed", Request{Query: "FindByID", Strategy: Structural}, Structural, []Strategy{Structural}},
		{"forced keyword", Request{Query: "FindByID", Strategy: Keyword}, Keyword, []Strategy{Keyword}},
		{"forced semantic", Request{Query: "FindByID", Strategy: Semantic}, Semantic, []Strategy{Semantic}},
		{"forced hybrid", Request{Query: "FindByID", Strategy: Hybrid}, Hybrid, []Strategy{Semantic, Structural, Hybrid}},
		{"prefix", Request{Query: "kw: FindByID"}, Keyword, []Strategy{Keyword}},
		{"forced over a prefix", Request{Query: "kw: FindByID", Strategy: Semantic}, Semantic, []Strategy{Semantic}},
		{"forced semantic over a structural question", Request{Query: "who calls FindByID", Strategy: Semantic}, Semantic, []Strategy{Semantic}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := fx.search(t, tt.req)
			if resp.Strategy != tt.want {
				t.Fatalf("strategy %s (%s), want %s", resp.Strategy, resp.Reasoning, tt.want)
			}
			if len(resp.Results) == 0 {
				t.Fatalf("no results; notice %q", resp.Notice)
			}
			fx.checkResults(t, resp, false)
			for _, r := range resp.Results {
				if !slices.Contains(tt.resultIn, r.Strategy) {
					t.Errorf("result %s:%d found by %s, want one of %v", r.File, r.Line, r.Strategy, tt.resultIn)
				}
			}
			if tt.want == Keyword && resp.Total != count {
				t.Errorf("total %d, want the %d occurrences of FindByID", resp.Total, count)
			}
		})
	}
	t.Run("routed question", func(t *testing.T) {
		routed := fx.search(t, Request{Query: "who calls FindByID"})
		forced := fx.search(t, Request{Query: "who calls FindByID", Strategy: Structural})
		if routed.Strategy != Structural || forced.Strategy != Structural {
			t.Fatalf("strategies %s and %s, want structural", routed.Strategy, forced.Strategy)
		}
		if !slices.EqualFunc(routed.Results, forced.Results, func(a, b Result) bool { return a.File == b.File && a.Symbol == b.Symbol }) {
			t.Errorf("forcing the strategy the router chose changed the results:\n%+v\n%+v", routed.Results, forced.Results)
		}
	})
}

func testSearchBadQueries(t *testing.T, fx *searchFixture) {
	fx = fx.withFreshFeedback(t)
	tests := []struct {
		name     string
		req      Request
		empty    bool   // errors.Is ErrEmptyQuery
		contains string // in the error's message
	}{
		{"empty", Request{Query: ""}, true, "empty query"},
		{"spaces", Request{Query: "   "}, true, "empty query"},
		{"whitespace", Request{Query: " \t\r\n "}, true, "empty query"},
		{"NUL", Request{Query: "Find\x00ByID"}, false, "not text"},
		{"invalid UTF-8", Request{Query: "Find\xffByID"}, false, "not text"},
		{"truncated UTF-8", Request{Query: "caf\xc3"}, false, "not text"},
		{"control character", Request{Query: "who calls \x01FindByID"}, false, "U+0001"},
		{"escape sequence", Request{Query: "\x1b[31mFindByID"}, false, "U+001B"},
		{"DEL", Request{Query: "FindByID\x7f"}, false, "U+007F"},
		{"C1 control", Request{Query: "FindByID\u0085"}, false, "U+0085"},
		{"vertical tab", Request{Query: "\v"}, false, "U+000B"},
		{"unknown strategy", Request{Query: "FindByID", Strategy: "fuzzy"}, false, `unknown strategy "fuzzy"`},
		{"strategy in capitals", Request{Query: "FindByID", Strategy: "Keyword"}, false, `unknown strategy "Keyword"`},
		{"invalid regex", Request{Query: "re: Find("}, false, "missing closing )"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := fx.s.Search(context.Background(), tt.req)
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("Search(%q) = %+v, %v; want a *QueryError", tt.req.Query, resp, err)
			}
			if resp != nil {
				t.Errorf("a response with the error: %+v", resp)
			}
			if errors.Is(err, ErrEmptyQuery) != tt.empty {
				t.Errorf("errors.Is(%v, ErrEmptyQuery) = %v, want %v", err, !tt.empty, tt.empty)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not say %q", err, tt.contains)
			}
		})
	}
	t.Run("not recorded", func(t *testing.T) {
		stats, err := fx.fb.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(stats) != 0 {
			t.Errorf("refused queries were recorded: %+v", stats)
		}
	})
}

func testSearchLongQuery(t *testing.T, fx *searchFixture) {
	tests := []struct {
		name  string
		query string
		// limit is where the query is cut: a task is read up to
		// MaxTaskQuery, a search box query up to MaxQuery.
		limit int
		task  bool
	}{
		{"task of many words", strings.Repeat("how are users loaded from the database ", 10<<10/39+1), MaxTaskQuery, true},
		{"task over its limit", strings.Repeat("how are users loaded from the database ", 100<<10/39+1), MaxTaskQuery, true},
		{"multi-byte at the cut", "how are users loaded " + strings.Repeat("日本", 10<<10/6), MaxQuery, false},
		{"one long word", strings.Repeat("x", 10<<10), MaxQuery, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.query) < 10<<10 {
				t.Fatalf("query of %d bytes, want 10 KB", len(tt.query))
			}
			resp := fx.search(t, Request{Query: tt.query})
			if len(resp.Query) > tt.limit || !utf8.ValidString(resp.Query) || !strings.HasPrefix(tt.query, resp.Query) {
				t.Errorf("query of %d bytes answered as one of %d bytes (valid UTF-8: %v), want a prefix of at most %d", len(tt.query), len(resp.Query), utf8.ValidString(resp.Query), tt.limit)
			}
			cut := len(strings.TrimSpace(tt.query)) > tt.limit
			if want := fmt.Sprintf("cut to its first %d bytes", tt.limit); strings.Contains(resp.Notice, want) != cut {
				t.Errorf("notice %q: want it to say %q: %v", resp.Notice, want, cut)
			}
			if tt.task && (resp.Strategy != Semantic || !strings.Contains(resp.Reasoning, "task description") || len(resp.Results) == 0) {
				t.Errorf("strategy %s (%s) with %d results, want a task search with results", resp.Strategy, resp.Reasoning, len(resp.Results))
			}
			fx.checkResults(t, resp, false)
		})
	}
	t.Run("exactly the limit", func(t *testing.T) {
		q := strings.Repeat("a", MaxQuery-len("users ")) + " users"
		resp := fx.search(t, Request{Query: q})
		if resp.Query != q || strings.Contains(resp.Notice, "cut") {
			t.Errorf("a query of %d bytes was cut: %q", len(q), resp.Notice)
		}
	})
}

// testSearchTask searches pasted tasks: their files, modules and names
// are resolved through the graph, the files come grouped with why, and
// bad input answers without failing.
func testSearchTask(t *testing.T, fx *searchFixture) {
	traceback := "Retrying jobs never stops after an I/O error\n\nWhen the e-mail job fails, the worker keeps going:\n\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/srv/app/worker/runner.py\", line 40, in run_all\n    self._run_one(job)\n" +
		"  File \"/srv/app/worker/jobs.py\", line 20, in wrapper\n    return fn(*args, **kwargs)\n" +
		"OSError: [Errno 111] Connection refused\n"
	t.Run("traceback", func(t *testing.T) {
		resp := fx.search(t, Request{Query: traceback, Group: GroupFiles})
		if !strings.Contains(resp.Reasoning, "task description") || len(resp.Files) < 2 {
			t.Fatalf("reasoning %q with %d files, want a task search", resp.Reasoning, len(resp.Files))
		}
		top := []string{resp.Files[0].File, resp.Files[1].File}
		slices.Sort(top)
		if !slices.Equal(top, []string{"worker/jobs.py", "worker/runner.py"}) {
			t.Errorf("first files %v, want the two files of the traceback", top)
		}
		for _, f := range resp.Files[:2] {
			if !slices.ContainsFunc(f.Why, func(w string) bool { return strings.Contains(w, "traceback") }) || len(f.Functions) == 0 {
				t.Errorf("%s: why %q, %d functions; want it named in the traceback, with its functions", f.File, f.Why, len(f.Functions))
			}
		}
		if resp.Evidence == nil || !slices.ContainsFunc(resp.Evidence.Names, func(m Mention) bool { return m.Text == "run_all" && m.Source == "traceback" }) {
			t.Errorf("evidence %+v, want run_all from the traceback", resp.Evidence)
		}
		fx.checkResults(t, resp, false)
	})
	t.Run("forced hybrid", func(t *testing.T) {
		// A task forced to hybrid search is searched by its evidence too,
		// then fused with the graph around what that finds.
		resp := fx.search(t, Request{Query: traceback, Strategy: Hybrid, Group: GroupFiles})
		if resp.Strategy != Hybrid || !strings.Contains(resp.Reasoning, "task description") {
			t.Fatalf("%s search, reasoning %q: want hybrid, searched as a task description", resp.Strategy, resp.Reasoning)
		}
		if resp.Evidence == nil || !slices.ContainsFunc(resp.Evidence.Names, func(m Mention) bool { return m.Text == "run_all" && m.Source == "traceback" }) {
			t.Errorf("evidence %+v, want run_all from the traceback", resp.Evidence)
		}
		if len(resp.Files) < 2 {
			t.Fatalf("%d files, want the files of the traceback", len(resp.Files))
		}
		top := []string{resp.Files[0].File, resp.Files[1].File}
		slices.Sort(top)
		if !slices.Equal(top, []string{"worker/jobs.py", "worker/runner.py"}) {
			t.Errorf("first files %v, want the two files of the traceback", top)
		}
		var multi bool
		for _, r := range resp.Results {
			multi = multi || r.MultiStrategy
		}
		if len(resp.Results) == 0 || !slices.ContainsFunc(resp.Results[:min(3, len(resp.Results))], func(r Result) bool {
			return r.File == "worker/runner.py" || r.File == "worker/jobs.py"
		}) {
			t.Errorf("first results %+v, want a function of the traceback's files", resp.Results[:min(3, len(resp.Results))])
		}
		if !multi {
			t.Errorf("no result found by both the task search and the graph: %+v", resp.Results)
		}
		fx.checkResults(t, resp, false)
	})
	t.Run("names in prose", func(t *testing.T) {
		q := "The `FindByID` method of `UserRepository` returns a nil user and no error when the row is missing, " +
			"so `Service.GetUser` then panics on the nil pointer. It should return ErrNotFound like the other lookups do, " +
			"and the handler should answer 404 instead of a 500 with an empty body."
		resp := fx.search(t, Request{Query: q, Group: GroupFiles})
		var top []string
		for _, f := range resp.Files[:min(2, len(resp.Files))] {
			top = append(top, f.File)
		}
		slices.Sort(top)
		if !slices.Equal(top, []string{"users/repo.go", "users/service.go"}) {
			t.Fatalf("first files %v, want the files that define the names the task mentions", top)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		var log strings.Builder
		for i := range 5000 {
			fmt.Fprintf(&log, "2026-11-25T10:00:%02d INFO request %d served in %d ms\n", i%60, i, i%97)
		}
		for name, q := range map[string]string{
			"100 KB of pasted text":  strings.Repeat("The worker loads users from the database and retries. ", 100<<10/55+1),
			"a 5,000-line log":       log.String(),
			"only punctuation":       strings.Repeat("!?.,;:-()[]{} ", 40),
			"diff of a missing file": "diff --git a/nowhere/gone.py b/nowhere/gone.py\n--- a/nowhere/gone.py\n+++ b/nowhere/gone.py\n@@ -1,2 +1,2 @@ def vanished\n-x = 1\n+x = 2\n",
			"unknown names":          "Calling `frobnicate_widgets()` on a `QuuxManager` raises ZorbError in module `nothing.here.at_all` " + strings.Repeat("again and again ", 20),
			"a traceback of nothing": "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nNameError: name 'x' is not defined",
		} {
			t.Run(name, func(t *testing.T) {
				resp, err := fx.s.Search(context.Background(), Request{Query: q, Group: GroupFiles})
				if err != nil {
					var qe *QueryError
					if !errors.As(err, &qe) || strings.Contains(err.Error(), "pattern") {
						t.Fatalf("error %v, want an answer or a clear query error", err)
					}
					return
				}
				if len(resp.Query) > MaxTaskQuery || (len(resp.Results) == 0) != (resp.Notice != "" && len(resp.Files) == 0) && len(resp.Results) == 0 {
					t.Errorf("query of %d bytes, %d results, notice %q", len(resp.Query), len(resp.Results), resp.Notice)
				}
				fx.checkResults(t, resp, false)
			})
		}
	})
}

func TestSearchTopK(t *testing.T) {
	t.Parallel()
	const many = MaxTopK + 20
	var gen strings.Builder
	gen.WriteString("package gen\n\n")
	for range many {
		gen.WriteString("// manyoccurrences\n")
	}
	gen.WriteString("func Gen() {}\n")
	fx := newSearchFixture(t, map[string]string{"gen/many.go": gen.String()})
	tests := []struct {
		name string
		topK int
		want int
	}{
		{"zero is the default", 0, DefaultTopK},
		{"negative is the default", -5, DefaultTopK},
		{"one", 1, 1},
		{"three", 3, 3},
		{"huge is capped", 1 << 30, MaxTopK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := fx.search(t, Request{Query: "kw: manyoccurrences", TopK: tt.topK})
			if len(resp.Results) != tt.want || resp.Total != many {
				t.Errorf("top_k %d: %d results of %d, want %d of %d", tt.topK, len(resp.Results), resp.Total, tt.want, many)
			}
			for i, r := range resp.Results {
				if r.File != "gen/many.go" || r.Line != i+3 {
					t.Errorf("result %d at %s:%d, want gen/many.go:%d", i, r.File, r.Line, i+3)
					break
				}
			}
		})
	}
	for _, q := range []string{"how are users loaded from the database", "who calls FindByID", "everything about users"} {
		t.Run("huge "+q, func(t *testing.T) {
			resp := fx.search(t, Request{Query: q, TopK: 1 << 30})
			if len(resp.Results) > MaxTopK || len(resp.Results) == 0 {
				t.Errorf("%d results, want 1 to %d", len(resp.Results), MaxTopK)
			}
			fx.checkResults(t, resp, false)
		})
	}
}

func testSearchKeyword(t *testing.T, fx *searchFixture) {
	files := fx.sourceFiles(t)
	// countLines counts the matches of re in each line of every file.
	countLines := func(re *regexp.Regexp) int {
		n := 0
		for _, text := range files {
			for _, l := range strings.Split(text, "\n") {
				n += len(re.FindAllStringIndex(strings.TrimSuffix(l, "\r"), -1))
			}
		}
		return n
	}
	tests := []struct {
		name  string
		query string
		match *regexp.Regexp // what the query matches, line by line
		regex bool
	}{
		{"literal with a capital: case-sensitive", "kw: FindByID", regexp.MustCompile(`FindByID`), false},
		{"lower case: case-insensitive", "kw: user", regexp.MustCompile(`(?i)user`), false},
		{"quoted", `lines containing "ctx context.Context"`, regexp.MustCompile(regexp.QuoteMeta("ctx context.Context")), false},
		{"regex", `re: Find\w+`, regexp.MustCompile(`Find\w+`), true},
		{"regex in slashes", `/func \(\w+ \*\w+\)/`, regexp.MustCompile(`func \(\w+ \*\w+\)`), true},
		{"regex alternatives", `re: (?:GetUser|Rename)\(`, regexp.MustCompile(`(?:GetUser|Rename)\(`), true},
		{"regex metacharacters as a literal", `kw: s.repo.FindByID(ctx, id)`, regexp.MustCompile(regexp.QuoteMeta("s.repo.FindByID(ctx, id)")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := countLines(tt.match)
			if want == 0 {
				t.Fatalf("%s matches nothing in the sample app", tt.match)
			}
			resp := fx.search(t, Request{Query: tt.query, TopK: 3})
			if resp.Strategy != Keyword {
				t.Fatalf("strategy %s (%s), want keyword", resp.Strategy, resp.Reasoning)
			}
			if resp.Total != want {
				t.Errorf("total %d, want every occurrence: %d", resp.Total, want)
			}
			if len(resp.Results) != min(3, want) {
				t.Errorf("%d results, want %d", len(resp.Results), min(3, want))
			}
			fx.checkResults(t, resp, false)
			for _, r := range resp.Results {
				if line := fx.lines(t, r.File)[r.Line-1]; !tt.match.MatchString(line) {
					t.Errorf("%s:%d %q does not match %s", r.File, r.Line, line, tt.match)
				}
			}
		})
	}
	t.Run("every match is listed in order", func(t *testing.T) {
		resp := fx.search(t, Request{Query: "kw: FindByID", TopK: 100})
		var got, want []string
		for _, r := range resp.Results {
			got = append(got, fmt.Sprintf("%s:%d", r.File, r.Line))
		}
		paths, err := fx.s.Index.FilePaths(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			for i, l := range strings.Split(files[p], "\n") {
				for range strings.Count(l, "FindByID") {
					want = append(want, fmt.Sprintf("%s:%d", p, i+1))
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("matches %v, want %v", got, want)
		}
	})
	t.Run("enclosing symbol", func(t *testing.T) {
		resp := fx.search(t, Request{Query: "kw: s.repo.FindByID"})
		if len(resp.Results) != 1 || resp.Results[0].Symbol != "Service.GetUser" || resp.Results[0].Kind != "method" ||
			resp.Results[0].Line != fx.lineOf(t, "users/service.go", "s.repo.FindByID") {
			t.Errorf("results %+v, want one in method Service.GetUser", resp.Results)
		}
	})
	t.Run("secrets are not searched", func(t *testing.T) {
		resp := fx.search(t, Request{Query: "kw: example-not-a-real-key"})
		if resp.Total != 0 || len(resp.Results) != 0 {
			t.Errorf("found the .env secret: %+v", resp.Results)
		}
		if resp.Notice != "nothing matched" {
			t.Errorf("notice %q, want nothing matched", resp.Notice)
		}
	})
	badRegex := []struct {
		query, says string
	}{
		{"re: Find(", `invalid regular expression "Find(": missing closing )`},
		{"/[z-a]/", `invalid regular expression "[z-a]": invalid character class range`},
		{`re: a\`, `invalid regular expression "a\\": trailing backslash`},
		{"re: x{2,1}", `invalid regular expression "x{2,1}": invalid repeat count`},
		{"re: a*", "can match the empty string"},
	}
	for _, tt := range badRegex {
		t.Run("bad regex "+tt.query, func(t *testing.T) {
			resp, err := fx.s.Search(context.Background(), Request{Query: tt.query})
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("Search(%q) = %+v, %v; want a *QueryError", tt.query, resp, err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
		})
	}
}

func testSearchKeywordOverlay(t *testing.T, fx *searchFixture) {
	const rel = "users/service.go"
	disk := strings.Join(fx.lines(t, rel), "\n") + "\n"
	edited := strings.Replace(disk, "// GetUser returns", "// overlayonlyword marks an unsaved edit.\n// GetUser returns", 1)
	edited = strings.Replace(edited, "// Rename changes", "// Renames changes", 1)
	s := *fx.s
	s.Overlay = func(p string) ([]byte, bool) {
		if p == rel {
			return []byte(edited), true
		}
		return nil, false
	}
	editedLine := func(text string) int {
		for i, l := range strings.Split(edited, "\n") {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("%q not in the edit", text)
		return 0
	}
	tests := []struct {
		name  string
		query string
		file  string
		line  int // 0: no match
	}{
		{"only in the overlay", "kw: overlayonlyword", rel, editedLine("overlayonlyword")},
		{"moved by the overlay", "kw: s.repo.FindByID", rel, editedLine("s.repo.FindByID")},
		{"only on disk", "kw: Rename changes", "", 0},
		{"other files from disk", "kw: func (r *UserRepository) FindByID", "users/repo.go", fx.lineOf(t, "users/repo.go", "func (r *UserRepository) FindByID")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Search(context.Background(), Request{Query: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if tt.line == 0 {
				if resp.Total != 0 {
					t.Errorf("found %+v, want nothing: the overlay replaces the file on disk", resp.Results)
				}
				return
			}
			if resp.Total != 1 || len(resp.Results) != 1 || resp.Results[0].File != tt.file || resp.Results[0].Line != tt.line {
				t.Errorf("results %+v (total %d), want one at %s:%d", resp.Results, resp.Total, tt.file, tt.line)
			}
		})
	}
	t.Run("disk without the overlay", func(t *testing.T) {
		resp := fx.search(t, Request{Query: "kw: overlayonlyword"})
		if resp.Total != 0 {
			t.Errorf("found the overlay's word on disk: %+v", resp.Results)
		}
	})
}

func testSearchStructural(t *testing.T, fx *searchFixture) {
	type want struct {
		file, symbol, kind, line string // line: text on the result's first line
	}
	tests := []struct {
		name   string
		query  string
		want   []want // exactly these, in order
		notice string
	}{
		{"callers", "who calls FindByID", []want{{"users/service.go", "Service.GetUser", "method", "func (s *Service) GetUser"}}, ""},
		{"callers of a qualified name", "what calls UserRepository.FindByID", []want{{"users/service.go", "Service.GetUser", "method", "func (s *Service) GetUser"}}, ""},
		{"callees", "what does Service.GetUser call", []want{{"users/repo.go", "UserRepository.FindByID", "method", "func (r *UserRepository) FindByID"}}, ""},
		{"subclasses", "subclasses of Job", []want{{"worker/jobs.py", "EmailJob", "class", "class EmailJob"}, {"worker/jobs.py", "ReportJob", "class", "class ReportJob"}}, ""},
		{"no callers", "who calls Service.Rename", nil, "Service.Rename has no callers in the index"},
		{"unknown symbol", "who calls NoSuchThingAtAll", nil, "no symbol named NoSuchThingAtAll in the index"},
		{"unknown symbol with suggestions", "who calls FindBy", nil, "no symbol named FindBy in the index (did you mean UserRepository.FindByID, Reader.FindByID"},
		{"unknown definition", "where is NoSuchThingAtAll defined", nil, "no symbol named NoSuchThingAtAll"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := fx.search(t, Request{Query: tt.query})
			if resp.Strategy != Structural {
				t.Fatalf("strategy %s (%s), want structural", resp.Strategy, resp.Reasoning)
			}
			fx.checkResults(t, resp, false)
			if tt.notice != "" && !strings.Contains(resp.Notice, tt.notice) {
				t.Errorf("notice %q, want it to say %q", resp.Notice, tt.notice)
			}
			if len(resp.Results) != len(tt.want) || resp.Total != len(tt.want) {
				t.Fatalf("results %+v (total %d), want %d", resp.Results, resp.Total, len(tt.want))
			}
			for i, w := range tt.want {
				r := resp.Results[i]
				if r.File != w.file || !strings.HasSuffix(r.Symbol, w.symbol) || r.Kind != w.kind || r.Line != fx.lineOf(t, w.file, w.line) || r.Strategy != Structural {
					t.Errorf("result %d = %s:%d %s %s (%s), want %s:%d %s %s", i, r.File, r.Line, r.Kind, r.Symbol, r.Strategy, w.file, fx.lineOf(t, w.file, w.line), w.kind, w.symbol)
				}
			}
		})
	}
}

func testSearchHybrid(t *testing.T, fx *searchFixture) {
	for _, req := range []Request{
		{Query: "the user repository and what depends on it"},
		{Query: "everything about users"},
		{Query: "FindByID", Strategy: Hybrid},
		{Query: "hybrid: loading users", TopK: 20},
	} {
		t.Run(req.Query, func(t *testing.T) {
			resp := fx.search(t, req)
			if resp.Strategy != Hybrid {
				t.Fatalf("strategy %s (%s), want hybrid", resp.Strategy, resp.Reasoning)
			}
			fx.checkResults(t, resp, false)
			seen := map[string]bool{}
			for _, r := range resp.Results {
				key := r.File + "\x00" + r.Symbol
				if r.Symbol == "" {
					key = fmt.Sprintf("%s\x00%d", r.File, r.Line)
				}
				if seen[key] {
					t.Errorf("%s %s is listed twice", r.File, r.Symbol)
				}
				seen[key] = true
			}
		})
	}
	t.Run("found by both", func(t *testing.T) {
		// Forced hybrid search for a name: the graph is asked what depends
		// on the best semantic hit's symbol, which is itself part of the
		// structural answer.
		resp := fx.search(t, Request{Query: "FindByID", Strategy: Hybrid})
		sem := fx.search(t, Request{Query: "FindByID", Strategy: Semantic, TopK: 20})
		subject := sem.Results[slices.IndexFunc(sem.Results, func(r Result) bool { return r.Symbol != "" })].Symbol
		str := fx.search(t, Request{Query: subject, Strategy: Structural, TopK: 1})
		blast := fx.search(t, Request{Query: "what depends on " + subject, Strategy: Structural, TopK: 20})
		structural := append(str.Results, blast.Results...)
		found := func(rs []Result, r Result) bool {
			return slices.ContainsFunc(rs, func(x Result) bool { return x.File == r.File && x.Symbol == r.Symbol })
		}
		multi := 0
		for _, r := range resp.Results {
			inSem, inStr := found(sem.Results, r), found(structural, r)
			switch {
			case r.MultiStrategy:
				multi++
				if !inSem || !inStr {
					t.Errorf("%s %s is marked multi-strategy; found by semantic search: %v, by the graph: %v", r.File, r.Symbol, inSem, inStr)
				}
			case r.Strategy == Semantic && (!inSem || inStr), r.Strategy == Structural && (inSem || !inStr):
				t.Errorf("%s %s is marked %s; found by semantic search: %v, by the graph: %v", r.File, r.Symbol, r.Strategy, inSem, inStr)
			}
		}
		if multi == 0 {
			t.Errorf("nothing found by both; semantic subject %s", subject)
		}
	})
}

func testSearchBudget(t *testing.T, fx *searchFixture) {
	const query = "how are users loaded from the database"
	whole := fx.search(t, Request{Query: query, Budget: 1 << 30})
	if len(whole.Results) < 3 {
		t.Fatalf("%d results, want at least 3", len(whole.Results))
	}
	fx.checkResults(t, whole, true)
	est := budget.Estimator{}
	counts := make([]int, len(whole.Results))
	sum := 0
	for i, r := range whole.Results {
		counts[i] = est.Count(r.Snippet)
		sum += counts[i]
		if r.Truncated {
			t.Errorf("result %d truncated within a budget of %d", i, 1<<30)
		}
	}
	if whole.Tokens != sum {
		t.Errorf("tokens %d, want the sum of the results' tokens %d", whole.Tokens, sum)
	}
	// cut is a result after the first one big enough to be cut rather
	// than dropped, and before is what the results before it count.
	cut := slices.IndexFunc(counts[1:], func(n int) bool { return n >= budget.MinTruncated+10 }) + 1
	if cut == 0 || counts[0] < 2 {
		t.Fatalf("results of %v tokens: none to cut", counts)
	}
	before := 0
	for _, n := range counts[:cut] {
		before += n
	}
	tests := []struct {
		name      string
		budget    int
		kept      int // results kept
		truncated bool
	}{
		{"room for all", sum, len(whole.Results), false},
		{"whole ones, then one cut", before + budget.MinTruncated + 5, cut + 1, true},
		{"whole ones, too little left for the next", before + budget.MinTruncated - 5, cut, false},
		{"the first cut", counts[0] - 1, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := fx.search(t, Request{Query: query, Budget: tt.budget})
			fx.checkResults(t, resp, true)
			if len(resp.Results) != tt.kept {
				t.Fatalf("%d results within %d tokens, want %d", len(resp.Results), tt.budget, tt.kept)
			}
			used := 0
			for i, r := range resp.Results {
				used += est.Count(r.Snippet)
				if last := i == len(resp.Results)-1; r.Truncated != (last && tt.truncated) {
					t.Errorf("result %d truncated: %v", i, r.Truncated)
				}
				if r.File != whole.Results[i].File || r.Line != whole.Results[i].Line {
					t.Errorf("result %d is %s:%d, want %s:%d as without a budget", i, r.File, r.Line, whole.Results[i].File, whole.Results[i].Line)
				}
			}
			if used > tt.budget || resp.Tokens != used {
				t.Errorf("tokens %d (counted %d), want them ≤ the budget %d", resp.Tokens, used, tt.budget)
			}
		})
	}
	t.Run("counter", func(t *testing.T) {
		s := *fx.s
		s.Budget = budget.CounterFunc(func(text string) int { return len(text) })
		resp, err := s.Search(context.Background(), Request{Query: query, Budget: 300})
		if err != nil {
			t.Fatal(err)
		}
		used := 0
		for _, r := range resp.Results {
			used += len(r.Snippet)
		}
		if used > 300 || resp.Tokens != used || len(resp.Results) == 0 {
			t.Errorf("%d results of %d bytes, tokens %d: want the counter's count, ≤ 300", len(resp.Results), used, resp.Tokens)
		}
	})
	t.Run("no budget: 12-line snippets", func(t *testing.T) {
		for _, q := range []string{query, "UserRepository", "everything about users"} {
			resp := fx.search(t, Request{Query: q})
			fx.checkResults(t, resp, false)
			if resp.Tokens != 0 {
				t.Errorf("%q: tokens %d without a budget", q, resp.Tokens)
			}
			for _, r := range resp.Results {
				if r.Truncated {
					t.Errorf("%q: %s:%d truncated without a budget", q, r.File, r.Line)
				}
			}
		}
	})
	t.Run("whole definitions", func(t *testing.T) {
		const java = "java/src/main/java/com/example/users/UserRepository.java"
		for _, b := range []int{0, 1 << 20} {
			resp := fx.search(t, Request{Query: "UserRepository", Budget: b})
			fx.checkResults(t, resp, b > 0)
			i := slices.IndexFunc(resp.Results, func(r Result) bool { return r.File == java })
			if i < 0 {
				t.Fatalf("no result in %s: %+v", java, resp.Results)
			}
			r := resp.Results[i]
			n := len(strings.Split(r.Snippet, "\n"))
			if span := r.EndLine - r.Line + 1; span <= snippetLines {
				t.Fatalf("the interface spans %d lines, want more than %d", span, snippetLines)
			}
			if want := min(r.EndLine-r.Line+1, map[bool]int{true: 1 << 30, false: snippetLines}[b > 0]); n != want {
				t.Errorf("budget %d: snippet of %d lines, want %d", b, n, want)
			}
		}
	})
	t.Run("keyword keeps its lines", func(t *testing.T) {
		resp := fx.search(t, Request{Query: "kw: FindByID", Budget: 1000})
		fx.checkResults(t, resp, true)
		if len(resp.Results) == 0 || resp.Tokens == 0 {
			t.Errorf("%d results, %d tokens", len(resp.Results), resp.Tokens)
		}
	})
}

func testSearchPartial(t *testing.T, fx *searchFixture) {
	tests := []struct {
		name    string
		partial func() (bool, string)
		want    bool
	}{
		{"building", func() (bool, string) { return true, "3 of 10 files" }, true},
		{"built", func() (bool, string) { return false, "" }, false},
		{"no callback", nil, false},
	}
	for _, tt := range tests {
		for _, q := range []string{"who calls FindByID", "who calls NoSuchThingAtAll"} {
			t.Run(tt.name+" "+q, func(t *testing.T) {
				s := *fx.s
				s.Partial = tt.partial
				resp, err := s.Search(context.Background(), Request{Query: q})
				if err != nil {
					t.Fatal(err)
				}
				checkJSONShape(t, resp)
				const says = "the index is still being built (3 of 10 files)"
				if resp.Partial != tt.want || strings.Contains(resp.Notice, says) != tt.want {
					t.Errorf("partial %v, notice %q; want partial %v", resp.Partial, resp.Notice, tt.want)
				}
				if strings.Contains(q, "NoSuch") && !strings.Contains(resp.Notice, "no symbol named NoSuchThingAtAll") {
					t.Errorf("notice %q lost the missing symbol", resp.Notice)
				}
			})
		}
	}
}

func testSearchFeedback(t *testing.T, fx *searchFixture) {
	fx = fx.withFreshFeedback(t)
	ctx := context.Background()
	searches := []struct {
		req  Request
		want Strategy
	}{
		{Request{Query: "who calls FindByID"}, Structural},
		{Request{Query: "kw: FindByID"}, Keyword},
		{Request{Query: "how are users loaded from the database"}, Semantic},
		{Request{Query: "how do users get saved"}, Semantic},
		{Request{Query: "FindByID", Strategy: Hybrid}, Hybrid},
		{Request{Query: "who calls NoSuchThingAtAll"}, Structural},
	}
	var last, hybridID int64
	results := map[Strategy]int{}
	for _, sc := range searches {
		resp := fx.search(t, sc.req)
		if resp.Strategy != sc.want {
			t.Fatalf("%q: strategy %s, want %s", sc.req.Query, resp.Strategy, sc.want)
		}
		if resp.FeedbackID <= last {
			t.Errorf("%q: feedback id %d, want one above the last, %d", sc.req.Query, resp.FeedbackID, last)
		}
		last = resp.FeedbackID
		if resp.Strategy == Hybrid {
			hybridID = resp.FeedbackID
		}
		results[resp.Strategy] += len(resp.Results)
	}
	if err := fx.fb.Used(ctx, hybridID, "users/user.go", 30); err != nil {
		t.Fatalf("Used(%d): %v", hybridID, err)
	}
	stats, err := fx.fb.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]feedback.StrategyStats{}
	total := 0
	for _, st := range stats {
		got[st.Strategy] = st
		total += st.Queries
	}
	if total != len(searches) {
		t.Errorf("%d searches recorded, want %d: %+v", total, len(searches), stats)
	}
	for strategy, n := range map[Strategy]int{Structural: 2, Keyword: 1, Semantic: 2, Hybrid: 1} {
		st := got[string(strategy)]
		if st.Queries != n {
			t.Errorf("%s: %d searches recorded, want %d", strategy, st.Queries, n)
		}
		if want := float64(results[strategy]) / float64(n); st.AvgResults != want {
			t.Errorf("%s: %v results on average, want %v", strategy, st.AvgResults, want)
		}
	}
	if got[string(Hybrid)].Used != 1 || got[string(Semantic)].Used != 0 {
		t.Errorf("results used %+v, want the hybrid search's one", stats)
	}
	t.Run("no store", func(t *testing.T) {
		s := *fx.s
		s.Feedback = nil
		resp, err := s.Search(ctx, Request{Query: "who calls FindByID"})
		if err != nil {
			t.Fatal(err)
		}
		checkJSONShape(t, resp)
		if resp.FeedbackID != 0 {
			t.Errorf("feedback id %d without a store", resp.FeedbackID)
		}
	})
}

// FuzzSearch searches a small workspace (fuzzWorkspace) with arbitrary
// queries: each is refused with a *QueryError or answered with
// well-formed results.
func FuzzSearch(f *testing.F) {
	seeds := []string{
		"", " ", "who calls FindByID", "how are users loaded from the database", "kw: user", "re: Find(",
		`re: Find\w+`, "/a*/", "everything about users", "hybrid: ", "sym:", "FindByID\x00", "\xff", "日本語",
		"the user repository and what depends on it", "structural: NoSuchThing", "re: ^", `"unterminated`,
		strings.Repeat("é", MaxQuery), "what imports internal/db", "\u2028\u2029", "kw: \r", "re: \\n",
		"mkdir -p equivalent", "pretty-print the user as JSON", "slurp a whole file", "request's values aren't kept",
		`split "a=b" at the first equals sign into the part before and the part after it`,
		"Traceback (most recent call last):\n  File \"worker/jobs.py\", line 12, in retry\nOSError: boom",
		"diff --git a/users/repo.go b/users/repo.go\n@@ -1 +1 @@ func Open\n-a\n+b", "```\nparse(\n```",
		strings.Repeat("Service.GetUser fails when the id is blank ", 20), strings.Repeat("!?", 3000),
		"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x/main.go:9 +0x1d", "\tat a.b.C.d(C.java:1)\n\tat (",
		"split 'John Smith <john@example.com>' into the display name and the bare address", "a 'b' c d", "“x” in the y z",
	}
	for _, seed := range seeds {
		f.Add(seed, uint8(0))
	}
	f.Add("FindByID", uint8(1))
	f.Add("FindByID", uint8(4))
	// A workspace of five small files, indexed once per process: each
	// input costs a search of a few chunks, so that the fuzzer explores
	// instead of spending its time on the sample app's baseline.
	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	root := filepath.Join(dir, "fuzzapp")
	files := fuzzWorkspace()
	writeFixtureFiles(f, root, files)
	// The word vectors of the workspace's words and the seeds' only: the
	// words near a query's are looked for among hundreds, not 62,000.
	texts := slices.Collect(maps.Values(files))
	for _, seed := range seeds {
		texts = append(texts, seed)
	}
	full, err := wordvec.Load()
	if err != nil {
		f.Fatal(err)
	}
	small, err := full.Subset(texts...)
	if err != nil {
		f.Fatal(err)
	}
	fx := indexSearchFixture(f, root, WordVectorsOf(small))
	s := *fx.s
	s.Router = NewRouter() // compiled once, not for every input
	s.Feedback = nil       // keep the fuzzer's searches cheap
	strategies := []Strategy{"", Semantic, Structural, Keyword, Hybrid}
	f.Fuzz(func(t *testing.T, query string, strategy uint8) {
		req := Request{Query: query, Strategy: strategies[int(strategy)%len(strategies)], TopK: 20}
		resp, err := s.Search(context.Background(), req)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("Search(%q, %s): %v, want a *QueryError or results", query, req.Strategy, err)
			}
			return
		}
		if !utf8.ValidString(resp.Query) || len(resp.Query) > MaxTaskQuery || resp.Results == nil || len(resp.Results) > req.TopK {
			t.Fatalf("Search(%q, %s): query %q, %d results", query, req.Strategy, resp.Query, len(resp.Results))
		}
		for _, r := range resp.Results {
			if !utf8.ValidString(r.Snippet) || !utf8.ValidString(r.File) || !utf8.ValidString(r.Symbol) {
				t.Fatalf("Search(%q, %s): result with invalid UTF-8: %+v", query, req.Strategy, r)
			}
			if r.File == "" || r.Line < 1 || r.EndLine < r.Line {
				t.Fatalf("Search(%q, %s): result at %s:%d-%d", query, req.Strategy, r.File, r.Line, r.EndLine)
			}
		}
	})
}

func TestSearchSemanticTestFilesPenalised(t *testing.T) {
	t.Parallel()
	// A test file holding the same code as users/repo.go: only the
	// penalty on test files tells their chunks apart.
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sampleapp", "users", "repo.go"))
	if err != nil {
		t.Fatal(err)
	}
	fx := newSearchFixture(t, map[string]string{"users/repo_test.go": string(b)})
	for _, q := range []string{"find a user by id", "FindByID", "save a user"} {
		t.Run(q, func(t *testing.T) {
			resp := fx.search(t, Request{Query: q, Strategy: Semantic, TopK: MaxTopK})
			fx.checkResults(t, resp, false)
			rank := map[string]int{}
			seen := map[string]bool{}
			for i, r := range resp.Results {
				if r.Symbol != "" {
					key := r.File + " " + r.Symbol
					if seen[key] {
						t.Errorf("%s is listed twice: one result per symbol", key)
					}
					seen[key] = true
				}
				if _, ok := rank[r.File]; !ok {
					rank[r.File] = i + 1
				}
			}
			impl, test := rank["users/repo.go"], rank["users/repo_test.go"]
			if impl == 0 || (test != 0 && test < impl) {
				t.Errorf("users/repo.go first at rank %d, its copy users/repo_test.go at %d: want the implementation first", impl, test)
			}
		})
	}
}

func TestSearchTotalCountsBeyondTopK(t *testing.T) {
	t.Parallel()
	fx := newSearchFixture(t, nil)
	for _, q := range []string{"subclasses of Job", "what depends on FindByID"} {
		t.Run(q, func(t *testing.T) {
			all := fx.search(t, Request{Query: q, TopK: MaxTopK})
			one := fx.search(t, Request{Query: q, TopK: 1})
			if len(all.Results) < 2 {
				t.Fatalf("%d results, want several", len(all.Results))
			}
			if len(one.Results) != 1 || one.Total != len(all.Results) {
				t.Errorf("top_k 1: %d results, total %d; want 1 result of the %d found", len(one.Results), one.Total, len(all.Results))
			}
		})
	}
}

func TestSearchForcedStrategyWithPrefix(t *testing.T) {
	t.Parallel()
	fx := newSearchFixture(t, nil)
	count := 0
	for _, text := range fx.sourceFiles(t) {
		count += strings.Count(text, "FindByID")
	}
	for _, prefix := range []string{"kw", "key", "keyword", "grep", "sem", "semantic", "hyb", "hybrid", "sym", "struct", "structural"} {
		t.Run(prefix, func(t *testing.T) {
			resp := fx.search(t, Request{Query: prefix + ": FindByID", Strategy: Keyword})
			if resp.Strategy != Keyword || resp.Total != count {
				t.Errorf("%q forced to keyword: %s search with %d matches, want keyword with %d", resp.Query, resp.Strategy, resp.Total, count)
			}
			resp = fx.search(t, Request{Query: prefix + ": FindByID", Strategy: Structural})
			if resp.Strategy != Structural || len(resp.Results) == 0 {
				t.Errorf("%q forced to structural: %s search with %d results (%s), want the definitions of FindByID", resp.Query, resp.Strategy, len(resp.Results), resp.Notice)
			}
		})
	}
	for _, tt := range []struct {
		query    string
		strategy Strategy
	}{{"kw:", Keyword}, {"sym:", Structural}, {"hybrid:", Hybrid}, {"sem:", Semantic}} {
		t.Run("only "+tt.query, func(t *testing.T) {
			resp, err := fx.s.Search(context.Background(), Request{Query: tt.query, Strategy: tt.strategy})
			var qe *QueryError
			if err != nil && !errors.As(err, &qe) {
				t.Fatal(err)
			}
			if err == nil && resp.Strategy != tt.strategy {
				t.Errorf("%q forced to %s: answered by a %s search", tt.query, tt.strategy, resp.Strategy)
			}
		})
	}
}

func TestSearchFeedbackUnavailable(t *testing.T) {
	t.Parallel()
	fx := newSearchFixture(t, nil)
	fx.fb.Close()
	resp, err := fx.s.Search(context.Background(), Request{Query: "who calls FindByID"})
	if err != nil {
		t.Fatalf("search with routing feedback unavailable: %v", err)
	}
	if len(resp.Results) == 0 || resp.FeedbackID != 0 {
		t.Errorf("%d results, feedback id %d: want the answer, unrecorded", len(resp.Results), resp.FeedbackID)
	}
}

func TestDiversify(t *testing.T) {
	files := map[int64]string{1: "a.go", 2: "a.go", 3: "a.go", 4: "b.go", 5: "c.go"}
	file := func(id int64) string { return files[id] }
	tests := []struct {
		name   string
		ranked []fused
		decay  float64
		want   []int64
	}{
		{"third of a file yields to another file", []fused{{1, 1.0}, {2, 0.9}, {3, 0.8}, {4, 0.5}, {5, 0.1}}, 0.6, []int64{1, 2, 4, 3, 5}},
		{"a clear lead stays", []fused{{1, 1.0}, {2, 0.95}, {4, 0.2}}, 0.6, []int64{1, 2, 4}},
		{"no decay keeps the order", []fused{{1, 1.0}, {2, 0.9}, {3, 0.8}, {4, 0.5}}, 1, []int64{1, 2, 3, 4}},
		{"empty", nil, 0.6, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diversify(tt.ranked, file, tt.decay)
			var ids []int64
			for _, f := range got {
				ids = append(ids, f.id)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("diversify = %v, want %v", ids, tt.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].score > got[i-1].score {
					t.Errorf("score %d (%v) above the previous one: %v", i, got[i].score, got)
				}
			}
		})
	}
}

// fixedExpander is the built-in word vectors proposing fixed words.
type fixedExpander struct {
	*WordVectors
	words []string
}

func (e fixedExpander) Expand(string) []string { return e.words }

func TestSearchSemanticExpansion(t *testing.T) {
	var extra = map[string]string{}
	for i, name := range []string{"inflate", "gunzip", "unpack"} {
		extra[fmt.Sprintf("codec/%s.go", name)] = fmt.Sprintf(`package codec

// Decompress%d reads a decompressed zebrafish stream from r.
func Decompress%d(r io.Reader) ([]byte, error) { return io.ReadAll(r) }
`, i, i)
	}
	extra["codec/rare.go"] = "package codec\n\n// Okapi is rare.\nfunc Okapi() {}\n"
	fx := newSearchFixture(t, extra)
	inCodec := func(resp *Response) int {
		n := 0
		for _, r := range resp.Results {
			if strings.HasPrefix(r.File, "codec/") {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name     string
		query    string
		expander Vectorizer
		want     int // results in codec/
	}{
		{"word vectors find decompress for compress", "compress the payload", fx.s.Vectors, 3},
		{"no vectors, no expansion", "compress the payload", nil, 0},
		{"a proposed word the code uses", "quagga", fixedExpander{fx.s.Vectors.(*WordVectors), []string{"zebrafish"}}, 3},
		{"a proposed word fewer than three chunks use", "quagga", fixedExpander{fx.s.Vectors.(*WordVectors), []string{"okapi"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := *fx.s
			s.Vectors = tt.expander
			resp, err := s.Search(context.Background(), Request{Query: tt.query, Strategy: Semantic, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			if got := inCodec(resp); got != tt.want {
				t.Errorf("%d results in codec/, want %d: %+v", got, tt.want, resp.Results)
			}
		})
	}
}

func TestWordVectorsExpand(t *testing.T) {
	w, err := NewWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Expand("how does the"); len(got) != 0 {
		t.Errorf("stop words proposed %v", got)
	}
	if got := w.Expand("resolve a hostname"); !slices.Contains(got, "host") {
		t.Errorf("Expand(resolve a hostname) = %v, want host among them", got)
	}
}

// TestWordVectorsExpandRemembers checks that the expansions Expand keeps
// between searches are the ones an exhaustive search finds, from any
// number of searches at once.
func TestWordVectorsExpandRemembers(t *testing.T) {
	queries := []string{
		"resolve a hostname",
		"retry failed jobs with exponential backoff",
		"Table.read fails on a FITS file with a compressed HDU",
		"units of a quantity are lost when converting to a dataframe",
	}
	fresh := func() *WordVectors {
		w, err := NewWordVectors()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// Each query to its own fresh WordVectors: nothing remembered.
	want := make([][]string, len(queries))
	for i, q := range queries {
		want[i] = fresh().Expand(q)
	}
	if len(slices.Concat(want...)) == 0 {
		t.Fatal("no query proposed a word; the test checks nothing")
	}
	w := fresh()
	var wg sync.WaitGroup
	for range 4 {
		for i, q := range queries {
			wg.Go(func() {
				if got := w.Expand(q); !slices.Equal(got, want[i]) {
					t.Errorf("Expand(%q) = %v, want %v", q, got, want[i])
				}
			})
		}
	}
	wg.Wait()
	for i, q := range queries {
		if got := w.Expand(q); !slices.Equal(got, want[i]) {
			t.Errorf("Expand(%q) remembered = %v, want %v", q, got, want[i])
		}
	}
}

// storedWordVectors is the built-in word vectors without their inline
// mark: an index stores their vectors.
type storedWordVectors struct{ w *WordVectors }

func (s storedWordVectors) Model() string                  { return "stored:" + s.w.Model() }
func (s storedWordVectors) Embed(text string) []byte       { return s.w.Embed(text) }
func (s storedWordVectors) Similarity(a, b []byte) float64 { return s.w.Similarity(a, b) }

// TestVectorOrderInline checks that ranking by vectors computed during the
// search (inline word vectors) gives the order of vectors the index stored.
func TestVectorOrderInline(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join("..", "testdata", "sampleapp")
	vec, err := NewWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	stored := storedWordVectors{vec}
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: filepath.Join(t.TempDir(), "index.db"), Embedder: stored})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if vs, err := ix.ChunkVectors(ctx); err != nil || len(vs.IDs) == 0 {
		t.Fatalf("index stored %v vectors, %v", vs, err)
	}
	for _, q := range []string{"retry failed jobs", "load a user from the database", "cache eviction"} {
		t.Run(q, func(t *testing.T) {
			hits, err := ix.SearchChunks(ctx, QueryTerms(q), 50)
			if err != nil || len(hits) < 2 {
				t.Fatalf("SearchChunks: %d hits, %v", len(hits), err)
			}
			want, err := (&Searcher{Index: ix, Vectors: stored}).vectorOrder(ctx, q, hits)
			if err != nil {
				t.Fatal(err)
			}
			got, err := (&Searcher{Index: ix, Vectors: vec}).vectorOrder(ctx, q, hits)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != len(hits) || !slices.Equal(got, want) {
				t.Errorf("inline order %v, stored order %v (%d hits)", got, want, len(hits))
			}
		})
	}
}

func TestIsUnexported(t *testing.T) {
	tests := []struct {
		lang, kind, symbol string
		want               bool
		name               string // the qualified name, when it says more
	}{
		{"go", "function", "ReadFile", false, ""},
		{"go", "function", "readFile", true, ""},
		{"go", "function", "main", false, "main.main"}, // a command's entry point
		{"go", "method", "main", true, "runner.main"},
		{"go", "method", "close", true, ""},
		{"go", "function", "Équipe", false, ""},
		{"go", "function", "_x", true, ""},
		{"go", "module", "", false, ""},
		{"python", "function", "_get", true, ""},
		{"python", "method", "__init__", false, ""},
		{"python", "method", "__secret", true, ""},
		{"python", "function", "get", false, ""},
		{"typescript", "function", "_helper", true, ""},
		{"java", "method", "helper", false, ""},
		{"rust", "function", "helper", false, ""},
		// Methods of types other packages cannot name.
		{"go", "method", "AppendObject", true, "jsonEncoder.AppendObject"},
		{"go", "method", "With", false, "Logger.With"},
		{"go", "function", "Open", false, "zap.Open"},
		{"python", "method", "run", true, "_Helper.run"},
		{"python", "method", "read", false, "RawConfigParser.read"},
		{"python", "function", "quote", false, "_shlex.quote"},
		{"java", "method", "helper", false, "Outer.helper"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.name+"/"+tt.symbol, func(t *testing.T) {
			name := tt.name
			if name == "" {
				name = tt.symbol
			}
			c := analysis.ChunkInfo{Language: tt.lang, Kind: analysis.Kind(tt.kind), Symbol: tt.symbol, Name: name}
			if got := isUnexported(c); got != tt.want {
				t.Errorf("isUnexported(%s %s %q) = %v, want %v", tt.lang, tt.kind, tt.symbol, got, tt.want)
			}
		})
	}
}

// TestSearchSemanticExportedFirst checks that of two functions that match
// a question alike, the exported one ranks first.
func TestSearchSemanticExportedFirst(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"pretty/a.go": "package pretty\n\n// walrusFormat formats a walrus ledger.\nfunc walrusFormat(l string) string { return l }\n",
		"pretty/b.go": "package pretty\n\n// WalrusFormat formats a walrus ledger.\nfunc WalrusFormat(l string) string { return l }\n",
	})
	resp := fx.search(t, Request{Query: "format a walrus ledger", Strategy: Semantic, TopK: 20})
	var got []string
	for _, r := range resp.Results {
		if strings.HasPrefix(r.File, "pretty/") {
			got = append(got, r.Symbol)
		}
	}
	if want := []string{"pretty.WalrusFormat", "pretty.walrusFormat"}; !slices.Equal(got, want) {
		t.Errorf("results in pretty/ %q, want %q", got, want)
	}
	if len(resp.Results) == 0 || resp.Results[0].Symbol != "pretty.WalrusFormat" {
		t.Errorf("first result %+v, want pretty.WalrusFormat", resp.Results[:min(1, len(resp.Results))])
	}
}

// TestSearchSemanticWhereIgnoresVisibility checks that a question about
// where something is done ranks an unexported function like an exported
// one (its answer is often a helper), while "how do I …" puts the
// exported one first.
func TestSearchSemanticWhereIgnoresVisibility(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"pretty/a.go": "package pretty\n\n// walrusFormat formats a walrus ledger.\nfunc walrusFormat(l string) string { return l }\n",
		"pretty/b.go": "package pretty\n\n// WalrusFormat formats a walrus ledger.\nfunc WalrusFormat(l string) string { return l }\n",
	})
	scores := func(q string) map[string]float64 {
		resp := fx.search(t, Request{Query: q, Strategy: Semantic, TopK: 20})
		out := map[string]float64{}
		for _, r := range resp.Results {
			out[r.Symbol] = r.Score
		}
		return out
	}
	tests := []struct {
		q    string
		same bool // the two score alike, not the exported first
	}{
		{"where is a walrus ledger formatted", true},
		{"what formats a walrus ledger", true},
		{"how does the package format a walrus ledger", true},
		{"how do I format a walrus ledger", false},
		{"format a walrus ledger", false},
	}
	for _, tt := range tests {
		sc := scores(tt.q)
		exp, unexp := sc["pretty.WalrusFormat"], sc["pretty.walrusFormat"]
		if exp == 0 || unexp == 0 {
			t.Errorf("%q: scores %v, want both functions", tt.q, sc)
			continue
		}
		// Their ranks by each signal differ by one place: alike is
		// within a few percent, and the penalty (unexportedPenalty) is
		// more than that.
		if r := unexp / exp; tt.same && (r < 0.95 || r > 1.05) {
			t.Errorf("%q: WalrusFormat %v, walrusFormat %v, want about the same score", tt.q, exp, unexp)
		} else if !tt.same && r > 0.9 {
			t.Errorf("%q: WalrusFormat %v, walrusFormat %v, want the exported one well first", tt.q, exp, unexp)
		}
	}
}

func TestAsksWhere(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"where is the chunked response body reassembled", true},
		{"What decides which protocol version is used", true},
		{"which function parses the header", true},
		{"why doesn't 1.3.0-beta.1 match ^1.2.0", true},
		{"how does pretty-printing decide that a dict is too wide", true},
		{"how is the config file found", true},
		{"how do I read a config file", false},
		{"how do you read a config file", false},
		{"how to read a config file", false},
		{"read a config file", false},
		{"where", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := asksWhere(tt.q); got != tt.want {
			t.Errorf("asksWhere(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// TestSearchQuotedExampleFallsBack checks that a sentence quoting an
// example of its input, routed to exact-text search, is searched by
// meaning when the quoted text is nowhere in the code; a quotation alone,
// or text the user asks to grep for, is not.
func TestSearchQuotedExampleFallsBack(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"walrus/addr.go": "package walrus\n\n// SplitWalrusAddress splits a walrus address into the display name and the bare address.\nfunc SplitWalrusAddress(s string) (string, string) { return s, s }\n",
	})
	tests := []struct {
		q        string
		strategy Strategy
	}{
		{"split 'John Smith <john@example.com>' into the display name and the bare address", Semantic},
		{`split "John Smith <john@example.com>" into the display name and the bare address`, Semantic},
		{"'Wally Tusk <wally@floe.example>'", Keyword},
		{"grep for 'Wally Tusk <wally@floe.example>' in the walrus code", Keyword},
	}
	for _, tt := range tests {
		resp := fx.search(t, Request{Query: tt.q})
		if resp.Strategy != tt.strategy {
			t.Errorf("%q: strategy %s (%s), want %s", tt.q, resp.Strategy, resp.Reasoning, tt.strategy)
			continue
		}
		if tt.strategy == Keyword {
			if len(resp.Results) != 0 || resp.Notice != "nothing matched" {
				t.Errorf("%q: %d results, notice %q; want nothing matched", tt.q, len(resp.Results), resp.Notice)
			}
			continue
		}
		if !strings.Contains(resp.Reasoning, "found nothing") {
			t.Errorf("%q: reasoning %q does not say the exact-text search found nothing", tt.q, resp.Reasoning)
		}
		if len(resp.Results) == 0 || resp.Results[0].Symbol != "walrus.SplitWalrusAddress" {
			t.Errorf("%q: results %+v, want walrus.SplitWalrusAddress first", tt.q, resp.Results[:min(3, len(resp.Results))])
		}
	}
}

// TestSearchSemanticGoTypesAfterFunctions checks that the function list
// ranks a Go type declaration below the functions that match as well
// (a question in words asks what to call), while the file ranking still
// ranks the type's file by it; a Python class, which is called, is not
// scaled.
func TestSearchSemanticGoTypesAfterFunctions(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"ledger/types.go":  "package ledger\n\n// WalrusLedger is a ledger of walrus entries.\ntype WalrusLedger struct{ entries []string }\n",
		"ledger/open.go":   "package ledger\n\n// OpenWalrusLedger opens a ledger of walrus entries.\nfunc OpenWalrusLedger(p string) *WalrusLedger { return nil }\n",
		"pyledger/book.py": "class WalrusBook:\n    \"\"\"A book of walrus entries.\"\"\"\n    pass\n",
	})
	resp := fx.search(t, Request{Query: "a ledger of walrus entries", Strategy: Semantic, TopK: 50, Group: GroupFiles})
	fileScore := map[string]float64{}
	for _, f := range resp.Files {
		fileScore[f.File] = f.Score
	}
	got := map[string]Result{}
	for _, r := range resp.Results {
		got[r.Symbol] = r
	}
	typ, fn, class := got["ledger.WalrusLedger"], got["ledger.OpenWalrusLedger"], got["book.WalrusBook"]
	if typ.File == "" || fn.File == "" || class.File == "" {
		t.Fatalf("results %+v: want the type, the function and the class", resp.Results)
	}
	if typ.Score >= fileScore["ledger/types.go"] {
		t.Errorf("type scores %v in the function list, its file %v: want it scaled down", typ.Score, fileScore["ledger/types.go"])
	}
	if want := fileScore["ledger/types.go"] * goTypePenalty; math.Abs(typ.Score-want) > 1e-12 {
		t.Errorf("type scores %v in the function list, want %v (its file's %v scaled by %v)", typ.Score, want, fileScore["ledger/types.go"], goTypePenalty)
	}
	if fn.Score != fileScore["ledger/open.go"] || class.Score != fileScore["pyledger/book.py"] {
		t.Errorf("function %v and class %v in the function list, want their files' scores %v and %v",
			fn.Score, class.Score, fileScore["ledger/open.go"], fileScore["pyledger/book.py"])
	}
}

// TestSearchSemanticLevels checks the two levels of a search by meaning:
// the functions that answer best are listed by their own scores even when
// they share a file, and the file ranking, computed apart, still lists
// the other files that answer.
func TestSearchSemanticLevels(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"ledger/parse.go": `package ledger

// ParseWalrusHeader parses the header of a walrus ledger.
func ParseWalrusHeader(s string) string { return s }

// ParseWalrusEntry parses one entry of a walrus ledger.
func ParseWalrusEntry(s string) string { return s }

// ParseWalrusFooter parses the footer of a walrus ledger.
func ParseWalrusFooter(s string) string { return s }
`,
		"ledger/print.go": `package ledger

// PrintWalrus prints a walrus.
func PrintWalrus(s string) string { return s }
`,
	})
	resp := fx.search(t, Request{Query: "parse the walrus ledger", Strategy: Semantic, TopK: 10, Group: GroupFiles})
	var parse []string
	for _, r := range resp.Results[:min(3, len(resp.Results))] {
		if r.File == "ledger/parse.go" {
			parse = append(parse, r.Symbol)
		}
	}
	if len(parse) != 3 {
		t.Errorf("first results %+v: want the three parsers of ledger/parse.go, not scaled down for sharing a file", resp.Results[:min(4, len(resp.Results))])
	}
	var files []string
	for _, f := range resp.Files {
		files = append(files, f.File)
	}
	if len(resp.Files) < 2 || files[0] != "ledger/parse.go" || files[1] != "ledger/print.go" {
		t.Fatalf("files %q: want ledger/parse.go, then ledger/print.go", files)
	}
	if n := len(resp.Files[0].Functions); n != 3 {
		t.Errorf("ledger/parse.go listed with %d functions, want its 3 parsers: %+v", n, resp.Files[0].Functions)
	}
	if len(resp.Files[0].Why) == 0 {
		t.Errorf("ledger/parse.go listed without a reason")
	}
	for i := 1; i < len(resp.Files); i++ {
		if resp.Files[i].Score > resp.Files[i-1].Score {
			t.Errorf("file %d (%s, %v) scores above the one before it (%v)", i, resp.Files[i].File, resp.Files[i].Score, resp.Files[i-1].Score)
		}
	}
}

// fuzzWorkspace is a small workspace in four languages, with calls,
// types and doc comments for every strategy to find.
func fuzzWorkspace() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/fuzzapp\n\ngo 1.22\n",
		"internal/db/db.go": `// Package db opens the database.
package db

import (
	"database/sql"
	"fmt"
)

// Open opens the database at path.
func Open(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}
`,
		"users/repo.go": `package users

import (
	"context"
	"database/sql"
	"fmt"
)

// User is a person with an account.
type User struct{ ID, Name string }

// UserRepository loads users from the database.
type UserRepository struct{ db *sql.DB }

// FindByID loads one user by id.
func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {
	u := &User{ID: id}
	if err := r.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = ?", id).Scan(&u.Name); err != nil {
		return nil, fmt.Errorf("find user %s: %w", id, err)
	}
	return u, nil
}

// Service answers questions about users.
type Service struct{ repo *UserRepository }

// GetUser returns a user, or an error when the id is blank.
func (s *Service) GetUser(ctx context.Context, id string) (*User, error) {
	if id == "" {
		return nil, fmt.Errorf("blank user id")
	}
	return s.repo.FindByID(ctx, id)
}
`,
		"worker/jobs.py": `"""Jobs run by the worker, retried when they fail."""
import logging
import time

log = logging.getLogger(__name__)


def retry(job, attempts=3):
    """Run a job, retrying failed jobs with a growing delay."""
    for n in range(attempts):
        try:
            return job()
        except OSError:
            time.sleep(2 ** n)
    raise RuntimeError("job failed")


class Runner:
    def _run_one(self, job):
        start = time.time()
        try:
            retry(job)
        except RuntimeError:
            log.error("job %s failed after %.1fs", job, time.time() - start)
`,
		"client/src/cache.ts": `// A cache that evicts the least recently used entry.
export class LruCache<V> {
  private entries = new Map<string, V>();
  constructor(private capacity: number) {}

  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.evictOldest();
  }

  private evictOldest(): void {
    const oldest = this.entries.keys().next().value;
    if (oldest !== undefined) this.entries.delete(oldest);
  }
}
`,
	}
}

// TestSearchSemanticProductFirst checks that a question in words is
// answered by the product's definitions before examples and module-level
// code that match its words as well or better (module-level code is
// still listed), unless the question asks for examples.
func TestSearchSemanticProductFirst(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"walrus/ledger.go":        "package walrus\n\n// BalanceLedger balances a ledger.\nfunc BalanceLedger(l string) string { return l }\n",
		"examples/ledger/main.go": "package main\n\n// BalanceWalrusLedger balances a walrus ledger: walrus ledger balance.\nfunc BalanceWalrusLedger(ledger string) string { return ledger }\n",
		"pywalrus/notes.py":       "\"\"\"Notes on how to balance a walrus ledger: each walrus ledger is balanced, walrus by walrus.\"\"\"\nimport walrus\nBALANCE_WALRUS_LEDGER = walrus.balance_walrus_ledger('walrus ledger balance')\n",
		"pywalrus/ledger.py":      "def balance_ledger(ledger):\n    \"\"\"Balance a walrus ledger.\"\"\"\n    return ledger\n",
	})
	for _, tt := range []struct {
		query string
		order []string // files in the order their first results must come
	}{
		{"balance a walrus ledger", []string{"walrus/ledger.go", "examples/ledger/main.go"}},
		{"balance a walrus ledger", []string{"pywalrus/ledger.py", "pywalrus/notes.py"}},
		{"an example that balances a walrus ledger", []string{"examples/ledger/main.go", "walrus/ledger.go"}},
	} {
		resp := fx.search(t, Request{Query: tt.query, Strategy: Semantic, TopK: 10})
		var got []string
		for _, r := range resp.Results {
			if !slices.Contains(got, r.File) {
				got = append(got, r.File)
			}
		}
		var seen []string
		for _, f := range got {
			if slices.Contains(tt.order, f) {
				seen = append(seen, f)
			}
		}
		if !slices.Equal(seen, tt.order) {
			t.Errorf("%q: results in %q, want %q in that order", tt.query, got, tt.order)
		}
	}
}
