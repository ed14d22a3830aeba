package lsp

import (
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/anchorage-dev/anchorage/analysis"
)

// toRange converts a graph range (0-based lines, UTF-16 columns) to the
// protocol's.
func toRange(r analysis.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Column)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Column)},
	}
}

// selectionRange is the symbol's name, or its start when the name's span
// is unknown.
func selectionRange(s analysis.SymbolInfo) protocol.Range {
	if s.NameRange == (analysis.Range{}) {
		return protocol.Range{Start: toRange(s.Range).Start, End: toRange(s.Range).Start}
	}
	return toRange(s.NameRange)
}

// fileURI returns the URI of a file of a folder.
func (f *folder) fileURI(rel string) protocol.DocumentURI {
	return protocol.DocumentURI(uri.File(filepath.Join(f.dir, filepath.FromSlash(rel))))
}

// symbolKind maps graph kinds to the protocol's symbol kinds.
func symbolKind(k analysis.Kind) protocol.SymbolKind {
	switch k {
	case analysis.KindModule:
		return protocol.SymbolKindModule
	case analysis.KindClass:
		return protocol.SymbolKindClass
	case analysis.KindStruct:
		return protocol.SymbolKindStruct
	case analysis.KindInterface, analysis.KindTrait:
		return protocol.SymbolKindInterface
	case analysis.KindEnum:
		return protocol.SymbolKindEnum
	case analysis.KindType:
		return protocol.SymbolKindTypeParameter
	case analysis.KindMethod:
		return protocol.SymbolKindMethod
	default:
		return protocol.SymbolKindFunction
	}
}

// container is the name a symbol is shown under: its owner, else its
// module.
func container(s analysis.SymbolInfo) string {
	if o := s.Owner(); o != "" {
		return o
	}
	return s.Module
}
