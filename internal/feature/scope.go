package feature

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anchorage-dev/anchorage/memory"
)

// ScopeChoice is a scope the user can approve proposals with.
type ScopeChoice struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	// Scope is what anchorage.memory.approve takes: "" approves each
	// proposal as proposed; "language" and "project" give each proposal
	// its own language's or project's scope.
	Scope string `json:"scope"`
}

// ScopeChoices returns the scopes proposals can be approved with, in the
// order to offer them: as proposed, universal, and the language or
// project scope when every proposal has one (and not all are already of
// that kind).
func ScopeChoices(ps []memory.Proposal) []ScopeChoice {
	var scopes, langs, projects []string
	everyLang, everyProject := true, true
	allUniversal, allLang, allProject := true, true, true
	for _, p := range ps {
		scopes = appendNew(scopes, p.Scope)
		allUniversal = allUniversal && p.Scope == memory.ScopeUniversal
		allLang = allLang && strings.HasPrefix(p.Scope, "language:")
		allProject = allProject && strings.HasPrefix(p.Scope, "project:")
		if p.Language == "" {
			everyLang = false
		} else {
			langs = appendNew(langs, memory.LanguageScope(p.Language))
		}
		if p.Project == "" {
			everyProject = false
		} else {
			projects = appendNew(projects, memory.ProjectScope(p.Project))
		}
	}
	out := []ScopeChoice{{Label: "As proposed", Description: strings.Join(scopes, ", ")}}
	if !allUniversal {
		out = append(out, ScopeChoice{Label: "Universal", Description: "every project and language", Scope: memory.ScopeUniversal})
	}
	if len(langs) > 0 && everyLang && !allLang {
		out = append(out, ScopeChoice{Label: "Language", Description: strings.Join(langs, ", "), Scope: "language"})
	}
	if len(projects) > 0 && everyProject && !allProject {
		out = append(out, ScopeChoice{Label: "Project", Description: strings.Join(projects, ", "), Scope: "project"})
	}
	return out
}

// appendNew appends s to list unless it is there.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Approval is what approving a proposal did, as ApprovalSummary tells it.
type Approval struct {
	Merged  bool
	RuleID  int64
	Scope   string
	Content string
	// Symbol, Path and Line are where the rule's example is when
	// Anchored; Note says why it has none otherwise.
	Anchored bool
	Symbol   string
	Path     string
	Line     int
	Note     string
	// Superseded are the rules the new one replaces.
	Superseded []int64
}

// ApprovalSummary tells an approval in one line: "approved as rule 3
// (project:app): Wrap errors … — example db.Open (internal/db/db.go:12)".
func ApprovalSummary(a Approval) string {
	verb := "approved as"
	if a.Merged {
		verb = "merged into"
	}
	s := fmt.Sprintf("%s rule %d (%s): %s", verb, a.RuleID, a.Scope, Shorten(a.Content, 80))
	switch {
	case a.Anchored:
		sym := a.Symbol
		if sym == "" {
			sym = "file"
		}
		s += fmt.Sprintf(" — example %s (%s:%d)", sym, a.Path, a.Line)
	case a.Note != "":
		s += " — " + a.Note
	}
	if len(a.Superseded) > 0 {
		ids := make([]string, len(a.Superseded))
		for i, id := range a.Superseded {
			ids[i] = fmt.Sprint(id)
		}
		s += "; replaces rule " + strings.Join(ids, ", ")
	}
	return s
}

// Shorten cuts text to at most n runes, with an ellipsis, its spaces
// folded.
func Shorten(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}
