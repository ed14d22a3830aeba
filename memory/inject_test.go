package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/budget"
	"github.com/anchorage-dev/anchorage/retrieval/budget/bpe"
)

// injectFixture is a copy of the sample app with its index and a memory
// database.
type injectFixture struct {
	root  string
	ix    *analysis.Index
	store *Store
}

// newInjectFixture copies testdata/sampleapp into a directory named
// sampleapp (the project of its rules), indexes it and opens an empty
// memory database.
func newInjectFixture(t testing.TB) *injectFixture {
	t.Helper()
	ctx := context.Background()
	root := injectSampleCopy(t)
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: filepath.Join(t.TempDir(), "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &injectFixture{root: ix.Root(), ix: ix, store: st}
}

// injectSampleCopy copies the sample app into a new directory and
// returns the copy's root, links resolved.
func injectSampleCopy(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	return root
}

// injectRule is a rule to store, with its anchor (file and qualified
// symbol; no file for none).
type injectRule struct {
	scope, content string
	priority       int
	file, symbol   string
}

// add stores rules and anchors them as the anchor engine does (the
// symbol's line and the workspace root in the metadata), and returns
// their ids in order.
func (f *injectFixture) add(t testing.TB, rules ...injectRule) []int64 {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	for _, r := range rules {
		stored, err := f.store.AddRule(ctx, Rule{Category: CategoryRule, Scope: r.scope, Content: r.content, Confidence: 0.8, Priority: r.priority})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, stored.ID)
		if r.file == "" {
			continue
		}
		line := 0
		if r.symbol != "" {
			sym, ok, err := f.ix.FindSymbol(ctx, r.file, r.symbol, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				line = sym.Range.Start.Line + 1
			} else {
				line = 7 // an anchor that was lost before the test
			}
		}
		meta, _ := json.Marshal(map[string]any{"line": line, "root": f.root, "project": "sampleapp"})
		if err := f.store.SetAnchor(ctx, stored.ID, RuleAnchor{File: r.file, Symbol: r.symbol, Score: 0.8, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func (f *injectFixture) deps() InjectDeps { return InjectDeps{Store: f.store, Index: f.ix} }

// inject runs Inject and checks what every injection must hold.
func (f *injectFixture) inject(t *testing.T, req InjectRequest, deps InjectDeps) *Injection {
	t.Helper()
	inj, err := Inject(context.Background(), req, deps)
	if err != nil {
		t.Fatalf("Inject(%+v): %v", req, err)
	}
	checkInjection(t, inj, deps.Counter)
	return inj
}

// checkInjection checks the budget and the split, and that the fields
// agree with the Markdown.
func checkInjection(t *testing.T, inj *Injection, c budget.Counter) {
	t.Helper()
	if c == nil {
		c = budget.Estimator{}
	}
	tk := inj.Tokens
	if got := c.Count(inj.Markdown); got != tk.Total {
		t.Errorf("tokens.total %d, but the Markdown counts %d", tk.Total, got)
	}
	if tk.Total > tk.Budget {
		t.Errorf("%d tokens over the budget of %d:\n%s", tk.Total, tk.Budget, inj.Markdown)
	}
	if tk.RulesBudget != tk.Budget*40/100 || tk.ExamplesBudget != tk.Budget-tk.RulesBudget {
		t.Errorf("budgets %d + %d of %d, want 40 %% and 60 %%", tk.RulesBudget, tk.ExamplesBudget, tk.Budget)
	}
	if tk.Rules > tk.RulesBudget || tk.Examples > tk.ExamplesBudget {
		t.Errorf("rules %d of %d tokens, examples %d of %d", tk.Rules, tk.RulesBudget, tk.Examples, tk.ExamplesBudget)
	}
	sumRules, sumExamples := 0, 0
	for _, r := range inj.Rules {
		sumRules += r.Tokens
		if !strings.Contains(inj.Markdown, "- "+strings.Join(strings.Fields(r.Content), " ")) && !r.Truncated {
			t.Errorf("rule %d %q is not in the Markdown", r.ID, r.Content)
		}
		if ex := r.Example; ex != nil {
			sumExamples += ex.Tokens
			if r.ExampleStatus != ExampleShown && r.ExampleStatus != ExampleCut {
				t.Errorf("rule %d: example shown with status %s", r.ID, r.ExampleStatus)
			}
			if ex.Lines > MaxExampleLines {
				t.Errorf("rule %d: %d lines of example", r.ID, ex.Lines)
			}
		} else if r.ExampleStatus == ExampleShown || r.ExampleStatus == ExampleCut {
			t.Errorf("rule %d: status %s without an example", r.ID, r.ExampleStatus)
		}
	}
	if tk.Examples != sumExamples || tk.Rules < sumRules || tk.Rules > sumRules+c.Count(injectHeading) {
		t.Errorf("tokens %+v, but the rules sum to %d and the examples to %d", tk, sumRules, sumExamples)
	}
	for _, block := range codeBlocks(inj.Markdown) {
		if n := len(strings.Split(block, "\n")); n > MaxExampleLines {
			t.Errorf("a code block of %d lines:\n%s", n, block)
		}
	}
	if inj.Truncated != (inj.RulesTruncated || inj.ExamplesTruncated) || inj.Dropped != inj.Considered-len(inj.Rules) {
		t.Errorf("truncated %v (rules %v, examples %v), dropped %d of %d with %d injected",
			inj.Truncated, inj.RulesTruncated, inj.ExamplesTruncated, inj.Dropped, inj.Considered, len(inj.Rules))
	}
}

var fenceRE = regexp.MustCompile("(?s)\n  (```+)[a-z]*\n(.*?)\n  ```")

// codeBlocks returns the code of the Markdown's fenced blocks.
func codeBlocks(md string) []string {
	var out []string
	for _, m := range fenceRE.FindAllStringSubmatch(md, -1) {
		lines := strings.Split(m[2], "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, "  ")
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// ruleIDs lists the ids of injected rules in order.
func ruleIDs(inj *Injection) []int64 {
	var ids []int64
	for _, r := range inj.Rules {
		ids = append(ids, r.ID)
	}
	return ids
}

// injected returns the injected rule with id, or nil.
func injected(inj *Injection, id int64) *InjectedRule {
	for i := range inj.Rules {
		if inj.Rules[i].ID == id {
			return &inj.Rules[i]
		}
	}
	return nil
}

// sampleRules are rules over the sample app, with examples of various
// sizes, and rules of other languages and projects.
var sampleRules = []injectRule{
	{"universal", "Keep functions short enough to read at a glance", 3, "", ""},
	{"project:sampleapp", "Wrap database errors with the operation that failed, using %w", 2, "internal/db/db.go", "db.Open"},
	{"language:go", "Return ErrNotFound, wrapped with the id, when a user does not exist", 3, "users/repo.go", "UserRepository.FindByID"},
	{"language:go", "Validate ids before saving a user and return an error for an empty one", 4, "users/repo.go", "UserRepository.Save"},
	{"language:python", "Log job failures with the job key and the elapsed time", 1, "worker/runner.py", "Runner._run_one"},
	{"language:typescript", "Evict the least recently used entry when the cache is over capacity", 2, "client/src/cache.ts", "LruCache.evictOldest"},
	{"project:other", "Prefix every table name with the tenant", 1, "", ""},
	{"universal", "Document every exported name with a sentence that starts with the name", 5, "users/repo.go", ""},
	{"language:go", "Pass a context.Context first to every function that does I/O", 3, "internal/db/db.go", "Conn.QueryRow"},
	{"project:sampleapp", "Close database connections with Conn.Close when done", 4, "internal/db/db.go", "Conn.Close"},
}

// goFileRules are the ids of sampleRules that apply to a Go file of the
// sample app: not the Python, TypeScript or other project's.
func goFileRules(ids []int64) []int64 {
	var out []int64
	for i, r := range sampleRules {
		if r.scope != "language:python" && r.scope != "language:typescript" && r.scope != "project:other" {
			out = append(out, ids[i])
		}
	}
	return out
}

func TestInjectFormat(t *testing.T) {
	f := newInjectFixture(t)
	ids := f.add(t, sampleRules...)
	inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
	t.Logf("\n%s", inj.Markdown)
	src, err := os.ReadFile(filepath.Join(f.root, "users", "repo.go"))
	if err != nil {
		t.Fatal(err)
	}
	findByID := strings.Index(string(src), "func (r *UserRepository) FindByID")
	line := strings.Count(string(src[:findByID]), "\n") + 1
	want := fmt.Sprintf("## Coding rules\n"+
		"- Return ErrNotFound, wrapped with the id, when a user does not exist\n"+
		"  Example: users/repo.go:%d (UserRepository.FindByID)\n"+
		"  ```go\n"+
		"  func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {\n"+
		"  \tvar u User\n", line)
	if !strings.HasPrefix(inj.Markdown, want) {
		t.Errorf("Markdown starts\n%s\nwant\n%s", inj.Markdown[:min(len(inj.Markdown), len(want)+80)], want)
	}
	r := injected(inj, ids[2])
	if r == nil || r.Example == nil || r.ExampleStatus != ExampleShown || !r.InFile ||
		r.Example.File != "users/repo.go" || r.Example.Symbol != "UserRepository.FindByID" || r.Example.Line != line ||
		r.Example.Language != "go" || r.Example.Lines != 8 || r.Example.Truncated || r.Example.Moved || r.Example.Root != "" {
		t.Errorf("rule %+v, example %+v", r, r.Example)
	}
	if inj.File != "users/repo.go" || inj.Language != "go" || inj.Project != "sampleapp" ||
		!slices.Equal(inj.Scopes, []string{"universal", "language:go", "project:sampleapp"}) || inj.Truncated {
		t.Errorf("injection %+v", inj)
	}
	// The whole-file example is cut at MaxExampleLines.
	doc := injected(inj, ids[7])
	if doc == nil || doc.Example == nil || doc.Example.Symbol != "" || !doc.Example.Truncated || doc.Example.Lines != MaxExampleLines {
		t.Fatalf("whole-file example %+v", doc)
	}
	if !strings.Contains(inj.Markdown, "  // … 11 more lines\n  ```") {
		t.Errorf("no line count after the first 29 lines of users/repo.go:\n%s", inj.Markdown)
	}
	// JSON has the fields editors read.
	raw, err := json.Marshal(inj)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(raw, &fields)
	for _, k := range []string{"markdown", "rules", "tokens", "truncated", "considered", "dropped", "scopes"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, raw)
		}
	}
}

func TestInjectScopes(t *testing.T) {
	f := newInjectFixture(t)
	ids := f.add(t, sampleRules...)
	byScope := func(scopes ...string) []int64 {
		var out []int64
		for i, r := range sampleRules {
			if slices.Contains(scopes, r.scope) {
				out = append(out, ids[i])
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name string
		req  InjectRequest
		want []int64
	}{
		{"go file", InjectRequest{File: "users/repo.go"}, byScope("universal", "language:go", "project:sampleapp")},
		{"python file", InjectRequest{File: "worker/runner.py"}, byScope("universal", "language:python", "project:sampleapp")},
		{"typescript file", InjectRequest{File: "client/src/cache.ts"}, byScope("universal", "language:typescript", "project:sampleapp")},
		{"no file", InjectRequest{Query: "database errors"}, byScope("universal", "project:sampleapp")},
		{"language given", InjectRequest{Language: "golang"}, byScope("universal", "language:go", "project:sampleapp")},
		{"another project", InjectRequest{File: "users/repo.go", Project: "other"}, byScope("universal", "language:go", "project:other")},
		{"file of no language", InjectRequest{File: "go.mod"}, byScope("universal", "project:sampleapp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inj := f.inject(t, InjectRequest{File: tt.req.File, Query: tt.req.Query, Language: tt.req.Language, Project: tt.req.Project, Budget: 100000}, f.deps())
			got := ruleIDs(inj)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("rules %v, want %v (scopes %v)", got, tt.want, inj.Scopes)
			}
			if inj.Considered != len(tt.want) || inj.Dropped != 0 {
				t.Errorf("considered %d, dropped %d", inj.Considered, inj.Dropped)
			}
		})
	}
	t.Run("a python rule is not injected for a go file", func(t *testing.T) {
		inj := f.inject(t, InjectRequest{File: "internal/db/db.go", Query: "log job failures elapsed time"}, f.deps())
		if strings.Contains(inj.Markdown, "job failures") || strings.Contains(inj.Markdown, "```python") {
			t.Errorf("python rule injected for a go file:\n%s", inj.Markdown)
		}
	})
}

func TestInjectRanking(t *testing.T) {
	f := newInjectFixture(t)
	ids := f.add(t, sampleRules...)
	tests := []struct {
		name string
		req  InjectRequest
		// first are the rules that must come first, in any order;
		// then the rule that must follow them, if any.
		first []int64
		then  int64
	}{
		// Anchored in the file first (priorities 2 to 5), ahead of the
		// universal rule of priority 3 and the project's of priority 2.
		{"the file's own rules first", InjectRequest{File: "users/repo.go"}, []int64{ids[2], ids[3], ids[7]}, 0},
		{"the file's own rules first, db", InjectRequest{File: "internal/db/db.go"}, []int64{ids[1], ids[8], ids[9]}, 0},
		// A query ranks by its words: the save rule over the others.
		{"query", InjectRequest{Query: "saving a user with an empty id", Language: "go"}, []int64{ids[3]}, 0},
		{"query with a file", InjectRequest{File: "cmd/server/main.go", Query: "close the connection"}, []int64{ids[9]}, 0},
		// Without an anchor in the file, its words rank: service.go
		// uses FindByID and ErrNotFound.
		{"file words", InjectRequest{File: "users/service.go"}, []int64{ids[2]}, 0},
		// Neither: the store's order (priority).
		{"no context", InjectRequest{Language: "go"}, []int64{ids[1]}, ids[0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Budget = 100000
			inj := f.inject(t, tt.req, f.deps())
			got := ruleIDs(inj)
			if len(got) < len(tt.first)+1 {
				t.Fatalf("rules %v", got)
			}
			head := slices.Clone(got[:len(tt.first)])
			slices.Sort(head)
			want := slices.Clone(tt.first)
			slices.Sort(want)
			if !slices.Equal(head, want) || (tt.then != 0 && got[len(tt.first)] != tt.then) {
				t.Errorf("order %v, want %v first, then %d", got, tt.first, tt.then)
			}
			for i, r := range inj.Rules {
				wantIn := tt.req.File != "" && i < len(tt.first) && tt.name != "query with a file" && tt.name != "file words"
				if r.InFile != wantIn && strings.HasPrefix(tt.name, "the file's") {
					t.Errorf("rule %d in_file %v", r.ID, r.InFile)
				}
			}
		})
	}
}

func TestInjectBudget(t *testing.T) {
	f := newInjectFixture(t)
	f.add(t, sampleRules...)
	// Long rules, so that both shares fill.
	var more []injectRule
	for i := range 20 {
		more = append(more, injectRule{"language:go", fmt.Sprintf("Rule %d: prefer small interfaces defined where they are used, and accept interfaces but return concrete types from constructors", i), 3, "users/service.go", "Service.GetUser"})
	}
	f.add(t, more...)
	exact, err := bpe.New(bpe.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	// The exact tokenizer is slower: it checks fewer budgets.
	counters := []struct {
		name string
		c    budget.Counter
		step int
	}{{"estimate", nil, 53}, {"cl100k", exact, 113}}
	t.Run("property", func(t *testing.T) {
		for _, tc := range counters {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				budgets := []int{1, 10, 19, 20, 21}
				for b := 50; b <= 5000; b += tc.step {
					budgets = append(budgets, b)
				}
				budgets = append(budgets, 5000)
				deps := f.deps()
				deps.Counter = tc.c
				prev := 0
				for _, b := range budgets {
					for _, req := range []InjectRequest{{File: "users/repo.go", Budget: b}, {Query: "database errors", Language: "go", Budget: b}} {
						inj := f.inject(t, req, deps)
						if b >= 50 && len(inj.Rules) == 0 {
							t.Errorf("budget %d: no rule injected", b)
						}
						if req.File != "" && b >= 50 && b <= 5000 {
							if len(inj.Rules) < prev-1 {
								t.Errorf("budget %d: %d rules, %d with less", b, len(inj.Rules), prev)
							}
							prev = len(inj.Rules)
						}
					}
				}
			})
		}
	})
	t.Run("split", func(t *testing.T) {
		for _, b := range []int{1500, 1000, 3000} {
			inj := f.inject(t, InjectRequest{File: "users/repo.go", Budget: b}, f.deps())
			tk := inj.Tokens
			if tk.RulesBudget != b*2/5 || tk.ExamplesBudget != b-b*2/5 {
				t.Errorf("budget %d split %d/%d", b, tk.RulesBudget, tk.ExamplesBudget)
			}
			// Rules fill their share when the long rules exceed it.
			if b < 3000 && (tk.Rules < tk.RulesBudget-40 || !inj.RulesTruncated || inj.Dropped == 0) {
				t.Errorf("budget %d: rules use %d of %d tokens, dropped %d", b, tk.Rules, tk.RulesBudget, inj.Dropped)
			}
			if tk.Examples == 0 || tk.Examples > tk.ExamplesBudget {
				t.Errorf("budget %d: examples use %d of %d tokens", b, tk.Examples, tk.ExamplesBudget)
			}
			t.Logf("budget %d: rules %d/%d tokens (%d of %d rules), examples %d/%d, total %d",
				b, tk.Rules, tk.RulesBudget, len(inj.Rules), inj.Considered, tk.Examples, tk.ExamplesBudget, tk.Total)
		}
		// The default budget is 1500.
		inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
		if inj.Tokens.Budget != DefaultInjectBudget || inj.Tokens.RulesBudget != 600 || inj.Tokens.ExamplesBudget != 900 {
			t.Errorf("default tokens %+v", inj.Tokens)
		}
	})
	t.Run("everything fits", func(t *testing.T) {
		inj := f.inject(t, InjectRequest{File: "users/repo.go", Budget: 100000}, f.deps())
		if inj.Truncated || inj.Dropped != 0 || len(inj.Rules) != inj.Considered {
			t.Errorf("truncated %v, dropped %d", inj.Truncated, inj.Dropped)
		}
		for _, r := range inj.Rules {
			if r.ExampleStatus != ExampleShown && r.ExampleStatus != ExampleNone {
				t.Errorf("rule %d: example %s", r.ID, r.ExampleStatus)
			}
		}
	})
	t.Run("cut with the marker", func(t *testing.T) {
		// With room for rules but not for every example, the first
		// example that does not fit is cut with the marker when enough
		// room remains.
		cuts := 0
		for b := 100; b <= 800; b += 10 {
			inj := f.inject(t, InjectRequest{File: "internal/db/db.go", Budget: b}, f.deps())
			for _, r := range inj.Rules {
				if r.ExampleStatus != ExampleCut {
					continue
				}
				cuts++
				if !r.Example.Truncated || !inj.ExamplesTruncated || !strings.Contains(inj.Markdown, "… [truncated: ") {
					t.Errorf("budget %d: rule %d cut without the marker:\n%s", b, r.ID, inj.Markdown)
				}
			}
		}
		if cuts == 0 {
			t.Error("no example was ever cut")
		}
	})
	t.Run("negative", func(t *testing.T) {
		if _, err := Inject(context.Background(), InjectRequest{Budget: -1}, f.deps()); err == nil {
			t.Error("a negative budget is accepted")
		}
	})
}

func TestInjectLostAnchor(t *testing.T) {
	f := newInjectFixture(t)
	ids := f.add(t,
		injectRule{"language:go", "Look users up through the repository", 1, "users/repo.go", "UserRepository.FindByID"},
		injectRule{"language:go", "Keep the old helper", 2, "users/repo.go", "UserRepository.Gone"},
		injectRule{"language:go", "Use the deleted file's style", 3, "users/deleted.go", "Deleted.Func"},
		injectRule{"language:go", "Mind escaping paths", 4, "../outside.go", "X"},
	)
	inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
	for _, id := range ids[1:] {
		r := injected(inj, id)
		if r == nil || r.ExampleStatus != ExampleLost || r.Example != nil {
			t.Errorf("rule %d: %+v, want a lost example", id, r)
		}
	}
	for _, line := range []string{
		"- Keep the old helper (example not found)\n",
		"- Use the deleted file's style (example not found)\n",
		"- Mind escaping paths (example not found)\n",
	} {
		if !strings.Contains(inj.Markdown, line) {
			t.Errorf("no %q in\n%s", line, inj.Markdown)
		}
	}
	if r := injected(inj, ids[0]); r == nil || r.ExampleStatus != ExampleShown {
		t.Errorf("the anchored rule: %+v", r)
	}
	if n := len(codeBlocks(inj.Markdown)); n != 1 {
		t.Errorf("%d code blocks, want 1:\n%s", n, inj.Markdown)
	}

	t.Run("moved to another file", func(t *testing.T) {
		// The file is renamed; the symbol is found in the new one.
		src, err := os.ReadFile(filepath.Join(f.root, "internal", "db", "db.go"))
		if err != nil {
			t.Fatal(err)
		}
		id := f.add(t, injectRule{"project:sampleapp", "Ping the database when connecting", 1, "internal/db/db.go", "db.Open"})[0]
		os.Remove(filepath.Join(f.root, "internal", "db", "db.go"))
		if err := os.WriteFile(filepath.Join(f.root, "internal", "db", "conn.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ix.Update(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		inj := f.inject(t, InjectRequest{Query: "ping database"}, f.deps())
		r := injected(inj, id)
		if r == nil || r.Example == nil || !r.Example.Moved || r.Example.File != "internal/db/conn.go" {
			t.Fatalf("moved rule %+v", r)
		}
		if !strings.Contains(inj.Markdown, "Example: internal/db/conn.go:") {
			t.Errorf("Markdown:\n%s", inj.Markdown)
		}
	})
}

func TestInjectEmptyStore(t *testing.T) {
	f := newInjectFixture(t)
	for name, deps := range map[string]InjectDeps{"empty": f.deps(), "no database": {Index: f.ix}} {
		t.Run(name, func(t *testing.T) {
			inj := f.inject(t, InjectRequest{File: "users/repo.go"}, deps)
			want := "No coding rules apply here yet (universal, language:go, project:sampleapp).\n"
			if inj.Markdown != want || len(inj.Rules) != 0 || inj.Rules == nil || inj.Truncated {
				t.Errorf("Markdown %q, rules %v", inj.Markdown, inj.Rules)
			}
		})
	}
	// Only rules that do not apply.
	f.add(t, injectRule{"language:python", "Use pathlib", 1, "", ""})
	inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
	if !strings.HasPrefix(inj.Markdown, "No coding rules apply here yet") || inj.Considered != 0 {
		t.Errorf("Markdown %q", inj.Markdown)
	}
}

func TestInjectFollowsEdits(t *testing.T) {
	f := newInjectFixture(t)
	id := f.add(t, injectRule{"language:go", "Return ErrNotFound, wrapped with the id", 1, "users/repo.go", "UserRepository.FindByID"})[0]
	file := filepath.Join(f.root, "users", "repo.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Ten lines above the symbol, and a changed body.
	var above strings.Builder
	for i := range 10 {
		fmt.Fprintf(&above, "// filler %d\n", i)
	}
	edited := strings.Replace(string(orig), "// FindByID loads", above.String()+"// FindByID loads", 1)
	edited = strings.Replace(edited, "\tvar u User\n", "\tvar u User // edited\n", 1)
	wantLine := strings.Count(edited[:strings.Index(edited, "func (r *UserRepository) FindByID")], "\n") + 1

	check := func(t *testing.T, deps InjectDeps) {
		t.Helper()
		inj := f.inject(t, InjectRequest{File: "users/repo.go"}, deps)
		r := injected(inj, id)
		if r == nil || r.Example == nil || r.Example.Line != wantLine {
			t.Fatalf("rule %+v, want its example at line %d", r, wantLine)
		}
		blocks := codeBlocks(inj.Markdown)
		if len(blocks) != 1 || !strings.HasPrefix(blocks[0], "func (r *UserRepository) FindByID(") ||
			!strings.Contains(blocks[0], "var u User // edited") || strings.Contains(blocks[0], "filler") {
			t.Errorf("example is not the current FindByID:\n%s", inj.Markdown)
		}
	}
	t.Run("open in an editor", func(t *testing.T) {
		deps := f.deps()
		deps.Overlay = func(p string) ([]byte, bool) {
			if p == "users/repo.go" {
				return []byte(edited), true
			}
			return nil, false
		}
		check(t, deps)
	})
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("changed on disk, index stale", func(t *testing.T) { check(t, f.deps()) })
	if _, err := f.ix.Update(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Run("changed on disk, index updated", func(t *testing.T) { check(t, f.deps()) })
	t.Run("no index", func(t *testing.T) { check(t, InjectDeps{Store: f.store, Root: f.root}) })
}

func TestInjectSecrets(t *testing.T) {
	f := newInjectFixture(t)
	id := f.add(t, injectRule{"universal", "Keep keys out of the code", 1, ".env", ""})[0]
	for _, file := range []string{".env", "config/prod.pem", "id_rsa"} {
		if _, err := Inject(context.Background(), InjectRequest{File: file}, f.deps()); !errors.Is(err, ErrSecretFile) {
			t.Errorf("inject for %s: %v, want ErrSecretFile", file, err)
		}
	}
	inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
	r := injected(inj, id)
	if r == nil || r.ExampleStatus != ExampleSecret || r.Example != nil {
		t.Errorf("rule anchored in .env: %+v", r)
	}
	if strings.Contains(inj.Markdown, "API_KEY") || strings.Contains(inj.Markdown, "example-not-a-real-key") {
		t.Errorf("a secret was injected:\n%s", inj.Markdown)
	}
	if !strings.Contains(inj.Markdown, "- Keep keys out of the code (example withheld)\n") {
		t.Errorf("Markdown:\n%s", inj.Markdown)
	}
	// Nor is a link to a secret read.
	if err := os.Symlink(filepath.Join(f.root, ".env"), filepath.Join(f.root, "users", "settings.go")); err != nil {
		t.Skip(err)
	}
	if _, err := f.store.UpdateRule(context.Background(), Rule{ID: id, Category: CategoryRule, Scope: "universal", Content: "Keep keys out of the code", Confidence: 0.8}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetAnchor(context.Background(), id, RuleAnchor{File: "users/settings.go", Score: 0.8}); err != nil {
		t.Fatal(err)
	}
	inj = f.inject(t, InjectRequest{File: "users/settings.go"}, f.deps())
	if strings.Contains(inj.Markdown, "API_KEY") {
		t.Errorf("a secret was injected through a link:\n%s", inj.Markdown)
	}
}

func TestInjectOtherWorkspace(t *testing.T) {
	f := newInjectFixture(t)
	other := injectSampleCopy(t)
	if err := os.WriteFile(filepath.Join(other, "users", "repo.go"), []byte("package users\n\n// Other is elsewhere.\nfunc Other() int {\n\treturn 42\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := f.store
	r, err := st.AddRule(context.Background(), Rule{Category: CategoryRule, Scope: "universal", Content: "Return constants from tiny functions", Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"line": 4, "root": other})
	if err := st.SetAnchor(context.Background(), r.ID, RuleAnchor{File: "users/repo.go", Symbol: "users.Other", Score: 0.9, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	inj := f.inject(t, InjectRequest{File: "users/repo.go"}, f.deps())
	got := injected(inj, r.ID)
	if got == nil || got.Example == nil || got.Example.Root != other || got.InFile {
		t.Fatalf("rule %+v", got)
	}
	if !strings.Contains(inj.Markdown, "Example: sampleapp/users/repo.go:4 (users.Other)\n  ```go\n  func Other() int {\n  \treturn 42\n  }\n  ```\n") {
		t.Errorf("Markdown:\n%s", inj.Markdown)
	}
}

func TestInjectBadRequests(t *testing.T) {
	f := newInjectFixture(t)
	f.add(t, sampleRules...)
	for _, req := range []InjectRequest{
		{File: "../etc/passwd"},
		{File: "/etc/passwd"},
		{Language: "!!"},
	} {
		if _, err := Inject(context.Background(), req, f.deps()); err == nil {
			t.Errorf("Inject(%+v) accepted", req)
		}
	}
	// A file that does not exist yet ranks by its path.
	inj := f.inject(t, InjectRequest{File: "users/new.go"}, f.deps())
	if len(inj.Rules) == 0 {
		t.Error("no rules for a new file")
	}
	// An absolute path inside the root is made relative.
	inj = f.inject(t, InjectRequest{File: filepath.Join(f.root, "users", "repo.go")}, f.deps())
	if inj.File != "users/repo.go" {
		t.Errorf("file %q", inj.File)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Inject(ctx, InjectRequest{File: "users/repo.go"}, f.deps()); err == nil {
		t.Error("a cancelled injection succeeded")
	}
}

func TestInjectConcurrent(t *testing.T) {
	f := newInjectFixture(t)
	f.add(t, sampleRules...)
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() {
			inj, err := Inject(context.Background(), InjectRequest{File: "users/repo.go"}, f.deps())
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = inj.Markdown
		})
	}
	wg.Wait()
	for _, r := range results[1:] {
		if r != results[0] {
			t.Fatal("concurrent injections differ")
		}
	}
}

func TestInjectDedent(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"\t\tfoo()", "", "\t\t\tbar()", "\t\t}"}, []string{"foo()", "", "\tbar()", "}"}},
		{[]string{"    def f(self):", "        return 1"}, []string{"def f(self):", "    return 1"}},
		{[]string{"x", "  y"}, []string{"x", "  y"}},
		{[]string{"\t a", "\t\tb"}, []string{" a", "\tb"}},
	}
	for _, tt := range tests {
		if got := dedent(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("dedent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkInject measures an injection for a file with the default
// budget over the sample rules.
func BenchmarkInject(b *testing.B) {
	f := newInjectFixture(b)
	f.add(b, sampleRules...)
	ctx := context.Background()
	for b.Loop() {
		if _, err := Inject(ctx, InjectRequest{File: "users/repo.go"}, f.deps()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInjectLongExample shows a long example by its first line and the
// lines that show the rule, with comments counting the lines left out.
func TestInjectLongExample(t *testing.T) {
	f := newInjectFixture(t)
	file := filepath.Join(f.root, "users", "repo.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var filler strings.Builder
	for i := range 60 {
		fmt.Fprintf(&filler, "\t_ = %d // filler\n", i)
	}
	long := strings.Replace(string(orig), "\tvar u User\n", "\tvar u User\n"+filler.String(), 1)
	if err := os.WriteFile(file, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ix.Update(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	id := f.add(t, injectRule{"language:go", "Return ErrNotFound wrapped with fmt.Errorf and %w when a row scan fails", 1, "users/repo.go", "UserRepository.FindByID"})[0]
	inj := f.inject(t, InjectRequest{File: "users/repo.go", Budget: 4000}, f.deps())
	r := injected(inj, id)
	blocks := codeBlocks(inj.Markdown)
	if r == nil || r.Example == nil || len(blocks) != 1 {
		t.Fatalf("no example: %+v\n%s", r, inj.Markdown)
	}
	code := blocks[0]
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "func (r *UserRepository) FindByID(") || !strings.Contains(code, `fmt.Errorf("find user %s: %w", id, ErrNotFound)`) ||
		!strings.Contains(code, "// … ") || len(lines) > MaxExampleLines {
		t.Errorf("the long example is not its signature and its relevant lines (%d lines):\n%s", len(lines), code)
	}
	if strings.Count(code, "filler") > MaxExampleLines-5 {
		t.Errorf("the example shows mostly filler:\n%s", code)
	}
}

// TestInjectFollowsRename injects the example of a rule whose function
// was renamed since it was anchored: the same code under its new name.
func TestInjectFollowsRename(t *testing.T) {
	f := newInjectFixture(t)
	ctx := context.Background()
	a := NewAnchorer(&retrieval.Searcher{Index: f.ix})
	res, err := a.Choose(ctx, "Wrap database errors with the operation that failed", "db.Open", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := f.store.AddRule(ctx, Rule{Category: CategoryRule, Scope: "project:sampleapp", Content: res.Rule, Confidence: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	res.Scope = stored.Scope
	if err := f.store.SetAnchor(ctx, stored.ID, *res.RuleAnchor(f.root, "sampleapp")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(f.root, "internal", "db", "db.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "func Open(", "func OpenDB(", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	inj := f.inject(t, InjectRequest{File: "internal/db/db.go"}, f.deps())
	r := injected(inj, stored.ID)
	if r == nil || r.Example == nil || r.Example.Symbol != "db.OpenDB" || !r.Example.Moved {
		t.Fatalf("rule %+v, want its example followed to db.OpenDB", r)
	}
	if blocks := codeBlocks(inj.Markdown); len(blocks) != 1 || !strings.HasPrefix(blocks[0], "func OpenDB(") {
		t.Errorf("example:\n%s", inj.Markdown)
	}
}
