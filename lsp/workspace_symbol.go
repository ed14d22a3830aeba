package lsp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// maxWorkspaceSymbols caps a workspace/symbol answer.
const maxWorkspaceSymbols = 200

// workspaceSymbol searches symbol names in every folder: exact matches,
// then prefixes, camel-case initials and substrings. A query that is not
// one identifier goes through the search router: a structural question
// ("what calls FindByID") is answered with the symbols the graph gives, and
// the other strategies (semantic, keyword, hybrid) with their results, each
// named by its symbol or, for code outside any symbol, its first line.
// Names are looked up in the index and in the open documents' newest
// parses, which replace their files' rows: the answer reflects every edit
// without waiting for the index to be written. Routed and structural
// queries read the index as last written (a fraction of a second behind
// typing).
func (s *Server) workspaceSymbol(ctx context.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	var route *retrieval.Route
	if q := strings.TrimSpace(p.Query); strings.ContainsAny(q, " \t") {
		rt := s.router.Route(q)
		route = &rt
	}
	out := []protocol.SymbolInformation{}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if route != nil && route.Strategy != retrieval.Structural {
			found, err := s.routedSymbols(ctx, f, p.Query, maxWorkspaceSymbols-len(out))
			if err != nil {
				return nil, fmt.Errorf("workspace/symbol %q: %w", p.Query, err)
			}
			out = append(out, found...)
			continue
		}
		var syms []analysis.SymbolInfo
		if route != nil {
			found, err := retrieval.StructuralSymbols(ctx, f.ws.Index(), *route, maxWorkspaceSymbols-len(out))
			if err != nil {
				return nil, fmt.Errorf("workspace/symbol %q: %w", p.Query, err)
			}
			syms = found
		} else {
			matches, err := f.ws.Symbols(ctx, p.Query, maxWorkspaceSymbols-len(out))
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

// routedSymbols answers a workspace/symbol query with a routed search of
// one folder.
func (s *Server) routedSymbols(ctx context.Context, f *folder, query string, limit int) ([]protocol.SymbolInformation, error) {
	if limit <= 0 {
		return nil, nil
	}
	resp, err := s.searcherFor(f).Search(ctx, retrieval.Request{Query: query, TopK: min(limit, 50)})
	var qe *retrieval.QueryError
	if errors.As(err, &qe) {
		return nil, nil // not a searchable query: nothing matches
	}
	if err != nil {
		return nil, err
	}
	var out []protocol.SymbolInformation
	for _, r := range resp.Results {
		if !s.owns(f, r.File) {
			continue
		}
		name, container := r.Symbol, string(resp.Strategy)
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name, container = name[i+1:], name[:i]
		}
		if name == "" {
			// Code outside any definition (imports, a module's
			// docstring, top-level statements) is named by its file,
			// not by its first line of text.
			name = path.Base(r.File) + " (module-level code)"
			if dir := path.Dir(r.File); dir != "." {
				container = dir
			}
		}
		start := protocol.Position{Line: uint32(max(r.Line-1, 0))}
		end := protocol.Position{Line: uint32(max(r.EndLine-1, 0))}
		out = append(out, protocol.SymbolInformation{
			Name: name, Kind: symbolKind(analysis.Kind(r.Kind)), ContainerName: container,
			Location: protocol.Location{URI: f.fileURI(r.File), Range: protocol.Range{Start: start, End: end}},
		})
	}
	return out, nil
}
