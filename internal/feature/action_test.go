package feature

import (
	"reflect"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
)

func TestProposalActions(t *testing.T) {
	p := memory.Proposal{ID: 4, Content: "Wrap errors with context", Scope: "language:go", Language: "go"}
	old := memory.Rule{ID: 2, Content: "Return errors bare", Scope: "language:go"}
	narrow := memory.Rule{ID: 3, Content: "Return errors bare", Scope: "project:app"}
	rival := memory.Proposal{ID: 9, Content: "Panic on errors"}
	type want struct {
		op     Op
		scope  string
		prefix string
		has    string
	}
	tests := []struct {
		name    string
		p       memory.Proposal
		rel     Related
		project string
		want    []want
	}{
		{
			"scopes other than the proposed one, project from the workspace", p, Related{}, "app",
			[]want{
				{OpApprove, "", "Approve rule: Wrap errors", ""},
				{OpApprove, "universal", "Approve as universal rule: ", ""},
				{OpApprove, "project:app", "Approve as project:app rule: ", ""},
				{OpReject, "", "Reject rule: Wrap errors", ""},
			},
		},
		{
			"a contradicted rule is replaced where the scope covers it, else stays", p, Related{Contradicted: &narrow}, "",
			[]want{
				{OpApprove, "", "Approve rule", "conflicts with rule 3 “Return errors bare” (project:app), which stays"},
				{OpApprove, "universal", "Approve as universal rule", "replaces rule 3"},
				{OpReject, "", "Reject rule", "keeps rule 3"},
			},
		},
		{
			"a repeated rule and a rival proposal", p, Related{Repeated: &old, Rival: &rival}, "",
			[]want{
				{OpApprove, "", "Approve rule", "contradicts pending proposal 9 “Panic on errors”; merges into rule 2"},
				{OpApprove, "universal", "Approve as universal rule", "merges into rule 2"},
				{OpReject, "", "Reject rule", "leaves proposal 9"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ProposalActions(tt.p, tt.rel, tt.project)
			if len(got) != len(tt.want) {
				t.Fatalf("ProposalActions = %+v; want %d actions", got, len(tt.want))
			}
			for i, w := range tt.want {
				a := got[i]
				if a.Op != w.op || a.Scope != w.scope || a.ID != tt.p.ID || a.Kind != QuickFix ||
					!strings.HasPrefix(a.Title, w.prefix) || !strings.Contains(a.Title, w.has) || a.Preferred != (i == 0) {
					t.Errorf("action %d = %+v; want %s %q titled %q… with %q", i, a, w.op, w.scope, w.prefix, w.has)
				}
			}
		})
	}
}

func TestApproveAll(t *testing.T) {
	one := []memory.Proposal{{ID: 1}}
	some := []memory.Proposal{{ID: 1}, {ID: 2}, {ID: 3, ContradictsProposal: 4}, {ID: 4, ContradictsProposal: 3}}
	for _, tt := range []struct {
		pending []memory.Proposal
		ok      bool
		title   string
	}{
		{nil, false, ""},
		{[]memory.Proposal{{ID: 3, ContradictsProposal: 4}}, false, ""},
		{one, true, "Approve the pending rule"},
		{some, true, "Approve all 2 pending rules (2 that contradict each other are left to choose)"},
	} {
		a, ok := ApproveAll(tt.pending, Source)
		if ok != tt.ok || a.Title != tt.title || ok && (a.Op != OpApproveAll || a.Kind != Source) {
			t.Errorf("ApproveAll(%d pending) = %+v, %v; want %q, %v", len(tt.pending), a, ok, tt.title, tt.ok)
		}
	}
}

func TestReanchor(t *testing.T) {
	find := sym("FindByID", 10, 30)
	lost := example(4, "Wrap errors", find, memory.AnchorLost, memory.AnchorMeta{Line: 12})
	live := example(5, "Close rows", find, memory.AnchorLive, memory.AnchorMeta{Line: 12})
	tests := []struct {
		name string
		er   ExampleRule
		line int
		want Action
		ok   bool
	}{
		{"on the lens's line", lost, 11, Action{Title: "Re-anchor rule “Wrap errors” (its example users.FindByID is gone)", Kind: QuickFix, Op: OpReanchor, ID: 4}, true},
		{"at the top", lost, 0, Action{Title: "Re-anchor rule “Wrap errors” (its example users.FindByID is gone)", Kind: QuickFix, Op: OpReanchor, ID: 4}, true},
		{"elsewhere", lost, 30, Action{Title: "Re-anchor rule “Wrap errors” (its example users.FindByID is gone)", Kind: Source, Op: OpReanchor, ID: 4}, true},
		{"a live example", live, 11, Action{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Reanchor(tt.er, tt.line)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Reanchor = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
