package feature

import (
	"reflect"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
)

func TestScopeChoices(t *testing.T) {
	goProp := memory.Proposal{Scope: "language:go", Language: "go", Project: "app"}
	pyProp := memory.Proposal{Scope: "universal", Language: "python", Project: "app"}
	bare := memory.Proposal{Scope: "universal"}
	projProp := memory.Proposal{Scope: "project:app", Language: "go", Project: "app"}
	tests := []struct {
		name string
		ps   []memory.Proposal
		want []ScopeChoice
	}{
		{"one language rule", []memory.Proposal{goProp}, []ScopeChoice{
			{"As proposed", "language:go", ""},
			{"Universal", "every project and language", "universal"},
			{"Project", "project:app", "project"},
		}},
		{"two languages", []memory.Proposal{goProp, pyProp}, []ScopeChoice{
			{"As proposed", "language:go, universal", ""},
			{"Universal", "every project and language", "universal"},
			{"Language", "language:go, language:python", "language"},
			{"Project", "project:app", "project"},
		}},
		{"universal without language or project", []memory.Proposal{bare}, []ScopeChoice{
			{"As proposed", "universal", ""},
		}},
		{"one without a language", []memory.Proposal{pyProp, bare}, []ScopeChoice{
			{"As proposed", "universal", ""},
		}},
		{"a project rule", []memory.Proposal{projProp}, []ScopeChoice{
			{"As proposed", "project:app", ""},
			{"Universal", "every project and language", "universal"},
			{"Language", "language:go", "language"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScopeChoices(tt.ps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ScopeChoices = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestApprovalSummary(t *testing.T) {
	long := "Wrap errors with context using fmt.Errorf and the %w verb, so that callers can use errors.Is and errors.As"
	tests := []struct {
		name string
		a    Approval
		want string
	}{
		{"anchored", Approval{RuleID: 3, Scope: "project:app", Content: "Wrap errors", Anchored: true, Symbol: "db.Open", Path: "internal/db/db.go", Line: 12},
			"approved as rule 3 (project:app): Wrap errors — example db.Open (internal/db/db.go:12)"},
		{"anchored on a file", Approval{RuleID: 3, Scope: "universal", Content: "x", Anchored: true, Path: "go.mod", Line: 1},
			"approved as rule 3 (universal): x — example file (go.mod:1)"},
		{"merged, no example", Approval{Merged: true, RuleID: 1, Scope: "universal", Content: "Log  every\nrequest", Note: "no example found"},
			"merged into rule 1 (universal): Log every request — no example found"},
		{"long, replacing", Approval{RuleID: 9, Scope: "language:go", Content: long, Superseded: []int64{2, 4}},
			"approved as rule 9 (language:go): " + Shorten(long, 80) + "; replaces rule 2, 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ApprovalSummary(tt.a); got != tt.want {
				t.Errorf("ApprovalSummary = %q\nwant %q", got, tt.want)
			}
		})
	}
	if got := []rune(Shorten(long, 80)); len(got) != 80 || got[79] != '…' {
		t.Errorf("Shorten(long, 80) = %q: want 80 runes ending in an ellipsis", string(got))
	}
}
