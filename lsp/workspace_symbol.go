package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// maxWorkspaceSymbols caps a workspace/symbol answer.
const maxWorkspaceSymbols = 200

// workspaceSymbol searches symbol names in every folder: exact matches,
// then prefixes, camel-case initials and substrings. A query that is not
// one identifier goes through the search router first: a structural
// question ("what calls FindByID") is answered with the symbols the graph
// gives; the other strategies' backends are not there yet, and the symbol
// search answers. Open documents are written to the index first, so the
// answer reflects every edit.
func (s *Server) workspaceSymbol(ctx context.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	var route *retrieval.Route
	if q := strings.TrimSpace(p.Query); strings.ContainsAny(q, " \t") {
		if rt := s.router.Route(q); rt.Strategy == retrieval.Structural {
			route = &rt
		}
	}
	out := []protocol.SymbolInformation{}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		var syms []analysis.SymbolInfo
		if route != nil {
			found, err := retrieval.StructuralSymbols(ctx, f.ws.Index().Store, *route, maxWorkspaceSymbols-len(out))
			if err != nil {
				return nil, fmt.Errorf("workspace/symbol %q: %w", p.Query, err)
			}
			syms = found
		} else {
			matches, err := f.ws.Index().Symbols(ctx, p.Query, maxWorkspaceSymbols-len(out))
			if err != nil {
				return nil, fmt.Errorf("workspace/symbol %q: %w", p.Query, err)
			}
			for _, m := range matches {
				syms = append(syms, m.SymbolInfo)
			}
		}
		for _, sym := range syms {
			if !s.owns(f, sym.Path) {
				continue // a nested folder answers for it
			}
			out = append(out, protocol.SymbolInformation{
				Name:          sym.Name,
				Kind:          symbolKind(sym.Kind),
				ContainerName: container(sym),
				Location:      protocol.Location{URI: f.fileURI(sym.Path), Range: toRange(sym.Range)},
			})
		}
		if len(out) >= maxWorkspaceSymbols {
			break
		}
	}
	return out, nil
}
