package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/mcp"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/state"
)

// The test binary doubles as the server: run with serverEnv set, it
// serves MCP on its stdin and stdout as "anchorage mcp" does, so that
// the SDK's client talks to a real process over real pipes.
const (
	serverEnv  = "ANCHORAGE_MCP_TEST_SERVER"
	rootEnv    = "ANCHORAGE_MCP_TEST_ROOT"
	dataEnv    = "ANCHORAGE_MCP_TEST_DATA"
	profileEnv = "ANCHORAGE_MCP_TEST_PROFILE"
	teamEnv    = "ANCHORAGE_MCP_TEST_TEAM"
)

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		if err := serve(); err != nil {
			fmt.Fprintln(os.Stderr, "anchorage mcp:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}

// serve runs the server as internal/cli/mcp.go does, from the environment.
func serve() error {
	ctx := context.Background()
	dirs, err := state.Resolve(os.Getenv(dataEnv))
	if err != nil {
		return err
	}
	root := os.Getenv(rootEnv)
	vec, err := retrieval.NewWordVectors()
	if err != nil {
		return err
	}
	sess, err := session.New(ctx, dirs, session.Options{
		DocumentRoots: func() []string { return []string{root} },
		Index:         func(string) (analysis.Options, error) { return analysis.Options{Embedder: vec}, nil },
		Team:          session.TeamOptions{URL: os.Getenv(teamEnv)},
	})
	if err != nil {
		return err
	}
	defer sess.Close()
	if tm := sess.Team(); tm != nil {
		tm.Start()
	}
	ix, err := sess.Index(ctx, root)
	if err != nil {
		return err
	}
	p, err := mcp.ParseProfile(os.Getenv(profileEnv))
	if err != nil {
		return err
	}
	svc, err := mcp.New(mcp.Options{
		Session: sess, Index: ix, Vectors: vec, Profile: p, Version: "test", Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	return svc.Run(ctx, &mcp.LineTransport{Reader: os.Stdin, Writer: os.Stdout})
}

// workspace copies the sample app to a temporary root, with a link that
// leads out of it and a named pipe outside it (opening the pipe would
// block: a test that returns proves it was not opened).
func workspace(t testing.TB) (root, outside string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("testdata", "memory", "user-loading.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".anchorage", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".anchorage", "memory", "user-loading.md"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(outside, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"escape.go": filepath.Join(outside, "secret.go"),
		"pipe.go":   filepath.Join(outside, "pipe.go"),
		"outdir":    outside,
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// connect starts a server over root and returns a client session.
func connect(t testing.TB, root, data, profile string, env ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"=1", rootEnv+"="+root, dataEnv+"="+data, profileEnv+"="+profile)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = &testLog{t: t}
	client := sdk.NewClient(&sdk.Implementation{Name: "anchorage-test", Version: "1"}, nil)
	ctx, cancel := testCtx(t)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// testCtx returns the context of one wait on the server: it ends shortly
// before the test binary's deadline (go test -timeout), or in ten minutes
// without one, so that a busy machine slows the tests down without
// failing them.
func testCtx(t testing.TB) (context.Context, context.CancelFunc) {
	limit := time.Now().Add(10 * time.Minute)
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok {
			left := time.Until(d)
			limit = d.Add(-min(left/10+5*time.Second, left/2))
		}
	}
	return context.WithDeadline(context.Background(), limit)
}

// testLog writes the server's stderr to the test log.
type testLog struct{ t testing.TB }

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Logf("server: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// call calls a tool and decodes its structured output into out.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := testCtx(t)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
	return res
}

// text joins a result's text content.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// waitIndexed waits until the symbols tool no longer says partial.
func waitIndexed(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := testCtx(t)
	defer cancel()
	for {
		var out mcp.SymbolsOutput
		call(t, cs, mcp.ToolSymbols, map[string]any{"query": "FindByID"}, &out)
		if !out.Partial {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("still indexing at the test's deadline: %s", out.Notice)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// addRule stores an approved rule anchored on a symbol, as the editor's
// approval would.
func addRule(t *testing.T, data, root, scope, content, file, symbol string) int64 {
	t.Helper()
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := memory.Open(ctx, dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: scope, Content: content, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"root": root, "line": 25})
	if err := st.SetAnchor(ctx, r.ID, memory.RuleAnchor{File: file, Symbol: symbol, Score: 0.8, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func TestTools(t *testing.T) {
	root, outside := workspace(t)
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	data := t.TempDir()
	cs := connect(t, root, data, "all")

	t.Run("list", func(t *testing.T) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			if len(tl.Description) < 200 {
				t.Errorf("%s: a description of %d characters is too short for a model", tl.Name, len(tl.Description))
			}
			schema, _ := tl.InputSchema.(map[string]any)
			if schema["type"] != "object" {
				t.Errorf("%s: input schema %v", tl.Name, tl.InputSchema)
			}
			if tl.OutputSchema == nil {
				t.Errorf("%s: no output schema", tl.Name)
			}
		}
		want := served(mcp.ProfileAll)
		if !slices.Equal(sorted(names), sorted(want)) {
			t.Errorf("tools %v, want %v", names, want)
		}
	})

	waitIndexed(t, cs)
	ruleID := addRule(t, data, root, "language:go", "Return errors wrapped with context instead of panicking", "users/repo.go", "UserRepository.FindByID")

	valid := []struct {
		name  string
		tool  string
		args  map[string]any
		check func(t *testing.T, raw json.RawMessage)
	}{
		{"search routed structural", mcp.ToolSearch, map[string]any{"query": "what calls FindByID"}, func(t *testing.T, raw json.RawMessage) {
			var r retrieval.Response
			mustDecode(t, raw, &r)
			if r.Strategy != retrieval.Structural || r.Partial || !hasResult(r, "users/service.go") {
				t.Errorf("got %s partial=%v: %+v", r.Strategy, r.Partial, r.Results)
			}
		}},
		{"search forced keyword with budget", mcp.ToolSearch, map[string]any{"query": "FindByID", "strategy": "keyword", "top_k": 2, "budget": 300}, func(t *testing.T, raw json.RawMessage) {
			var r retrieval.Response
			mustDecode(t, raw, &r)
			if r.Strategy != retrieval.Keyword || len(r.Results) == 0 || len(r.Results) > 2 || r.Tokens > 300 {
				t.Errorf("got %s, %d results, %d tokens", r.Strategy, len(r.Results), r.Tokens)
			}
		}},
		{"search semantic", mcp.ToolSearch, map[string]any{"query": "how are users loaded from the database?"}, func(t *testing.T, raw json.RawMessage) {
			var r retrieval.Response
			mustDecode(t, raw, &r)
			if r.Strategy != retrieval.Semantic || len(r.Results) == 0 {
				t.Errorf("got %s with %d results", r.Strategy, len(r.Results))
			}
		}},
		{"route", mcp.ToolRoute, map[string]any{"query": "what calls FindByID?"}, func(t *testing.T, raw json.RawMessage) {
			var r retrieval.Route
			mustDecode(t, raw, &r)
			if r.Strategy != retrieval.Structural || r.StructuralQuery != "FindByID" || r.StructuralOperation != retrieval.OpCallers {
				t.Errorf("route %+v", r)
			}
		}},
		{"callers", mcp.ToolCallers, map[string]any{"symbol": "UserRepository.FindByID"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.CallsOutput
			mustDecode(t, raw, &out)
			if len(out.Definitions) != 1 || !slices.ContainsFunc(out.Definitions[0].Calls, func(c mcp.Call) bool {
				return c.Caller.QualifiedName == "Service.GetUser" && c.Path == "users/service.go" && c.Line == 25
			}) {
				t.Errorf("callers %+v", out)
			}
		}},
		{"callees", mcp.ToolCallees, map[string]any{"symbol": "Service.GetUser"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.CallsOutput
			mustDecode(t, raw, &out)
			if len(out.Definitions) == 0 || !slices.ContainsFunc(out.Definitions[0].Calls, func(c mcp.Call) bool { return c.Call == "s.repo.FindByID" || strings.HasSuffix(c.Call, "FindByID") }) {
				t.Errorf("callees %+v", out)
			}
		}},
		{"blast radius", mcp.ToolBlastRadius, map[string]any{"symbol": "UserRepository.FindByID", "depth": 2}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.BlastRadiusOutput
			mustDecode(t, raw, &out)
			if out.Depth != 2 || len(out.Definitions) != 1 || !slices.ContainsFunc(out.Definitions[0].Affected, func(r mcp.Related) bool {
				return r.Symbol != nil && r.Symbol.QualifiedName == "Service.GetUser" && r.Depth == 1
			}) {
				t.Errorf("blast radius %+v", out)
			}
		}},
		{"symbols by initials", mcp.ToolSymbols, map[string]any{"query": "FBI", "limit": 5}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.SymbolsOutput
			mustDecode(t, raw, &out)
			if len(out.Symbols) == 0 || len(out.Symbols) > 5 || !slices.ContainsFunc(out.Symbols, func(m mcp.SymbolMatch) bool { return m.Name == "FindByID" && m.Match == "initials" }) {
				t.Errorf("symbols %+v", out.Symbols)
			}
		}},
		{"list rules", mcp.ToolListRules, map[string]any{"scope": "language:go"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.ListRulesOutput
			mustDecode(t, raw, &out)
			if len(out.Rules) != 1 || out.Rules[0].ID != ruleID || out.Rules[0].Anchor == nil ||
				out.Rules[0].Anchor.Status != "anchored" || out.Rules[0].Anchor.Line != 25 || out.Approval == "" {
				t.Errorf("rules %s", raw)
			}
		}},
		{"list rules of a file", mcp.ToolListRules, map[string]any{"file": "users/service.go"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.ListRulesOutput
			mustDecode(t, raw, &out)
			if len(out.Rules) != 0 {
				t.Errorf("rules of users/service.go: %s", raw)
			}
		}},
		{"memory search with anchors", mcp.ToolMemorySearch, map[string]any{"query": "how are users loaded by id?", "includeContent": true, "anchors": []string{"summary", "decisions", "nope"}}, func(t *testing.T, raw json.RawMessage) {
			var out recall.Response
			mustDecode(t, raw, &out)
			i := slices.IndexFunc(out.Results, func(r recall.Result) bool { return r.ID == memDocID })
			if i < 0 {
				t.Fatalf("%s not found: %s", memDocID, raw)
			}
			r := out.Results[i]
			full := readFile(t, filepath.Join(root, filepath.FromSlash(memDocPath)))
			want, missing := memdoc.Select(full, []string{"summary", "decisions", "nope"})
			if r.Kind != "document" || r.Content != want || !slices.Equal(r.MissingAnchors, missing) || !slices.Equal(missing, []string{"nope"}) {
				t.Errorf("content %q missing %v, want %q and %v", r.Content, r.MissingAnchors, want, missing)
			}
			if m := memdoc.Metrics(full, want); r.TokenMetrics == nil || *r.TokenMetrics != m || m.SavingsPct <= 0 {
				t.Errorf("token metrics %+v, want %+v", r.TokenMetrics, m)
			}
			if !strings.Contains(string(raw), `"full_tokens"`) || !strings.Contains(string(raw), `"savings_pct"`) {
				t.Errorf("token_metrics not in the reference's shape: %s", raw)
			}
		}},
		{"memory search from a slot without content", mcp.ToolMemorySearch, map[string]any{"query": "user repository FindByID", "slot": "B", "radius": 2, "top_k": 1, "fallback": true}, func(t *testing.T, raw json.RawMessage) {
			var out recall.Response
			mustDecode(t, raw, &out)
			if len(out.Results) != 1 || out.Results[0].Content != "" || out.Results[0].TokenMetrics != nil || out.Slot != "B" {
				t.Errorf("results %s", raw)
			}
		}},
		{"inject context", mcp.ToolInjectContext, map[string]any{"file": "users/repo.go", "query": "errors", "budget": 600}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.InjectContextOutput
			mustDecode(t, raw, &out)
			if len(out.Rules) != 1 || out.Rules[0].ID != ruleID || !strings.Contains(out.Markdown, "wrapped with context") ||
				!strings.Contains(out.Markdown, "func (r *UserRepository) FindByID") || out.Tokens.Total > 600 {
				t.Errorf("injection %s", raw)
			}
		}},
		{"record correction with symbol", mcp.ToolRecordCorrection, map[string]any{"text": "never use panic in production Go code", "file": "users/repo.go", "symbol": "FindByID"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.RecordCorrectionOutput
			mustDecode(t, raw, &out)
			c := out.Correction
			if c.ID == 0 || c.File != "users/repo.go" || c.Symbol != "UserRepository.FindByID" || c.Line != 25 || c.Language != "go" || out.OpenCorrections != 1 {
				t.Errorf("correction %s", raw)
			}
		}},
		{"record correction without file", mcp.ToolRecordCorrection, map[string]any{"text": "don't panic in Go production code, return an error"}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.RecordCorrectionOutput
			mustDecode(t, raw, &out)
			if out.Correction.ID == 0 || out.OpenCorrections != 2 {
				t.Errorf("correction %s", raw)
			}
		}},
		{"propose", mcp.ToolPropose, map[string]any{}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.ProposeOutput
			mustDecode(t, raw, &out)
			if len(out.Proposals) == 0 || out.Proposals[0].Status != memory.StatusPending || out.Approval == "" {
				t.Errorf("proposals %s", raw)
			}
		}},
		{"propose stored no rule", mcp.ToolListRules, map[string]any{}, func(t *testing.T, raw json.RawMessage) {
			var out mcp.ListRulesOutput
			mustDecode(t, raw, &out)
			if len(out.Rules) != 1 || out.Rules[0].ID != ruleID {
				t.Errorf("after propose, rules %s", raw)
			}
		}},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			raw, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, raw)
		})
	}

	huge := strings.Repeat("x", 100_000)
	invalid := []struct {
		name string
		tool string
		args map[string]any
		// want is in the error's text.
		want string
	}{
		{"search without query", mcp.ToolSearch, map[string]any{}, "query"},
		{"search query not a string", mcp.ToolSearch, map[string]any{"query": 5}, "query"},
		{"search misspelt argument", mcp.ToolSearch, map[string]any{"qurey": "x"}, "qurey"},
		{"search huge query", mcp.ToolSearch, map[string]any{"query": huge}, "query"},
		{"search empty query", mcp.ToolSearch, map[string]any{"query": ""}, "query"},
		{"search unknown strategy", mcp.ToolSearch, map[string]any{"query": "x", "strategy": "psychic"}, "strategy"},
		{"search top_k too large", mcp.ToolSearch, map[string]any{"query": "x", "top_k": 100000}, "top_k"},
		{"search negative budget", mcp.ToolSearch, map[string]any{"query": "x", "budget": -1}, "budget"},
		{"search bad regex", mcp.ToolSearch, map[string]any{"query": "re:(unclosed"}, "regular expression"},
		{"route huge", mcp.ToolRoute, map[string]any{"query": huge}, "query"},
		{"callers unknown symbol", mcp.ToolCallers, map[string]any{"symbol": "NoSuchThingAnywhere"}, "no symbol named"},
		{"callers symbol not a string", mcp.ToolCallers, map[string]any{"symbol": []string{"a"}}, "symbol"},
		{"callees missing symbol", mcp.ToolCallees, map[string]any{}, "symbol"},
		{"blast radius depth not a number", mcp.ToolBlastRadius, map[string]any{"symbol": "FindByID", "depth": "deep"}, "depth"},
		{"blast radius too deep", mcp.ToolBlastRadius, map[string]any{"symbol": "FindByID", "depth": 1000}, "depth"},
		{"symbols huge", mcp.ToolSymbols, map[string]any{"query": huge}, "query"},
		{"record correction empty", mcp.ToolRecordCorrection, map[string]any{"text": " "}, "empty"},
		{"record correction huge", mcp.ToolRecordCorrection, map[string]any{"text": strings.Repeat("never do that ", 100_000)}, "text"},
		{"record correction outside", mcp.ToolRecordCorrection, map[string]any{"text": "x y z", "file": "../outside/secret.go"}, "outside the workspace"},
		{"record correction unknown symbol", mcp.ToolRecordCorrection, map[string]any{"text": "x y z", "file": "users/repo.go", "symbol": "Nope"}, "no symbol named"},
		{"propose cannot approve", mcp.ToolPropose, map[string]any{"approve": 1}, "approve"},
		{"memory search without query", mcp.ToolMemorySearch, map[string]any{"anchors": []string{"summary"}}, "query"},
		{"memory search bad slot", mcp.ToolMemorySearch, map[string]any{"query": "users", "slot": "D"}, "slot"},
		{"memory search radius too wide", mcp.ToolMemorySearch, map[string]any{"query": "users", "radius": 99}, "radius"},
		{"memory search anchors not a list", mcp.ToolMemorySearch, map[string]any{"query": "users", "anchors": "summary"}, "anchors"},
		{"memory search too many anchors", mcp.ToolMemorySearch, map[string]any{"query": "users", "anchors": slices.Repeat([]string{"a"}, 1000)}, "anchors"},
		{"memory search huge anchor id", mcp.ToolMemorySearch, map[string]any{"query": "users", "anchors": []string{huge}}, "anchors"},
		{"memory search huge query", mcp.ToolMemorySearch, map[string]any{"query": huge}, "query"},
		{"memory search includeContent not a bool", mcp.ToolMemorySearch, map[string]any{"query": "users", "includeContent": "yes"}, "includeContent"},
		{"list rules bad scope", mcp.ToolListRules, map[string]any{"scope": "galaxy:far"}, "scope"},
		{"list rules outside", mcp.ToolListRules, map[string]any{"file": "/etc/passwd"}, "outside the workspace"},
		{"inject outside by dots", mcp.ToolInjectContext, map[string]any{"file": "../outside/secret.go"}, "outside the workspace"},
		{"inject outside absolute", mcp.ToolInjectContext, map[string]any{"file": filepath.Join(outside, "secret.go")}, "outside the workspace"},
		{"inject outside through a link", mcp.ToolInjectContext, map[string]any{"file": "escape.go"}, "through a link"},
		{"inject outside through a linked dir", mcp.ToolInjectContext, map[string]any{"file": "outdir/secret.go"}, "through a link"},
		{"inject pipe outside is never opened", mcp.ToolInjectContext, map[string]any{"file": "pipe.go"}, "through a link"},
		{"inject missing file", mcp.ToolInjectContext, map[string]any{"file": "users/nope.go"}, "no such file"},
		{"inject directory", mcp.ToolInjectContext, map[string]any{"file": "users"}, "not a file"},
		{"inject zero budget", mcp.ToolInjectContext, map[string]any{"budget": 0}, "budget"},
		{"inject bad language", mcp.ToolInjectContext, map[string]any{"language": "no language!"}, "language"},
	}
	for _, tc := range invalid {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			ctx, cancel := testCtx(t)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("protocol error %v; want a tool error", err)
			}
			if !res.IsError {
				t.Fatalf("no error: %s", text(res))
			}
			if msg := text(res); !strings.Contains(msg, tc.want) || len(msg) > 2000 {
				t.Errorf("error %q does not name %q", msg, tc.want)
			}
		})
	}

	t.Run("invalid/unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "approve_rule", Arguments: map[string]any{"id": ruleID}})
		if err == nil || !strings.Contains(err.Error(), `unknown tool "approve_rule"`) {
			t.Errorf("err %v", err)
		}
	})

	t.Run("still serving", func(t *testing.T) {
		var out mcp.SymbolsOutput
		call(t, cs, mcp.ToolSymbols, map[string]any{"query": "FindByID"}, &out)
		if len(out.Symbols) == 0 {
			t.Error("no symbols after the bad calls")
		}
	})
}

func TestProfiles(t *testing.T) {
	root, _ := workspace(t)
	for _, p := range []mcp.Profile{mcp.ProfileCore, mcp.ProfileGraph, mcp.ProfileMemory} {
		t.Run(string(p), func(t *testing.T) {
			cs := connect(t, root, t.TempDir(), string(p))
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			if want := served(p); !slices.Equal(sorted(names), sorted(want)) {
				t.Errorf("tools %v, want %v", names, want)
			}
			for _, name := range served(mcp.ProfileAll) {
				if slices.Contains(names, name) {
					continue
				}
				_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
				if err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Errorf("%s outside the profile: err %v", name, err)
				}
			}
		})
	}
}

// served returns the tools a profile serves.
func served(p mcp.Profile) []string { return p.Tools() }

// The memory document the workspace holds.
const (
	memDocPath = ".anchorage/memory/user-loading.md"
	memDocID   = "doc:" + memDocPath
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sorted(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs
}

func mustDecode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
}

func hasResult(r retrieval.Response, file string) bool {
	return slices.ContainsFunc(r.Results, func(res retrieval.Result) bool { return res.File == file })
}
