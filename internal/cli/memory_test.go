package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

func TestMemoryCLI(t *testing.T) {
	data := t.TempDir()
	root := filepath.Join(t.TempDir(), "xcalibr")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data-dir", data, "--root", root}
	mem := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		return run(t, append(append(append([]string{}, common...), "memory"), args...)...)
	}
	must := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := mem(t, args...)
		if err != nil {
			t.Fatalf("memory %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("reading creates no database", func(t *testing.T) {
		out := must(t, "show", "--json")
		var got struct {
			Rules []memory.Rule `json:"rules"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Rules == nil || len(got.Rules) != 0 {
			t.Errorf("show --json = %s (%v): want an empty list", out, err)
		}
		if out := must(t, "stats"); !strings.Contains(out, "Rules: 0 active") {
			t.Errorf("stats:\n%s", out)
		}
		if _, err := os.Stat(dirs.MemoryPath()); err == nil {
			t.Errorf("show created %s", dirs.MemoryPath())
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, args := range [][]string{
			{"correct", "  "},
			{"correct", strings.Repeat("x", memory.MaxCorrectionBytes+1)},
			{"correct", "--file", "/etc/passwd", "Never read passwords"},
			{"correct", "--file", "no/such/file.go", "Never use panic"},
			{"correct", "--file", "../outside.go", "Never use panic"},
			{"approve", "abc"},
			{"approve", "0"},
			{"reject", "-3"},
			{"show", "--scope", "global"},
			{"propose", "--llm-url", "http://localhost:1"},
			{"propose", "--llm-model", "m", "--llm-api", "completions"},
		} {
			if out, err := mem(t, args...); err == nil {
				t.Errorf("memory %.40q succeeded:\n%s", args, out)
			} else {
				t.Logf("memory %.40q: %v", args, err)
			}
		}
	})

	file := filepath.Join(root, "service", "main.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var proposalID int64
	t.Run("correct ×3, propose", func(t *testing.T) {
		for _, text := range []string{"Never use panic in production Go code", "don't panic", "avoid panic()"} {
			out := must(t, "correct", "--file", file, text)
			if !strings.Contains(out, "Recorded correction") || !strings.Contains(out, "project xcalibr") {
				t.Errorf("correct: %s", out)
			}
		}
		out := must(t, "propose", "--json")
		var got struct {
			Proposals []memory.Proposal `json:"proposals"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if len(got.Proposals) != 1 {
			t.Fatalf("proposals %s", out)
		}
		p := got.Proposals[0]
		if p.Scope != "language:go" || p.Frequency != 3 || p.File != "service/main.go" || p.Project != "xcalibr" || p.Origin != memory.OriginFallback {
			t.Errorf("proposal %+v", p)
		}
		proposalID = p.ID
		text := must(t, "propose")
		for _, want := range []string{"RULE (language:go)", fmt.Sprintf("proposal %d", p.ID), "Never use panic in production Go code", "(+2 similar)", "memory approve"} {
			if !strings.Contains(text, want) {
				t.Errorf("propose output lacks %q:\n%s", want, text)
			}
		}
	})

	t.Run("approve, show", func(t *testing.T) {
		out := must(t, "approve", fmt.Sprint(proposalID))
		if !strings.Contains(out, "as rule") || !strings.Contains(out, "(language:go)") {
			t.Errorf("approve: %s", out)
		}
		_, err := mem(t, "approve", fmt.Sprint(proposalID))
		if err == nil || !strings.Contains(err.Error(), "already decided") {
			t.Errorf("approving twice: %v", err)
		}
		if _, err := mem(t, "reject", "999"); err == nil || !strings.Contains(err.Error(), "no such proposal") {
			t.Errorf("rejecting an unknown proposal: %v", err)
		}
		out = must(t, "show", "--json")
		var got struct {
			Database string        `json:"database"`
			Rules    []memory.Rule `json:"rules"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if got.Database != dirs.MemoryPath() || len(got.Rules) != 1 {
			t.Fatalf("show --json: %s", out)
		}
		r := got.Rules[0]
		if r.Scope != "language:go" || r.Content != "Never use panic in production Go code" || r.Corrections != 3 ||
			r.Category != memory.CategoryRule || len(r.Variants) != 3 || r.Anchor != nil {
			t.Errorf("rule %+v", r)
		}
		for _, tt := range []struct {
			args []string
			want int
		}{
			{[]string{"show", "--json", "--scope", "language"}, 1},
			{[]string{"show", "--json", "--scope", "language:golang"}, 1},
			{[]string{"show", "--json", "--scope", "universal"}, 0},
			{[]string{"show", "--json", "--anchored"}, 0},
		} {
			out := must(t, tt.args...)
			var got showOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Rules) != tt.want {
				t.Errorf("%q: %d rules (%v), want %d", tt.args, len(got.Rules), err, tt.want)
			}
		}
		if out := must(t, "show"); !strings.Contains(out, "Never use panic in production Go code (language:go, rule)") ||
			!strings.Contains(out, "from 3 correction(s)") {
			t.Errorf("show:\n%s", out)
		}
	})

	t.Run("llm, all, reject, stats", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/chat" {
				http.NotFound(w, r)
				return
			}
			answer := `{"category":"preference","scope":"universal","content":"Keep summaries concise","rationale":"Saves tokens"}`
			json.NewEncoder(w).Encode(map[string]any{"model": "m", "created_at": "2024-12-01T10:00:00Z",
				"message": map[string]string{"role": "assistant", "content": answer}, "done": true, "done_reason": "stop"})
		}))
		defer srv.Close()
		must(t, "--project", "other", "correct", "keep summaries short")
		must(t, "correct", "be terse")
		out := must(t, "propose", "--llm-url", srv.URL, "--llm-model", "m", "--llm-api", "chat", "--json")
		var got proposeOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Proposals) != 1 {
			t.Fatalf("propose with an LLM: %s (%v)", out, err)
		}
		if p := got.Proposals[0]; p.Origin != memory.OriginLLM || p.Scope != "universal" || p.Category != memory.CategoryPreference {
			t.Errorf("LLM proposal %+v", p)
		}
		out = must(t, "approve", "all", "--json")
		var as approveOutput
		if err := json.Unmarshal([]byte(out), &as); err != nil || len(as.Approvals) != 1 || as.Approvals[0].Rule.Scope != "universal" {
			t.Errorf("approve all: %s (%v)", out, err)
		}
		must(t, "correct", "use tabs")
		must(t, "propose")
		var pending proposeOutput
		if err := json.Unmarshal([]byte(must(t, "propose", "--json")), &pending); err != nil || len(pending.Proposals) != 1 {
			t.Fatalf("pending %+v, %v", pending, err)
		}
		if out := must(t, "reject", fmt.Sprint(pending.Proposals[0].ID)); !strings.Contains(out, "Rejected proposal") {
			t.Errorf("reject: %s", out)
		}
		out = must(t, "stats", "--json")
		var st memory.Stats
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if st.Rules != 2 || st.Corrections != 6 || st.OpenCorrections != 0 || st.Proposals["rejected"] != 1 || st.RulesByScope["universal"] != 1 {
			t.Errorf("stats %+v", st)
		}
		if out := must(t, "stats"); !strings.Contains(out, "Rules: 2 active") || !strings.Contains(out, "1 rejected") {
			t.Errorf("stats:\n%s", out)
		}
	})

	t.Run("corrupt database is reported and kept", func(t *testing.T) {
		data := t.TempDir()
		dirs, _ := state.Resolve(data)
		if err := os.MkdirAll(filepath.Dir(dirs.MemoryPath()), 0o700); err != nil {
			t.Fatal(err)
		}
		junk := []byte(strings.Repeat("not a database\n", 300))
		if err := os.WriteFile(dirs.MemoryPath(), junk, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"correct", "use tabs"}, {"show"}, {"stats", "--json"}} {
			_, err := run(t, append([]string{"--data-dir", data, "memory"}, args...)...)
			if err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Errorf("memory %s on a corrupt database: %v", args[0], err)
			}
		}
		if after, _ := os.ReadFile(dirs.MemoryPath()); string(after) != string(junk) {
			t.Error("the corrupt database was changed")
		}
	})
}

// TestMemoryCorrectFileRelativeToRoot checks that --file names a file
// relative to the current directory, else to --root, and is stored
// relative to the root either way.
func TestMemoryCorrectFileRelativeToRoot(t *testing.T) {
	data, root := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "api", "handlers.go"), []byte("package api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"api/handlers.go", filepath.Join(root, "api", "handlers.go")} {
		out, err := run(t, "--data-dir", data, "--root", root, "--json", "memory", "correct", "--file", file, "Log requests with their duration")
		if err != nil {
			t.Fatalf("correct --file %s: %v\n%s", file, err, out)
		}
		var c memory.Correction
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if c.File != "api/handlers.go" {
			t.Errorf("correct --file %s stored file %q, want api/handlers.go", file, c.File)
		}
	}
}

// TestMemoryApproveAllContradicting is issue 16's report: with only a
// contradicting pair pending, "approve all" says why it approved nothing.
func TestMemoryApproveAllContradicting(t *testing.T) {
	common := []string{"--data-dir", t.TempDir(), "--root", t.TempDir(), "memory"}
	mem := func(args ...string) string {
		t.Helper()
		out, err := run(t, append(append([]string{}, common...), args...)...)
		if err != nil {
			t.Fatalf("memory %v: %v\n%s", args, err, out)
		}
		return out
	}
	for _, c := range []string{"Use tabs for indentation", "Always use tabs for indentation", "Never use tabs for indentation", "Do not use tabs for indentation"} {
		mem("correct", c)
	}
	mem("propose")
	out := mem("approve", "all")
	for _, want := range []string{"Approved nothing: the 2 pending proposal(s) contradict each other", "(contradicts proposal", `anchorage memory reject ID`} {
		if !strings.Contains(out, want) {
			t.Errorf("approve all lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "No pending proposals") {
		t.Errorf("approve all says there is nothing pending:\n%s", out)
	}
	var got approveOutput
	if err := json.Unmarshal([]byte(mem("approve", "all", "--json")), &got); err != nil || len(got.Approvals) != 0 || len(got.LeftPending) != 2 {
		t.Errorf("approve all --json = %+v, %v; want 2 left pending", got, err)
	}
}
