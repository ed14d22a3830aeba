package feature

import (
	"context"
	"fmt"

	"github.com/anchorage-dev/anchorage/memory"
)

// TeamOp is what a team action does.
type TeamOp string

// Team operations.
const (
	TeamOpApprove TeamOp = memory.TeamActionApprove
	TeamOpReject  TeamOp = memory.TeamActionReject
)

// TeamAction is a code action on a team proposal, offered to approvers.
type TeamAction struct {
	Title string
	Op    TeamOp
	// ID is the team rule's id.
	ID string
	// Preferred marks the action an editor may apply at once.
	Preferred bool
}

// TeamProposalActions are the actions an approver is offered on a team
// proposal: approve it (preferred unless conflict says it repeats or
// contradicts a rule, which the title then says) and reject it.
func TeamProposalActions(p memory.TeamRule, conflict string) []TeamAction {
	text := Shorten(p.Content, ActionTextLen)
	by := ""
	if p.ProposedBy != "" {
		by = " (proposed by " + p.ProposedBy + ")"
	}
	approve := fmt.Sprintf("Approve team rule: “%s”%s", text, by)
	if conflict != "" {
		approve += " — it " + conflict
	}
	return []TeamAction{
		{Title: approve, Op: TeamOpApprove, ID: p.ID, Preferred: conflict == ""},
		{Title: fmt.Sprintf("Reject team rule: “%s”", text), Op: TeamOpReject, ID: p.ID},
	}
}

// TeamActionsIn returns the actions an approver is offered on the team
// proposals whose example is in file (workspace-relative), each checked
// against st's rules for a repeat or a contradiction.
func TeamActionsIn(ctx context.Context, st *memory.Store, file string) ([]TeamAction, error) {
	proposed, err := st.TeamRules(ctx, memory.TeamProposed)
	if err != nil {
		return nil, fmt.Errorf("read team proposals: %w", err)
	}
	var rules []memory.Rule
	var out []TeamAction
	for _, tr := range proposed {
		if tr.ExampleFile != file {
			continue
		}
		if rules == nil {
			if rules, err = st.Rules(ctx, memory.RuleFilter{}); err != nil {
				return nil, fmt.Errorf("read rules: %w", err)
			}
		}
		_, _, conflict := memory.Relate(tr.Content, tr.Scope, rules)
		out = append(out, TeamProposalActions(tr, conflict)...)
	}
	return out, nil
}
