package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
)

// didOpenNotification decodes didOpen's params, a large document's text
// in the frame's own bytes (no copy, where a string and then its bytes
// were two), and opens the document.
func (s *Server) didOpenNotification(ctx context.Context, raw json.RawMessage) error {
	if len(raw) >= largeMessage {
		if p, quoted, ok := decodeLargeDidOpen(raw); ok {
			if quoted == nil {
				return s.didOpenDocument(ctx, p, nil)
			}
			// raw is read no more: the text is decoded over it.
			text, err := unquoteInPlace(quoted)
			if err != nil {
				return fmt.Errorf("invalid params: textDocument.text: %w", err)
			}
			return s.didOpenDocument(ctx, p, text)
		}
	}
	var p protocol.DidOpenTextDocumentParams
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("invalid params: %w", err)
		}
	}
	return s.didOpenDocument(ctx, &p, []byte(p.TextDocument.Text))
}

// decodeLargeDidOpen decodes didOpen's params but the text, whose JSON
// string (quotes included) it returns, a slice of raw. It is false for
// params it does not read exactly as encoding/json would (then
// json.Unmarshal reports what is wrong), and then raw is as it was.
func decodeLargeDidOpen(raw json.RawMessage) (*protocol.DidOpenTextDocumentParams, []byte, bool) {
	fields, ok := objectFields(raw)
	if !ok {
		return nil, nil, false
	}
	var p protocol.DidOpenTextDocumentParams
	var text []byte
	found := false
	for _, f := range fields {
		if f.key != "textDocument" {
			continue
		}
		doc, ok := objectFields(f.value)
		if !ok {
			return nil, nil, false
		}
		for _, d := range doc {
			var err error
			switch d.key {
			case "uri":
				err = json.Unmarshal(d.value, &p.TextDocument.URI)
			case "languageId":
				err = json.Unmarshal(d.value, &p.TextDocument.LanguageID)
			case "version":
				err = json.Unmarshal(d.value, &p.TextDocument.Version)
			case "text":
				if len(d.value) == 0 || d.value[0] != '"' {
					return nil, nil, false
				}
				text = d.value
			default:
				return nil, nil, false
			}
			if err != nil {
				return nil, nil, false
			}
		}
		found = true
	}
	return &p, text, found
}

func (s *Server) didOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams, text []byte) error {
	f, rel, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		// Outside every workspace folder: never indexed; its text is
		// parsed for its outline only.
		s.log.Info("document outside the workspace: not indexed", zap.String("uri", string(p.TextDocument.URI)))
		s.openedOutside(ctx, p)
		return nil
	}
	err = f.ws.Open(ctx, rel, p.TextDocument.Version, text)
	if errors.Is(err, analysis.ErrUnsupported) {
		return nil
	}
	s.checkSize(p.TextDocument.URI, f, rel)
	return err
}

// checkSize tells the user, once, that a document over the size cap is
// kept as text only: its symbols are not in the graph while it is. The
// message is shown again only if the document came under the cap and
// went over it again, or was closed and opened again.
func (s *Server) checkSize(u protocol.DocumentURI, f *folder, rel string) {
	size, over := f.ws.Oversized(rel)
	s.mu.Lock()
	if s.oversized == nil {
		s.oversized = map[protocol.DocumentURI]bool{}
	}
	shown := s.oversized[u]
	if over {
		s.oversized[u] = true
	} else {
		delete(s.oversized, u)
	}
	s.mu.Unlock()
	if !over || shown {
		return
	}
	msg := fmt.Sprintf("Anchorage: %s is %s, over the %s size limit: it is kept as text, but its symbols are not indexed while it is open (setting anchorage.maxFileSize).",
		rel, byteSize(int64(size)), byteSize(f.ws.MaxFileSize()))
	s.log.Info(msg)
	if s.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if err := s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: msg}); err != nil {
		s.log.Debug("window/showMessage failed", zap.Error(err))
	}
}

// byteSize formats a size for people: "512 bytes", "1.0 MiB", "50.0 MiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
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
	if err == nil {
		s.checkSize(p.TextDocument.URI, f, rel)
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
	s.mu.Lock()
	delete(s.oversized, p.TextDocument.URI)
	s.mu.Unlock()
	// The file returns to its content on disk.
	s.refreshFolder(f)
	return nil
}

// didSave writes the open documents' graphs to the index, in the
// background: the next messages do not wait for the disk.
func (s *Server) didSave(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	f, _, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.goBackground(func(ctx context.Context) {
		if err := f.ws.Flush(ctx); err != nil && ctx.Err() == nil {
			s.warn("saving %s: %v", p.TextDocument.URI, err)
		}
	})
	return nil
}
