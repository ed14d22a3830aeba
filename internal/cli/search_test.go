package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/internal/limits"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/budget"
	"github.com/anchorage-dev/anchorage/state"
)

// searchApp copies testdata/sampleapp into a temporary directory and
// returns its path.
func searchApp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(sampleApp)); err != nil {
		t.Fatal(err)
	}
	return root
}

// searchJSON runs anchorage search --json and decodes its answer.
func searchJSON(t *testing.T, args ...string) retrieval.Response {
	t.Helper()
	out, err := run(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("anchorage %s: %v", strings.Join(args, " "), err)
	}
	var resp retrieval.Response
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"query", "strategy", "confidence", "reasoning", "elapsed_ms", "results", "total"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, out)
		}
	}
	return resp
}

// countIn counts the occurrences of text in the files under root, but
// for hidden ones (.env, .gitignore), which are not indexed.
func countIn(t *testing.T, root, text string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		n += strings.Count(string(b), text)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCLISearch(t *testing.T) {
	data := t.TempDir()
	root := searchApp(t)
	common := []string{"--data-dir", data, "search", "--root", root}
	getUser := lineOf(t, "users/service.go", "func (s *Service) GetUser")

	t.Run("indexes first", func(t *testing.T) {
		dirs, err := state.Resolve(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dirs.IndexPath(root)); err == nil {
			t.Fatal("an index exists before the first search")
		}
		resp := searchJSON(t, append(common, "who calls FindByID")...)
		if resp.Strategy != retrieval.Structural || resp.Query != "who calls FindByID" {
			t.Errorf("strategy %s for %q, want structural", resp.Strategy, resp.Query)
		}
		if len(resp.Results) != 1 {
			t.Fatalf("results %+v, want Service.GetUser", resp.Results)
		}
		r := resp.Results[0]
		if r.File != "users/service.go" || r.Symbol != "Service.GetUser" || r.Kind != "method" || r.Line != getUser || r.EndLine <= r.Line ||
			r.Strategy != retrieval.Structural || !strings.HasPrefix(r.Snippet, "func (s *Service) GetUser(") {
			t.Errorf("result %+v, want method Service.GetUser at users/service.go:%d", r, getUser)
		}
		if resp.FeedbackID <= 0 {
			t.Errorf("feedback id %d, want the search recorded", resp.FeedbackID)
		}
		if _, err := os.Stat(dirs.IndexPath(root)); err != nil {
			t.Errorf("no index after the search: %v", err)
		}
	})

	t.Run("query in several arguments", func(t *testing.T) {
		resp := searchJSON(t, append(common, "--no-refresh", "who", "calls", "FindByID")...)
		if resp.Query != "who calls FindByID" || len(resp.Results) != 1 || resp.Results[0].Symbol != "Service.GetUser" {
			t.Errorf("query %q, results %+v", resp.Query, resp.Results)
		}
	})

	t.Run("text", func(t *testing.T) {
		out, err := run(t, append(common, "--no-refresh", "who calls FindByID")...)
		if err != nil {
			t.Fatal(err)
		}
		header := regexp.MustCompile(`^structural \(confidence 0\.90\): asks for the callers of FindByID — 1 results in [0-9.]+ ms\n`)
		if !header.MatchString(out) {
			t.Errorf("output does not start with the route and count:\n%s", out)
		}
		// One line per result: place, symbol and the first line of its doc.
		if want := "\nusers/service.go:" + strconv.Itoa(getUser) + "  Service.GetUser — GetUser returns the user with the given id.\n"; !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
		if strings.Contains(out, "return s.repo.FindByID") {
			t.Errorf("output shows code without --snippets:\n%s", out)
		}
	})

	t.Run("snippets", func(t *testing.T) {
		out, err := run(t, append(common, "--no-refresh", "--snippets", "who calls FindByID")...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"\nusers/service.go:" + strconv.Itoa(getUser) + "-",
			"  Service.GetUser\n",
			"\n    func (s *Service) GetUser(ctx context.Context, id string) (*User, error) {\n",
			"\n    \treturn s.repo.FindByID(ctx, id)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("task from standard input grouped by file", func(t *testing.T) {
		task := "Jobs are retried forever\n\nTraceback (most recent call last):\n  File \"/srv/worker/runner.py\", line 40, in run_all\n" +
			"  File \"/srv/worker/jobs.py\", line 20, in wrapper\nOSError: [Errno 111] Connection refused\n"
		var stdout, stderr bytes.Buffer
		cmd := newRootCmd(&stdout, &stderr)
		cmd.SetIn(strings.NewReader(task))
		cmd.SetArgs(append(common, "--no-refresh", "--group", "files", "-"))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		out := stdout.String()
		if !strings.Contains(out, "a task description") || !regexp.MustCompile(`\nworker/(jobs|runner)\.py\n  why: [^\n]*named in the traceback`).MatchString(out) {
			t.Errorf("output does not list the traceback's files with why:\n%s", out)
		}
		if _, err := run(t, append(common, "--no-refresh", "--group", "symbols", "retry")...); err == nil || !strings.Contains(err.Error(), `--group "symbols"`) {
			t.Errorf("--group symbols: %v, want an error naming it", err)
		}
	})

	t.Run("text notice", func(t *testing.T) {
		out, err := run(t, append(common, "--no-refresh", "who calls NoSuchThingAtAll")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "— 0 results in") || !strings.Contains(out, "note: no symbol named NoSuchThingAtAll in the index") {
			t.Errorf("output does not say the symbol is missing:\n%s", out)
		}
	})

	strategies := []struct {
		name, strategy string
		want           retrieval.Strategy
	}{
		{"keyword", "keyword", retrieval.Keyword},
		{"keyword in capitals", "KEYWORD", retrieval.Keyword},
		{"hybrid", "hybrid", retrieval.Hybrid},
	}
	for _, tt := range strategies {
		t.Run("strategy "+tt.name, func(t *testing.T) {
			resp := searchJSON(t, append(common, "--no-refresh", "--strategy", tt.strategy, "FindByID")...)
			if resp.Strategy != tt.want || len(resp.Results) == 0 {
				t.Fatalf("strategy %s with %d results, want %s results", resp.Strategy, len(resp.Results), tt.want)
			}
			if tt.want == retrieval.Keyword {
				if want := countIn(t, root, "FindByID"); resp.Total != want {
					t.Errorf("total %d, want the %d occurrences of FindByID", resp.Total, want)
				}
				for _, r := range resp.Results {
					if r.Strategy != retrieval.Keyword || !strings.Contains(r.Snippet, "FindByID") {
						t.Errorf("result %+v, want a keyword match of FindByID", r)
					}
				}
			}
		})
	}

	t.Run("top-k", func(t *testing.T) {
		for _, k := range []int{1, 3} {
			resp := searchJSON(t, append(common, "--no-refresh", "--top-k", strconv.Itoa(k), "kw: user")...)
			if len(resp.Results) != k || resp.Total <= k {
				t.Errorf("--top-k %d: %d results of %d", k, len(resp.Results), resp.Total)
			}
		}
		out, err := run(t, append(common, "--no-refresh", "--top-k", "2", "kw: user")...)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`— 2 results in [0-9.]+ ms\n\([0-9]+ found in all\)\n`).MatchString(out) {
			t.Errorf("output does not say how many were found in all:\n%s", out)
		}
		if n := len(regexp.MustCompile(`(?m)^\S+:\d+ `).FindAllString(out, -1)); n != 2 {
			t.Errorf("%d results printed, want 2:\n%s", n, out)
		}
	})

	t.Run("budget", func(t *testing.T) {
		const query = "how are users loaded from the database"
		for _, b := range []int{40, 400} {
			resp := searchJSON(t, append(common, "--no-refresh", "--budget", strconv.Itoa(b), query)...)
			if resp.Tokens <= 0 || resp.Tokens > b || len(resp.Results) == 0 {
				t.Errorf("--budget %d: %d results in %d tokens", b, len(resp.Results), resp.Tokens)
			}
			for i, r := range resp.Results {
				if r.Truncated && i != len(resp.Results)-1 {
					t.Errorf("--budget %d: result %d of %d truncated: only the last may be", b, i, len(resp.Results))
				}
			}
		}
		// A budget one token short of the first result's text cuts it.
		whole := searchJSON(t, append(common, "--no-refresh", "--budget", strconv.Itoa(limits.MaxBudget), query)...)
		if len(whole.Results) == 0 || whole.Results[0].Truncated {
			t.Fatalf("results %+v, want whole texts", whole.Results)
		}
		first := budget.Estimate(whole.Results[0].Snippet)
		out, err := run(t, append(common, "--no-refresh", "--budget", strconv.Itoa(first-1), query)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "… (cut to the token budget)") {
			t.Errorf("output does not mark the cut result:\n%s", out)
		}
	})

	errorTests := []struct {
		name string
		args []string
		says []string
	}{
		{"bad regex", []string{"re: Find("}, []string{"invalid regular expression", `"Find("`, "missing closing )"}},
		{"bad regex in slashes", []string{"/[z-a]/"}, []string{"invalid regular expression", "invalid character class range"}},
		{"unknown strategy", []string{"--strategy", "fuzzy", "FindByID"}, []string{`unknown strategy "fuzzy"`}},
		{"empty query", []string{"  "}, []string{"empty query"}},
		{"no query", nil, []string{"requires at least 1 arg"}},
	}
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, append(append(common, "--no-refresh"), tt.args...)...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

func TestCLISearchRoutingStats(t *testing.T) {
	data := t.TempDir()
	root := searchApp(t)
	for _, q := range []string{"who calls FindByID", "kw: FindByID"} {
		if _, err := run(t, "--data-dir", data, "--root", root, "search", q); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
	}
	// A refused search is not recorded.
	if _, err := run(t, "--data-dir", data, "--root", root, "search", "--no-refresh", "re: Find("); err == nil {
		t.Fatal("a bad regex was searched")
	}
	out, err := run(t, "--data-dir", data, "routing-stats", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rs struct {
		Strategies []struct {
			Strategy      string  `json:"strategy"`
			Queries       int     `json:"queries"`
			AvgConfidence float64 `json:"avg_confidence"`
			AvgResults    float64 `json:"avg_results"`
		} `json:"strategies"`
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	got := map[string]int{}
	for _, st := range rs.Strategies {
		got[st.Strategy] = st.Queries
		switch st.Strategy {
		case "structural":
			if st.AvgConfidence != 0.9 || st.AvgResults != 1 {
				t.Errorf("structural: confidence %v, results %v; want 0.9 and 1", st.AvgConfidence, st.AvgResults)
			}
		case "keyword":
			if st.AvgConfidence != 1 || st.AvgResults != float64(countIn(t, root, "FindByID")) {
				t.Errorf("keyword: confidence %v, results %v", st.AvgConfidence, st.AvgResults)
			}
		}
	}
	if len(got) != 2 || got["structural"] != 1 || got["keyword"] != 1 {
		t.Errorf("routing stats %s, want one structural and one keyword search", out)
	}
	text, err := run(t, "--data-dir", data, "routing-stats")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^structural +1 +0\.90 `).MatchString(text) || !regexp.MustCompile(`(?m)^keyword +1 +1\.00 `).MatchString(text) {
		t.Errorf("routing-stats table:\n%s", text)
	}
}
