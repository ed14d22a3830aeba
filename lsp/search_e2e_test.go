package lsp

// End-to-end tests of search over the protocol: the anchorage.search,
// anchorage.search.used, anchorage.routing.stats and anchorage.reindex
// commands and routed workspace/symbol queries, against the real binary
// (see e2e_test.go).

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/retrieval"
)

// e2eSearchResult is a result of anchorage.search as sent.
type e2eSearchResult struct {
	retrieval.Result
	Root       string `json:"root"`
	NameLine   int    `json:"name_line"`
	NameColumn int    `json:"name_column"`
	Doc        string `json:"doc"`
}

// e2eSearchResponse is anchorage.search's answer as sent.
type e2eSearchResponse struct {
	retrieval.Response
	Results []e2eSearchResult `json:"results"`
}

// searchCommand runs anchorage.search with args and decodes its answer, checking
// the fields every answer has.
func (c *lspClient) searchCommand(t *testing.T, args ...any) e2eSearchResponse {
	t.Helper()
	raw, err := c.command(t, cmdSearch, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", cmdSearch, args, err)
	}
	var resp e2eSearchResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("%s: %v in %s", cmdSearch, err, raw)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"query", "strategy", "confidence", "reasoning", "elapsed_ms", "results", "total"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("%s: the answer has no %q: %s", cmdSearch, k, raw)
		}
	}
	if resp.Results == nil {
		t.Errorf("%s: results %s, want a list", cmdSearch, fields["results"])
	}
	for _, r := range resp.Results {
		if r.File == "" || strings.HasPrefix(r.File, "/") || strings.Contains(r.File, `\`) || r.Line < 1 || r.EndLine < r.Line || r.Snippet == "" {
			t.Errorf("%s: result %+v: want a relative path, 1-based lines and a snippet", cmdSearch, r)
		}
	}
	return resp
}

// routingStatsCommand runs anchorage.routing.stats and returns the searches
// recorded and results used, by strategy.
func (c *lspClient) routingStatsCommand(t *testing.T) (queries, used map[string]int) {
	t.Helper()
	raw, err := c.command(t, cmdRoutingStats)
	if err != nil {
		t.Fatalf("%s: %v", cmdRoutingStats, err)
	}
	var st struct {
		Strategies []struct {
			Strategy string `json:"strategy"`
			Queries  int    `json:"queries"`
			Used     int    `json:"used"`
		} `json:"strategies"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || st.Strategies == nil {
		t.Fatalf("%s: %s (%v), want {\"strategies\": [...]}", cmdRoutingStats, raw, err)
	}
	queries, used = map[string]int{}, map[string]int{}
	for _, s := range st.Strategies {
		queries[s.Strategy] += s.Queries
		used[s.Strategy] += s.Used
	}
	return queries, used
}

func TestE2ESearch(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	getUser := int(positionIn(t, readFile(t, root, "users/service.go"), "func (s *Service) GetUser").Line) + 1
	countFindByID := 0
	for _, rel := range []string{"users/repo.go", "users/service.go", "users/user.go"} {
		countFindByID += strings.Count(readFile(t, root, rel), "FindByID")
	}

	var feedbackID int64
	searches := []struct {
		name string
		args []any
	}{
		{"object arguments", []any{map[string]any{"query": "who calls FindByID", "top_k": 5}}},
		{"string argument", []any{"who calls FindByID"}},
	}
	for _, tt := range searches {
		t.Run(tt.name, func(t *testing.T) {
			resp := c.searchCommand(t, tt.args...)
			if resp.Strategy != retrieval.Structural || resp.Query != "who calls FindByID" || resp.Partial {
				t.Errorf("query %q routed %s (partial %v), want structural", resp.Query, resp.Strategy, resp.Partial)
			}
			if len(resp.Results) != 1 {
				t.Fatalf("results %+v, want Service.GetUser", resp.Results)
			}
			r := resp.Results[0]
			if r.File != "users/service.go" || r.Symbol != "Service.GetUser" || r.Line != getUser || r.Root != "" ||
				!strings.HasPrefix(r.Snippet, "func (s *Service) GetUser(") {
				t.Errorf("result %+v, want Service.GetUser at users/service.go:%d", r, getUser)
			}
			// Editors show the doc's first line and open at the name.
			if r.NameLine != getUser || r.NameColumn != len("func (s *Service) ")+1 || r.Doc != "GetUser returns the user with the given id." {
				t.Errorf("result's name at %d:%d, doc %q; want %d:%d and GetUser's doc", r.NameLine, r.NameColumn, r.Doc, getUser, len("func (s *Service) ")+1)
			}
			if resp.FeedbackID <= feedbackID {
				t.Errorf("feedback_id %d, want a new one after %d", resp.FeedbackID, feedbackID)
			}
			feedbackID = resp.FeedbackID
		})
	}

	t.Run("strategy, top_k and budget", func(t *testing.T) {
		resp := c.searchCommand(t, map[string]any{"query": "FindByID", "strategy": "keyword", "top_k": 2, "budget": 200})
		if resp.Strategy != retrieval.Keyword || len(resp.Results) != 2 || resp.Total != countFindByID {
			t.Errorf("%s search: %d results of %d, want 2 keyword matches of %d", resp.Strategy, len(resp.Results), resp.Total, countFindByID)
		}
		if resp.Tokens <= 0 || resp.Tokens > 200 {
			t.Errorf("tokens %d, want within the budget of 200", resp.Tokens)
		}
		for _, r := range resp.Results {
			if !strings.Contains(r.Snippet, "FindByID") {
				t.Errorf("keyword result %+v does not show FindByID", r)
			}
		}
	})

	t.Run("search used", func(t *testing.T) {
		raw, err := c.command(t, cmdSearchUsed, map[string]any{"id": feedbackID, "file": "users/service.go", "line": getUser})
		if err != nil {
			t.Fatalf("%s: %v", cmdSearchUsed, err)
		}
		var ok struct {
			Recorded bool `json:"recorded"`
		}
		if err := json.Unmarshal(raw, &ok); err != nil || !ok.Recorded {
			t.Errorf("%s: %s, want recorded", cmdSearchUsed, raw)
		}
		// Reported twice, it counts once.
		if _, err := c.command(t, cmdSearchUsed, map[string]any{"id": feedbackID, "file": "users/service.go", "line": getUser}); err != nil {
			t.Errorf("%s again: %v", cmdSearchUsed, err)
		}
	})

	usedErrors := []struct {
		name string
		args []any
	}{
		{"unknown id", []any{map[string]any{"id": feedbackID + 1000000, "file": "users/service.go", "line": 1}}},
		{"no arguments", nil},
		{"no id", []any{map[string]any{"file": "users/service.go", "line": 1}}},
		{"no file", []any{map[string]any{"id": feedbackID, "line": 1}}},
		{"id not a number", []any{map[string]any{"id": "one", "file": "users/service.go", "line": 1}}},
	}
	for _, tt := range usedErrors {
		t.Run("search used: "+tt.name, func(t *testing.T) {
			_, err := c.command(t, cmdSearchUsed, tt.args...)
			wantCode(t, cmdSearchUsed, err, jsonrpc2.InvalidParams)
		})
	}

	t.Run("routing stats", func(t *testing.T) {
		queries, used := c.routingStatsCommand(t)
		want := map[string]int{"structural": 2, "keyword": 1}
		if !maps.Equal(queries, want) || used["structural"] != 1 {
			t.Errorf("searches %v, used %v; want searches %v and the structural result used once", queries, used, want)
		}
	})

	t.Run("workspace/symbol question", func(t *testing.T) {
		syms := c.symbols(t, "where are users loaded from the database")
		if len(syms) == 0 {
			t.Fatal("no symbols")
		}
		prefix := string(fileURI(root, "")) + "/"
		var aboutUsers bool
		for _, s := range syms {
			if !strings.HasPrefix(string(s.Location.URI), prefix) || s.Name == "" {
				t.Errorf("symbol %q at %s, want a named location in %s", s.Name, s.Location.URI, prefix)
			}
			if strings.Contains(strings.ToLower(string(s.Location.URI)), "user") {
				aboutUsers = true
			}
			if s.Location.Range.End.Line < s.Location.Range.Start.Line {
				t.Errorf("symbol %q: range %v", s.Name, s.Location.Range)
			}
		}
		if !aboutUsers {
			t.Errorf("no symbol in a file about users:%s", describe(syms))
		}
	})

	t.Run("workspace/symbol is not a recorded search", func(t *testing.T) {
		before, _ := c.routingStatsCommand(t)
		for _, q := range []string{"where are", "where are users", "where are users loaded"} {
			c.symbols(t, q)
		}
		if after, _ := c.routingStatsCommand(t); !maps.Equal(before, after) {
			t.Errorf("workspace/symbol changed the routing statistics from %v to %v", before, after)
		}
	})

	searchErrors := []struct {
		name string
		args []any
		says string
	}{
		{"bad regex", []any{"re: Find("}, "missing closing )"},
		{"bad regex in an object", []any{map[string]any{"query": "/[z-a]/"}}, "invalid character class range"},
		{"no arguments", nil, "missing argument"},
		{"empty query", []any{"  "}, "empty query"},
		{"NUL in the query", []any{"Find\x00ByID"}, "not text"},
		{"unknown strategy", []any{map[string]any{"query": "FindByID", "strategy": "fuzzy"}}, `unknown strategy`},
		{"top_k not a number", []any{map[string]any{"query": "FindByID", "top_k": "ten"}}, `field "top_k": want an integer`},
		{"argument not a query", []any{42}, `field "query": want a string`},
	}
	for _, tt := range searchErrors {
		t.Run("error: "+tt.name, func(t *testing.T) {
			_, err := c.command(t, cmdSearch, tt.args...)
			wantCode(t, cmdSearch, err, jsonrpc2.InvalidParams)
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
			// The server keeps serving.
			if resp := c.searchCommand(t, "who calls FindByID"); len(resp.Results) != 1 {
				t.Errorf("after the error: results %+v", resp.Results)
			}
		})
	}

	t.Run("workspace/symbol bad regex", func(t *testing.T) {
		if syms := c.symbols(t, "re: Find("); len(syms) != 0 {
			t.Errorf("symbols for a bad regex:%s", describe(syms))
		}
	})

	t.Run("unsaved edit", func(t *testing.T) {
		u := fileURI(root, "users/service.go")
		d := c.open(t, u, "go", readFile(t, root, "users/service.go"))
		d.insertBefore(t, "// Rename changes", "// zanzibarquux marks an unsaved edit.\nfunc ZanzibarHelper() {}\n\n")
		line := int(d.pos(t, "// zanzibarquux").Line) + 1
		resp := c.searchCommand(t, map[string]any{"query": "zanzibarquux", "strategy": "keyword"})
		if resp.Total != 1 || len(resp.Results) != 1 || resp.Results[0].File != "users/service.go" || resp.Results[0].Line != line ||
			resp.Results[0].Snippet != "// zanzibarquux marks an unsaved edit." {
			t.Errorf("keyword search for the unsaved word: %+v (total %d), want users/service.go:%d", resp.Results, resp.Total, line)
		}
		resp = c.searchCommand(t, "ZanzibarHelper")
		if len(resp.Results) != 1 || !strings.HasSuffix(resp.Results[0].Symbol, "ZanzibarHelper") || resp.Results[0].Line != line+1 {
			t.Errorf("structural search for the unsaved function: %+v (%s), want ZanzibarHelper at line %d", resp.Results, resp.Notice, line+1)
		}
		// Lines below the edit moved: the search sees where they are now.
		renameLine := int(d.pos(t, "func (s *Service) Rename").Line) + 1
		resp = c.searchCommand(t, "who calls GetUser")
		if i := slices.IndexFunc(resp.Results, func(r e2eSearchResult) bool { return r.Symbol == "Service.Rename" }); i < 0 || resp.Results[i].Line != renameLine {
			t.Errorf("callers of GetUser %+v, want Service.Rename at line %d", resp.Results, renameLine)
		}
		d.close(t)
		eventually(t, pollTimeout, func() error {
			if resp := c.searchCommand(t, "kw: zanzibarquux"); resp.Total != 0 {
				return fmt.Errorf("the closed document's edit is still found: %+v", resp.Results)
			}
			return nil
		})
	})

	t.Run("reindex", func(t *testing.T) {
		from := c.mark()
		raw, err := c.command(t, cmdReindex)
		if err != nil {
			t.Fatalf("%s: %v", cmdReindex, err)
		}
		var st struct {
			Folders int  `json:"folders"`
			Started bool `json:"started"`
		}
		if err := json.Unmarshal(raw, &st); err != nil || st.Folders != 1 || !st.Started {
			t.Errorf("%s: %s, want one folder started", cmdReindex, raw)
		}
		c.waitIndexed(t, from, root)
		eventually(t, pollTimeout, func() error {
			resp := c.searchCommand(t, "who calls FindByID")
			if resp.Partial || len(resp.Results) != 1 {
				return fmt.Errorf("after re-indexing: partial %v, results %+v", resp.Partial, resp.Results)
			}
			return nil
		})
	})
}

// TestE2ESearchMultiRoot searches two copies of the sample app open as
// workspace folders.
func TestE2ESearchMultiRoot(t *testing.T) {
	t.Parallel()
	a, b := sampleApp(t), sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, a, b)
	resp := c.searchCommand(t, map[string]any{"query": "kw: FindByID", "top_k": 3})
	if len(resp.Results) != 3 {
		t.Errorf("%d results for top_k 3", len(resp.Results))
	}
	for _, r := range resp.Results {
		if r.Root != a && r.Root != b {
			t.Errorf("result %+v: root %q, want one of the folders", r, r.Root)
		}
	}
	if queries, _ := c.routingStatsCommand(t); queries["keyword"] != 1 {
		t.Errorf("one search recorded as %d", queries["keyword"])
	}
}

// TestE2ESearchNoFolder searches with no workspace folder open.
func TestE2ESearchNoFolder(t *testing.T) {
	t.Parallel()
	c := startClient(t)
	c.start(t, clientOptions{})
	_, err := c.command(t, cmdSearch, "who calls FindByID")
	wantCode(t, cmdSearch, err, jsonrpc2.InvalidRequest)
	if !strings.Contains(err.Error(), "no workspace folder") {
		t.Errorf("error %q does not say that no folder is open", err)
	}
	if queries, _ := c.routingStatsCommand(t); len(queries) != 0 {
		t.Errorf("routing statistics %v, want none", queries)
	}
	raw, err := c.command(t, cmdReindex)
	if err != nil || !strings.Contains(string(raw), `"folders":0`) {
		t.Errorf("%s: %s, %v; want no folders", cmdReindex, raw, err)
	}
}
