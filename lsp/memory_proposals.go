package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// recordCorrection runs anchorage.memory.recordCorrection {text, uri?,
// range?, session?} or ["text"]: the file, its language and project come
// from the uri, which must be in a workspace folder; the session is the
// server's unless named.
func (s *Server) recordCorrection(ctx context.Context, a command.CorrectionArgs) (command.CorrectionResult, error) {
	c := memory.Correction{Text: a.Text, Session: a.Session}
	if a.URI != "" {
		f, rel, err := s.folderFor(a.URI)
		if err != nil {
			return command.CorrectionResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.MemoryRecordCorrection.Name()), err)
		}
		c.File, c.Project = rel, s.projectOf(f)
	}
	if r := a.Range; r != nil { // whole, and with its uri (command.CorrectionArgs.Validate)
		c.Range = &memory.Range{
			Start: memory.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
			End:   memory.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
		}
	}
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.CorrectionResult{}, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	if st, err = s.memoryView(st, a.Session); err != nil {
		return command.CorrectionResult{}, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	rec, err := st.RecordCorrection(ctx, c)
	if err != nil {
		return command.CorrectionResult{}, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	open, err := st.OpenCorrections(ctx)
	if err != nil {
		return command.CorrectionResult{}, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	return command.CorrectionResult{Correction: rec, Open: len(open)}, nil
}

// proposeRules runs anchorage.memory.propose {session?}: the open
// corrections of the server's session (or of the session named, or all
// for "*") become at most five pending proposals, phrased by the LLM of
// the memory.llm settings if any, each given a candidate example by the
// anchor engine, and published as hint diagnostics.
func (s *Server) proposeRules(ctx context.Context, a command.SessionArgs) (command.ProposalsResult, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	if st, err = s.memoryView(st, a.Session, s.llmOption()); err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	ps, err := st.Propose(ctx)
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	s.anchors(st).SetExamples(ctx, ps)
	locs, err := s.publishProposals(ctx, "")
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	out := make([]command.ProposalView, len(ps))
	for i, p := range ps {
		out[i] = command.ProposalView{Proposal: p}
		if loc, ok := locs[p.ID]; ok {
			out[i].Location = &loc
		}
	}
	return command.ProposalsResult{Proposals: out}, nil
}

// listProposals runs anchorage.memory.proposals: every pending
// proposal, from any session (the CLI's, an earlier server's), with where
// its hint is shown. It proposes nothing and creates no database.
func (s *Server) listProposals(ctx context.Context, _ command.NoArgs) (command.ProposalsResult, error) {
	out := []command.ProposalView{}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	if st == nil {
		return command.ProposalsResult{Proposals: out}, nil
	}
	ps, err := st.Proposals(ctx, memory.StatusPending)
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	locs, err := s.publishProposals(ctx, "")
	if err != nil {
		return command.ProposalsResult{}, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	for _, p := range ps {
		v := command.ProposalView{Proposal: p}
		if loc, ok := locs[p.ID]; ok {
			v.Location = &loc
		}
		out = append(out, v)
	}
	return command.ProposalsResult{Proposals: out}, nil
}

// scopeChoices runs anchorage.memory.scopeChoices {ids}: the scopes the
// pending proposals can be approved with together, as editors offer them.
func (s *Server) scopeChoices(ctx context.Context, a command.ScopeChoicesArgs) (command.ScopeChoicesResult, error) {
	name := string(command.MemoryScopeChoices.Name())
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.ScopeChoicesResult{}, s.memoryError(name, err)
	}
	if st == nil {
		return command.ScopeChoicesResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v %d (there is no memory yet)", name, memory.ErrUnknownProposal, a.IDs[0])
	}
	ps := make([]memory.Proposal, len(a.IDs))
	for i, id := range a.IDs {
		if ps[i], err = st.Proposal(ctx, id); err != nil {
			return command.ScopeChoicesResult{}, s.memoryError(name, err)
		}
	}
	return command.ScopeChoicesResult{Choices: feature.ScopeChoices(ps)}, nil
}

// approveProposal runs anchorage.memory.approve {id, scope?}: the proposal
// becomes a rule (or merges into one), which is anchored at once to its
// best example in the workspace.
func (s *Server) approveProposal(ctx context.Context, a command.IDArgs) (command.ApprovalView, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.ApprovalView{}, s.memoryError(string(command.MemoryApprove.Name()), err)
	}
	ap, err := st.Approve(ctx, a.ID, a.Scope)
	if err != nil {
		return command.ApprovalView{}, s.memoryError(string(command.MemoryApprove.Name()), err)
	}
	// The approval is committed: what follows may fail without undoing
	// it, and says so in the answer.
	view := s.anchorApproval(ctx, s.anchors(st), ap)
	s.memoryChanged(ctx)
	return view, nil
}

// approveAllProposals runs anchorage.memory.approveAll {scope?}: every
// pending proposal is approved, strongest first, and its rule anchored.
func (s *Server) approveAllProposals(ctx context.Context, a command.ScopeArgs) (command.ApprovalsResult, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.ApprovalsResult{}, s.memoryError(string(command.MemoryApproveAll.Name()), err)
	}
	aps, err := st.ApproveAll(ctx, a.Scope)
	if err != nil {
		return command.ApprovalsResult{}, s.memoryError(string(command.MemoryApproveAll.Name()), err)
	}
	out := make([]command.ApprovalView, 0, len(aps))
	x := s.anchors(st)
	for _, ap := range aps {
		out = append(out, s.anchorApproval(ctx, x, ap))
	}
	if len(aps) > 0 {
		s.memoryChanged(ctx)
	}
	return command.ApprovalsResult{Approvals: out}, nil
}

// anchorApproval anchors the rule of an approval (see
// memory.Anchors.AnchorApproval) and returns its view.
func (s *Server) anchorApproval(ctx context.Context, x *memory.Anchors, ap memory.Approval) command.ApprovalView {
	aa := x.AnchorApproval(ctx, ap)
	loc := s.placementLocation(aa.Placement)
	v := command.ApprovalView{Approval: aa.Approval, Location: loc, AnchorStatus: aa.Placement.Status, AnchorNote: aa.Note}
	sum := feature.Approval{Merged: v.Merged, RuleID: v.Rule.ID, Scope: v.Rule.Scope, Content: v.Rule.Content,
		Note: v.AnchorNote, Superseded: v.Superseded}
	if loc != nil && v.AnchorStatus == memory.AnchorLive {
		sum.Anchored, sum.Symbol, sum.Path, sum.Line = true, loc.Symbol, loc.Path, loc.Line
	}
	v.Summary = feature.ApprovalSummary(sum)
	return v
}

// rejectProposal runs anchorage.memory.reject {id}.
func (s *Server) rejectProposal(ctx context.Context, a command.IDArgs) (command.ProposalResult, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.ProposalResult{}, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	if err := st.Reject(ctx, a.ID); err != nil {
		return command.ProposalResult{}, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	p, err := st.Proposal(ctx, a.ID)
	if err != nil {
		return command.ProposalResult{}, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	s.memoryChanged(ctx)
	return command.ProposalResult{Proposal: p}, nil
}
