package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOllama is an httptest server speaking Ollama's /api/generate and
// /api/chat wire format. answer returns the model's text for a prompt.
type fakeOllama struct {
	*httptest.Server
	calls atomic.Int32
}

// newFakeOllama starts a server that answers each prompt with
// answer(prompt), checking that requests are what Ollama expects.
func newFakeOllama(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, prompt string) (string, bool)) *fakeOllama {
	t.Helper()
	f := &fakeOllama{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		var req struct {
			Model    string `json:"model"`
			Prompt   string `json:"prompt"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Format  string         `json:"format"`
			Stream  *bool          `json:"stream"`
			Options map[string]any `json:"options"`
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s with Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("request body: %v", err)
		}
		if req.Model != "test-model" || req.Format != "json" || req.Stream == nil || *req.Stream || req.Options["temperature"] != 0.0 {
			t.Errorf("request %+v: want model test-model, format json, stream false, temperature 0", req)
		}
		prompt := req.Prompt
		switch r.URL.Path {
		case "/api/generate":
			if prompt == "" || req.Messages != nil {
				t.Errorf("generate request without a prompt: %+v", req)
			}
		case "/api/chat":
			if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Prompt != "" {
				t.Errorf("chat request %+v", req)
			}
			if len(req.Messages) > 0 {
				prompt = req.Messages[len(req.Messages)-1].Content
			}
		default:
			http.NotFound(w, r)
			return
		}
		text, ok := answer(w, r, prompt)
		if !ok {
			return // answer wrote the response
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		created := "2024-12-01T10:00:00.123456Z"
		var body any
		if r.URL.Path == "/api/chat" {
			body = map[string]any{"model": req.Model, "created_at": created,
				"message": map[string]any{"role": "assistant", "content": text}, "done_reason": "stop", "done": true,
				"total_duration": 4883583458, "load_duration": 1334875, "prompt_eval_count": 26,
				"prompt_eval_duration": 342546000, "eval_count": 282, "eval_duration": 4535599000}
		} else {
			body = map[string]any{"model": req.Model, "created_at": created, "response": text, "done": true,
				"done_reason": "stop", "context": []int{1, 2, 3}, "total_duration": 10706818083,
				"load_duration": 6338219291, "prompt_eval_count": 26, "prompt_eval_duration": 130079000,
				"eval_count": 259, "eval_duration": 4232710000}
		}
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(f.Close)
	return f
}

// scenarioLLM answers the reference's three scenarios as a model would,
// choosing project scopes with a name of its own.
func scenarioLLM(_ http.ResponseWriter, _ *http.Request, prompt string) (string, bool) {
	switch {
	case strings.Contains(prompt, "- Keep summaries concise"):
		return `{"category": "preference", "scope": "universal", "content": "Keep summaries concise", "rationale": "Saves tokens and reading time"}`, true
	case strings.Contains(prompt, "- Never use panic"):
		return `{"category": "rule", "scope": "language:Go", "content": "Never use panic in production Go code; return errors", "rationale": "Panics crash the whole service"}`, true
	case strings.Contains(prompt, "- Use PortalTabs"):
		return "```json\n" + `{"category": "rule", "scope": "project:XCalibr-UI", "content": "Use PortalTabs on every portal page", "rationale": "Consistent portal navigation", "confidence": 0.9}` + "\n```", true
	}
	return `{}`, true
}

// memLLM returns an Ollama client of the fake server.
func memLLM(t *testing.T, f *fakeOllama, api string, timeout time.Duration) *Ollama {
	t.Helper()
	o, err := NewOllama(OllamaConfig{URL: f.URL, Model: "test-model", API: api, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The reference's three scenarios, each without an LLM and with one over
// both of Ollama's APIs.
func TestMemoryScenarios(t *testing.T) {
	scenarios := []struct {
		name        string
		corrections []string
		project     string
		scope       string
		category    string
		content     string // without an LLM
		llmContent  string
		language    string // for RulesFor
	}{
		{"universal", []string{"Keep summaries concise", "keep it short", "be terse"}, "xcalibr",
			"universal", CategoryPreference, "Keep summaries concise", "Keep summaries concise", ""},
		{"language", []string{"Never use panic in production Go code", "don't panic", "avoid panic()"}, "xcalibr",
			"language:go", CategoryRule, "Never use panic in production Go code", "Never use panic in production Go code; return errors", "go"},
		{"project", []string{"Use PortalTabs for all portal pages", "add tabs", "use portal tabs"}, "xcalibr",
			"project:xcalibr", CategoryRule, "Use PortalTabs for all portal pages", "Use PortalTabs on every portal page", ""},
		{"project unknown", []string{"Use PortalTabs for all portal pages", "add tabs", "use portal tabs"}, "",
			"universal", CategoryRule, "Use PortalTabs for all portal pages", "Use PortalTabs on every portal page", ""},
	}
	for _, sc := range scenarios {
		for _, mode := range []string{"no llm", APIGenerate, APIChat} {
			t.Run(sc.name+"/"+mode, func(t *testing.T) {
				ctx := t.Context()
				var opts []Option
				if sc.project != "" {
					opts = append(opts, WithProject(sc.project))
				}
				wantContent, wantOrigin := sc.content, OriginFallback
				if mode != "no llm" {
					f := newFakeOllama(t, scenarioLLM)
					opts = append(opts, WithLLM(memLLM(t, f, mode, 5*time.Second)))
					wantContent, wantOrigin = sc.llmContent, OriginLLM
				}
				s := memTemp(t, opts...)
				memCorrect(t, s, sc.corrections...)
				ps, err := s.Propose(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(ps) != 1 {
					t.Fatalf("%d proposals, want 1: %+v", len(ps), ps)
				}
				p := ps[0]
				if p.Scope != sc.scope || p.Category != sc.category || p.Content != wantContent || p.Origin != wantOrigin {
					t.Errorf("proposal %s %s %q (%s), want %s %s %q (%s); note %q", p.Scope, p.Category, p.Content, p.Origin,
						sc.scope, sc.category, wantContent, wantOrigin, p.Note)
				}
				if p.Status != StatusPending || p.Frequency != 3 || len(p.CorrectionIDs) != 3 || p.Priority != 1 ||
					p.Rationale == "" || p.Confidence < 0.8 || !slices.Equal(p.Variants, sc.corrections) {
					t.Errorf("proposal %+v", p)
				}
				a, err := s.Approve(ctx, p.ID, "")
				if err != nil {
					t.Fatal(err)
				}
				if a.Rule.Scope != sc.scope || a.Rule.Content != wantContent || a.Rule.Corrections != 3 || a.Merged {
					t.Errorf("approved as %+v", a.Rule)
				}
				rules, err := s.RulesFor(ctx, sc.language, sc.project)
				if err != nil || len(rules) != 1 || rules[0].ID != a.Rule.ID {
					t.Errorf("RulesFor(%q, %q) = %+v, %v; want the rule", sc.language, sc.project, rules, err)
				}
				// Its corrections are decided: nothing more to propose.
				if ps, err := s.Propose(ctx); err != nil || len(ps) != 0 {
					t.Errorf("Propose after approval = %+v, %v; want none", ps, err)
				}
			})
		}
	}
}

// answerWith returns an LLM handler that always answers text.
func answerWith(text string) func(http.ResponseWriter, *http.Request, string) (string, bool) {
	return func(http.ResponseWriter, *http.Request, string) (string, bool) { return text, true }
}

func TestMemoryLLMFailures(t *testing.T) {
	twoClusters := []string{"Keep summaries concise", "Never use panic in production Go code", "be terse", "don't panic"}
	tests := []struct {
		name    string
		handler func(http.ResponseWriter, *http.Request, string) (string, bool)
		// calls is how many requests the two clusters make: after a
		// transport failure the LLM is not asked again.
		calls int32
		note  string
	}{
		{"timeout", func(w http.ResponseWriter, r *http.Request, _ string) (string, bool) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return "", false
		}, 1, "deadline exceeded"},
		{"invalid JSON", answerWith(`{"category": "rule", "scope": "universal", "content": "Keep`), 2, "LLM answer rejected"},
		{"prose", answerWith(`Sure! Here is your rule: keep it short.`), 2, "LLM answer rejected"},
		{"wrong category", answerWith(`{"category": "style", "scope": "universal", "content": "x", "rationale": "y"}`), 2, `category "style"`},
		{"wrong scope", answerWith(`{"category": "rule", "scope": "global", "content": "x", "rationale": "y"}`), 2, "scope"},
		{"number content", answerWith(`{"category": "rule", "scope": "universal", "content": 5, "rationale": "y"}`), 2, "not a string"},
		{"missing rationale", answerWith(`{"category": "rule", "scope": "universal", "content": "x"}`), 2, `no "rationale"`},
		{"empty content", answerWith(`{"category": "rule", "scope": "universal", "content": "  ", "rationale": "y"}`), 2, "content is empty"},
		{"essay", answerWith(`{"category": "rule", "scope": "universal", "content": "` + strings.Repeat("word ", 60) + `", "rationale": "y"}`), 2, "60 words"},
		{"array", answerWith(`[{"category": "rule"}]`), 2, "not a JSON object"},
		{"two objects", answerWith(`{"category": "rule", "scope": "universal", "content": "x", "rationale": "y"} {}`), 2, "text after"},
		{"model not found", func(w http.ResponseWriter, _ *http.Request, _ string) (string, bool) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"model \"test-model\" not found, try pulling it first"}`)
			return "", false
		}, 1, `404 Not Found: model "test-model" not found`},
		{"server error", func(w http.ResponseWriter, _ *http.Request, _ string) (string, bool) {
			http.Error(w, "boom", http.StatusInternalServerError)
			return "", false
		}, 1, "500 Internal Server Error: boom"},
		{"not JSON at all", func(w http.ResponseWriter, _ *http.Request, _ string) (string, bool) {
			fmt.Fprint(w, "<html>proxy login</html>")
			return "", false
		}, 1, "decoding response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeOllama(t, tt.handler)
			// Only the timeout case is about the timeout: the others get
			// one no loaded machine reaches.
			timeout := time.Minute
			if tt.name == "timeout" {
				timeout = 100 * time.Millisecond
			}
			s := memTemp(t, WithLLM(memLLM(t, f, APIGenerate, timeout)), WithProject("xcalibr"))
			memCorrect(t, s, twoClusters...)
			ps, err := s.Propose(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if n := f.calls.Load(); n != tt.calls {
				t.Errorf("%d requests, want %d", n, tt.calls)
			}
			if len(ps) != 2 {
				t.Fatalf("%d proposals, want 2", len(ps))
			}
			want := map[string]string{"Keep summaries concise": "universal", "Never use panic in production Go code": "language:go"}
			for _, p := range ps {
				if p.Origin != OriginFallback || want[p.Content] != p.Scope {
					t.Errorf("proposal %q %s (%s), want the fallback's", p.Content, p.Scope, p.Origin)
				}
				if !strings.Contains(p.Note, "deterministic fallback") {
					t.Errorf("note %q does not say the fallback ran", p.Note)
				}
			}
			if !strings.Contains(ps[0].Note, tt.note) {
				t.Errorf("note %q, want it to mention %q", ps[0].Note, tt.note)
			}
			if tt.calls == 1 && !strings.Contains(ps[1].Note, "LLM not asked") {
				t.Errorf("second note %q: the LLM should not have been asked again", ps[1].Note)
			}
		})
	}
}

func TestMemoryLLMDown(t *testing.T) {
	f := newFakeOllama(t, scenarioLLM)
	llm := memLLM(t, f, APIChat, time.Second)
	f.Close() // connection refused
	s := memTemp(t, WithLLM(llm))
	memCorrect(t, s, "never use panic in Go")
	ps, err := s.Propose(t.Context())
	if err != nil || len(ps) != 1 || ps[0].Origin != OriginFallback || ps[0].Scope != "language:go" || !strings.Contains(ps[0].Note, "LLM failed") {
		t.Errorf("Propose with the server down = %+v, %v", ps, err)
	}
}

func TestMemoryProposeCancelled(t *testing.T) {
	f := newFakeOllama(t, func(w http.ResponseWriter, r *http.Request, _ string) (string, bool) {
		<-r.Context().Done()
		return "", false
	})
	s := memTemp(t, WithLLM(memLLM(t, f, APIGenerate, time.Minute)))
	memCorrect(t, s, "never use panic in Go")
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if ps, err := s.Propose(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Propose cancelled = %+v, %v; want the context's error", ps, err)
	}
	if ps, _ := s.Proposals(t.Context(), ""); len(ps) != 0 {
		t.Errorf("a cancelled Propose stored %d proposals", len(ps))
	}
}

func TestMemoryProposeLimitAndStability(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t, WithProject("app"))
	// Seven different rules; "use tabs" three times, "global
	// variables" twice.
	memCorrect(t, s, "use tabs", "Use tabs", "never use global variables", "Use the repository pattern",
		"avoid global variables", "Prefer table-driven tests", "Wrap errors with context", "Name files in kebab case",
		"use tabs please", "Log with zap")
	ps, err := s.Propose(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != MaxProposals {
		t.Fatalf("%d proposals, want %d", len(ps), MaxProposals)
	}
	if ps[0].Content != "Use tabs" || ps[0].Frequency != 3 || ps[1].Content != "Never use global variables" || ps[1].Frequency != 2 {
		t.Errorf("first proposals %q ×%d, %q ×%d", ps[0].Content, ps[0].Frequency, ps[1].Content, ps[1].Frequency)
	}
	for i, p := range ps {
		if p.Priority != i+1 {
			t.Errorf("proposal %d has priority %d", i, p.Priority)
		}
		if i > 0 && p.Frequency > ps[i-1].Frequency {
			t.Errorf("proposal %d more frequent than the one before", i)
		}
	}
	ids := func(ps []Proposal) []int64 {
		var out []int64
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	// Proposing again changes nothing: same proposals, same ids.
	again, err := s.Propose(ctx)
	if err != nil || !equalIDs(ids(again), ids(ps)) {
		t.Errorf("Propose again = %v, %v; want %v", ids(again), err, ids(ps))
	}
	// A new correction joins a cluster: its proposal is replaced, the
	// others keep their ids.
	memCorrect(t, s, "no global variables")
	third, err := s.Propose(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byContent := map[string]Proposal{}
	for _, p := range third {
		byContent[p.Content] = p
	}
	if tabs, globals := byContent["Use tabs"], byContent["Never use global variables"]; tabs.ID != ps[0].ID ||
		globals.ID == ps[1].ID || globals.Frequency != 3 || len(third) != MaxProposals {
		t.Errorf("after a new correction: %v, before %v; tabs %d, globals %d (×%d)", ids(third), ids(ps), tabs.ID, globals.ID, globals.Frequency)
	}
	if _, err := s.Proposal(ctx, ps[1].ID); !errors.Is(err, ErrUnknownProposal) {
		t.Errorf("the replaced proposal: %v, want ErrUnknownProposal", err)
	}
	pending, err := s.Proposals(ctx, StatusPending)
	if err != nil || !equalIDs(ids(pending), ids(third)) {
		t.Errorf("pending %v, %v; want %v", ids(pending), err, ids(third))
	}
	// Rejecting the top proposal lets the sixth cluster in.
	if err := s.Reject(ctx, third[0].ID); err != nil {
		t.Fatal(err)
	}
	fourth, err := s.Propose(ctx)
	if err != nil || len(fourth) != MaxProposals || slices.Contains(ids(fourth), third[0].ID) || !slices.Contains(ids(fourth), third[1].ID) {
		t.Errorf("after rejecting: %v, %v", ids(fourth), err)
	}
	if _, err := s.Proposals(ctx, "maybe"); err == nil {
		t.Error("Proposals with an unknown status succeeded")
	}
}

func TestMemoryProposeSession(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/memory.db"
	a := memOpen(t, path, WithSession("a"))
	b := memOpen(t, path, WithSession("b"))
	all := memOpen(t, path)
	memCorrect(t, a, "never use panic in Go")
	memCorrect(t, b, "use tabs")
	for _, tt := range []struct {
		s    *Store
		want []string
	}{
		{a, []string{"Never use panic in Go"}},
		{b, []string{"Use tabs"}},
		{all, []string{"Use tabs", "Never use panic in Go"}},
	} {
		ps, err := tt.s.Propose(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Content)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("session %q proposes %q, want %q", tt.s.opts.session, got, tt.want)
		}
	}
}

func TestMemoryLLMRephrasesFallbackProposals(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/memory.db"
	plain := memOpen(t, path, WithProject("xcalibr"))
	memCorrect(t, plain, "Use PortalTabs for all portal pages", "use portal tabs")
	ps, err := plain.Propose(ctx)
	if err != nil || len(ps) != 1 || ps[0].Origin != OriginFallback {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	f := newFakeOllama(t, scenarioLLM)
	smart := memOpen(t, path, WithProject("xcalibr"), WithLLM(memLLM(t, f, APIGenerate, time.Second)))
	again, err := smart.Propose(ctx)
	if err != nil || len(again) != 1 || again[0].Origin != OriginLLM || again[0].ID == ps[0].ID || again[0].Scope != "project:xcalibr" {
		t.Fatalf("Propose with an LLM = %+v, %v; want the proposal rephrased", again, err)
	}
	// And kept from then on, without asking again.
	if third, err := smart.Propose(ctx); err != nil || len(third) != 1 || third[0].ID != again[0].ID || f.calls.Load() != 1 {
		t.Errorf("third Propose = %+v, %v, %d calls", third, err, f.calls.Load())
	}
}

func TestMemoryProposalSourceAndExample(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	rng := &Range{Start: Position{Line: 4}, End: Position{Line: 4, Character: 20}}
	for _, c := range []Correction{
		{Text: "never use panic", File: "users/repo.go", Range: rng},
		{Text: "don't panic", File: "users/repo.go"},
		{Text: "avoid panic()", File: "main.go"},
	} {
		if _, err := s.RecordCorrection(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := s.Propose(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	p := ps[0]
	if p.File != "users/repo.go" || p.Range == nil || *p.Range != *rng || p.Language != "go" || p.Scope != "language:go" {
		t.Errorf("proposal source %s %+v language %s scope %s", p.File, p.Range, p.Language, p.Scope)
	}
	if !strings.Contains(p.Rationale, "3 times") {
		t.Errorf("rationale %q", p.Rationale)
	}
	if err := s.SetProposalExample(ctx, p.ID, "users/repo.go", "UserRepository.FindByID"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Proposal(ctx, p.ID); got.ExampleFile != "users/repo.go" || got.ExampleSymbol != "UserRepository.FindByID" {
		t.Errorf("example %q %q", got.ExampleFile, got.ExampleSymbol)
	}
	if err := s.SetProposalExample(ctx, p.ID+100, "a.go", ""); !errors.Is(err, ErrUnknownProposal) {
		t.Errorf("SetProposalExample of an unknown proposal: %v", err)
	}
}
