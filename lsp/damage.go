package lsp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// checkDamage looks, in the background, for a damaged index when err says
// that a database could not be read (SQLITE_CORRUPT, SQLITE_NOTADB, a
// failed check): each folder whose index fails SQLite's integrity check,
// read afresh from the disk, is rebuilt from its files. The rules database is never rebuilt: its
// errors are reported by the memory features and the file is kept as it
// is.
func (s *Server) checkDamage(err error) {
	if err == nil || !analysis.MayBeDamaged(err) || errors.Is(err, memory.ErrCorrupt) {
		return
	}
	for _, f := range s.snapshotFolders() {
		if !f.checking.CompareAndSwap(false, true) {
			continue // being checked or rebuilt: this error is one of the same damage
		}
		s.goBackground(func(ctx context.Context) {
			defer f.checking.Store(false)
			// A connection of its own: the server's hold pages they read
			// before the damage.
			cerr := analysis.CheckDatabase(ctx, f.ws.Index().Path())
			if cerr == nil || !analysis.IsCorrupt(cerr) {
				return
			}
			s.rebuildFolder(ctx, f, cerr)
		})
	}
}

// rebuildFolder replaces the damaged index of a folder with a new one,
// built from the files, and tells the user once. The open documents move
// to the new index; requests are answered from it as soon as it is in
// place, and completely when the progress it reports ends.
func (s *Server) rebuildFolder(ctx context.Context, f *folder, damage error) {
	s.log.Warn("damaged index", zap.String("folder", f.root()), zap.Error(damage))
	s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf(
		"Anchorage: the index of %s is damaged (%v); it is being rebuilt from the files. Your rules are not affected.", f.name, damage))

	f.indexMu.Lock() // let a running update end first
	defer f.indexMu.Unlock()
	nf, err := s.openFolder(ctx, f.name, f.uri, f.ws.Index())
	if err != nil {
		s.warn("rebuilding the index of %s: %v", f.root(), err)
		return
	}
	moveDocuments(ctx, f, nf)
	s.mu.Lock()
	replaced := false
	for i, g := range s.folders {
		if g == f {
			s.folders[i], replaced = nf, true
		}
	}
	s.mu.Unlock()
	if !replaced {
		s.closeFolder(ctx, nf) // the folder was removed meanwhile
		return
	}
	// Edits made while the documents moved went to the old workspace.
	moveDocuments(ctx, f, nf)
	s.closeFolder(ctx, f)
	s.indexFolder(nf, "Rebuilding the index of "+nf.name)
}

// moveDocuments opens in to's workspace the documents open in from's,
// where to does not hold them at the same version or newer.
func moveDocuments(ctx context.Context, from, to *folder) {
	for _, d := range from.ws.OpenDocuments() {
		if v, ok := to.ws.Version(d.Path); ok && v >= d.Version {
			continue
		}
		if err := to.ws.Open(ctx, d.Path, d.Version, d.Text); err != nil && !errors.Is(err, analysis.ErrUnsupported) {
			continue
		}
	}
}

// showMessage shows a message in the editor's window.
func (s *Server) showMessage(typ protocol.MessageType, msg string) {
	if s.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if err := s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("window/showMessage failed", zap.Error(err))
	}
}
