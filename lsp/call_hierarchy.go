package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// itemData is what a call hierarchy item carries to find its symbol again
// in the file its URI names (the URI, not a path in the data, carries a
// file name that is not valid UTF-8 through JSON).
type itemData struct {
	QualifiedName string `json:"qualified_name"`
	Line          int    `json:"line"`
}

func (f *folder) callItem(sym analysis.SymbolInfo) protocol.CallHierarchyItem {
	return protocol.CallHierarchyItem{
		Name:           sym.Name,
		Kind:           symbolKind(sym.Kind),
		Detail:         sym.QualifiedName,
		URI:            f.fileURI(sym.Path),
		Range:          toRange(sym.Range),
		SelectionRange: selectionRange(sym),
		Data:           itemData{QualifiedName: sym.QualifiedName, Line: sym.Range.Start.Line},
	}
}

// prepareCallHierarchy returns the function, method or type at the
// position; nothing in a file outside the workspace, which the graph does
// not know.
func (s *Server) prepareCallHierarchy(ctx context.Context, p *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	f, syms, err := s.fileSymbols(ctx, p.TextDocument.URI)
	if errors.Is(err, analysis.ErrOutsideRoot) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sym, ok := analysis.SymbolAt(syms, int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return nil, nil
	}
	return []protocol.CallHierarchyItem{f.callItem(sym)}, nil
}

// itemSymbol finds the indexed symbol of a call hierarchy item, after
// writing open documents to the index.
func (s *Server) itemSymbol(ctx context.Context, item protocol.CallHierarchyItem) (*folder, analysis.SymbolInfo, error) {
	f, rel, err := s.folderFor(item.URI)
	if err != nil {
		return nil, analysis.SymbolInfo{}, err
	}
	var d itemData
	raw, _ := json.Marshal(item.Data)
	if err := json.Unmarshal(raw, &d); err != nil || d.QualifiedName == "" {
		return nil, analysis.SymbolInfo{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "call hierarchy item without anchorage data")
	}
	if err := f.ws.Flush(ctx); err != nil {
		return nil, analysis.SymbolInfo{}, err
	}
	sym, ok, err := f.ws.Index().FindSymbol(ctx, rel, d.QualifiedName, d.Line)
	if err != nil {
		return nil, analysis.SymbolInfo{}, err
	}
	if !ok {
		return nil, analysis.SymbolInfo{}, fmt.Errorf("%s is no longer in %s", d.QualifiedName, rel)
	}
	return f, sym, nil
}

// siteRange is the range of a call's name (CallSite lines and columns are
// 1-based; columns count UTF-16 units).
func siteRange(c analysis.CallSite) protocol.Range {
	start := protocol.Position{Line: uint32(c.Line - 1), Character: uint32(c.Column - 1)}
	width := uint32(len(utf16.Encode([]rune(c.Name))))
	return protocol.Range{Start: start, End: protocol.Position{Line: start.Line, Character: start.Character + width}}
}

func (s *Server) incomingCalls(ctx context.Context, p *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	f, sym, err := s.itemSymbol(ctx, p.Item)
	if err != nil {
		return nil, err
	}
	sites, err := f.ws.Index().Callers(ctx, sym)
	if err != nil {
		return nil, err
	}
	// Resolved callers first; then at most MaxAmbiguousCallers that may
	// call a same-name method of another type, marked in their detail.
	sites, _ = analysis.CapAmbiguous(sites, analysis.MaxAmbiguousCallers)
	out := []protocol.CallHierarchyIncomingCall{}
	index := map[int64]int{}
	for _, c := range sites {
		i, ok := index[c.Caller.ID]
		if !ok {
			i = len(out)
			index[c.Caller.ID] = i
			item := f.callItem(c.Caller)
			if c.Ambiguous {
				item.Detail += " (ambiguous: may call another type's " + c.Name + ")"
			}
			out = append(out, protocol.CallHierarchyIncomingCall{From: item})
		}
		out[i].FromRanges = append(out[i].FromRanges, siteRange(c))
	}
	return out, nil
}

func (s *Server) outgoingCalls(ctx context.Context, p *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	f, sym, err := s.itemSymbol(ctx, p.Item)
	if err != nil {
		return nil, err
	}
	sites, err := f.ws.Index().Callees(ctx, sym)
	if err != nil {
		return nil, err
	}
	out := []protocol.CallHierarchyOutgoingCall{}
	index := map[int64]int{}
	for _, c := range sites {
		if c.Callee == nil {
			continue // defined nowhere in the workspace
		}
		i, ok := index[c.Callee.ID]
		if !ok {
			i = len(out)
			index[c.Callee.ID] = i
			out = append(out, protocol.CallHierarchyOutgoingCall{To: f.callItem(*c.Callee)})
		}
		out[i].FromRanges = append(out[i].FromRanges, siteRange(c))
	}
	return out, nil
}
