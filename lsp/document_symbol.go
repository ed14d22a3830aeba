package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// documentSymbol answers the outline of a file: its symbols nested under
// the types and functions that contain them; for a memory document, its
// sections nested as in the file. A file outside the workspace gets the
// outline of its open text (none when it is not open).
//
// The outline of an open document is encoded once for each parse of its
// text: editors ask for it again and again while the user types, and
// every request between two edits gets the same bytes. It is encoded
// straight from the symbols (appendOutlineJSON), whose bytes are those of
// documentSymbols' values.
func (s *Server) documentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (any, error) {
	if syms, ok := s.memoryDocumentSymbols(p.TextDocument.URI); ok {
		return syms, nil
	}
	if f, rel, err := s.folderFor(p.TextDocument.URI); err == nil {
		v, _ := f.ws.Memo(ctx, rel, encodedOutline{}, func(syms []analysis.SymbolInfo) any {
			return json.RawMessage(appendOutlineJSON(make([]byte, 0, outlineBytesPerSymbol*len(syms)), syms))
		})
		if b, ok := v.(json.RawMessage); ok {
			return b, nil
		}
	}
	syms, err := s.outlineSymbols(ctx, p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(appendOutlineJSON(nil, syms)), nil
}

// outlineBytesPerSymbol is about what a symbol's outline entry takes in
// JSON, to size the buffer once.
const outlineBytesPerSymbol = 288

// encodedOutline keys the JSON of an open document's outline in
// analysis.Workspace.Memo.
type encodedOutline struct{}
