package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// listRules runs anchorage.memory.list {scope?, uri?, symbol?}: the
// active rules, most important first.
func (s *Server) listRules(ctx context.Context, a command.ListArgs) (command.RulesResult, error) {
	filter := memory.RuleFilter{}
	if strings.TrimSpace(a.Scope) != "" {
		if !isScopeKind(a.Scope) {
			if _, err := memory.NormalizeScope(a.Scope); err != nil {
				return command.RulesResult{}, s.memoryError(string(command.MemoryList.Name()), err)
			}
		}
		filter.Scopes = []string{a.Scope}
	}
	var (
		docFolder *folder
		rel       string
	)
	if a.URI != "" {
		f, r, err := s.folderFor(a.URI)
		if err != nil {
			return command.RulesResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.MemoryList.Name()), err)
		}
		docFolder, rel = f, r
		filter.AnchorFile = rel
	}
	out := []command.RuleView{}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.RulesResult{}, s.memoryError(string(command.MemoryList.Name()), err)
	}
	if st == nil {
		return command.RulesResult{Rules: out}, nil // no memory yet
	}
	rules, err := st.Rules(ctx, filter)
	if err != nil {
		return command.RulesResult{}, s.memoryError(string(command.MemoryList.Name()), err)
	}
	x := s.anchors(st)
	for _, r := range rules {
		if docFolder != nil && s.workspaceFolder(x.WorkspaceOf(r)) != docFolder {
			continue
		}
		if a.Symbol != "" && (r.Anchor == nil || r.Anchor.Symbol != a.Symbol) {
			continue
		}
		p := x.Locate(ctx, r)
		out = append(out, command.RuleView{Rule: r, Location: s.placementLocation(p), AnchorStatus: p.Status})
	}
	return command.RulesResult{Rules: out}, nil
}

// isScopeKind reports whether a scope filter names a kind of scope.
func isScopeKind(scope string) bool {
	k := strings.ToLower(strings.TrimSpace(scope))
	return k == memory.KindLanguage || k == memory.KindProject
}

// reanchorRule runs anchorage.memory.reanchor {id}: the anchor engine
// looks for the rule's best example again. A new example replaces the
// anchor; when there is none, a lost anchor is cleared and a live one
// kept.
func (s *Server) reanchorRule(ctx context.Context, a command.IDArgs) (command.ReanchorResult, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.ReanchorResult{}, s.memoryError(string(command.MemoryReanchor.Name()), err)
	}
	re, err := s.anchors(st).Reanchor(ctx, a.ID)
	if err != nil {
		return command.ReanchorResult{}, s.memoryError(string(command.MemoryReanchor.Name()), err)
	}
	s.memoryChanged(ctx)
	return command.ReanchorResult{
		Rule:       command.RuleView{Rule: re.Rule, Location: s.placementLocation(re.Placement), AnchorStatus: re.Placement.Status},
		Reanchored: re.Reanchored, Note: re.Note,
	}, nil
}

// memoryChanged brings the editor up to date after rules or proposals
// changed: proposal diagnostics are published again, and code lenses
// refreshed when the editor supports it.
func (s *Server) memoryChanged(ctx context.Context) {
	if _, err := s.publishProposals(ctx, ""); err != nil {
		s.warn("publishing proposals: %v", err)
	}
	s.refreshCodeLenses()
}

// ---------------------------------------------------------------------------
// Anchors through the live graph: the folders as memory.Workspaces.
