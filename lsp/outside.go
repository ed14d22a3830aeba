package lsp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
)

// Documents outside every workspace folder (a file of the Go toolchain or
// of a dependency the user jumped to) are never indexed. As gopls does,
// the server still answers for them, quietly: the outline and the folds
// come from the editor's text, parsed on its own; requests that need the
// code graph answer nothing.

// maxOutsideBytes bounds the text of a document outside the workspace
// that the server parses; larger ones get no outline.
const maxOutsideBytes = 4 << 20

// outsideDocuments are the open documents outside every workspace
// folder, in a supported language, parsed for their outline. The zero
// value is ready to use.
type outsideDocuments struct {
	mu     sync.Mutex
	langs  *analysis.Languages
	parser *analysis.Parser
	docs   map[protocol.DocumentURI]*analysis.Document
}

// open parses a document outside the workspace. A document in no
// supported language, or too large, is left out quietly.
func (o *outsideDocuments) open(ctx context.Context, u protocol.DocumentURI, version int32, text string) error {
	name, err := filePath(u)
	if err != nil {
		return nil // not a file: nothing to outline
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closeLocked(u)
	if len(text) > maxOutsideBytes {
		return nil
	}
	if o.langs == nil {
		o.langs = analysis.NewLanguages()
		o.parser = analysis.NewParser()
		o.docs = map[protocol.DocumentURI]*analysis.Document{}
	}
	lang, err := o.langs.ForPath(name)
	if err != nil {
		return nil // a language the server does not parse
	}
	d, err := o.parser.OpenDocument(ctx, lang, path.Base(name), version, []byte(text))
	if err != nil {
		return fmt.Errorf("parsing %s (outside the workspace): %w", name, err)
	}
	o.docs[u] = d
	return nil
}

// change applies an editor's edits to a document outside the workspace;
// edits to documents it does not keep are ignored.
func (o *outsideDocuments) change(ctx context.Context, u protocol.DocumentURI, version int32, edits []analysis.TextEdit) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return nil
	}
	if err := d.Apply(ctx, o.parser, version, edits); err != nil {
		// The text is no longer known: forget it rather than answer from
		// a wrong one.
		o.closeLocked(u)
		return fmt.Errorf("editing %s (outside the workspace): %w", u, err)
	}
	if len(d.Text()) > maxOutsideBytes {
		o.closeLocked(u)
	}
	return nil
}

// close forgets a document outside the workspace.
func (o *outsideDocuments) close(u protocol.DocumentURI) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closeLocked(u)
}

func (o *outsideDocuments) closeLocked(u protocol.DocumentURI) {
	if d, ok := o.docs[u]; ok {
		d.Close()
		delete(o.docs, u)
	}
}

// symbols returns the symbols of a document outside the workspace, as
// Workspace.FileSymbols numbers them, and false when it keeps none.
func (o *outsideDocuments) symbols(u protocol.DocumentURI) ([]analysis.SymbolInfo, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return nil, false
	}
	g := d.Graph()
	if g == nil {
		return nil, true
	}
	out := make([]analysis.SymbolInfo, len(g.Symbols))
	for i, s := range g.Symbols {
		out[i] = analysis.SymbolInfo{
			ID: int64(i + 1), Parent: int64(s.Parent + 1), Kind: s.Kind, Name: s.Name,
			QualifiedName: s.QualifiedName, Module: s.Module, Path: g.Path, Language: g.Language,
			Range: s.Range, NameRange: s.NameRange, Signature: s.Signature, Doc: s.Doc,
		}
	}
	return out, true
}

// closeAll forgets every document outside the workspace.
func (o *outsideDocuments) closeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for u := range o.docs {
		o.closeLocked(u)
	}
	if o.parser != nil {
		o.parser.Close()
		o.parser = nil
		o.langs = nil
	}
}

// outlineSymbols returns the symbols of a document for its outline and
// folds: a workspace document's as the editor sees it; one outside the
// workspace from its open text, or none. Only errors of a workspace
// document are returned.
func (s *Server) outlineSymbols(ctx context.Context, u protocol.DocumentURI) ([]analysis.SymbolInfo, error) {
	_, syms, err := s.fileSymbols(ctx, u)
	if errors.Is(err, analysis.ErrOutsideRoot) {
		syms, _ := s.outside.symbols(u)
		return syms, nil
	}
	return syms, err
}

// openedOutside keeps a document opened outside every workspace folder
// for its outline (see outsideDocuments); failures are logged, never
// shown.
func (s *Server) openedOutside(ctx context.Context, p *protocol.DidOpenTextDocumentParams) {
	if err := s.outside.open(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text); err != nil {
		s.log.Info("document outside the workspace", zap.Error(err))
	}
}

// changedOutside applies edits to a document outside every workspace
// folder; failures are logged, never shown.
func (s *Server) changedOutside(ctx context.Context, u protocol.DocumentURI, version int32, edits []analysis.TextEdit) {
	if err := s.outside.change(ctx, u, version, edits); err != nil {
		s.log.Info("document outside the workspace", zap.Error(err))
	}
}
