package feature

import (
	"reflect"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

func TestLenses(t *testing.T) {
	find, save := sym("FindByID", 10, 30), sym("Save", 40, 50)
	whole := example(5, "Whole file", analysis.SymbolInfo{}, memory.AnchorLive, memory.AnchorMeta{})
	whole.Rule.Anchor.Symbol = ""
	name := func(s analysis.SymbolInfo) analysis.Range { return s.NameRange }
	at := func(line int) analysis.Range {
		return analysis.Range{Start: analysis.Position{Line: line}, End: analysis.Position{Line: line}}
	}
	tests := []struct {
		name  string
		rules []ExampleRule
		lines int
		want  []Lens
		asked bool // whether the document's lines were needed
	}{
		{"none", nil, 100, []Lens{}, false},
		{
			"rules of one symbol gather, most important first",
			[]ExampleRule{
				example(2, "Wrap errors", find, memory.AnchorLive, memory.AnchorMeta{}),
				example(1, "Close rows", save, memory.AnchorLive, memory.AnchorMeta{}),
				example(3, "Log queries", find, memory.AnchorLive, memory.AnchorMeta{}),
			},
			100,
			[]Lens{
				{Kind: LensAnchor, Range: name(find), Symbol: "users.FindByID", Rules: []int64{2, 3}},
				{Kind: LensAnchor, Range: name(save), Symbol: "users.Save", Rules: []int64{1}},
			},
			false,
		},
		{"a whole-file example at the top", []ExampleRule{whole}, 100, []Lens{{Kind: LensAnchor, Symbol: "", Rules: []int64{5}}}, false},
		{
			"a lost example where its definition was",
			[]ExampleRule{example(4, "Lost", find, memory.AnchorLost, memory.AnchorMeta{Line: 12})},
			100,
			[]Lens{{Kind: LensLost, Range: at(11), Symbol: "users.FindByID", Rules: []int64{4}}},
			true,
		},
		{
			"a lost example beyond the document's end, on its last line",
			[]ExampleRule{example(4, "Lost", find, memory.AnchorLost, memory.AnchorMeta{Line: 90})},
			20,
			[]Lens{{Kind: LensLost, Range: at(19), Symbol: "users.FindByID", Rules: []int64{4}}},
			true,
		},
		{
			"a lost example of unknown line at the top; elsewhere rules have no lens",
			[]ExampleRule{
				example(4, "Lost", find, memory.AnchorLost, memory.AnchorMeta{}),
				example(6, "Elsewhere", save, memory.AnchorElsewhere, memory.AnchorMeta{}),
			},
			20,
			[]Lens{{Kind: LensLost, Symbol: "users.FindByID", Rules: []int64{4}}},
			false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			got := Lenses(tt.rules, func() int { calls++; return tt.lines })
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lenses = %+v; want %+v", got, tt.want)
			}
			if calls > 1 || (calls == 1) != tt.asked {
				t.Errorf("the document's lines were read %d times; want them read %v", calls, tt.asked)
			}
		})
	}
}

func TestLensTitle(t *testing.T) {
	r := memory.Rule{ID: 7, Content: "Wrap   errors\nwith context"}
	for _, tt := range []struct {
		kind  LensKind
		rules int
		want  string
	}{
		{LensAnchor, 1, "⚓ 1 rule: Wrap errors with context"},
		{LensAnchor, 3, "⚓ 3 rules: Wrap errors with context"},
		{LensLost, 1, "⚓ anchor lost: Wrap errors with context"},
	} {
		if got := LensTitle(tt.kind, tt.rules, r); got != tt.want {
			t.Errorf("LensTitle(%s, %d) = %q; want %q", tt.kind, tt.rules, got, tt.want)
		}
	}
	if got, want := GoneLensTitle(7), "⚓ rule 7 no longer exists"; got != want {
		t.Errorf("GoneLensTitle = %q; want %q", got, want)
	}
}
