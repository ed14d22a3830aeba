package feature

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// The actions on the examples of rules: what the rules of an example are,
// what the user can do with each (open a correction it came from, choose
// another example, find one again, delete it), and which rules a
// definition can become the example of.

// MaxChoices is how many other examples a rule offers, and how many of
// its corrections it offers to open.
const MaxChoices = 5

// MaxChoiceRules is how many rules of one example get their other
// candidate examples listed (each is a search).
const MaxChoiceRules = 3

// MaxExampleActions caps the "Use F as the example of rule N" actions of
// one definition.
const MaxExampleActions = 5

// ExampleRulesOf returns the rules of an example: the rules with the ids
// given, in that order (those deleted since they were listed are left
// out), or, when there are none, those of rules (a document's, as
// DocumentRules-like callers resolve them) whose example is symbol, every
// one of them when symbol is "".
func ExampleRulesOf(ctx context.Context, st *memory.Store, ids []int64, rules []ExampleRule, symbol string) ([]memory.Rule, error) {
	var out []memory.Rule
	if len(ids) > 0 {
		for _, id := range ids {
			r, err := st.Rule(ctx, id)
			if errors.Is(err, memory.ErrUnknownRule) {
				continue // deleted since the lens was made
			}
			if err != nil {
				return nil, fmt.Errorf("read rule %d: %w", id, err)
			}
			out = append(out, r)
		}
		return out, nil
	}
	for _, er := range rules {
		if symbol == "" || er.Rule.Anchor != nil && er.Rule.Anchor.Symbol == symbol {
			out = append(out, er.Rule)
		}
	}
	return out, nil
}

// Correction is a correction a rule came from, as the actions on the rule
// offer it.
type Correction struct {
	Text string
	// File is where the correction was made, as the correction names it.
	File string
	// Line is the first line it was about, 1-based; 0 when not known.
	Line int
	// Openable is set when File is in the workspace, so that the editor
	// can open it.
	Openable bool
}

// CorrectionOf is c as the actions on its rule offer it; openable says
// whether its file is in the workspace.
func CorrectionOf(c memory.Correction, openable bool) Correction {
	out := Correction{Text: c.Text, File: c.File, Openable: openable}
	if c.Range != nil {
		out.Line = c.Range.Start.Line + 1
	}
	return out
}

// RuleOp is what an action on a rule does.
type RuleOp string

// Operations on a rule of an example.
const (
	RuleOpOpen       RuleOp = "open"        // open the correction Correction
	RuleOpUseExample RuleOp = "use-example" // make Candidate the rule's example
	RuleOpReanchor   RuleOp = "reanchor"    // find the rule's example again
	RuleOpDelete     RuleOp = "delete"      // delete the rule
)

// RuleAction is something the user can do with a rule of an example.
type RuleAction struct {
	Title string
	Op    RuleOp
	// Rule is the rule's id.
	Rule int64
	// Correction is, for RuleOpOpen, the index of the correction to open
	// in those RuleActions was given.
	Correction int
	// Candidate is, for RuleOpUseExample, the definition to make the
	// rule's example.
	Candidate memory.AnchorCandidate
}

// RuleActions are the actions on rule r, whose example's status is
// status: open each of its first MaxChoices corrections that can be
// opened, use one of the best other candidates (candidates, best first:
// up to MaxChoices, its current example left out), find its example
// again, delete it.
func RuleActions(r memory.Rule, status memory.AnchorStatus, cs []Correction, candidates []memory.AnchorCandidate) []RuleAction {
	var out []RuleAction
	for i, c := range cs {
		if i == MaxChoices {
			break
		}
		if !c.Openable {
			continue
		}
		where := c.File
		if c.Line > 0 {
			where = fmt.Sprintf("%s:%d", c.File, c.Line)
		}
		out = append(out, RuleAction{Title: fmt.Sprintf("Open correction: “%s” (%s)", Shorten(c.Text, 60), where), Op: RuleOpOpen, Rule: r.ID, Correction: i})
	}
	n := 0
	for _, c := range candidates {
		if n == MaxChoices {
			break
		}
		if r.Anchor != nil && c.File == r.Anchor.File && c.Symbol == r.Anchor.Symbol {
			continue
		}
		n++
		out = append(out, RuleAction{
			Title: fmt.Sprintf("Use %s (%s:%d) as the example — matches %d of %d key terms", c.Symbol, c.File, c.Line, c.MatchedTerms, c.KeyTerms),
			Op:    RuleOpUseExample, Rule: r.ID, Candidate: c,
		})
	}
	reanchor := "Find the best example again"
	if status == memory.AnchorLost {
		reanchor = "Re-anchor: its example is gone"
	}
	return append(out,
		RuleAction{Title: reanchor, Op: RuleOpReanchor, Rule: r.ID},
		RuleAction{Title: fmt.Sprintf("Delete rule %d", r.ID), Op: RuleOpDelete, Rule: r.ID},
	)
}

// ExampleAction is the action making a definition the example of a rule.
type ExampleAction struct {
	Title string
	Rule  int64
	// Symbol is the definition's qualified name, Line its first line
	// (1-based), as anchorage.memory.useExample takes them.
	Symbol string
	Line   int
}

// DefinitionAt returns the innermost definition of syms (a file's, not a
// module) whose name is on line (0-based).
func DefinitionAt(syms []analysis.SymbolInfo, line int) (analysis.SymbolInfo, bool) {
	var def *analysis.SymbolInfo
	for i := range syms {
		sym := &syms[i]
		if sym.Kind == analysis.KindModule || sym.NameRange.Start.Line != line {
			continue
		}
		if def == nil || sym.Range.Start.Offset > def.Range.Start.Offset {
			def = sym
		}
	}
	if def == nil {
		return analysis.SymbolInfo{}, false
	}
	return *def, true
}

// ExampleActions are the "Use F as the example of rule N" actions of def,
// a definition of file (workspace-relative): for rules (those that apply
// to the file, by importance) other than those anchored on def, those
// without an example first, at most MaxExampleActions.
func ExampleActions(def analysis.SymbolInfo, file string, rules []memory.Rule) []ExampleAction {
	rules = slices.Clone(rules)
	slices.SortStableFunc(rules, func(a, b memory.Rule) int {
		switch {
		case (a.Anchor == nil) == (b.Anchor == nil):
			return 0
		case a.Anchor == nil:
			return -1
		}
		return 1
	})
	var out []ExampleAction
	for _, r := range rules {
		if len(out) == MaxExampleActions {
			break
		}
		if r.Anchor != nil && r.Anchor.File == file && r.Anchor.Symbol == def.QualifiedName {
			continue
		}
		out = append(out, ExampleAction{
			Title: fmt.Sprintf("Use %s as the example of rule %d: %s", def.Name, r.ID, Shorten(r.Content, 60)),
			Rule:  r.ID, Symbol: def.QualifiedName, Line: def.Range.Start.Line + 1,
		})
	}
	return out
}
