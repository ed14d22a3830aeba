package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// memoryWorkspace is a folder as package memory sees a workspace: what
// anchoring needs to know of it, as it is now. folders are the open
// folders, for those nested in f.
func (s *Server) memoryWorkspace(f *folder, folders []*folder) *memory.Workspace {
	w := &memory.Workspace{
		Root: f.root(), Project: s.projectOf(f), Live: f.ws, Searcher: s.searcherFor(f),
		Indexing: f.indexing.Load() > 0,
	}
	for _, g := range folders {
		if g == f || len(g.dir) <= len(f.dir) {
			continue
		}
		if rel, err := analysis.RelPath(f.dir, g.dir); err == nil {
			w.Nested = append(w.Nested, rel)
		}
	}
	return w
}

// anchors returns the anchoring service over the open folders, with the
// memory.anchorThreshold setting; problems that do not fail a request
// go to the log.
func (s *Server) anchors(st *memory.Store) *memory.Anchors {
	folders := sortedFolders(s.snapshotFolders())
	ws := make([]*memory.Workspace, len(folders))
	for i, f := range folders {
		ws[i] = s.memoryWorkspace(f, folders)
	}
	return &memory.Anchors{Store: st, Workspaces: ws, Threshold: s.anchorThreshold(), Warn: func(err error) {
		s.log.Info("anchoring", zap.Error(err))
	}}
}

// workspaceFolder returns the open folder of a memory workspace, or nil.
func (s *Server) workspaceFolder(w *memory.Workspace) *folder {
	if w == nil {
		return nil
	}
	for _, f := range s.snapshotFolders() {
		if f.ws == w.Live {
			return f
		}
	}
	return nil
}

// displayPath is a folder's file as messages name it: its path relative
// to the folder, after the folder's name when several folders are open.
func (s *Server) displayPath(f *folder, rel string) string {
	if len(s.snapshotFolders()) > 1 {
		return f.name + "/" + rel
	}
	return rel
}

// placementLocation is the location of a live anchor, or nil.
func (s *Server) placementLocation(p memory.Placement) *command.RuleLocation {
	f := s.workspaceFolder(p.Workspace)
	if p.Status != memory.AnchorLive || f == nil {
		return nil
	}
	if p.Symbol == nil {
		top := protocol.Range{}
		return &command.RuleLocation{URI: f.fileURI(p.File), Range: top, SelectionRange: top, Line: 1, Path: s.displayPath(f, p.File)}
	}
	sym := *p.Symbol
	return &command.RuleLocation{
		URI: f.fileURI(p.File), Range: toRange(sym.Range), SelectionRange: selectionRange(sym),
		Symbol: sym.QualifiedName, Line: sym.Range.Start.Line + 1, Path: s.displayPath(f, p.File),
	}
}

// folderOfFile returns the folder holding a file named relative to a
// folder (open there, or on disk), or absolutely, and its relative path.
func (s *Server) folderOfFile(file string) (*folder, string) {
	if file == "" {
		return nil, ""
	}
	if filepath.IsAbs(file) {
		return s.ownerOf(file)
	}
	rel := filepath.ToSlash(filepath.Clean(file))
	folders := sortedFolders(s.snapshotFolders())
	for _, f := range folders {
		if s.memoryWorkspace(f, folders).HasFile(rel) {
			return f, rel
		}
	}
	return nil, ""
}

// editorMemory returns the memory for requests the editor makes on its
// own (hover, code lenses, code actions, diagnostics), or nil when there
// is none yet or it cannot be opened: the user was told (memoryStore
// shows why), and such requests answer nothing rather than fail.
func (s *Server) editorMemory(ctx context.Context) *memory.Store {
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil
	}
	return st
}

// documentRules returns the rules whose example is in a document,
// resolved through its symbols as the editor sees them, most important
// first. It returns no rules, and no error, when there is no memory or the
// document is outside the workspace.
func (s *Server) documentRules(ctx context.Context, u protocol.DocumentURI) (*folder, []feature.ExampleRule, error) {
	f, _, rules, err := s.documentExamples(ctx, u)
	return f, rules, err
}

// documentExamples is documentRules, with the document's symbols when it
// read them (nil when no rule needed them). Each rule's anchor metadata
// is decoded once, and the symbols read once.
func (s *Server) documentExamples(ctx context.Context, u protocol.DocumentURI) (*folder, []analysis.SymbolInfo, []feature.ExampleRule, error) {
	f, rel, err := s.folderFor(u)
	if err != nil {
		return nil, nil, nil, nil
	}
	st := s.editorMemory(ctx)
	if st == nil {
		return f, nil, nil, nil
	}
	rules, err := st.Rules(ctx, memory.RuleFilter{AnchorFile: rel})
	if err != nil {
		return f, nil, nil, err
	}
	x := s.anchors(st)
	var out []feature.ExampleRule
	var syms []analysis.SymbolInfo
	loaded := false
	for _, r := range rules {
		m := memory.ReadAnchorMeta(r)
		w := x.WorkspaceOfMeta(r, m)
		if s.workspaceFolder(w) != f {
			continue
		}
		if !loaded {
			if syms, err = f.ws.FileSymbols(ctx, rel); err != nil {
				return f, nil, nil, err
			}
			loaded = true
		}
		p := memory.ResolveAnchorMeta(w, r, m, syms)
		switch {
		case p.Followed != memory.FollowSame:
			p = x.Keep(ctx, r, p) // renamed in the document: the anchor follows it
		case p.Status == memory.AnchorLost:
			if p = x.Locate(ctx, r); p.Status == memory.AnchorLive && p.File != rel {
				continue // moved to another file
			}
		}
		er := feature.ExampleRule{Rule: r, Meta: m, Status: p.Status}
		if p.Symbol != nil {
			er.Symbol = *p.Symbol
		}
		out = append(out, er)
	}
	return f, syms, out, nil
}
