package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/feature"
)

// indexFolder brings a folder's index up to date in the background, with
// work done progress in the editor. Requests are answered meanwhile from
// what is indexed so far.
func (s *Server) indexFolder(f *folder, title string) {
	if !s.indexable(f) {
		return
	}
	f.indexing.Add(1) // counted before it starts, so status never says idle too early
	s.goBackground(func(ctx context.Context) {
		// Not indexing any more once the index is written, before the
		// user is told so: a search the message prompts is not partial.
		var once sync.Once
		indexed := func() { once.Do(func() { f.indexing.Add(-1) }) }
		defer indexed()
		f.indexMu.Lock()
		defer f.indexMu.Unlock()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		p := s.startProgress(ctx, title, cancel)
		start := time.Now()
		sum, err := f.ws.Refresh(ctx, func(pr analysis.Progress) {
			f.done.Store(int64(pr.Done))
			f.total.Store(int64(pr.Total))
			p.report(pr.Done, pr.Total)
		})
		if err != nil {
			if ctx.Err() != nil {
				p.end("Cancelled")
				return
			}
			p.end("Indexing failed")
			s.warn("indexing %s failed: %v", f.root(), err)
			s.checkDamage(err)
			return
		}
		f.last.Store(sum)
		indexed()
		p.end(fmt.Sprintf("%d files, %d symbols", sum.Files, sum.Symbols))
		s.info("indexed %s: %d files (%d parsed), %d symbols, %d edges in %.2fs",
			f.root(), sum.Files, sum.Parsed, sum.Symbols, sum.Edges, time.Since(start).Seconds())
		s.scanMemoryDocuments(ctx, f)
		s.anchorTeamRules(ctx, nil) // the team rules the index could not anchor before
	})
}

// refreshFolder re-indexes what changed on disk in a folder, quietly (no
// progress): a closed document, files changed outside the editor.
func (s *Server) refreshFolder(f *folder) {
	if !s.indexable(f) {
		return
	}
	s.goBackground(func(ctx context.Context) {
		f.indexMu.Lock()
		defer f.indexMu.Unlock()
		if _, err := f.ws.Refresh(ctx, nil); err != nil && ctx.Err() == nil {
			s.warn("re-indexing %s: %v", f.root(), err)
			s.checkDamage(err)
		}
		s.scanMemoryDocuments(ctx, f)
	})
}

// pullConfiguration asks the editor for the "anchorage" settings section
// when it supports workspace/configuration.
func (s *Server) pullConfiguration(ctx context.Context) {
	s.mu.Lock()
	supported := s.caps.Workspace != nil && s.caps.Workspace.Configuration
	s.mu.Unlock()
	if !supported {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: "anchorage"}}})
	if err != nil || len(res) == 0 {
		if err != nil {
			s.log.Debug("workspace/configuration failed", zap.Error(err))
		}
		return
	}
	s.applySettings(res[0])
}

// applySettings merges settings from the editor and applies them: the log
// level at once, exclusions and the size cap on the next indexing.
func (s *Server) applySettings(raw any) {
	settings, err := decodeSettings(raw)
	if err != nil {
		s.warn("ignoring settings: %v", err)
		return
	}
	switch sev := settings.Memory.ProposalSeverity; strings.ToLower(sev) {
	case "", feature.ProposalSeverityInformation, feature.ProposalSeverityWarning, feature.ProposalSeverityHint, feature.ProposalSeverityOff:
	default:
		s.warn("ignoring memory.proposalSeverity %q: want information, warning, hint or off", sev)
		settings.Memory.ProposalSeverity = ""
	}
	s.mu.Lock()
	s.settings = s.settings.merge(settings)
	merged := s.settings
	s.mu.Unlock()
	s.setLevel(merged.LogLevel)
	for _, f := range s.snapshotFolders() {
		configureIndex(f, merged)
	}
}

func (s *Server) didChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	s.applySettings(p.Settings)
	s.teamSettingChanged()
	for _, f := range s.snapshotFolders() {
		s.indexFolder(f, "Re-indexing "+f.name)
	}
	// memory.proposalSeverity may have changed.
	s.goBackground(func(ctx context.Context) {
		if _, err := s.publishProposals(ctx, ""); err != nil && ctx.Err() == nil {
			s.log.Warn("publishing proposals", zap.Error(err))
		}
	})
	return nil
}

// registerWatchers asks the editor to report changes to files on disk, when
// it can register that dynamically.
func (s *Server) registerWatchers(ctx context.Context) {
	s.mu.Lock()
	ws := s.caps.Workspace
	s.mu.Unlock()
	if ws == nil || ws.DidChangeWatchedFiles == nil || !ws.DidChangeWatchedFiles.DynamicRegistration {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := s.client.RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "anchorage-watched-files",
		Method: "workspace/didChangeWatchedFiles",
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
			Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
		},
	}}})
	if err != nil {
		s.log.Warn("registering file watchers failed", zap.Error(err))
	}
}

// didChangeWatchedFiles re-indexes the folders whose files changed on disk
// (created, changed or deleted); open documents keep the editor's text.
func (s *Server) didChangeWatchedFiles(ctx context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	touched := map[*folder]bool{}
	for _, c := range p.Changes {
		f, rel, err := s.folderFor(c.URI)
		if err != nil {
			s.log.Debug("watched change outside the workspace", zap.String("uri", string(c.URI)))
			continue
		}
		if rel == config.RelPath {
			s.reloadSettingsFile(f)
		}
		touched[f] = true
	}
	for f := range touched {
		s.refreshFolder(f)
	}
	return nil
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	for _, r := range p.Event.Removed {
		path, err := filePath(protocol.DocumentURI(r.URI))
		if err != nil {
			s.warn("ignoring removed folder: %v", err)
			continue
		}
		s.mu.Lock()
		for i, f := range s.folders {
			if f.dir == filepath.Clean(path) {
				s.folders = append(s.folders[:i], s.folders[i+1:]...)
				s.goBackground(func(ctx context.Context) {
					f.indexMu.Lock() // let a running index finish
					defer f.indexMu.Unlock()
					s.closeFolder(ctx, f)
				})
				break
			}
		}
		s.mu.Unlock()
	}
	for _, a := range p.Event.Added {
		path, err := filePath(protocol.DocumentURI(a.URI))
		if err != nil {
			s.warn("ignoring added folder: %v", err)
			continue
		}
		if s.hasFolder(path) {
			continue
		}
		f, err := s.openFolder(ctx, a.Name, protocol.DocumentURI(a.URI), nil)
		if err != nil {
			s.warn("%v", err)
			continue
		}
		s.mu.Lock()
		s.folders = append(s.folders, f)
		s.mu.Unlock()
		s.indexFolder(f, "Indexing "+f.name)
	}
	return nil
}

// hasFolder reports whether a directory is already a workspace folder.
func (s *Server) hasFolder(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, f := range s.snapshotFolders() {
		if f.dir == abs {
			return true
		}
	}
	return false
}
