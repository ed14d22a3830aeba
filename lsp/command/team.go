package command

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
)

// The team's rules (see package memory/team): commands of a member of a
// team; each answers with an error naming memory.team.url when no team
// is configured.
var (
	MemoryTeamStatus  = def[NoArgs, TeamStatusResult]("anchorage.memory.team.status", "The team database (URL without password), the member, the cache and the outbox.")
	MemoryTeamPull    = def[NoArgs, TeamPullResult]("anchorage.memory.team.pull", "Sends the outbox and brings the cache of team rules up to date.")
	MemoryTeamPropose = def[TeamProposeArgs, TeamProposalResult]("anchorage.memory.team.propose", "Proposes a rule to the team: a pending proposal, a rule, or a text.")
	MemoryTeamApprove = def[TeamIDArgs, TeamDecisionResult]("anchorage.memory.team.approve", "Approves a team proposal (approvers only).", shorthand(`["id"]`))
	MemoryTeamReject  = def[TeamIDArgs, TeamDecisionResult]("anchorage.memory.team.reject", "Rejects a team proposal (approvers only).", shorthand(`["id"]`))
	MemoryTeamRetire  = def[TeamIDArgs, TeamDecisionResult]("anchorage.memory.team.retire", "Retires an approved team rule (approvers only).", shorthand(`["id"]`))
)

// teamCommands are the team's commands, in the order editors list them.
func teamCommands() []*Command {
	return []*Command{MemoryTeamStatus.c, MemoryTeamPull.c, MemoryTeamPropose.c, MemoryTeamApprove.c, MemoryTeamReject.c, MemoryTeamRetire.c}
}

// TeamStatusResult is anchorage.memory.team.status's answer: the team
// database as last reached, and the team proposals waiting for an
// approver (those in the cache; none without a memory database).
type TeamStatusResult struct {
	Status  session.TeamStatus `json:"status"`
	Pending []memory.TeamRule  `json:"pending"`
}

// TeamPullResult is anchorage.memory.team.pull's answer: how many changes
// of the team database the cache applied, and the status after the pull.
type TeamPullResult struct {
	Applied int                `json:"applied"`
	Status  session.TeamStatus `json:"status"`
}

// TeamProposalResult is anchorage.memory.team.propose's answer: the rule
// proposed, whether it waits in the outbox, and what it repeats or
// contradicts.
type TeamProposalResult struct {
	session.TeamProposal
}

// TeamDecisionResult is the answer of anchorage.memory.team.approve,
// reject and retire: the team rule as decided, and whether the decision
// waits in the outbox (the database could not be reached).
type TeamDecisionResult struct {
	Rule   memory.TeamRule `json:"rule"`
	Queued bool            `json:"queued"`
}

// TeamIDArgs name a team rule: its id (a UUID), a unique start of it, or
// the number of its local rule.
type TeamIDArgs struct {
	ID string `json:"id"`
}

func (a *TeamIDArgs) positional(args []json.RawMessage) error {
	return positionalField(args, 0, "id", &a.ID)
}

// Validate checks an id is given.
func (a *TeamIDArgs) Validate() error {
	if strings.TrimSpace(a.ID) == "" {
		return &ArgError{Field: "id", Err: errMissing}
	}
	if len(a.ID) > 64 {
		return &ArgError{Field: "id", Err: errors.New("longer than a team rule id")}
	}
	return nil
}

// TeamProposeArgs are anchorage.memory.team.propose's: one of a pending
// proposal, a rule of the user's, or a text, with an optional team scope
// and rationale.
type TeamProposeArgs struct {
	Proposal  int64  `json:"proposal,omitempty"`
	Rule      int64  `json:"rule,omitempty"`
	Text      string `json:"text,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Rationale string `json:"rationale,omitempty"`
}

// Validate checks that exactly one of proposal, rule and text is given
// and the scope is a scope.
func (a *TeamProposeArgs) Validate() error {
	n := 0
	for _, set := range []bool{a.Proposal != 0, a.Rule != 0, strings.TrimSpace(a.Text) != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return &ArgError{Field: "proposal", Err: errors.New("give one of proposal, rule and text")}
	}
	if a.Proposal < 0 || a.Rule < 0 {
		return &ArgError{Field: "proposal", Err: errors.New("ids are positive")}
	}
	if len(a.Text) > memory.MaxRuleBytes || len(a.Rationale) > memory.MaxRuleBytes {
		return &ArgError{Field: "text", Err: errors.New("longer than a rule may be")}
	}
	if strings.TrimSpace(a.Scope) != "" {
		if _, err := memory.NormalizeScope(a.Scope); err != nil {
			return &ArgError{Field: "scope", Err: err}
		}
	}
	return nil
}
