package lsp

// End-to-end test of the memory over the protocol, against the real binary
// (see e2e_test.go): corrections recorded with
// anchorage.memory.recordCorrection become a proposal
// (anchorage.memory.propose) shown as a hint diagnostic with code actions;
// approving it anchors the rule on a symbol, which then has a hover and a
// code lens that follow the symbol through edits; a vanished symbol gives
// an "anchor lost" lens and a re-anchor action. Bad input gets
// InvalidParams.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

// memInitResult is what the memory test reads of initialize's result.
type memInitResult struct {
	Capabilities struct {
		HoverProvider    any `json:"hoverProvider"`
		CodeLensProvider *struct {
			ResolveProvider bool `json:"resolveProvider"`
		} `json:"codeLensProvider"`
		CodeActionProvider *struct {
			CodeActionKinds []string `json:"codeActionKinds"`
		} `json:"codeActionProvider"`
		ExecuteCommandProvider *struct {
			Commands []string `json:"commands"`
		} `json:"executeCommandProvider"`
	} `json:"capabilities"`
}

// memStart initializes a server over root as an editor with hover, code
// lens (with refresh) and code action literal support, and waits for the
// indexing.
func (c *lspClient) memStart(t *testing.T, root string) memInitResult {
	t.Helper()
	return c.memStartWith(t, root, nil)
}

// memStartWith is memStart with initializationOptions.
func (c *lspClient) memStartWith(t *testing.T, root string, options any) memInitResult {
	t.Helper()
	caps := capabilities(clientOptions{})
	caps.Workspace.CodeLens = &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: true}
	caps.TextDocument.Hover = &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.Markdown, protocol.PlainText}}
	caps.TextDocument.CodeLens = &protocol.CodeLensClientCapabilities{}
	caps.TextDocument.CodeAction = &protocol.CodeActionClientCapabilities{
		CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
			CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source}},
		},
		IsPreferredSupport: true, DataSupport: true,
	}
	params := &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		ClientInfo:            &protocol.ClientInfo{Name: "anchorage-e2e-memory"},
		Capabilities:          caps,
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: filepath.Base(root)}},
		InitializationOptions: options,
	}
	var res memInitResult
	if err := c.call(t, "initialize", params, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.waitIndexed(t, 0, root)
	return res
}

// memCommand runs a command that must succeed and decodes its answer.
func (c *lspClient) memCommand(t *testing.T, result any, name string, args ...any) {
	t.Helper()
	raw, err := c.command(t, name, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if err := json.Unmarshal(raw, result); err != nil {
		t.Fatalf("%s: %v in %s", name, err, raw)
	}
}

// memBadCommand runs a command that must fail with InvalidParams and a
// message containing want.
func (c *lspClient) memBadCommand(t *testing.T, want, name string, args ...any) {
	t.Helper()
	_, err := c.command(t, name, args...)
	wantCode(t, fmt.Sprintf("%s %v", name, args), err, jsonrpc2.InvalidParams)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s %v: error %q, want it to say %q", name, args, err, want)
	}
}

// memCodeActions runs textDocument/codeAction.
func (c *lspClient) memCodeActions(t *testing.T, u protocol.DocumentURI, r protocol.Range, diags []protocol.Diagnostic, only ...protocol.CodeActionKind) []protocol.CodeAction {
	t.Helper()
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	var res []protocol.CodeAction
	err := c.call(t, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: r,
		Context: protocol.CodeActionContext{Diagnostics: diags, Only: only},
	}, &res)
	if err != nil {
		t.Fatalf("codeAction %s %v: %v", u, r, err)
	}
	return res
}

// memHover runs textDocument/hover; nil is no hover.
func (c *lspClient) memHover(t *testing.T, u protocol.DocumentURI, p protocol.Position) *protocol.Hover {
	t.Helper()
	var h *protocol.Hover
	err := c.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p},
	}, &h)
	if err != nil {
		t.Fatalf("hover %s %v: %v", u, p, err)
	}
	return h
}

// memLenses runs textDocument/codeLens.
func (c *lspClient) memLenses(t *testing.T, u protocol.DocumentURI) []protocol.CodeLens {
	t.Helper()
	var res []protocol.CodeLens
	if err := c.call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &res); err != nil {
		t.Fatalf("codeLens %s: %v", u, err)
	}
	return res
}

// memResolve runs codeLens/resolve.
func (c *lspClient) memResolve(t *testing.T, lens protocol.CodeLens) protocol.CodeLens {
	t.Helper()
	var res protocol.CodeLens
	if err := c.call(t, protocol.MethodCodeLensResolve, &lens, &res); err != nil {
		t.Fatalf("codeLens/resolve %+v: %v", lens, err)
	}
	return res
}

// memDiagnostics returns the diagnostics of a publishDiagnostics frame
// for u, or false for another frame.
func memDiagnostics(f frame, u protocol.DocumentURI) ([]protocol.Diagnostic, bool) {
	if f.Method != "textDocument/publishDiagnostics" {
		return nil, false
	}
	var p protocol.PublishDiagnosticsParams
	if json.Unmarshal(f.Params, &p) != nil || (u != "" && p.URI != u) {
		return nil, false
	}
	return p.Diagnostics, true
}

// memProposalID returns the proposal of a diagnostic's data, or 0.
func memProposalID(d protocol.Diagnostic) int64 {
	raw, _ := json.Marshal(d.Data)
	var pd struct {
		Proposal int64 `json:"proposal"`
	}
	if json.Unmarshal(raw, &pd) != nil {
		return 0
	}
	return pd.Proposal
}

// memTextAt returns the text of a range of a file (one line).
func memTextAt(t *testing.T, text string, r protocol.Range) string {
	t.Helper()
	return text[offsetAt(text, r.Start):offsetAt(text, r.End)]
}

// Answers of the memory commands, as sent.
type (
	memCorrectionAnswer struct {
		Correction memory.Correction `json:"correction"`
		Open       int               `json:"open_corrections"`
	}
	memProposal struct {
		memory.Proposal
		Location *protocol.Location `json:"location"`
	}
	memLocation struct {
		URI            protocol.DocumentURI `json:"uri"`
		Range          protocol.Range       `json:"range"`
		SelectionRange protocol.Range       `json:"selection_range"`
		Symbol         string               `json:"symbol"`
		Line           int                  `json:"line"`
		Path           string               `json:"path"`
	}
	memRule struct {
		memory.Rule
		Location     *memLocation `json:"location"`
		AnchorStatus string       `json:"anchor_status"`
	}
	memApproval struct {
		Proposal     memory.Proposal `json:"proposal"`
		Rule         memory.Rule     `json:"rule"`
		Merged       bool            `json:"merged"`
		Location     *memLocation    `json:"location"`
		AnchorStatus string          `json:"anchor_status"`
		AnchorNote   string          `json:"anchor_note"`
		Summary      string          `json:"summary"`
	}
)

// memListRules runs anchorage.memory.list with args.
func (c *lspClient) memListRules(t *testing.T, args ...any) []memRule {
	t.Helper()
	var res struct {
		Rules []memRule `json:"rules"`
	}
	c.memCommand(t, &res, cmdMemoryList, args...)
	if res.Rules == nil {
		t.Fatalf("%s: no rules list", cmdMemoryList)
	}
	return res.Rules
}

func TestE2EMemory(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	init := c.memStart(t, root)

	caps := init.Capabilities
	if caps.HoverProvider != true || caps.CodeLensProvider == nil || !caps.CodeLensProvider.ResolveProvider ||
		caps.CodeActionProvider == nil || !slices.Contains(caps.CodeActionProvider.CodeActionKinds, "quickfix") ||
		!slices.Contains(caps.CodeActionProvider.CodeActionKinds, "source") {
		t.Errorf("initialize: hover %v, codeLens %+v, codeAction %+v: want hover, lazy code lenses and quickfix + source actions",
			caps.HoverProvider, caps.CodeLensProvider, caps.CodeActionProvider)
	}
	for _, cmd := range command.Names() {
		if caps.ExecuteCommandProvider == nil || !slices.Contains(caps.ExecuteCommandProvider.Commands, cmd) {
			t.Errorf("executeCommandProvider does not list %s", cmd)
		}
	}

	repoURI := fileURI(root, "users/repo.go")
	repo := c.open(t, repoURI, "go", readFile(t, root, "users/repo.go"))

	// Corrections: three ways of saying the same thing, in users/repo.go.
	corrections := []string{
		"Wrap errors with context using fmt.Errorf and %w",
		"Wrap the error with context with fmt.Errorf and %w",
		"Always wrap errors with context: fmt.Errorf with %w",
	}
	errLine := repo.find(t, `return nil, fmt.Errorf("find user %s: %w", id, ErrNotFound)`, 0)
	for i, text := range corrections {
		args := map[string]any{"text": text, "uri": repoURI}
		if i == 0 {
			args["range"] = errLine
		}
		var ans memCorrectionAnswer
		c.memCommand(t, &ans, cmdMemoryRecord, args)
		got := ans.Correction
		if got.ID <= 0 || got.Text != text || got.File != "users/repo.go" || got.Language != "go" || got.Project != "sampleapp" || ans.Open != i+1 {
			t.Fatalf("recordCorrection %q: %+v (open %d), want users/repo.go, go, project sampleapp, %d open", text, got, ans.Open, i+1)
		}
		if i == 0 && (got.Range == nil || got.Range.Start.Line != int(errLine.Start.Line) || got.Range.End.Character != int(errLine.End.Character)) {
			t.Errorf("recordCorrection: range %+v, want %+v", got.Range, errLine)
		}
	}

	t.Run("bad corrections", func(t *testing.T) {
		c.memBadCommand(t, "empty", cmdMemoryRecord, map[string]any{"text": ""})
		c.memBadCommand(t, "empty", cmdMemoryRecord, map[string]any{"text": " \n\t "})
		c.memBadCommand(t, "empty", cmdMemoryRecord, "")
		c.memBadCommand(t, "too long", cmdMemoryRecord, map[string]any{"text": strings.Repeat("wrap errors ", 2000)})
		c.memBadCommand(t, "missing argument", cmdMemoryRecord)
		c.memBadCommand(t, "want", cmdMemoryRecord, map[string]any{"text": 42})
		c.memBadCommand(t, "outside", cmdMemoryRecord, map[string]any{"text": "Use tabs", "uri": string(uri.File(filepath.Join(t.TempDir(), "x.go")))})
		c.memBadCommand(t, "file: URIs", cmdMemoryRecord, map[string]any{"text": "Use tabs", "uri": "untitled:Untitled-1"})
		c.memBadCommand(t, "ends before", cmdMemoryRecord, map[string]any{"text": "Use tabs", "uri": repoURI, "range": rng(5, 0, 4, 0)})
		c.memBadCommand(t, "needs the uri", cmdMemoryRecord, map[string]any{"text": "Use tabs", "range": rng(1, 0, 1, 1)})
	})

	// Propose: one proposal from the three corrections, shown as a hint.
	from := c.mark()
	var proposed struct {
		Proposals []memProposal `json:"proposals"`
	}
	c.memCommand(t, &proposed, cmdMemoryPropose)
	if len(proposed.Proposals) != 1 {
		t.Fatalf("propose: %+v, want one proposal", proposed.Proposals)
	}
	prop := proposed.Proposals[0]
	if prop.Status != memory.StatusPending || prop.Frequency != 3 || prop.Location == nil || prop.File != "users/repo.go" {
		t.Fatalf("propose: %+v, want a pending proposal of 3 corrections in users/repo.go, with a location", prop)
	}
	if _, err := memory.NormalizeScope(prop.Scope); err != nil {
		t.Fatalf("propose: scope %q: %v", prop.Scope, err)
	}
	// The pending proposals, listed without proposing again.
	var listed struct {
		Proposals []memProposal `json:"proposals"`
	}
	c.memCommand(t, &listed, cmdMemoryProposals)
	if len(listed.Proposals) != 1 || listed.Proposals[0].ID != prop.ID || listed.Proposals[0].Location == nil ||
		*listed.Proposals[0].Location != *prop.Location {
		t.Errorf("proposals: %+v, want proposal %d at %+v", listed.Proposals, prop.ID, prop.Location)
	}
	var diag protocol.Diagnostic
	diagFrame := c.wait(t, from, eventTimeout, "the proposal's diagnostic", func(f frame) bool {
		diags, ok := memDiagnostics(f, prop.Location.URI)
		for _, d := range diags {
			if memProposalID(d) == prop.ID {
				diag = d
			}
		}
		return ok && diag.Message != ""
	})
	t.Logf("proposal %d (%s) shown at %s %v: %s", prop.ID, prop.Scope, prop.Location.URI, diag.Range, diagFrame)
	wantMsg := fmt.Sprintf("Proposed rule: %s (%s, from 3 corrections)", prop.Content, prop.Scope)
	if diag.Severity != protocol.DiagnosticSeverityInformation || diag.Source != "anchorage" || !strings.HasPrefix(diag.Message, wantMsg) ||
		diag.Range != prop.Location.Range {
		t.Errorf("diagnostic %+v, want an Information diagnostic from anchorage at %v saying %q", diag, prop.Location.Range, wantMsg)
	}
	// Editors read the proposal from the data, never from the message.
	raw, _ := json.Marshal(diag.Data)
	var data struct {
		Proposal  int64  `json:"proposal"`
		Content   string `json:"content"`
		Scope     string `json:"scope"`
		Frequency int    `json:"frequency"`
		Language  string `json:"language"`
		Project   string `json:"project"`
		File      string `json:"file"`
	}
	if err := json.Unmarshal(raw, &data); err != nil || data.Proposal != prop.ID || data.Content != prop.Content || data.Scope != prop.Scope ||
		data.Frequency != 3 || data.Language != "go" || data.Project != "sampleapp" || data.File != "users/repo.go" {
		t.Errorf("diagnostic data %s, want proposal %d's id, text, scope, 3 corrections, go, sampleapp, users/repo.go", raw, prop.ID)
	}
	diagURI := prop.Location.URI
	// On the line the corrections were about.
	if diagURI != repoURI || diag.Range != errLine {
		t.Errorf("diagnostic at %s %v, want where the corrections were made: %s %v", diagURI, diag.Range, repoURI, errLine)
	}

	// Code actions on the diagnostic.
	actions := c.memCodeActions(t, diagURI, diag.Range, []protocol.Diagnostic{diag})
	byTitle := map[string]protocol.CodeAction{}
	var titles []string
	for _, a := range actions {
		byTitle[a.Title] = a
		titles = append(titles, a.Title)
		if a.Kind == protocol.Source {
			continue // "Approve the pending rule", checked below
		}
		if a.Edit != nil || a.Command == nil || a.Kind != protocol.QuickFix || len(a.Command.Arguments) != 1 || len(a.Diagnostics) != 1 {
			t.Errorf("code action %+v: want a quick fix for the diagnostic that runs a command, without edits", a)
			continue
		}
		raw, _ := json.Marshal(a.Command.Arguments[0])
		var args command.IDArgs
		if err := json.Unmarshal(raw, &args); err != nil || args.ID != prop.ID {
			t.Errorf("code action %q: arguments %s, want the proposal's id %d", a.Title, raw, prop.ID)
		}
		if a.Command.Command != cmdMemoryApprove && a.Command.Command != cmdMemoryReject {
			t.Errorf("code action %q runs %s", a.Title, a.Command.Command)
		}
	}
	t.Logf("code actions: %q", titles)
	// Titles say what they do, with the rule's text.
	approve, ok := byTitle["Approve rule: "+prop.Content]
	if !ok || !approve.IsPreferred || approve.Command.Command != cmdMemoryApprove {
		t.Fatalf("code actions %q: want a preferred \"Approve rule: %s\"", titles, prop.Content)
	}
	for _, scope := range []string{memory.ScopeUniversal, "language:go", "project:sampleapp"} {
		if _, ok := byTitle["Approve as "+scope+" rule: "+prop.Content]; !ok && scope != prop.Scope {
			t.Errorf("code actions %q: no \"Approve as %s rule: …\"", titles, scope)
		}
	}
	if a, ok := byTitle["Reject rule: "+prop.Content]; !ok || a.Command.Command != cmdMemoryReject {
		t.Errorf("code actions %q: no \"Reject rule: %s\"", titles, prop.Content)
	}
	// With one proposal, approving all is a source action only.
	for _, a := range actions {
		if a.Command != nil && a.Command.Command == cmdMemoryApproveAll && a.Kind != protocol.Source {
			t.Errorf("code action %q: approving all is a %s with one proposal, want a source action", a.Title, a.Kind)
		}
	}
	source := c.memCodeActions(t, diagURI, diag.Range, nil, protocol.Source)
	if len(source) != 1 || source[0].Kind != protocol.Source || source[0].Command == nil || source[0].Command.Command != cmdMemoryApproveAll ||
		source[0].Title != "Approve the pending rule" {
		t.Errorf("source actions %+v, want one \"Approve the pending rule\"", source)
	}
	if got := c.memCodeActions(t, diagURI, rng(0, 0, 0, 0), nil, protocol.QuickFix); len(got) != 0 && diag.Range.Start.Line != 0 {
		t.Errorf("quick fixes away from the diagnostic: %+v, want none", got)
	}

	// The scopes the editor offers come from the server.
	var choices struct {
		Choices []feature.ScopeChoice `json:"choices"`
	}
	c.memCommand(t, &choices, cmdMemoryScopeChoices, map[string]any{"ids": []int64{prop.ID}})
	if len(choices.Choices) < 2 || choices.Choices[0].Scope != "" || choices.Choices[0].Description != prop.Scope ||
		choices.Choices[1].Scope != memory.ScopeUniversal {
		t.Errorf("scope choices of proposal %d (%s): %+v, want as proposed, then universal", prop.ID, prop.Scope, choices.Choices)
	}
	c.memBadCommand(t, "no such proposal", cmdMemoryScopeChoices, map[string]any{"ids": []int64{9999}})
	c.memBadCommand(t, `field "ids"`, cmdMemoryScopeChoices, map[string]any{"ids": []int64{}})

	// Approve, as the editor would: the action's command.
	from = c.mark()
	var approved memApproval
	c.memCommand(t, &approved, approve.Command.Command, approve.Command.Arguments...)
	if approved.Proposal.Status != memory.StatusApproved || approved.Rule.ID <= 0 || approved.Rule.Content != prop.Content ||
		approved.Rule.Corrections != 3 || approved.Rule.Scope != prop.Scope {
		t.Fatalf("approve: %+v, want the proposal approved as a rule of 3 corrections", approved)
	}
	if approved.Rule.Anchor == nil || approved.AnchorStatus != "anchored" || approved.Location == nil {
		t.Fatalf("approve: anchor %+v, status %q, location %+v (%s): want the rule anchored at once",
			approved.Rule.Anchor, approved.AnchorStatus, approved.Location, approved.AnchorNote)
	}
	if want := fmt.Sprintf("approved as rule %d (%s): ", approved.Rule.ID, approved.Rule.Scope); !strings.HasPrefix(approved.Summary, want) ||
		!strings.Contains(approved.Summary, fmt.Sprintf("— example %s (%s:%d)", approved.Location.Symbol, approved.Location.Path, approved.Location.Line)) {
		t.Errorf("approve: summary %q, want it to start %q and name the example", approved.Summary, want)
	}
	ruleID := approved.Rule.ID
	c.wait(t, from, eventTimeout, "workspace/codeLens/refresh", func(f frame) bool {
		return f.Method == "workspace/codeLens/refresh" && f.isCall
	})
	c.wait(t, from, eventTimeout, "the proposal's diagnostic cleared", func(f frame) bool {
		diags, ok := memDiagnostics(f, diagURI)
		return ok && len(diags) == 0
	})

	t.Run("bad ids", func(t *testing.T) {
		c.memBadCommand(t, "already decided", cmdMemoryApprove, map[string]any{"id": prop.ID})
		c.memBadCommand(t, "already decided", cmdMemoryReject, map[string]any{"id": prop.ID})
		c.memBadCommand(t, "no such proposal", cmdMemoryApprove, map[string]any{"id": 9999})
		c.memBadCommand(t, "no such proposal", cmdMemoryApprove, 9999)
		c.memBadCommand(t, "no such proposal", cmdMemoryReject, map[string]any{"id": 9999})
		c.memBadCommand(t, "no such rule", cmdMemoryReanchor, map[string]any{"id": 9999})
		c.memBadCommand(t, "positive", cmdMemoryApprove, map[string]any{"id": 0})
		c.memBadCommand(t, "want", cmdMemoryApprove, map[string]any{"id": "one"})
		c.memBadCommand(t, "proposal id", cmdMemoryApprove, 1.5)
		c.memBadCommand(t, "missing argument", cmdMemoryApprove)
		c.memBadCommand(t, "invalid scope", cmdMemoryList, map[string]any{"scope": "galaxy:far"})
	})

	// The rule, its anchor resolved to a live location.
	rules := c.memListRules(t)
	if len(rules) != 1 || rules[0].ID != ruleID || rules[0].AnchorStatus != "anchored" || rules[0].Location == nil {
		t.Fatalf("list: %+v, want rule %d anchored", rules, ruleID)
	}
	anchor := *rules[0].Location
	symbol := rules[0].Anchor.Symbol
	anchorRel, _ := filepath.Rel(root, uri.URI(anchor.URI).Filename())
	anchorRel = filepath.ToSlash(anchorRel)
	t.Logf("rule %d anchored on %s in %s, line %d (quality %.2f)", ruleID, symbol, anchorRel, anchor.Line, rules[0].Anchor.Score)
	name := symbol[strings.LastIndexByte(symbol, '.')+1:]
	if anchorRel != rules[0].Anchor.File || memTextAt(t, readFile(t, root, anchorRel), anchor.SelectionRange) != name ||
		anchor.Line != int(anchor.Range.Start.Line)+1 {
		t.Fatalf("list: location %+v, want the name of %s in %s", anchor, symbol, rules[0].Anchor.File)
	}
	if got := c.memListRules(t, map[string]any{"scope": prop.Scope}); len(got) != 1 {
		t.Errorf("list scope %s: %d rules, want 1", prop.Scope, len(got))
	}
	if got := c.memListRules(t, map[string]any{"scope": "language:python"}); len(got) != 0 {
		t.Errorf("list scope language:python: %+v, want none", got)
	}

	doc := repo
	if anchor.URI != repoURI {
		doc = c.open(t, anchor.URI, "go", readFile(t, root, anchorRel))
	}

	// Hover on the anchored symbol's name.
	h := c.memHover(t, anchor.URI, anchor.SelectionRange.Start)
	if h == nil || h.Contents.Kind != protocol.Markdown {
		t.Fatalf("hover on %s: %+v, want Markdown", symbol, h)
	}
	t.Logf("hover:\n%s", h.Contents.Value)
	for _, want := range []string{"Wrap errors with context using fmt.Errorf and %w", prop.Scope, "from 3 corrections", "quality ", "rule"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover on %s:\n%s\nwant %q in it", symbol, h.Contents.Value, want)
		}
	}
	if h.Range == nil || *h.Range != anchor.SelectionRange {
		t.Errorf("hover range %v, want %v", h.Range, anchor.SelectionRange)
	}
	if h := c.memHover(t, anchor.URI, pos(0, 0)); h != nil {
		t.Errorf("hover at 0:0: %+v, want none", h)
	}

	// The code lens above it, resolved lazily.
	lensAt := func(t *testing.T, want protocol.Range) protocol.CodeLens {
		t.Helper()
		lenses := c.memLenses(t, anchor.URI)
		if len(lenses) != 1 || lenses[0].Range != want || lenses[0].Command != nil || lenses[0].Data == nil {
			t.Fatalf("code lenses %+v, want one unresolved lens at %v", lenses, want)
		}
		return lenses[0]
	}
	lens := c.memResolve(t, lensAt(t, anchor.SelectionRange))
	wantTitle := "⚓ 1 rule: " + prop.Content
	if lens.Command == nil || lens.Command.Title != wantTitle || lens.Command.Command != cmdMemoryExampleRules || len(lens.Command.Arguments) != 1 {
		t.Fatalf("resolved lens %+v, want %q opening the rules", lens.Command, wantTitle)
	}
	// The lens acts: its command answers the example's rules with their
	// rationale, corrections and actions.
	var shown struct {
		Rules []struct {
			memRule
			Corrections []struct {
				Text     string             `json:"text"`
				Location *protocol.Location `json:"location"`
			} `json:"corrections"`
			Actions []struct {
				Title    string             `json:"title"`
				Kind     string             `json:"kind"`
				Command  *protocol.Command  `json:"command"`
				Location *protocol.Location `json:"location"`
			} `json:"actions"`
		} `json:"rules"`
	}
	c.memCommand(t, &shown, lens.Command.Command, lens.Command.Arguments...)
	if len(shown.Rules) != 1 || shown.Rules[0].ID != ruleID || shown.Rules[0].Rationale == "" || len(shown.Rules[0].Corrections) != 3 {
		t.Fatalf("the lens's command answers %+v, want rule %d with its rationale and 3 corrections", shown.Rules, ruleID)
	}
	lensActions := map[string]string{}
	for _, a := range shown.Rules[0].Actions {
		t.Logf("lens action: %s", a.Title)
		switch {
		case a.Kind == "open" && a.Location != nil && strings.HasPrefix(a.Title, "Open correction"):
			lensActions["open"] = a.Title
		case a.Kind == "command" && a.Command != nil && a.Command.Command == cmdMemoryUseExample:
			lensActions["use"] = a.Title
		case a.Kind == "command" && a.Command != nil && a.Command.Command == cmdMemoryReanchor:
			lensActions["reanchor"] = a.Title
		case a.Kind == "command" && a.Command != nil && a.Command.Command == cmdMemoryDeleteRule:
			lensActions["delete"] = a.Title
		}
	}
	for _, k := range []string{"open", "use", "reanchor", "delete"} {
		if lensActions[k] == "" {
			t.Errorf("the lens's rule has no %q action: %+v", k, shown.Rules[0].Actions)
		}
	}
	if got := c.memLenses(t, fileURI(root, "cmd/server/main.go")); len(got) != 0 {
		t.Errorf("code lenses of a file without anchors: %+v", got)
	}

	// Edit above the symbol: the lens and the hover move with it.
	line := anchor.Range.Start.Line
	doc.change(t, edit(rng(line, 0, line, 0), "// Inserted one.\n// Inserted two.\n// Inserted three.\n"))
	moved := anchor.SelectionRange
	moved.Start.Line += 3
	moved.End.Line += 3
	lensAt(t, moved)
	if h := c.memHover(t, anchor.URI, moved.Start); h == nil || !strings.Contains(h.Contents.Value, "Wrap errors with context") {
		t.Errorf("hover on %s after the edit: %+v", symbol, h)
	}
	if rules := c.memListRules(t); len(rules) != 1 || rules[0].Location == nil || rules[0].Location.SelectionRange != moved {
		t.Errorf("list after the edit: %+v, want the location at %v", rules, moved)
	}

	// Rename the symbol: the anchor follows it (the same code under
	// another name).
	doc.change(t, edit(moved, name+"Renamed"))
	renamed := moved
	renamed.End.Character += uint32(len("Renamed"))
	lensAt(t, renamed)
	if rules := c.memListRules(t); len(rules) != 1 || rules[0].AnchorStatus != "anchored" || rules[0].Anchor.Symbol != symbol+"Renamed" {
		t.Errorf("list after the rename: %+v, want the anchor on %sRenamed", rules, symbol)
	}

	// Delete it: the anchor is lost, and its lens sits where it was.
	gone := anchor.Range
	gone.Start.Line += 3
	gone.End.Line += 3
	gone.Start.Character = 0
	doc.change(t, edit(gone, ""))
	lost := lensAt(t, rng(gone.Start.Line, 0, gone.Start.Line, 0))
	lost = c.memResolve(t, lost)
	if lost.Command == nil || lost.Command.Title != "⚓ anchor lost: "+prop.Content || lost.Command.Command != cmdMemoryReanchor {
		t.Fatalf("lens after the rename: %+v, want \"⚓ anchor lost: …\" re-anchoring", lost.Command)
	}
	if rules := c.memListRules(t); len(rules) != 1 || rules[0].AnchorStatus != "lost" || rules[0].Location != nil {
		t.Errorf("list after the deletion: %+v, want the anchor lost", rules)
	}
	var reanchorAction *protocol.CodeAction
	for _, a := range c.memCodeActions(t, anchor.URI, rng(gone.Start.Line, 0, gone.Start.Line, 0), nil) {
		if strings.HasPrefix(a.Title, "Re-anchor rule") {
			reanchorAction = &a
		}
	}
	if reanchorAction == nil || reanchorAction.Kind != protocol.QuickFix || reanchorAction.Command == nil || reanchorAction.Command.Command != cmdMemoryReanchor {
		t.Fatalf("code actions where the symbol was: %+v, want a \"Re-anchor rule\" quick fix", reanchorAction)
	}
	from = c.mark()
	var reanchored struct {
		Rule       memRule `json:"rule"`
		Reanchored bool    `json:"reanchored"`
		Note       string  `json:"note"`
	}
	c.memCommand(t, &reanchored, reanchorAction.Command.Command, reanchorAction.Command.Arguments...)
	t.Logf("re-anchored: %v %+v %s", reanchored.Reanchored, reanchored.Rule.Location, reanchored.Note)
	if st := reanchored.Rule.AnchorStatus; reanchored.Rule.ID != ruleID || st == "lost" || (st == "anchored") != reanchored.Reanchored {
		t.Errorf("reanchor: %+v, want the rule anchored again or without anchor, never lost", reanchored)
	}
	c.wait(t, from, eventTimeout, "workspace/codeLens/refresh", func(f frame) bool {
		return f.Method == "workspace/codeLens/refresh" && f.isCall
	})
	for _, l := range c.memLenses(t, anchor.URI) {
		if l = c.memResolve(t, l); strings.Contains(l.Command.Title, "anchor lost") {
			t.Errorf("lens %q after re-anchoring", l.Command.Title)
		}
	}

	// Choose the example by hand: a code action on any definition (of
	// internal/db/db.go, one that is not the example re-anchoring found).
	dbURI := fileURI(root, "internal/db/db.go")
	dbDoc := c.open(t, dbURI, "go", readFile(t, root, "internal/db/db.go"))
	choice := struct{ decl, name, symbol string }{"func Open(", "Open", "db.Open"}
	if a := reanchored.Rule.Anchor; a != nil && a.File == "internal/db/db.go" && a.Symbol == choice.symbol {
		choice = struct{ decl, name, symbol string }{"func (c *Conn) Exec(", "Exec", "Conn.Exec"}
	}
	declLine := dbDoc.find(t, choice.decl, 0)
	var use *protocol.CodeAction
	for _, a := range c.memCodeActions(t, dbURI, declLine, nil, protocol.Refactor) {
		if strings.HasPrefix(a.Title, fmt.Sprintf("Use %s as the example of rule %d: ", choice.name, ruleID)) {
			use = &a
		}
	}
	if use == nil || use.Command == nil || use.Command.Command != cmdMemoryUseExample {
		t.Fatalf("code actions on %s: no \"Use %s as the example of rule %d\" action", choice.decl, choice.name, ruleID)
	}
	var used struct {
		Rule memRule `json:"rule"`
	}
	c.memCommand(t, &used, use.Command.Command, use.Command.Arguments...)
	if used.Rule.Anchor == nil || used.Rule.Anchor.Symbol != choice.symbol || used.Rule.AnchorStatus != "anchored" ||
		!memory.ReadAnchorMeta(used.Rule.Rule).Manual {
		t.Fatalf("useExample: %+v, want the rule anchored on %s by hand", used.Rule, choice.symbol)
	}
	c.memBadCommand(t, "keeps its example", cmdMemoryUseExample, map[string]any{"id": ruleID, "uri": dbURI, "symbol": "NoSuchFunc"})
	c.memBadCommand(t, `field "uri": missing`, cmdMemoryUseExample, map[string]any{"id": ruleID})

	// Rename its file: the anchor moves with it (workspace/didRenameFiles).
	if err := os.Rename(filepath.Join(root, "internal", "db", "db.go"), filepath.Join(root, "internal", "db", "conn.go")); err != nil {
		t.Fatal(err)
	}
	c.notify(t, "workspace/didRenameFiles", &protocol.RenameFilesParams{Files: []protocol.FileRename{
		{OldURI: string(dbURI), NewURI: string(fileURI(root, "internal/db/conn.go"))}}})
	// Notifications are handled in order, before the requests after them.
	renamedRules := c.memListRules(t)
	if len(renamedRules) != 1 || renamedRules[0].Anchor == nil || renamedRules[0].Anchor.File != "internal/db/conn.go" || renamedRules[0].AnchorStatus != "anchored" {
		t.Errorf("list after renaming the file: %+v, want the anchor in internal/db/conn.go", renamedRules)
	}

	// A correction that contradicts the rule: the diagnostic and the code
	// actions say so.
	var contra memCorrectionAnswer
	c.memCommand(t, &contra, cmdMemoryRecord, map[string]any{"text": "Never wrap errors with context using fmt.Errorf and %w", "uri": repoURI})
	c.memCommand(t, &proposed, cmdMemoryPropose)
	if len(proposed.Proposals) != 1 || proposed.Proposals[0].Contradicts != ruleID || proposed.Proposals[0].Location == nil {
		t.Fatalf("propose a contradiction: %+v, want one proposal contradicting rule %d", proposed.Proposals, ruleID)
	}
	cp := proposed.Proposals[0]
	var cdiag protocol.Diagnostic
	for _, a := range c.memCodeActions(t, cp.Location.URI, cp.Location.Range, nil, protocol.QuickFix) {
		if len(a.Diagnostics) == 1 {
			cdiag = a.Diagnostics[0]
		}
		t.Logf("contradiction action: %s", a.Title)
		if strings.HasPrefix(a.Title, "Approve") && !strings.Contains(a.Title, fmt.Sprintf("replaces rule %d", ruleID)) &&
			!strings.Contains(a.Title, fmt.Sprintf("conflicts with rule %d", ruleID)) {
			t.Errorf("code action %q: want it to say which rule it replaces or conflicts with", a.Title)
		}
	}
	if want := fmt.Sprintf("ontradicts rule %d", ruleID); !strings.Contains(cdiag.Message, want) || memProposalID(cdiag) != cp.ID {
		t.Errorf("contradiction diagnostic %q, want it to say %q", cdiag.Message, want)
	}
	c.memCommand(t, &struct{}{}, cmdMemoryReject, map[string]any{"id": cp.ID})

	// Another proposal, shown when its file is opened, then rejected.
	handlersURI := fileURI(root, "api/handlers.go")
	var rec memCorrectionAnswer
	c.memCommand(t, &rec, cmdMemoryRecord, map[string]any{"text": "Log every HTTP request with its duration", "uri": handlersURI})
	c.memCommand(t, &proposed, cmdMemoryPropose)
	if len(proposed.Proposals) != 1 || proposed.Proposals[0].ID == prop.ID || proposed.Proposals[0].Location == nil {
		t.Fatalf("second propose: %+v, want one new proposal with a location", proposed.Proposals)
	}
	second := proposed.Proposals[0]
	from = c.mark()
	secondRel, _ := filepath.Rel(root, uri.URI(second.Location.URI).Filename())
	c.open(t, second.Location.URI, "go", readFile(t, root, filepath.ToSlash(secondRel)))
	c.wait(t, from, eventTimeout, "the diagnostic of the opened document", func(f frame) bool {
		diags, ok := memDiagnostics(f, second.Location.URI)
		return ok && len(diags) == 1 && memProposalID(diags[0]) == second.ID
	})
	from = c.mark()
	var rejected struct {
		Proposal memory.Proposal `json:"proposal"`
	}
	c.memCommand(t, &rejected, cmdMemoryReject, map[string]any{"id": second.ID})
	if rejected.Proposal.ID != second.ID || rejected.Proposal.Status != memory.StatusRejected {
		t.Errorf("reject: %+v, want proposal %d rejected", rejected.Proposal, second.ID)
	}
	c.wait(t, from, eventTimeout, "the rejected proposal's diagnostic cleared", func(f frame) bool {
		diags, ok := memDiagnostics(f, second.Location.URI)
		return ok && len(diags) == 0
	})
	c.memBadCommand(t, "already decided", cmdMemoryReject, second.ID)
	var all struct {
		Approvals []memApproval `json:"approvals"`
	}
	c.memCommand(t, &all, cmdMemoryApproveAll)
	if all.Approvals == nil || len(all.Approvals) != 0 {
		t.Errorf("approveAll with nothing pending: %+v, want an empty list", all.Approvals)
	}
}

// TestE2EMemoryCorrupt checks that a memory database that is not SQLite
// is reported, in the command's error and in a window/showMessage, and
// left as it is.
func TestE2EMemoryCorrupt(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	dataDir := t.TempDir()
	path := filepath.Join(dataDir, "data", "memory.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	garbage := []byte(strings.Repeat("this is not a database\n", 400))
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	c := connect(t, startProcIn(t, dataDir))
	// The user is told once, by whichever use of the memory comes first:
	// that may be the server's own work after the indexing, before the
	// command below, so the message is looked for from the start.
	from := c.mark()
	c.memStart(t, root)
	_, err := c.command(t, cmdMemoryPropose)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("propose on a corrupt memory: %v, want an error saying it is corrupt", err)
	}
	c.wait(t, from, eventTimeout, "window/showMessage about the corrupt memory", func(f frame) bool {
		var p protocol.ShowMessageParams
		return f.Method == "window/showMessage" && json.Unmarshal(f.Params, &p) == nil && p.Type == protocol.MessageTypeError &&
			strings.Contains(p.Message, "corrupt")
	})
	if _, err := c.command(t, cmdMemoryRecord, map[string]any{"text": "Wrap errors"}); err == nil {
		t.Errorf("recordCorrection on a corrupt memory succeeded")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(garbage) {
		t.Errorf("the corrupt memory was changed (%v)", err)
	}
	// Documents still open, and other requests still work.
	u := fileURI(root, "users/repo.go")
	c.open(t, u, "go", readFile(t, root, "users/repo.go"))
	if got := c.memLenses(t, u); len(got) != 0 {
		t.Errorf("code lenses: %+v", got)
	}
}

// TestE2EMemoryProposalsNoDatabase checks that listing proposals before
// any memory exists answers an empty list and creates no database.
func TestE2EMemoryProposalsNoDatabase(t *testing.T) {
	p := startProc(t)
	c := connect(t, p)
	c.memStart(t, t.TempDir())
	var listed struct {
		Proposals []memProposal `json:"proposals"`
	}
	c.memCommand(t, &listed, cmdMemoryProposals)
	if listed.Proposals == nil || len(listed.Proposals) != 0 {
		t.Errorf("proposals = %+v, want an empty list", listed.Proposals)
	}
	dirs, err := state.Resolve(p.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dirs.MemoryPath()); err == nil {
		t.Errorf("listing proposals created %s", dirs.MemoryPath())
	}
}
