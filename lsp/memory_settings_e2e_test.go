package lsp

// End-to-end test of the memory settings and correction sessions over the
// protocol: memory.project names the project of corrections and scopes,
// memory.llm phrases proposals (an httptest server speaking Ollama's
// /api/generate), memory.anchorThreshold decides anchoring, and the
// server labels corrections with its session and proposes from it unless
// a command names another.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// fakeOllama answers /api/generate with a rule about tabs when the
// prompt mentions them, else about wrapping errors, in Ollama's wire
// format; it counts the requests.
func fakeOllama(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	calls := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model, Prompt string
		}
		if r.URL.Path != "/api/generate" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "coder" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		ans := map[string]string{"category": "rule", "scope": "project", "content": "Wrap errors with context", "rationale": "Callers see what failed"}
		if strings.Contains(req.Prompt, "tabs") {
			ans = map[string]string{"category": "preference", "scope": "universal", "content": "Indent with tabs", "rationale": "gofmt does"}
		}
		inner, _ := json.Marshal(ans)
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "response": string(inner), "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}

func TestE2EMemorySettings(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	llm, calls := fakeOllama(t)
	c := startClient(t)
	c.memStartWith(t, root, map[string]any{"anchorage": map[string]any{"memory": map[string]any{
		"project":         "acme",
		"anchorThreshold": 0.99,
		"llm":             map[string]any{"url": llm.URL, "model": "coder", "timeout": 5},
		"documents":       []string{"docs/**/*.md"},
	}}})
	repoURI := fileURI(root, "users/repo.go")

	// The server's session, and another one named by the command.
	var mine, other memCorrectionAnswer
	c.memCommand(t, &mine, cmdMemoryRecord, map[string]any{"text": "Wrap errors with context using fmt.Errorf and %w", "uri": repoURI})
	c.memCommand(t, &other, cmdMemoryRecord, map[string]any{"text": "Use tabs for indentation", "uri": repoURI, "session": "pairing"})
	if got := mine.Correction; got.Project != "acme" || !strings.HasPrefix(got.Session, "lsp-") || mine.Open != 1 {
		t.Errorf("recordCorrection: %+v (open %d), want project acme, the server's session lsp-…, 1 open", got, mine.Open)
	}
	if got := other.Correction; got.Project != "acme" || got.Session != "pairing" || other.Open != 1 {
		t.Errorf("recordCorrection in session pairing: %+v (open %d), want 1 open in that session", got, other.Open)
	}

	type proposals struct {
		Proposals []memProposal `json:"proposals"`
	}
	contents := func(ps proposals) []string {
		var out []string
		for _, p := range ps.Proposals {
			out = append(out, p.Content)
		}
		slices.Sort(out)
		return out
	}
	var got proposals
	c.memCommand(t, &got, cmdMemoryPropose)
	if !slices.Equal(contents(got), []string{"Wrap errors with context"}) {
		t.Fatalf("propose from the server's session: %v, want the LLM's rule about errors only", contents(got))
	}
	wrap := got.Proposals[0]
	if wrap.Origin != memory.OriginLLM || wrap.Scope != "project:acme" || calls.Load() != 1 {
		t.Errorf("proposal %+v after %d LLM calls: want the LLM's phrasing with scope project:acme", wrap.Proposal, calls.Load())
	}
	c.memCommand(t, &got, cmdMemoryPropose, map[string]any{"session": "pairing"})
	if !slices.Equal(contents(got), []string{"Indent with tabs"}) {
		t.Errorf("propose from session pairing: %v, want the rule about tabs only", contents(got))
	}
	c.memCommand(t, &got, cmdMemoryPropose, map[string]any{"session": memory.AllSessions})
	if !slices.Equal(contents(got), []string{"Indent with tabs", "Wrap errors with context"}) {
		t.Errorf("propose from every session: %v, want both", contents(got))
	}
	c.memBadCommand(t, "want", cmdMemoryPropose, map[string]any{"session": 3})

	// The threshold of 0.99 is more than any example reaches.
	var ap memApproval
	c.memCommand(t, &ap, cmdMemoryApprove, map[string]any{"id": wrap.ID})
	if ap.Rule.Scope != "project:acme" || ap.Rule.Anchor != nil || ap.AnchorStatus != "none" || !strings.Contains(ap.AnchorNote, "threshold 0.99") {
		t.Errorf("approve with threshold 0.99: rule %+v, status %s, note %q; want no anchor, for the threshold", ap.Rule, ap.AnchorStatus, ap.AnchorNote)
	}
}

func TestSettingsMemoryMerge(t *testing.T) {
	base := Settings{Memory: MemorySettings{Project: "a", AnchorThreshold: 0.8, LLM: LLMSettings{URL: "http://x", Model: "m", Timeout: 3}, Documents: []string{"*.md"}}}
	tests := []struct {
		name string
		raw  any
		want MemorySettings
	}{
		{"nothing set keeps all", map[string]any{"anchorage": map[string]any{"logLevel": "debug"}}, base.Memory},
		{"fields override one by one", map[string]any{"anchorage": map[string]any{"memory": map[string]any{
			"project": "b", "llm": map[string]any{"model": "n"}, "documents": []string{},
		}}}, MemorySettings{Project: "b", AnchorThreshold: 0.8, LLM: LLMSettings{URL: "http://x", Model: "n", Timeout: 3}, Documents: []string{}}},
		{"without the section name", map[string]any{"memory": map[string]any{"anchorThreshold": 0.5, "llm": map[string]any{"timeout": 60, "url": "http://y"}}},
			MemorySettings{Project: "a", AnchorThreshold: 0.5, LLM: LLMSettings{URL: "http://y", Model: "m", Timeout: 60}, Documents: []string{"*.md"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := decodeSettings(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			got := base.merge(o).Memory
			if got.Project != tt.want.Project || got.AnchorThreshold != tt.want.AnchorThreshold || got.LLM != tt.want.LLM ||
				!slices.Equal(got.Documents, tt.want.Documents) || (got.Documents == nil) != (tt.want.Documents == nil) {
				t.Errorf("merged %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := decodeSettings(map[string]any{"memory": map[string]any{"anchorThreshold": "high"}}); err == nil {
		t.Error("a threshold that is not a number was accepted")
	}
}

// TestE2EMemoryPendingContradiction checks that two pending proposals that
// contradict each other say so in their diagnostics and code actions, and
// that approving all leaves them to the user.
func TestE2EMemoryPendingContradiction(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.memStart(t, root)
	repoURI := fileURI(root, "users/repo.go")
	c.open(t, repoURI, "go", readFile(t, root, "users/repo.go"))
	for i, text := range []string{"Use tabs for indentation", "Never use tabs for indentation", "Prefer table driven tests"} {
		var ans memCorrectionAnswer
		c.memCommand(t, &ans, cmdMemoryRecord, map[string]any{"text": text, "uri": repoURI, "range": rng(uint32(i), 0, uint32(i), 1)})
	}
	from := c.mark()
	var got struct {
		Proposals []memProposal `json:"proposals"`
	}
	c.memCommand(t, &got, cmdMemoryPropose)
	byContent := map[string]memProposal{}
	for _, p := range got.Proposals {
		byContent[p.Content] = p
	}
	use, never := byContent["Use tabs for indentation"], byContent["Never use tabs for indentation"]
	if use.ID == 0 || never.ID == 0 || use.ContradictsProposal != never.ID || never.ContradictsProposal != use.ID {
		t.Fatalf("proposals %+v: want the two about tabs to name each other", got.Proposals)
	}
	for _, p := range []memProposal{use, never} {
		if p.Location == nil {
			t.Fatalf("proposal %d has no location", p.ID)
		}
		var diag protocol.Diagnostic
		c.wait(t, from, eventTimeout, fmt.Sprintf("the diagnostic of proposal %d", p.ID), func(f frame) bool {
			diags, ok := memDiagnostics(f, p.Location.URI)
			for _, d := range diags {
				if memProposalID(d) == p.ID {
					diag = d
				}
			}
			return ok && diag.Message != ""
		})
		other := use.ID + never.ID - p.ID
		if want := fmt.Sprintf("Contradicts pending proposal %d", other); !strings.Contains(diag.Message, want) {
			t.Errorf("diagnostic of proposal %d: %q, want it to say %q", p.ID, diag.Message, want)
		}
		var titles []string
		for _, a := range c.memCodeActions(t, p.Location.URI, diag.Range, []protocol.Diagnostic{diag}, protocol.QuickFix) {
			if memArgsID(a) == p.ID {
				titles = append(titles, a.Title)
			}
		}
		// Titles name the rule, and what approving does to the other.
		want := fmt.Sprintf(" — contradicts pending proposal %d “", other)
		if len(titles) == 0 || !strings.HasPrefix(titles[0], "Approve rule: "+p.Content) || !strings.Contains(titles[0], want) ||
			!slices.ContainsFunc(titles, func(s string) bool {
				return strings.HasPrefix(s, "Reject rule: "+p.Content) && strings.Contains(s, fmt.Sprintf(" — leaves proposal %d “", other))
			}) {
			t.Errorf("code actions of proposal %d: %q, want %q… and a reject leaving the other", p.ID, titles, want)
		}
	}
	source := c.memCodeActions(t, use.Location.URI, use.Location.Range, nil, protocol.Source)
	if len(source) != 1 || source[0].Title != "Approve the pending rule (2 that contradict each other are left to choose)" {
		t.Errorf("source actions %+v", source)
	}
	var all struct {
		Approvals []memApproval `json:"approvals"`
	}
	c.memCommand(t, &all, cmdMemoryApproveAll, map[string]any{})
	if len(all.Approvals) != 1 || all.Approvals[0].Rule.Content != "Prefer table driven tests" {
		t.Errorf("approveAll: %+v, want only the unrelated proposal", all.Approvals)
	}
}

// memArgsID returns the id argument of a code action's command, or 0.
func memArgsID(a protocol.CodeAction) int64 {
	if a.Command == nil || len(a.Command.Arguments) != 1 {
		return 0
	}
	raw, _ := json.Marshal(a.Command.Arguments[0])
	var args command.IDArgs
	if json.Unmarshal(raw, &args) != nil {
		return 0
	}
	return args.ID
}

// TestE2EProposalSeverity: proposals are Information diagnostics on the
// lines their corrections were about; with several, approving them all is
// a quick fix there too; the memory.proposalSeverity setting turns them
// down to hints, or off.
func TestE2EProposalSeverity(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.memStart(t, root)
	repoURI := fileURI(root, "users/repo.go")
	c.open(t, repoURI, "go", readFile(t, root, "users/repo.go"))
	for i, text := range []string{"Prefer table driven tests", "Name test helpers with a help prefix"} {
		var ans memCorrectionAnswer
		c.memCommand(t, &ans, cmdMemoryRecord, map[string]any{"text": text, "uri": repoURI, "range": rng(uint32(i), 0, uint32(i), 0)})
	}
	from := c.mark()
	var proposed struct {
		Proposals []memProposal `json:"proposals"`
	}
	c.memCommand(t, &proposed, cmdMemoryPropose)
	diags := c.waitDiagnostics(t, from, repoURI, "two proposals", func(ds []protocol.Diagnostic) bool { return len(ds) == 2 })
	for _, d := range diags {
		if d.Severity != protocol.DiagnosticSeverityInformation {
			t.Errorf("proposal diagnostic %q at severity %v, want Information", d.Message, d.Severity)
		}
		// An empty range is widened to its line's text ("package users",
		// then the blank line's start).
		if d.Range.Start.Line == 0 && d.Range != rng(0, 0, 0, 13) || d.Range.Start.Line == 1 && d.Range != rng(1, 0, 1, 0) {
			t.Errorf("proposal diagnostic %q at %v, want on its line's text", d.Message, d.Range)
		}
	}

	t.Run("approve all as a quick fix", func(t *testing.T) {
		var all []string
		for _, a := range c.memCodeActions(t, repoURI, rng(0, 0, 0, 0), nil, protocol.QuickFix) {
			if a.Command != nil && a.Command.Command == cmdMemoryApproveAll {
				all = append(all, fmt.Sprintf("%s %s", a.Kind, a.Title))
			}
		}
		if !slices.Equal(all, []string{"quickfix Approve all 2 pending rules"}) {
			t.Errorf("quick fixes approving all: %q, want one \"Approve all 2 pending rules\"", all)
		}
		// The editor's Source Action menu still has it.
		source := c.memCodeActions(t, repoURI, rng(5, 0, 5, 0), nil, protocol.Source)
		if len(source) != 1 || source[0].Kind != protocol.Source || source[0].Title != "Approve all 2 pending rules" {
			t.Errorf("source actions %+v, want \"Approve all 2 pending rules\"", source)
		}
	})

	for _, tc := range []struct {
		setting string
		want    protocol.DiagnosticSeverity
		n       int
	}{
		{"hint", protocol.DiagnosticSeverityHint, 2},
		{"off", 0, 0},
		{"bogus", 0, 0}, // ignored, with a warning
	} {
		from := c.mark()
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{
			"anchorage": map[string]any{"memory": map[string]any{"proposalSeverity": tc.setting}},
		}})
		if tc.setting == "bogus" {
			// An unknown value keeps the one in force ("off"): nothing is
			// published again, and the user is told.
			c.wait(t, from, eventTimeout, "a warning about the setting", isLog(protocol.MessageTypeWarning, "memory.proposalSeverity"))
			continue
		}
		c.waitDiagnostics(t, from, repoURI, "proposals at "+tc.setting, func(ds []protocol.Diagnostic) bool {
			if len(ds) != tc.n {
				return false
			}
			for _, d := range ds {
				if d.Severity != tc.want {
					return false
				}
			}
			return true
		})
	}
}
