package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// documentSymbol answers the outline of a file: its symbols nested under
// the types and functions that contain them; for a memory document, its
// sections nested as in the file. A file outside the workspace gets the
// outline of its open text (none when it is not open).
func (s *Server) documentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) ([]protocol.DocumentSymbol, error) {
	if syms, ok := s.memoryDocumentSymbols(p.TextDocument.URI); ok {
		return syms, nil
	}
	syms, err := s.outlineSymbols(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return documentSymbols(analysis.Outline(syms)), nil
}

func documentSymbols(nodes []*analysis.OutlineNode) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, protocol.DocumentSymbol{
			Name:           n.Symbol.Name,
			Detail:         n.Symbol.Signature,
			Kind:           symbolKind(n.Symbol.Kind),
			Range:          toRange(n.Symbol.Range),
			SelectionRange: selectionRange(n.Symbol),
			Children:       documentSymbols(n.Children),
		})
	}
	return out
}
