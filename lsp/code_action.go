package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// codeActionProvider is the codeActionProvider capability: the kinds of
// code action offered, for editors that take code action literals, else
// true (they get the actions' commands).
func codeActionProvider(caps protocol.ClientCapabilities) any {
	if !codeActionLiterals(caps) {
		return true
	}
	return &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source, protocol.Refactor}}
}

// codeActionLiterals reports whether the editor takes code action
// literals; older editors take commands only.
func codeActionLiterals(caps protocol.ClientCapabilities) bool {
	td := caps.TextDocument
	return td != nil && td.CodeAction != nil && td.CodeAction.CodeActionLiteralSupport != nil
}

// codeAction offers, for each pending proposal shown in the range (or
// sent back in the context's diagnostics), quick fixes that approve it as
// proposed or with another scope, or reject it; a source action approving
// every pending proposal; and, for each rule of the document whose
// anchor is lost, a re-anchor action (a quick fix on the top line, where
// its lens is, a source action elsewhere). Every action runs a command;
// none edits the document. Editors without code action literals get the
// commands.
func (s *Server) codeAction(ctx context.Context, p *protocol.CodeActionParams) (any, error) {
	actions, err := s.codeActions(ctx, p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	literals := codeActionLiterals(s.caps)
	s.mu.Unlock()
	if literals {
		return actions, nil
	}
	cmds := make([]protocol.Command, len(actions))
	for i, a := range actions {
		cmds[i] = *a.Command
		cmds[i].Title = a.Title
	}
	return cmds, nil
}

// codeActions are the code actions of codeAction.
func (s *Server) codeActions(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	out := []protocol.CodeAction{}
	u := p.TextDocument.URI
	if _, _, err := s.folderFor(u); err != nil {
		return out, nil // outside the workspace: nothing to offer
	}
	st := s.editorMemory(ctx)
	if st == nil {
		return out, nil
	}
	v, err := s.pendingProposals(ctx, st)
	if err != nil {
		return nil, s.memoryError("textDocument/codeAction", err)
	}

	approvable := 0
	for _, prop := range v.proposals {
		if prop.ContradictsProposal == 0 {
			approvable++
		}
	}
	approveAll := func(kind protocol.CodeActionKind) protocol.CodeAction {
		title := fmt.Sprintf("Approve all %d pending rules", approvable)
		if approvable == 1 {
			title = "Approve the pending rule"
		}
		if left := len(v.proposals) - approvable; left > 0 {
			title += fmt.Sprintf(" (%d that contradict each other are left to choose)", left)
		}
		return protocol.CodeAction{
			Title: title,
			Kind:  kind,
			Command: &protocol.Command{
				Title: title, Command: string(command.MemoryApproveAll.Name()), Arguments: []any{map[string]any{}},
			},
		}
	}

	quickFixAll := false
	if kindWanted(p.Context.Only, protocol.QuickFix) {
		asked := map[int64]bool{}
		for _, d := range p.Context.Diagnostics {
			if id := proposalOf(d); id != 0 {
				asked[id] = true
			}
		}
		var shown []memory.Proposal
		for _, prop := range v.proposals {
			loc, ok := v.locs[prop.ID]
			if asked[prop.ID] || ok && loc.URI == u && rangesTouch(loc.Range, p.Range) {
				shown = append(shown, prop)
			}
		}
		for _, prop := range shown {
			diag := proposalDiagnostic(prop, v.locs[prop.ID].Range)
			actions, err := s.proposalActions(ctx, st, prop, diag)
			if err != nil {
				return nil, s.memoryError("textDocument/codeAction", err)
			}
			out = append(out, actions...)
		}
		// Ctrl+. lists quick fixes, not source actions: where a proposal
		// is, approving them all is one too, when there are several.
		if len(shown) > 0 && approvable > 1 {
			out = append(out, approveAll(protocol.QuickFix))
			quickFixAll = true
		}
	}
	if approvable > 0 && !quickFixAll && kindWanted(p.Context.Only, protocol.Source) {
		out = append(out, approveAll(protocol.Source))
	}

	_, rules, err := s.documentRules(ctx, u)
	if err != nil {
		return nil, s.memoryError("textDocument/codeAction", err)
	}
	for _, dr := range rules {
		if dr.Status != memory.AnchorLost {
			continue
		}
		// A quick fix where the lost lens is: where the definition was,
		// or the top of the file.
		kind := protocol.Source
		if l := memory.ReadAnchorMeta(dr.Rule).Line - 1; p.Range.Start.Line == 0 || l > 0 && int(p.Range.Start.Line) == l {
			kind = protocol.QuickFix
		}
		if !kindWanted(p.Context.Only, kind) {
			continue
		}
		out = append(out, protocol.CodeAction{
			Title: fmt.Sprintf("Re-anchor rule “%s” (its example %s is gone)", shorten(dr.Rule.Content, 60), lostWhat(dr.Rule.Anchor)),
			Kind:  kind,
			Command: &protocol.Command{
				Title: "Re-anchor rule", Command: string(command.MemoryReanchor.Name()), Arguments: []any{command.IDArgs{ID: dr.Rule.ID}},
			},
		})
	}
	return append(out, s.exampleActions(ctx, p)...), nil
}

// lostWhat names a lost anchor's symbol, or its file.
func lostWhat(a *memory.RuleAnchor) string {
	if a.Symbol != "" {
		return a.Symbol
	}
	return a.File
}

// proposalActions are the quick fixes of one proposal: approve as
// proposed, approve with each other scope that applies, reject. When the
// proposal repeats or contradicts a rule, or contradicts another pending
// proposal, the titles say what approving does to it. Every title names
// the rule ("Approve rule: Wrap errors with context …").
func (s *Server) proposalActions(ctx context.Context, st *memory.Store, p memory.Proposal, diag protocol.Diagnostic) ([]protocol.CodeAction, error) {
	var contradicted, repeated *memory.Rule
	for _, ref := range []struct {
		id  int64
		dst **memory.Rule
	}{{p.Contradicts, &contradicted}, {p.DuplicateOf, &repeated}} {
		if ref.id == 0 {
			continue
		}
		r, err := st.Rule(ctx, ref.id)
		if err != nil {
			if errors.Is(err, memory.ErrUnknownRule) {
				continue // deleted meanwhile
			}
			return nil, err
		}
		if r.SupersededBy == 0 {
			*ref.dst = &r
		}
	}
	var rival *memory.Proposal // a pending proposal this one contradicts
	if p.ContradictsProposal != 0 {
		q, err := st.Proposal(ctx, p.ContradictsProposal)
		switch {
		case err == nil && q.Status == memory.StatusPending:
			rival = &q
		case err != nil && !errors.Is(err, memory.ErrUnknownProposal):
			return nil, err
		}
	}
	suffix := func(scope string) string {
		var parts []string
		if q := rival; q != nil {
			parts = append(parts, fmt.Sprintf("contradicts pending proposal %d “%s”", q.ID, shorten(q.Content, 50)))
		}
		if r := repeated; r != nil {
			parts = append(parts, fmt.Sprintf("merges into rule %d", r.ID))
		}
		if r := contradicted; r != nil {
			if scopeCovers(scope, r.Scope) {
				parts = append(parts, fmt.Sprintf("replaces rule %d “%s”", r.ID, shorten(r.Content, 50)))
			} else {
				parts = append(parts, fmt.Sprintf("conflicts with rule %d “%s” (%s), which stays", r.ID, shorten(r.Content, 50), r.Scope))
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return " — " + strings.Join(parts, "; ")
	}
	name := ": " + shorten(p.Content, actionTextLen)
	action := func(title string, cmd string, args command.IDArgs, preferred bool) protocol.CodeAction {
		return protocol.CodeAction{
			Title: title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{diag}, IsPreferred: preferred,
			Command: &protocol.Command{Title: title, Command: cmd, Arguments: []any{args}},
		}
	}

	out := []protocol.CodeAction{action("Approve rule"+name+suffix(p.Scope), string(command.MemoryApprove.Name()), command.IDArgs{ID: p.ID}, true)}
	scopes := []string{memory.ScopeUniversal}
	if p.Language != "" {
		scopes = append(scopes, memory.LanguageScope(p.Language))
	}
	project := p.Project
	if project == "" {
		project = st.Project()
	}
	if project != "" {
		scopes = append(scopes, memory.ProjectScope(project))
	}
	for _, scope := range scopes {
		if scope == p.Scope {
			continue // that is "Approve rule"
		}
		out = append(out, action("Approve as "+scope+" rule"+name+suffix(scope), string(command.MemoryApprove.Name()), command.IDArgs{ID: p.ID, Scope: scope}, false))
	}
	reject := "Reject rule" + name
	switch {
	case contradicted != nil:
		reject += fmt.Sprintf(" — keeps rule %d “%s”", contradicted.ID, shorten(contradicted.Content, 50))
	case rival != nil:
		reject += fmt.Sprintf(" — leaves proposal %d “%s”", rival.ID, shorten(rival.Content, 50))
	}
	out = append(out, action(reject, string(command.MemoryReject.Name()), command.IDArgs{ID: p.ID}, false))
	return out, nil
}

// actionTextLen is how much of a rule's text a code action's title shows.
const actionTextLen = 80

// scopeCovers reports whether rules of scope a apply wherever those of
// scope b do: a is b, or universal (as package memory decides which
// contradicted rules an approval supersedes).
func scopeCovers(a, b string) bool {
	return a == b || a == memory.ScopeUniversal
}

// kindWanted reports whether a code action of kind k is among those the
// editor asked for (all when only is empty); a kind includes its
// sub-kinds.
func kindWanted(only []protocol.CodeActionKind, k protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if k == o || strings.HasPrefix(string(k), string(o)+".") {
			return true
		}
	}
	return false
}

// rangesTouch reports whether two ranges overlap or touch (an empty
// range at a diagnostic's edge counts).
func rangesTouch(a, b protocol.Range) bool {
	return !posLess(a.End, b.Start) && !posLess(b.End, a.Start)
}

func posLess(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
