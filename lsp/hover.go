package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// hover answers on the name of a symbol that is the example of rules: the
// rules and the memories related to them (feature.HoverAt), in Markdown
// or plain text as the editor renders. The document's rules are resolved
// through its symbols as the editor has them, so the hover follows the
// symbol through edits; those symbols also move the working-memory slots
// to what the user looks at.
func (s *Server) hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	_, syms, rules, err := s.documentExamples(ctx, p.TextDocument.URI)
	s.focusRecallOn(p.TextDocument.URI, p.Position, syms)
	if err != nil {
		return nil, s.memoryError("textDocument/hover", err)
	}
	pos := analysis.Position{Line: int(p.Position.Line), Column: int(p.Position.Character)}
	h, ok := feature.HoverAt(rules, pos)
	if !ok {
		return nil, nil
	}
	h.Related = s.nearbyMemories(ctx, h)
	markdown := s.hoverMarkdown()
	r := toRange(h.Range)
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: markupKind(markdown), Value: h.Text(markdown)},
		Range:    &r,
	}, nil
}

// nearbyMemories returns the memories near the current slot's memory
// related to a hover's rules, other than those rules.
//
// A hover never waits for the memory graph: when it is being opened or
// brought up to date (the first time, or by the slots following the
// cursor, which every hover moves), the hover answers with the rules
// alone and the graph gets ready in the background. Waiting made the
// first keyboard hover in VS Code arrive seconds late.
func (s *Server) nearbyMemories(ctx context.Context, h feature.Hover) []recall.Result {
	g := s.readyRecallStore()
	if g == nil {
		return nil
	}
	text, shown := h.RelatedQuery()
	related, err := g.Nearby(ctx, text, shown, feature.MaxRelated)
	if err != nil {
		return nil
	}
	return related
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

// rangeHas reports whether a position is in a range, ends included.
func rangeHas(r protocol.Range, p protocol.Position) bool {
	return !posLess(p, r.Start) && !posLess(r.End, p)
}
