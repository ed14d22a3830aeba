package feature

import (
	"fmt"
	"strings"

	"github.com/anchorage-dev/anchorage/memory"
)

// ActionKind is where an editor lists a code action.
type ActionKind string

// Kinds of code action.
const (
	// QuickFix is listed at a proposal or a lost example (Ctrl+.).
	QuickFix ActionKind = "quickfix"
	// Source is listed for the whole document.
	Source ActionKind = "source"
)

// Op is what a code action does when chosen.
type Op string

// Operations of code actions: each is one command of the server.
const (
	OpApprove    Op = "approve"     // approve proposal ID, with Scope unless ""
	OpReject     Op = "reject"      // reject proposal ID
	OpApproveAll Op = "approve-all" // approve every pending proposal
	OpReanchor   Op = "reanchor"    // anchor rule ID again
)

// Action is a code action: what the editor lists and what choosing it
// does. None edits the document.
type Action struct {
	Title string
	Kind  ActionKind
	Op    Op
	// ID is the proposal (OpApprove, OpReject) or the rule (OpReanchor).
	ID int64
	// Scope is the scope an OpApprove gives the rule; "" approves it as
	// proposed.
	Scope string
	// Preferred marks the action an editor may apply at once.
	Preferred bool
}

// Related is what approving a proposal does to what is there already,
// for the titles of its actions: the rule it contradicts and the rule it
// repeats (nil when none, deleted or replaced), and the pending proposal
// it contradicts.
type Related struct {
	Contradicted *memory.Rule
	Repeated     *memory.Rule
	Rival        *memory.Proposal
}

// ActionTextLen is how much of a rule's text an action's title shows.
const ActionTextLen = 80

// ProposalActions are the quick fixes of a pending proposal: approve as
// proposed (preferred), approve with each other scope that applies
// (universal, the proposal's language, its project or else project),
// reject. Every title names the rule ("Approve rule: Wrap errors …") and
// says what approving or rejecting does to rel.
func ProposalActions(p memory.Proposal, rel Related, project string) []Action {
	suffix := func(scope string) string {
		var parts []string
		if q := rel.Rival; q != nil {
			parts = append(parts, fmt.Sprintf("contradicts pending proposal %d “%s”", q.ID, Shorten(q.Content, 50)))
		}
		if r := rel.Repeated; r != nil {
			parts = append(parts, fmt.Sprintf("merges into rule %d", r.ID))
		}
		if r := rel.Contradicted; r != nil {
			if scopeCovers(scope, r.Scope) {
				parts = append(parts, fmt.Sprintf("replaces rule %d “%s”", r.ID, Shorten(r.Content, 50)))
			} else {
				parts = append(parts, fmt.Sprintf("conflicts with rule %d “%s” (%s), which stays", r.ID, Shorten(r.Content, 50), r.Scope))
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return " — " + strings.Join(parts, "; ")
	}
	name := ": " + Shorten(p.Content, ActionTextLen)
	out := []Action{{Title: "Approve rule" + name + suffix(p.Scope), Kind: QuickFix, Op: OpApprove, ID: p.ID, Preferred: true}}
	scopes := []string{memory.ScopeUniversal}
	if p.Language != "" {
		scopes = append(scopes, memory.LanguageScope(p.Language))
	}
	if p.Project != "" {
		project = p.Project
	}
	if project != "" {
		scopes = append(scopes, memory.ProjectScope(project))
	}
	for _, scope := range scopes {
		if scope == p.Scope {
			continue // that is "Approve rule"
		}
		out = append(out, Action{Title: "Approve as " + scope + " rule" + name + suffix(scope), Kind: QuickFix, Op: OpApprove, ID: p.ID, Scope: scope})
	}
	reject := "Reject rule" + name
	switch {
	case rel.Contradicted != nil:
		reject += fmt.Sprintf(" — keeps rule %d “%s”", rel.Contradicted.ID, Shorten(rel.Contradicted.Content, 50))
	case rel.Rival != nil:
		reject += fmt.Sprintf(" — leaves proposal %d “%s”", rel.Rival.ID, Shorten(rel.Rival.Content, 50))
	}
	return append(out, Action{Title: reject, Kind: QuickFix, Op: OpReject, ID: p.ID})
}

// scopeCovers reports whether rules of scope a apply wherever those of
// scope b do: a is b, or universal (as package memory decides which
// contradicted rules an approval supersedes).
func scopeCovers(a, b string) bool {
	return a == b || a == memory.ScopeUniversal
}

// ApproveAll is the action approving every pending proposal of pending
// that contradicts no other, listed as kind; false when there is none.
func ApproveAll(pending []memory.Proposal, kind ActionKind) (Action, bool) {
	approvable := Approvable(pending)
	if approvable == 0 {
		return Action{}, false
	}
	title := fmt.Sprintf("Approve all %d pending rules", approvable)
	if approvable == 1 {
		title = "Approve the pending rule"
	}
	if left := len(pending) - approvable; left > 0 {
		title += fmt.Sprintf(" (%d that contradict each other are left to choose)", left)
	}
	return Action{Title: title, Kind: kind, Op: OpApproveAll}, true
}

// Approvable counts the pending proposals that approving all approves:
// those that contradict no other pending proposal.
func Approvable(pending []memory.Proposal) int {
	n := 0
	for _, p := range pending {
		if p.ContradictsProposal == 0 {
			n++
		}
	}
	return n
}

// Reanchor is the action anchoring again a rule whose example is lost,
// asked for at line (0-based) of its document: a quick fix on the line
// its lens is on (where the definition was, or the top of the file), a
// source action elsewhere. False when the rule's example is not lost.
func Reanchor(er ExampleRule, line int) (Action, bool) {
	if er.Status != memory.AnchorLost || er.Rule.Anchor == nil {
		return Action{}, false
	}
	kind := Source
	if l := er.Meta.Line - 1; line == 0 || l > 0 && line == l {
		kind = QuickFix
	}
	return Action{
		Title: fmt.Sprintf("Re-anchor rule “%s” (its example %s is gone)", Shorten(er.Rule.Content, 60), lostWhat(er.Rule.Anchor)),
		Kind:  kind, Op: OpReanchor, ID: er.Rule.ID,
	}, true
}

// lostWhat names a lost anchor's symbol, or its file.
func lostWhat(a *memory.RuleAnchor) string {
	if a.Symbol != "" {
		return a.Symbol
	}
	return a.File
}
