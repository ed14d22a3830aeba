package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// maxWorkspaceSymbols caps a workspace/symbol answer.
const maxWorkspaceSymbols = 200

// workspaceSymbol searches symbol names in every folder: exact matches,
// then prefixes, camel-case initials and substrings. Open documents are
// written to the index first, so the answer reflects every edit.
func (s *Server) workspaceSymbol(ctx context.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	out := []protocol.SymbolInformation{}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		matches, err := f.ws.Index().Symbols(ctx, p.Query, maxWorkspaceSymbols-len(out))
		if err != nil {
			return nil, fmt.Errorf("workspace/symbol %q: %w", p.Query, err)
		}
		for _, m := range matches {
			if !s.owns(f, m.Path) {
				continue // a nested folder answers for it
			}
			out = append(out, protocol.SymbolInformation{
				Name:          m.Name,
				Kind:          symbolKind(m.Kind),
				ContainerName: container(m.SymbolInfo),
				Location:      protocol.Location{URI: f.fileURI(m.Path), Range: toRange(m.Range)},
			})
		}
		if len(out) >= maxWorkspaceSymbols {
			break
		}
	}
	return out, nil
}
