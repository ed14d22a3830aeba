package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/session"
)

// proposeToTeam proposes a rule to the user's team (the propose tool
// with team_rule or team_proposal). An agent may propose; it can never
// approve, reject, edit or retire: this server has no tool that does.
func (s *Service) proposeToTeam(ctx context.Context, a ProposeArgs, out ProposeOutput) (ProposeOutput, error) {
	if a.TeamRule != "" && a.TeamProposal != 0 {
		return out, errors.New("give team_rule or team_proposal, not both")
	}
	if err := checkLen("team_rule", a.TeamRule, MaxTextBytes); err != nil {
		return out, err
	}
	if err := checkLen("team_rationale", a.TeamRationale, MaxTextBytes); err != nil {
		return out, err
	}
	tm := s.opts.Session.Team()
	if tm == nil {
		return out, fmt.Errorf("the user has no team database (memory.team.url is not set): propose without team_rule and team_proposal")
	}
	p, err := tm.ProposeFrom(ctx, session.TeamProposalSource{Proposal: a.TeamProposal, Text: a.TeamRule,
		Scope: a.TeamScope, Rationale: a.TeamRationale, Who: "mcp-agent"})
	if err != nil {
		return out, errors.New(config.Redact(err.Error()))
	}
	out.Team = &TeamProposalView{ID: p.Rule.ID, Scope: p.Rule.Scope, Content: p.Rule.Content, Queued: p.Queued, Conflict: p.Conflict}
	return out, nil
}
