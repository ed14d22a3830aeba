package command

import (
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
)

// The answers of the commands about searches and rules. Their JSON is
// what editors read: go generate ./lsp/command writes their TypeScript
// and Lua shapes.

// RoutingStatsResult is anchorage.routing.stats's answer: per strategy,
// the searches, the router's mean confidence and how often a result was
// used.
type RoutingStatsResult struct {
	Strategies []feedback.StrategyStats `json:"strategies"`
}

// CorrectionResult is anchorage.memory.recordCorrection's answer.
type CorrectionResult struct {
	Correction memory.Correction `json:"correction"`
	// Open is how many corrections wait for anchorage.memory.propose.
	Open int `json:"open_corrections"`
}

// ProposalView is a proposal as the memory commands answer it, with the
// place its diagnostic is shown, if any.
type ProposalView struct {
	memory.Proposal
	Location *protocol.Location `json:"location"`
}

// ProposalsResult is the answer of anchorage.memory.propose (the new
// proposals) and anchorage.memory.proposals (every pending one).
type ProposalsResult struct {
	Proposals []ProposalView `json:"proposals"`
}

// ProposalResult is anchorage.memory.reject's answer: the proposal as it
// is now.
type ProposalResult struct {
	Proposal memory.Proposal `json:"proposal"`
}

// RuleLocation is where a rule's example is now.
type RuleLocation struct {
	URI protocol.DocumentURI `json:"uri"`
	// Range is the symbol's, SelectionRange its name's.
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selection_range"`
	Symbol         string         `json:"symbol,omitempty"`
	// Line is Range's first line, 1-based.
	Line int `json:"line"`
	// Path is the file's path for messages: relative to its workspace
	// folder, after the folder's name when several are open.
	Path string `json:"path"`
}

// RuleView is a rule as the memory commands answer it, with its example
// resolved through the live graph.
type RuleView struct {
	memory.Rule
	// Location is where the example's symbol is now, or nil.
	Location *RuleLocation `json:"location"`
	// AnchorStatus is "anchored" (Location is set), "lost" (the file or
	// symbol is gone: re-anchor it), "elsewhere" (anchored in a
	// workspace that is not open), "pending" (its folder is still being
	// indexed) or "none" (no example).
	AnchorStatus memory.AnchorStatus `json:"anchor_status"`
}

// RulesResult is anchorage.memory.list's answer.
type RulesResult struct {
	Rules []RuleView `json:"rules"`
}

// RuleResult is anchorage.memory.useExample's answer: the rule with its
// new example.
type RuleResult struct {
	Rule RuleView `json:"rule"`
}

// ReanchorResult is anchorage.memory.reanchor's answer.
type ReanchorResult struct {
	Rule RuleView `json:"rule"`
	// Reanchored is set when a new example replaced the old one; Note
	// says why there is none.
	Reanchored bool   `json:"reanchored"`
	Note       string `json:"note"`
}

// DeletedResult is anchorage.memory.deleteRule's answer: the rule
// deleted.
type DeletedResult struct {
	Deleted int64 `json:"deleted"`
}

// ApprovalView is what approving a proposal did, with the rule's example
// resolved.
type ApprovalView struct {
	memory.Approval
	// Location is where the rule's example is now, or nil.
	Location *RuleLocation `json:"location"`
	// AnchorStatus is anchored, lost, elsewhere, pending or none (see
	// RuleView).
	AnchorStatus memory.AnchorStatus `json:"anchor_status"`
	// AnchorNote says why the rule has no example, when it has none.
	AnchorNote string `json:"anchor_note,omitempty"`
	// Summary tells the approval in one line, for editors to show.
	Summary string `json:"summary"`
}

// ApprovalsResult is anchorage.memory.approveAll's answer.
type ApprovalsResult struct {
	Approvals []ApprovalView `json:"approvals"`
}

// RuleAction is something the user can do with a rule of an example:
// run Command (on the server), or open Location.
type RuleAction struct {
	Title string `json:"title"`
	// Kind is "open" (Location), "command" (Command).
	Kind     string             `json:"kind"`
	Command  *protocol.Command  `json:"command,omitempty"`
	Location *protocol.Location `json:"location,omitempty"`
}

// CorrectionView is a correction a rule came from, with where it was made
// when that is in an open folder.
type CorrectionView struct {
	Text     string             `json:"text"`
	File     string             `json:"file,omitempty"`
	Line     int                `json:"line,omitempty"`
	Location *protocol.Location `json:"location,omitempty"`
}

// ExampleRuleView is one rule of an example, for the lens's pick list.
type ExampleRuleView struct {
	RuleView
	// Manual is set when the user chose the example.
	Manual      bool             `json:"manual"`
	Corrections []CorrectionView `json:"corrections"`
	Actions     []RuleAction     `json:"actions"`
}

// ExampleRulesResult is anchorage.memory.exampleRules's answer: the rules
// of the example of Symbol in the document URI.
type ExampleRulesResult struct {
	URI    protocol.DocumentURI `json:"uri"`
	Symbol string               `json:"symbol"`
	Rules  []ExampleRuleView    `json:"rules"`
}
