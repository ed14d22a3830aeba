package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// documentSymbol answers the outline of a file: its symbols nested under
// the types and functions that contain them.
func (s *Server) documentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) ([]protocol.DocumentSymbol, error) {
	_, syms, err := s.fileSymbols(ctx, p.TextDocument.URI)
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

// foldingRange folds every symbol that spans several lines.
func (s *Server) foldingRange(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	_, syms, err := s.fileSymbols(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.FoldingRange{}
	for _, sym := range syms {
		if sym.Kind == analysis.KindModule || sym.Range.End.Line <= sym.Range.Start.Line {
			continue
		}
		out = append(out, protocol.FoldingRange{
			StartLine: uint32(sym.Range.Start.Line),
			EndLine:   uint32(sym.Range.End.Line),
			Kind:      protocol.RegionFoldingRange,
		})
	}
	return out, nil
}
