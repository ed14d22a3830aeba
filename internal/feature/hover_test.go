package feature

import (
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// sym is a definition on lines from..to (0-based) whose name spans
// columns 5..13 of its first line.
func sym(name string, from, to int) analysis.SymbolInfo {
	return analysis.SymbolInfo{
		Name: name, QualifiedName: "users." + name,
		Range:     analysis.Range{Start: analysis.Position{Line: from}, End: analysis.Position{Line: to, Column: 1}},
		NameRange: analysis.Range{Start: analysis.Position{Line: from, Column: 5}, End: analysis.Position{Line: from, Column: 13}},
	}
}

func example(id int64, content string, s analysis.SymbolInfo, status memory.AnchorStatus, m memory.AnchorMeta) ExampleRule {
	return ExampleRule{
		Rule: memory.Rule{ID: id, Content: content, Scope: "language:go", Category: "rule", Corrections: 3,
			Anchor: &memory.RuleAnchor{File: "users/repo.go", Symbol: s.QualifiedName, Score: 0.9}},
		Meta: m, Status: status, Symbol: s,
	}
}

func TestHoverAt(t *testing.T) {
	find, save := sym("FindByID", 10, 30), sym("Save", 40, 50)
	excerpt := memory.AnchorMeta{HasExcerpt: true, Excerpt: [2]int{4, 8}}
	tooLong := memory.AnchorMeta{HasExcerpt: true, Excerpt: [2]int{4, 80}}
	rules := []ExampleRule{
		example(1, "Wrap errors", find, memory.AnchorLive, excerpt),
		example(2, "Log queries", find, memory.AnchorLive, tooLong),
		example(3, "Close rows", save, memory.AnchorLive, memory.AnchorMeta{}),
		example(4, "Lost rule", save, memory.AnchorLost, memory.AnchorMeta{}),
	}
	tests := []struct {
		name    string
		pos     analysis.Position
		want    []int64
		excerpt [2]int // of the first rule
	}{
		{"on the name", analysis.Position{Line: 10, Column: 7}, []int64{1, 2}, [2]int{15, 19}},
		{"at the name's end", analysis.Position{Line: 10, Column: 13}, []int64{1, 2}, [2]int{15, 19}},
		{"after the name", analysis.Position{Line: 10, Column: 14}, nil, [2]int{}},
		{"in the body", analysis.Position{Line: 12, Column: 7}, nil, [2]int{}},
		{"a live rule only", analysis.Position{Line: 40, Column: 5}, []int64{3}, [2]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := HoverAt(rules, tt.pos)
			var got []int64
			for _, r := range h.Rules {
				got = append(got, r.Rule.ID)
			}
			if ok != (len(tt.want) > 0) || len(got) != len(tt.want) {
				t.Fatalf("HoverAt(%+v) = rules %v, %v; want %v", tt.pos, got, ok, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("HoverAt(%+v) = rules %v, want %v", tt.pos, got, tt.want)
				}
			}
			if !ok {
				return
			}
			if e := [2]int{h.Rules[0].ExcerptFrom, h.Rules[0].ExcerptTo}; e != tt.excerpt {
				t.Errorf("excerpt of rule %d = %v, want %v", got[0], e, tt.excerpt)
			}
			if len(h.Rules) > 1 && h.Rules[1].ExcerptFrom != 0 {
				t.Errorf("an excerpt past the symbol's end is shown: %+v", h.Rules[1])
			}
			if h.Range != h.Symbol.NameRange {
				t.Errorf("hover range %+v, want the name's %+v", h.Range, h.Symbol.NameRange)
			}
		})
	}
}

func TestHoverText(t *testing.T) {
	find := sym("Find_By*ID", 10, 30)
	r := example(1, "Wrap *errors* with %w", find, memory.AnchorLive, memory.AnchorMeta{HasExcerpt: true, Excerpt: [2]int{1, 2}})
	r.Rule.Rationale = "You made this correction 3 times"
	h, ok := HoverAt([]ExampleRule{r}, analysis.Position{Line: 10, Column: 6})
	if !ok {
		t.Fatal("no hover")
	}
	h.Related = []recall.Result{{Title: "Retry_policy", Path: "docs/retry.md"}}
	tests := []struct {
		markdown bool
		want     []string
	}{
		{true, []string{"⚓ `users.Find_By*ID` is the example of 1 rule", `**Wrap \*errors\* with %w**`,
			"scope `language:go` · category rule · quality 0.90 · from 3 corrections", "*Why:* You made this correction 3 times",
			"Lines 12–13 show it.", "*Related in working memory:*", `- Retry\_policy (docs/retry.md)`}},
		{false, []string{"⚓ users.Find_By*ID is the example of 1 rule", "Wrap *errors* with %w\n",
			"scope language:go · category rule", "Why: You made this correction 3 times", "Related in working memory:\n- Retry_policy (docs/retry.md)"}},
	}
	for _, tt := range tests {
		text := h.Text(tt.markdown)
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("Text(markdown=%v) =\n%s\nwant it to contain %q", tt.markdown, text, w)
			}
		}
	}
	q, shown := h.RelatedQuery()
	if q != "users.Find_By*ID\nWrap *errors* with %w" || len(shown) != 1 || shown[0] != recall.RuleID(1) {
		t.Errorf("RelatedQuery() = %q, %v", q, shown)
	}
}
