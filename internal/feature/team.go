package feature

import (
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
