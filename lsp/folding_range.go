package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// foldingRange folds every symbol that spans several lines; in a memory
// document, every section that does; outside the workspace, from the
// open text.
func (s *Server) foldingRange(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	if folds, ok := s.memoryDocumentFolds(p.TextDocument.URI); ok {
		return folds, nil
	}
	syms, err := s.outlineSymbols(ctx, p.TextDocument.URI)
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
