package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// hover answers on the name of a symbol that anchors rules: the rules,
// with their scope, category, rationale, anchor quality and how many
// corrections they came from, then the memories the working-memory
// search finds near them, in Markdown (plain text for editors that
// cannot render it). Anchors are resolved by symbol in the document as
// the editor has it, so the hover follows the symbol through edits.
func (s *Server) hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	s.focusRecall(p.TextDocument.URI, p.Position) // the slots follow what the user looks at
	_, rules, err := s.documentRules(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, s.memoryError("textDocument/hover", err)
	}
	var (
		sym analysis.SymbolInfo
		hit []documentRule
	)
	for _, dr := range rules {
		if dr.status != memory.AnchorLive || dr.rule.Anchor.Symbol == "" || !rangeHas(selectionRange(dr.sym), p.Position) {
			continue
		}
		if len(hit) > 0 && dr.sym.Range != sym.Range {
			continue // another symbol's name at the same place: keep the first
		}
		sym = dr.sym
		hit = append(hit, dr)
	}
	if len(hit) == 0 {
		return nil, nil
	}
	markdown := s.hoverMarkdown()
	r := selectionRange(sym)
	text := rulesHover(sym.QualifiedName, hit, markdown) + relatedHover(s.nearbyMemories(ctx, sym, hit), markdown)
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: markupKind(markdown), Value: text},
		Range:    &r,
	}, nil
}

// maxRelated is how many related memories a hover shows.
const maxRelated = 3

// nearbyMemories returns the memories near the current slot's anchor
// related to a symbol's rules, other than those rules.
//
// A hover never waits for the memory graph: when it is being opened or
// brought up to date (the first time, or by the slots following the
// cursor, which every hover moves), the hover answers with the rules
// alone and the graph gets ready in the background. Waiting made the
// first keyboard hover in VS Code arrive seconds late.
func (s *Server) nearbyMemories(ctx context.Context, sym analysis.SymbolInfo, hit []documentRule) []recall.Result {
	g := s.readyRecallStore()
	if g == nil {
		return nil
	}
	text := []string{sym.QualifiedName}
	var shown []string
	for _, dr := range hit {
		text = append(text, dr.rule.Content)
		shown = append(shown, recall.RuleID(dr.rule.ID))
	}
	related, err := g.Nearby(ctx, strings.Join(text, "\n"), shown, maxRelated)
	if err != nil {
		return nil
	}
	return related
}

// relatedHover writes the related memories under a hover's rules.
func relatedHover(related []recall.Result, markdown bool) string {
	if len(related) == 0 {
		return ""
	}
	var b strings.Builder
	if markdown {
		b.WriteString("\n---\n\n*Related in working memory:*\n\n")
	} else {
		b.WriteString("\nRelated in working memory:\n")
	}
	for _, r := range related {
		where := r.Scope
		if r.Path != "" {
			where = r.Path
		}
		if markdown {
			fmt.Fprintf(&b, "- %s (%s)\n", mdEscape(r.Title), mdEscape(where))
		} else {
			fmt.Fprintf(&b, "- %s (%s)\n", r.Title, where)
		}
	}
	return b.String()
}

// hoverMarkdown reports whether the editor renders Markdown in hovers
// (those that say nothing are assumed to).
func (s *Server) hoverMarkdown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	td := s.caps.TextDocument
	if td == nil || td.Hover == nil || len(td.Hover.ContentFormat) == 0 {
		return true
	}
	return slices.Contains(td.Hover.ContentFormat, protocol.Markdown)
}

func markupKind(markdown bool) protocol.MarkupKind {
	if markdown {
		return protocol.Markdown
	}
	return protocol.PlainText
}

// rulesHover writes the hover of the rules anchored on a symbol.
func rulesHover(symbol string, rules []documentRule, markdown bool) string {
	var b strings.Builder
	esc := func(s string) string { return s }
	if markdown {
		esc = mdEscape
		fmt.Fprintf(&b, "⚓ `%s` is the example of %s\n\n", strings.ReplaceAll(symbol, "`", ""), plural(len(rules), "rule"))
	} else {
		fmt.Fprintf(&b, "⚓ %s is the example of %s\n\n", symbol, plural(len(rules), "rule"))
	}
	for i, dr := range rules {
		r := dr.rule
		if i > 0 {
			if markdown {
				b.WriteString("\n---\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		if markdown {
			fmt.Fprintf(&b, "**%s**\n\n", esc(r.Content))
			fmt.Fprintf(&b, "scope `%s` · category %s · quality %.2f · from %s\n", strings.ReplaceAll(r.Scope, "`", ""), esc(r.Category),
				r.Anchor.Score, plural(r.Corrections, "correction"))
		} else {
			fmt.Fprintf(&b, "%s\n", r.Content)
			fmt.Fprintf(&b, "scope %s · category %s · quality %.2f · from %s\n", r.Scope, r.Category, r.Anchor.Score, plural(r.Corrections, "correction"))
		}
		if r.Rationale != "" {
			if markdown {
				fmt.Fprintf(&b, "\n*Why:* %s\n", esc(r.Rationale))
			} else {
				fmt.Fprintf(&b, "Why: %s\n", r.Rationale)
			}
		}
		if from, to, ok := excerptLines(dr); ok {
			fmt.Fprintf(&b, "\nLines %d–%d show it.\n", from, to)
		}
	}
	return b.String()
}

// excerptLines returns the lines (1-based) of a long example that show
// its rule, as anchoring found them, when they are inside the symbol as
// it is now.
func excerptLines(dr documentRule) (int, int, bool) {
	m := memory.ReadAnchorMeta(dr.rule)
	if !m.HasExcerpt {
		return 0, 0, false
	}
	start, end := dr.sym.Range.Start.Line+1, dr.sym.Range.End.Line+1
	from, to := start+m.Excerpt[0], start+m.Excerpt[1]
	if to > end || from > to {
		return 0, 0, false
	}
	return from, to, true
}

// mdEscape escapes the characters Markdown would interpret in text.
func mdEscape(text string) string {
	var b strings.Builder
	for _, r := range text {
		if strings.ContainsRune("\\`*_[]<>|#~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// rangeHas reports whether a position is in a range, ends included.
func rangeHas(r protocol.Range, p protocol.Position) bool {
	return !posLess(p, r.Start) && !posLess(r.End, p)
}
