package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
)

func (s *Server) didOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	f, rel, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		// Outside every workspace folder: never indexed; its text is
		// parsed for its outline only.
		s.log.Info("document outside the workspace: not indexed", zap.String("uri", string(p.TextDocument.URI)))
		s.openedOutside(ctx, p)
		return nil
	}
	err = f.ws.Open(ctx, rel, p.TextDocument.Version, []byte(p.TextDocument.Text))
	if errors.Is(err, analysis.ErrUnsupported) {
		return nil
	}
	return err
}

// didChangeParams are DidChangeTextDocumentParams with the range of each
// change as a pointer: protocol's type cannot tell an insertion at 0:0 from
// a change without a range (the whole document).
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  string          `json:"text"`
	} `json:"contentChanges"`
}

func (s *Server) didChange(ctx context.Context, p *didChangeParams) error {
	f, rel, err := s.folderFor(p.TextDocument.URI)
	edits := make([]analysis.TextEdit, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		edits[i].Text = c.Text
		if c.Range != nil {
			edits[i].Range = &analysis.EditRange{
				StartLine: int(c.Range.Start.Line), StartColumn: int(c.Range.Start.Character),
				EndLine: int(c.Range.End.Line), EndColumn: int(c.Range.End.Character),
			}
		}
	}
	if err != nil {
		s.changedOutside(ctx, p.TextDocument.URI, p.TextDocument.Version, edits)
		return nil
	}
	err = f.ws.Change(ctx, rel, p.TextDocument.Version, edits)
	if errors.Is(err, analysis.ErrNotOpen) && !f.ws.Index().Languages().Supports(rel) {
		return nil // a document in no supported language was never opened
	}
	if err == nil && len(p.ContentChanges) > 0 && p.ContentChanges[0].Range != nil {
		// The working-memory slots follow the symbol being edited.
		s.focusRecall(p.TextDocument.URI, p.ContentChanges[0].Range.Start)
	}
	return err
}

func (s *Server) didClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	f, rel, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		s.outside.close(p.TextDocument.URI)
		return nil
	}
	if !f.ws.IsOpen(rel) {
		return nil
	}
	if err := f.ws.Close(rel); err != nil {
		return err
	}
	// The file returns to its content on disk.
	s.refreshFolder(f)
	return nil
}

func (s *Server) didSave(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	f, _, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	return f.ws.Flush(ctx)
}
