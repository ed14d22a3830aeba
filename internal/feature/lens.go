package feature

import (
	"fmt"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// LensKind says what a code lens is about.
type LensKind string

// Kinds of code lens.
const (
	// LensAnchor is above a symbol that is the example of rules.
	LensAnchor LensKind = "anchor"
	// LensLost is where an example's symbol was, when it vanished.
	LensLost LensKind = "lost"
)

// Lens is a code lens of a document, before its title is known: what it
// is about and where it goes.
type Lens struct {
	Kind LensKind
	// Range is the symbol's name for LensAnchor (the top of the file for
	// a whole-file example), the line where the definition was for
	// LensLost (the top of the file when that is not known).
	Range analysis.Range
	// Symbol is the example's symbol as the rule names it.
	Symbol string
	// Rules are the lens's rules, most important first.
	Rules []int64
}

// Lenses returns the lenses of a document whose rules are rules (as
// resolved through its symbols, most important first): one above each
// symbol that is the example of rules, gathering them, and one for each
// rule whose example vanished, where its definition was. lines returns
// the document's number of lines; it is called at most once, and only
// when a lost example needs it.
func Lenses(rules []ExampleRule, lines func() int) []Lens {
	n := -1 // the document's lines, once known
	lostAt := func(m memory.AnchorMeta) analysis.Range {
		line := m.Line - 1
		if line <= 0 {
			return analysis.Range{}
		}
		if n < 0 {
			n = 0
			if lines != nil {
				n = lines()
			}
		}
		line = min(line, max(n-1, 0))
		pos := analysis.Position{Line: line}
		return analysis.Range{Start: pos, End: pos}
	}
	out := []Lens{}
	bySymbol := map[analysis.Range]int{} // symbol's name → index in out
	for _, er := range rules {
		switch er.Status {
		case memory.AnchorLive:
			r := analysis.Range{}
			if er.Rule.Anchor.Symbol != "" {
				r = NameRange(er.Symbol)
			}
			if i, ok := bySymbol[r]; ok {
				out[i].Rules = append(out[i].Rules, er.Rule.ID)
				continue
			}
			bySymbol[r] = len(out)
			out = append(out, Lens{Kind: LensAnchor, Range: r, Symbol: er.Rule.Anchor.Symbol, Rules: []int64{er.Rule.ID}})
		case memory.AnchorLost:
			out = append(out, Lens{Kind: LensLost, Range: lostAt(er.Meta), Symbol: er.Rule.Anchor.Symbol, Rules: []int64{er.Rule.ID}})
		}
	}
	return out
}

// LensTitle is the title of a lens whose first rule is first: "⚓ 2
// rules: <first rule>" above an example, "⚓ anchor lost: <rule>" where
// one was.
func LensTitle(kind LensKind, rules int, first memory.Rule) string {
	if kind == LensLost {
		return "⚓ anchor lost: " + Shorten(first.Content, 80)
	}
	return fmt.Sprintf("⚓ %s: %s", Plural(rules, "rule"), Shorten(first.Content, 80))
}

// GoneLensTitle is the title of a lens whose first rule was deleted
// since the lens was made: the lens does nothing until the editor asks
// again.
func GoneLensTitle(id int64) string {
	return fmt.Sprintf("⚓ rule %d no longer exists", id)
}
