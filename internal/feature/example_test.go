package feature

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

func TestRuleActions(t *testing.T) {
	anchored := memory.Rule{ID: 7, Content: "Wrap errors", Anchor: &memory.RuleAnchor{File: "a.go", Symbol: "Load"}}
	cands := []memory.AnchorCandidate{
		{File: "a.go", Symbol: "Load", Line: 3, MatchedTerms: 2, KeyTerms: 3}, // the current example
		{File: "b.go", Symbol: "Save", Line: 10, MatchedTerms: 2, KeyTerms: 3},
		{File: "c.go", Symbol: "Open", Line: 1, MatchedTerms: 1, KeyTerms: 3},
	}
	var many []memory.AnchorCandidate
	for i := range 8 {
		many = append(many, memory.AnchorCandidate{File: "d.go", Symbol: "F" + string(rune('a'+i)), Line: i + 1})
	}
	var manyCorrections []Correction
	for range 7 {
		manyCorrections = append(manyCorrections, Correction{Text: "no", File: "x.go", Openable: true})
	}
	type want struct {
		op     RuleOp
		title  string
		corr   int
		symbol string
	}
	tests := []struct {
		name   string
		r      memory.Rule
		status memory.AnchorStatus
		cs     []Correction
		cands  []memory.AnchorCandidate
		want   []want
	}{
		{
			"openable corrections, candidates other than the current example",
			anchored, memory.AnchorLive,
			[]Correction{{Text: "use   fmt.Errorf", File: "a.go", Line: 4, Openable: true}, {Text: "elsewhere", File: "/gone.go"}, {Text: "whole file", File: "b.go", Openable: true}},
			cands,
			[]want{
				{RuleOpOpen, "Open correction: “use fmt.Errorf” (a.go:4)", 0, ""},
				{RuleOpOpen, "Open correction: “whole file” (b.go)", 2, ""},
				{RuleOpUseExample, "Use Save (b.go:10) as the example — matches 2 of 3 key terms", 0, "Save"},
				{RuleOpUseExample, "Use Open (c.go:1) as the example — matches 1 of 3 key terms", 0, "Open"},
				{RuleOpReanchor, "Find the best example again", 0, ""},
				{RuleOpDelete, "Delete rule 7", 0, ""},
			},
		},
		{
			"a lost example is re-anchored; no candidates",
			anchored, memory.AnchorLost, nil, nil,
			[]want{
				{RuleOpReanchor, "Re-anchor: its example is gone", 0, ""},
				{RuleOpDelete, "Delete rule 7", 0, ""},
			},
		},
		{
			"at most MaxChoices corrections and candidates",
			memory.Rule{ID: 2, Content: "x"}, memory.AnchorNone, manyCorrections, many,
			nil, // counted below
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RuleActions(tt.r, tt.status, tt.cs, tt.cands)
			for _, a := range got {
				if a.Rule != tt.r.ID {
					t.Errorf("%q acts on rule %d; want %d", a.Title, a.Rule, tt.r.ID)
				}
			}
			if tt.want == nil {
				n := map[RuleOp]int{}
				for _, a := range got {
					n[a.Op]++
				}
				if n[RuleOpOpen] != MaxChoices || n[RuleOpUseExample] != MaxChoices || n[RuleOpReanchor] != 1 || n[RuleOpDelete] != 1 {
					t.Fatalf("RuleActions with 7 corrections and 8 candidates: %v actions by kind; want %d to open and %d to use", n, MaxChoices, MaxChoices)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("RuleActions = %+v; want %d actions", got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Op != w.op || g.Title != w.title || g.Correction != w.corr || g.Candidate.Symbol != w.symbol {
					t.Errorf("action %d = {%s %q correction %d candidate %q}; want {%s %q %d %q}", i, g.Op, g.Title, g.Correction, g.Candidate.Symbol, w.op, w.title, w.corr, w.symbol)
				}
			}
		})
	}
}

func TestCorrectionOf(t *testing.T) {
	c := CorrectionOf(memory.Correction{Text: "t", File: "a.go", Range: &memory.Range{Start: memory.Position{Line: 4}}}, true)
	if want := (Correction{Text: "t", File: "a.go", Line: 5, Openable: true}); c != want {
		t.Errorf("CorrectionOf = %+v; want %+v", c, want)
	}
	if c := CorrectionOf(memory.Correction{Text: "t"}, false); c.Line != 0 || c.Openable {
		t.Errorf("CorrectionOf without a range or file = %+v; want line 0, not openable", c)
	}
}

func TestDefinitionAt(t *testing.T) {
	sym := func(name string, kind analysis.Kind, line, offset int) analysis.SymbolInfo {
		return analysis.SymbolInfo{Name: name, QualifiedName: name, Kind: kind,
			Range:     analysis.Range{Start: analysis.Position{Line: line, Offset: offset}},
			NameRange: analysis.Range{Start: analysis.Position{Line: line}}}
	}
	syms := []analysis.SymbolInfo{
		sym("pkg", analysis.KindModule, 0, 0),
		sym("Outer", analysis.KindFunction, 2, 10),
		sym("inner", analysis.KindFunction, 2, 30), // a closure on the same line: innermost wins
		sym("Other", analysis.KindFunction, 9, 90),
	}
	tests := []struct {
		line int
		want string
	}{{0, ""}, {2, "inner"}, {9, "Other"}, {5, ""}}
	for _, tt := range tests {
		d, ok := DefinitionAt(syms, tt.line)
		if got := map[bool]string{true: d.Name}[ok]; got != tt.want {
			t.Errorf("DefinitionAt(line %d) = %q, %v; want %q", tt.line, d.Name, ok, tt.want)
		}
	}
}

func TestExampleActions(t *testing.T) {
	def := analysis.SymbolInfo{Name: "Load", QualifiedName: "Store.Load", Range: analysis.Range{Start: analysis.Position{Line: 11}}}
	rules := []memory.Rule{
		{ID: 1, Content: "Anchored elsewhere", Anchor: &memory.RuleAnchor{File: "b.go", Symbol: "Save"}},
		{ID: 2, Content: "Already this one", Anchor: &memory.RuleAnchor{File: "a.go", Symbol: "Store.Load"}},
		{ID: 3, Content: "No   example yet"},
		{ID: 4, Content: "Same name, other file", Anchor: &memory.RuleAnchor{File: "c.go", Symbol: "Store.Load"}},
	}
	got := ExampleActions(def, "a.go", rules)
	var ids []int64
	for _, a := range got {
		ids = append(ids, a.Rule)
		if a.Symbol != "Store.Load" || a.Line != 12 {
			t.Errorf("action %q: symbol %q line %d; want Store.Load line 12", a.Title, a.Symbol, a.Line)
		}
	}
	if want := []int64{3, 1, 4}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ExampleActions rules = %v; want %v (unanchored first, not the rule already anchored here)", ids, want)
	}
	if len(got) > 0 && got[0].Title != "Use Load as the example of rule 3: No example yet" {
		t.Errorf("title = %q", got[0].Title)
	}
	if rules[0].ID != 1 {
		t.Errorf("ExampleActions reordered its argument")
	}
	var lots []memory.Rule
	for i := range 9 {
		lots = append(lots, memory.Rule{ID: int64(i + 1), Content: "r"})
	}
	if n := len(ExampleActions(def, "a.go", lots)); n != MaxExampleActions {
		t.Errorf("ExampleActions of 9 rules: %d actions; want %d", n, MaxExampleActions)
	}
}

func TestExampleRulesOf(t *testing.T) {
	ctx := context.Background()
	db, err := state.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), state.User, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := memory.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, text := range []string{"Wrap errors with context", "Close files you open"} {
		r, err := st.AddRule(ctx, memory.Rule{Content: text, Scope: memory.ScopeUniversal, Category: "rule"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	doc := []ExampleRule{
		{Rule: memory.Rule{ID: 100, Anchor: &memory.RuleAnchor{Symbol: "Load"}}},
		{Rule: memory.Rule{ID: 101, Anchor: &memory.RuleAnchor{Symbol: "Save"}}},
	}
	tests := []struct {
		name   string
		ids    []int64
		symbol string
		want   []int64
	}{
		{"by id, in order, a deleted one left out", []int64{ids[1], 999, ids[0]}, "", []int64{ids[1], ids[0]}},
		{"the document's of a symbol", nil, "Save", []int64{101}},
		{"every rule of the document", nil, "", []int64{100, 101}},
		{"a symbol with none", nil, "Gone", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := ExampleRulesOf(ctx, st, tt.ids, doc, tt.symbol)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range rules {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ExampleRulesOf = %v; want %v", got, tt.want)
			}
		})
	}
	db.Close()
	if _, err := ExampleRulesOf(ctx, st, ids, nil, ""); err == nil || !strings.Contains(err.Error(), "read rule") {
		t.Errorf("ExampleRulesOf on a closed database: %v; want an error saying what was read", err)
	}
}
