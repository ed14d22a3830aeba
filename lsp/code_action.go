package lsp

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/internal/feature"
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

// codeActions are the code actions of codeAction: those of package
// feature for the proposals shown in the range, the pending proposals and
// the document's lost examples, as the protocol has them.
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
			rel, err := proposalRelated(ctx, st, prop)
			if err != nil {
				return nil, s.memoryError("textDocument/codeAction", err)
			}
			diag := proposalDiagnostic(prop, v.locs[prop.ID].Range)
			for _, a := range feature.ProposalActions(prop, rel, st.Project()) {
				out = append(out, codeAction(a, &diag))
			}
		}
		// Ctrl+. lists quick fixes, not source actions: where a proposal
		// is, approving them all is one too, when there are several.
		if a, ok := feature.ApproveAll(v.proposals, feature.QuickFix); ok && len(shown) > 0 && feature.Approvable(v.proposals) > 1 {
			out = append(out, codeAction(a, nil))
			quickFixAll = true
		}
	}
	if a, ok := feature.ApproveAll(v.proposals, feature.Source); ok && !quickFixAll && kindWanted(p.Context.Only, protocol.Source) {
		out = append(out, codeAction(a, nil))
	}

	_, rules, err := s.documentRules(ctx, u)
	if err != nil {
		return nil, s.memoryError("textDocument/codeAction", err)
	}
	for _, er := range rules {
		if a, ok := feature.Reanchor(er, int(p.Range.Start.Line)); ok && kindWanted(p.Context.Only, protocol.CodeActionKind(a.Kind)) {
			out = append(out, codeAction(a, nil))
		}
	}
	out = append(out, s.teamActions(ctx, p)...)
	return append(out, s.exampleActions(ctx, p)...), nil
}

// proposalRelated reads what approving a proposal does to what is there
// (feature.Related): the rules it contradicts or repeats, unless deleted
// or replaced, and the pending proposal it contradicts.
func proposalRelated(ctx context.Context, st *memory.Store, p memory.Proposal) (feature.Related, error) {
	var rel feature.Related
	for _, ref := range []struct {
		id  int64
		dst **memory.Rule
	}{{p.Contradicts, &rel.Contradicted}, {p.DuplicateOf, &rel.Repeated}} {
		if ref.id == 0 {
			continue
		}
		r, err := st.Rule(ctx, ref.id)
		if err != nil {
			if errors.Is(err, memory.ErrUnknownRule) {
				continue // deleted meanwhile
			}
			return rel, err
		}
		if r.SupersededBy == 0 {
			*ref.dst = &r
		}
	}
	if p.ContradictsProposal != 0 {
		q, err := st.Proposal(ctx, p.ContradictsProposal)
		switch {
		case err == nil && q.Status == memory.StatusPending:
			rel.Rival = &q
		case err != nil && !errors.Is(err, memory.ErrUnknownProposal):
			return rel, err
		}
	}
	return rel, nil
}

// codeAction is a feature.Action as the protocol has it, for the
// diagnostic diag when it is a proposal's quick fix.
func codeAction(a feature.Action, diag *protocol.Diagnostic) protocol.CodeAction {
	ca := protocol.CodeAction{Title: a.Title, Kind: protocol.CodeActionKind(a.Kind), IsPreferred: a.Preferred}
	if diag != nil {
		ca.Diagnostics = []protocol.Diagnostic{*diag}
	}
	cmd := protocol.Command{Title: a.Title}
	switch a.Op {
	case feature.OpApprove:
		cmd.Command, cmd.Arguments = string(command.MemoryApprove.Name()), []any{command.IDArgs{ID: a.ID, Scope: a.Scope}}
	case feature.OpReject:
		cmd.Command, cmd.Arguments = string(command.MemoryReject.Name()), []any{command.IDArgs{ID: a.ID}}
	case feature.OpApproveAll:
		cmd.Command, cmd.Arguments = string(command.MemoryApproveAll.Name()), []any{map[string]any{}}
	case feature.OpReanchor:
		cmd.Title = "Re-anchor rule"
		cmd.Command, cmd.Arguments = string(command.MemoryReanchor.Name()), []any{command.IDArgs{ID: a.ID}}
	}
	ca.Command = &cmd
	return ca
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
