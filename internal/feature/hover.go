// Package feature answers what the editors, the MCP server and the
// command line ask about the code and its rules — hover content, scope
// choices, summaries — as functions of plain inputs (rules, symbols,
// positions, text) returning plain structs. It knows no protocol: lsp, mcp
// and the command line translate its answers to theirs, and it reads
// nothing itself, so that every front end shows the same thing.
package feature

import (
	"fmt"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// ExampleRule is a rule whose example is in a document, resolved through
// the document's symbols as the editor has them.
type ExampleRule struct {
	Rule memory.Rule
	// Meta is the rule's anchor metadata, decoded once.
	Meta memory.AnchorMeta
	// Status is where the example stands; Symbol is its definition when
	// Status is memory.AnchorLive and the example names a symbol.
	Status memory.AnchorStatus
	Symbol analysis.SymbolInfo
}

// Hover is what a hover on an example's name shows: the rules it is the
// example of, and the memories related to them.
type Hover struct {
	// Symbol is the example's definition; Range is its name's span, which
	// the hover is for.
	Symbol analysis.SymbolInfo
	Range  analysis.Range
	Rules  []HoverRule
	// Related are memories of the working memory near the rules.
	Related []recall.Result
}

// HoverRule is one rule of a hover.
type HoverRule struct {
	Rule memory.Rule
	// ExcerptFrom and ExcerptTo are the lines (1-based) of a long example
	// that show the rule, inside the symbol as it is now; 0 when the whole
	// example does.
	ExcerptFrom, ExcerptTo int
}

// MaxRelated is how many related memories a hover shows.
const MaxRelated = 3

// HoverAt returns the hover of the rules whose live example's name is at
// pos (rules of the first symbol there, when names overlap), or false when
// there are none.
func HoverAt(rules []ExampleRule, pos analysis.Position) (Hover, bool) {
	var h Hover
	for _, er := range rules {
		if er.Status != memory.AnchorLive || er.Rule.Anchor == nil || er.Rule.Anchor.Symbol == "" {
			continue
		}
		name := NameRange(er.Symbol)
		if !contains(name, pos) {
			continue
		}
		if len(h.Rules) > 0 && er.Symbol.Range != h.Symbol.Range {
			continue // another symbol's name at the same place: keep the first
		}
		h.Symbol, h.Range = er.Symbol, name
		hr := HoverRule{Rule: er.Rule}
		hr.ExcerptFrom, hr.ExcerptTo = excerptLines(er)
		h.Rules = append(h.Rules, hr)
	}
	return h, len(h.Rules) > 0
}

// RelatedQuery is what the working memory is searched with for the
// memories related to a hover's rules: the symbol's name and the rules'
// text, and the rules' memory ids, not to show them twice.
func (h Hover) RelatedQuery() (text string, shown []string) {
	lines := []string{h.Symbol.QualifiedName}
	for _, r := range h.Rules {
		lines = append(lines, r.Rule.Content)
		shown = append(shown, recall.RuleID(r.Rule.ID))
	}
	return strings.Join(lines, "\n"), shown
}

// NameRange is a symbol's name, or its start when the name's span is
// unknown.
func NameRange(s analysis.SymbolInfo) analysis.Range {
	if s.NameRange == (analysis.Range{}) {
		return analysis.Range{Start: s.Range.Start, End: s.Range.Start}
	}
	return s.NameRange
}

// contains reports whether a position is in a range, ends included.
func contains(r analysis.Range, p analysis.Position) bool {
	return !before(p, r.Start) && !before(r.End, p)
}

func before(a, b analysis.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// excerptLines returns the lines (1-based) of a long example that show
// its rule, as anchoring found them, when they are inside the symbol as
// it is now.
func excerptLines(er ExampleRule) (from, to int) {
	if !er.Meta.HasExcerpt {
		return 0, 0
	}
	start, end := er.Symbol.Range.Start.Line+1, er.Symbol.Range.End.Line+1
	from, to = start+er.Meta.Excerpt[0], start+er.Meta.Excerpt[1]
	if to > end || from > to {
		return 0, 0
	}
	return from, to
}

// Text renders a hover in Markdown, or in plain text for editors that
// cannot render Markdown.
func (h Hover) Text(markdown bool) string {
	var b strings.Builder
	esc := func(s string) string { return s }
	code := func(s string) string { return s }
	if markdown {
		esc = MarkdownEscape
		code = func(s string) string { return "`" + strings.ReplaceAll(s, "`", "") + "`" }
	}
	fmt.Fprintf(&b, "⚓ %s is the example of %s\n\n", code(h.Symbol.QualifiedName), Plural(len(h.Rules), "rule"))
	for i, hr := range h.Rules {
		r := hr.Rule
		if i > 0 {
			if markdown {
				b.WriteString("\n---\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		if markdown {
			fmt.Fprintf(&b, "**%s**\n\n", esc(r.Content))
		} else {
			fmt.Fprintf(&b, "%s\n", r.Content)
		}
		fmt.Fprintf(&b, "scope %s · category %s · quality %.2f · from %s\n", code(r.Scope), esc(r.Category),
			anchorScore(r), Plural(r.Corrections, "correction"))
		if r.Rationale != "" {
			if markdown {
				fmt.Fprintf(&b, "\n*Why:* %s\n", esc(r.Rationale))
			} else {
				fmt.Fprintf(&b, "Why: %s\n", r.Rationale)
			}
		}
		if hr.ExcerptFrom > 0 {
			fmt.Fprintf(&b, "\nLines %d–%d show it.\n", hr.ExcerptFrom, hr.ExcerptTo)
		}
	}
	if len(h.Related) > 0 {
		if markdown {
			b.WriteString("\n---\n\n*Related in working memory:*\n\n")
		} else {
			b.WriteString("\nRelated in working memory:\n")
		}
		for _, r := range h.Related {
			where := r.Scope
			if r.Path != "" {
				where = r.Path
			}
			fmt.Fprintf(&b, "- %s (%s)\n", esc(r.Title), esc(where))
		}
	}
	return b.String()
}

// anchorScore is the quality of a rule's example.
func anchorScore(r memory.Rule) float64 {
	if r.Anchor == nil {
		return 0
	}
	return r.Anchor.Score
}

// MarkdownEscape escapes the characters Markdown would interpret in text.
func MarkdownEscape(text string) string {
	var b strings.Builder
	for _, r := range text {
		if strings.ContainsRune("\\`*_[]<>|#~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Plural returns "1 correction", "3 corrections".
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
