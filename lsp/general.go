package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/lsp/command"
)

// Settings are what the editor can configure, through initializationOptions,
// workspace/configuration (section "anchorage") and didChangeConfiguration.
// They take precedence over each workspace folder's settings file
// (.anchorage/config.yaml, package config): a setting the editor leaves
// unset comes from the file, else from the defaults.
type Settings struct {
	// ExcludedDirectories replaces the default excluded names and globs.
	ExcludedDirectories []string `json:"excludedDirectories,omitempty"`
	// MaxFileSize is the size in bytes above which files are skipped.
	MaxFileSize int64 `json:"maxFileSize,omitempty"`
	// DataDir relocates all of Anchorage's state (takes effect for folders
	// opened afterwards).
	DataDir string `json:"dataDir,omitempty"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `json:"logLevel,omitempty"`
	// Embedding, when its kind is set, embeds code for semantic search
	// with a server (ollama or openai) instead of the built-in word
	// vectors; read once, when the first folder opens.
	Embedding EmbeddingSettings `json:"embedding,omitempty"`
	// Memory configures coding rules learned from corrections.
	Memory MemorySettings `json:"memory,omitempty"`
	// IndexDependencies allows indexing a workspace folder that is a
	// dependency directory: the Go toolchain or module cache,
	// site-packages, node_modules (see dependencyDir).
	IndexDependencies *bool `json:"indexDependencies,omitempty"`
}

// MemorySettings configure the memory of coding rules (package memory).
type MemorySettings struct {
	// Project overrides the project name of project:<name> scopes (the
	// base name of each workspace folder).
	Project string `json:"project,omitempty"`
	// AnchorThreshold is the quality, from 0 to 1, an example needs to
	// become a rule's anchor; 0 means memory.DefaultAnchorThreshold.
	AnchorThreshold float64 `json:"anchorThreshold,omitempty"`
	// LLM, when its model is set, phrases proposals.
	LLM LLMSettings `json:"llm,omitempty"`
	// Documents are globs, relative to each workspace folder, of the
	// Markdown memory documents to keep in memory.
	Documents []string `json:"documents,omitempty"`
	// ProposalSeverity is how pending proposals are shown in the
	// editor: "information" (the default), "warning", "hint", or "off"
	// (no diagnostics; code actions and commands still offer them).
	ProposalSeverity string `json:"proposalSeverity,omitempty"`
	// Team configures the team's rules (memory.team.url).
	Team TeamSettings `json:"team,omitempty"`
}

// LLMSettings configure an Ollama-compatible LLM that phrases proposals.
type LLMSettings struct {
	// URL is the server's; "" means memory.DefaultOllamaURL.
	URL string `json:"url,omitempty"`
	// Model is the model to run; "" means no LLM.
	Model string `json:"model,omitempty"`
	// Timeout bounds each answer, in seconds; 0 means
	// memory.DefaultLLMTimeout.
	Timeout float64 `json:"timeout,omitempty"`
}

// EmbeddingSettings configure an embedding server.
type EmbeddingSettings struct {
	Provider  string `json:"provider,omitempty"`
	URL       string `json:"url,omitempty"`
	Model     string `json:"model,omitempty"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// merge overrides s with the fields set in o.
func (s Settings) merge(o Settings) Settings {
	if o.ExcludedDirectories != nil {
		s.ExcludedDirectories = o.ExcludedDirectories
	}
	if o.MaxFileSize > 0 {
		s.MaxFileSize = o.MaxFileSize
	}
	if o.DataDir != "" {
		s.DataDir = o.DataDir
	}
	if o.LogLevel != "" {
		s.LogLevel = o.LogLevel
	}
	if o.Embedding.Provider != "" {
		s.Embedding = o.Embedding
	}
	s.Memory = s.Memory.merge(o.Memory)
	if o.IndexDependencies != nil {
		s.IndexDependencies = o.IndexDependencies
	}
	return s
}

// merge overrides m with the fields set in o.
func (m MemorySettings) merge(o MemorySettings) MemorySettings {
	if o.Project != "" {
		m.Project = o.Project
	}
	if o.AnchorThreshold != 0 {
		m.AnchorThreshold = o.AnchorThreshold
	}
	if o.LLM.URL != "" {
		m.LLM.URL = o.LLM.URL
	}
	if o.LLM.Model != "" {
		m.LLM.Model = o.LLM.Model
	}
	if o.LLM.Timeout != 0 {
		m.LLM.Timeout = o.LLM.Timeout
	}
	if o.Documents != nil {
		m.Documents = o.Documents
	}
	if o.ProposalSeverity != "" {
		m.ProposalSeverity = o.ProposalSeverity
	}
	if o.Team.URL != "" {
		m.Team.URL = o.Team.URL
	}
	return m
}

// decodeSettings reads settings sent as {"anchorage": {...}} or {...}.
func decodeSettings(raw any) (Settings, error) {
	var s Settings
	if raw == nil {
		return s, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return s, err
	}
	var sections map[string]json.RawMessage
	if json.Unmarshal(b, &sections) == nil {
		if section, ok := sections["anchorage"]; ok {
			b = section
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	return s, nil
}

// folder is one workspace folder with its index and open documents.
type folder struct {
	name string
	uri  protocol.DocumentURI
	// dir is the folder as the editor names it; the index's root is the
	// same directory with symbolic links resolved. URIs sent to the editor
	// are under dir.
	dir string
	ws  *analysis.Workspace
	// file is the folder's settings file, read when the folder opens and
	// again when it changes.
	file atomic.Pointer[config.File]

	indexMu  sync.Mutex   // one index update at a time
	indexing atomic.Int32 // index updates started and not finished
	done     atomic.Int64
	total    atomic.Int64
	last     atomic.Pointer[analysis.Summary]
	// skipTold is set once the user was told the folder is not indexed
	// (Server.indexable).
	skipTold atomic.Bool
	// checking is set while the index is checked for damage or rebuilt
	// (checkDamage).
	checking atomic.Bool
}

func (f *folder) root() string { return f.ws.Index().Root() }

// closeFolder writes what the folder's open documents hold and releases
// its index through the session, which closes it unless another folder
// of the same directory holds it.
func (s *Server) closeFolder(ctx context.Context, f *folder) {
	f.ws.Shutdown(ctx)
	s.sessMu.Lock()
	sess := s.sess
	s.sessMu.Unlock()
	if sess == nil {
		return
	}
	if err := sess.ReleaseIndex(f.ws.Index()); err != nil {
		s.log.Warn("close index", zap.String("folder", f.root()), zap.Error(err))
	}
}

// openFolder opens the index of a workspace folder through the session
// (which opens one index per directory). With damaged set, the folder's
// index was found damaged: the session replaces it with one built afresh
// (see session.RebuildIndex).
func (s *Server) openFolder(ctx context.Context, name string, u protocol.DocumentURI, damaged *analysis.Index) (*folder, error) {
	root, err := filePath(u)
	if err != nil {
		return nil, err
	}
	sess, err := s.session()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	settings := s.settings
	s.mu.Unlock()
	dir, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs := dir
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	file := s.loadSettingsFile(abs)
	s.mu.Lock()
	if s.fileEmbedding == nil {
		// The vector signal is one per server: the first folder's
		// settings file names it, unless the editor does.
		e := file.Settings.Embedding
		s.fileEmbedding = &e
	}
	s.mu.Unlock()
	opts := analysis.Options{Root: abs, Embedder: s.embedder(),
		// A server runs long: damage is looked for before it starts,
		// and searches rank from the chunks' terms in memory.
		Check: analysis.CheckRows, TermsInMemory: true,
	}
	opts.Exclude, opts.Ignore, opts.MaxFileSize, opts.Languages = indexSettings(settings, file)
	var ix *analysis.Index
	if damaged != nil {
		ix, err = sess.RebuildIndex(ctx, damaged, opts)
	} else {
		ix, err = sess.OpenIndex(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w", root, err)
	}
	if ix.Rebuilt {
		s.warn("the index of %s was unreadable and is being rebuilt", abs)
	}
	if name == "" {
		name = filepath.Base(abs)
	}
	f := &folder{name: name, uri: u, dir: dir, ws: analysis.NewWorkspace(ix)}
	f.file.Store(file)
	return f, nil
}

// loadSettingsFile reads a folder's settings file, warning the user about
// its problems (each names its line; defaults are used instead).
func (s *Server) loadSettingsFile(root string) *config.File {
	file, err := config.Load(root)
	if err != nil {
		s.warn("settings file of %s: %v", root, err)
		return &config.File{Lines: map[string]int{}}
	}
	for _, w := range file.Warnings {
		s.warn("%s", w)
	}
	return file
}

// indexSettings returns what a folder indexes: the editor's settings over
// the folder's settings file. The editor's excludedDirectories replace
// both the built-in exclusions and the file's exclude patterns.
func indexSettings(editor Settings, file *config.File) (exclude, ignore []string, maxFileSize int64, languages []string) {
	exclude, maxFileSize = editor.ExcludedDirectories, editor.MaxFileSize
	if exclude == nil {
		ignore = file.Settings.Exclude
	}
	if maxFileSize <= 0 {
		maxFileSize = file.Settings.MaxFileSize
	}
	return exclude, ignore, maxFileSize, file.Settings.Languages
}

// reloadSettingsFile reads a folder's settings file again after it
// changed and applies it to the next indexing.
func (s *Server) reloadSettingsFile(f *folder) {
	file := s.loadSettingsFile(f.root())
	f.file.Store(file)
	s.mu.Lock()
	editor := s.settings
	s.mu.Unlock()
	configureIndex(f, editor)
}

// configureIndex applies the editor's settings and the folder's settings
// file to the folder's next indexing.
func configureIndex(f *folder, editor Settings) {
	exclude, ignore, maxFileSize, languages := indexSettings(editor, f.file.Load())
	f.ws.Index().Configure(exclude, maxFileSize)
	f.ws.Index().ConfigureFilters(ignore, languages)
}

// filePath returns the file name of a file: URI. Percent-escapes decode
// to bytes (RFC 3986), so a name that is not valid UTF-8 comes back as it
// is on disk; a URI that does not parse is an invalid-params error.
func filePath(u protocol.DocumentURI) (string, error) {
	if !strings.HasPrefix(string(u), "file:") {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: only file: URIs are supported", u)
	}
	parsed, err := url.Parse(string(u))
	if err != nil {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: not a file URI: %v", u, errors.Unwrap(err))
	}
	if parsed.Path == "" {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: a file URI without a path", u)
	}
	p := parsed.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && ('a' <= p[1]|0x20 && p[1]|0x20 <= 'z') {
		p = p[1:] // /C:/dir on Windows
	}
	return filepath.FromSlash(p), nil
}

func (s *Server) initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already sent")
	}
	s.caps = p.Capabilities
	s.mu.Unlock()

	settings, err := decodeSettings(p.InitializationOptions)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initializationOptions: %v", err)
	}
	s.mu.Lock()
	s.settings = s.settings.merge(settings)
	s.mu.Unlock()
	s.setLevel(settings.LogLevel)

	roots := p.WorkspaceFolders
	if len(roots) == 0 {
		switch {
		case p.RootURI != "":
			roots = []protocol.WorkspaceFolder{{URI: string(p.RootURI)}}
		case p.RootPath != "":
			roots = []protocol.WorkspaceFolder{{URI: string(uri.File(p.RootPath))}}
		}
	}
	var folders []*folder
	for _, r := range roots {
		if path, err := filePath(protocol.DocumentURI(r.URI)); err == nil && slices.ContainsFunc(folders, func(f *folder) bool { return f.dir == filepath.Clean(path) }) {
			continue // listed twice
		}
		f, err := s.openFolder(ctx, r.Name, protocol.DocumentURI(r.URI), nil)
		if err != nil {
			for _, f := range folders {
				s.closeFolder(ctx, f)
			}
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) {
				return nil, rpcErr
			}
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		folders = append(folders, f)
	}
	s.mu.Lock()
	s.folders = folders
	s.state = stateInitialized
	s.mu.Unlock()
	s.watchClient(p.ProcessID)

	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			WorkspaceSymbolProvider: true,
			DocumentSymbolProvider:  true,
			FoldingRangeProvider:    true,
			CallHierarchyProvider:   true,
			HoverProvider:           true,
			CodeLensProvider:        &protocol.CodeLensOptions{ResolveProvider: true},
			CodeActionProvider:      codeActionProvider(p.Capabilities),
			ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: command.Names()},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{
					Supported:           true,
					ChangeNotifications: true,
				},
				FileOperations: fileOperations(p.Capabilities),
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "anchorage", Version: s.opts.Version},
	}, nil
}

// initialized asks the editor for settings and file watching, then starts
// indexing. It runs in the background: a notification handler runs on the
// connection's only reader, which must stay free to read the editor's
// replies.
func (s *Server) initialized(_ context.Context, _ *protocol.InitializedParams) error {
	s.goBackground(func(ctx context.Context) {
		s.pullConfiguration(ctx)
		s.startTeam()
		s.registerWatchers(ctx)
		for _, f := range s.snapshotFolders() {
			s.indexFolder(f, "Indexing "+f.name)
		}
	})
	return nil
}

func (s *Server) shutdown(ctx context.Context, _ *struct{}) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	folders := s.folders
	s.mu.Unlock()
	for _, f := range folders {
		if err := f.ws.Flush(ctx); err != nil {
			s.log.Warn("flush on shutdown", zap.Error(err))
		}
	}
	return nil, nil
}

// snapshotFolders returns the current folders.
func (s *Server) snapshotFolders() []*folder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*folder(nil), s.folders...)
}

// folderFor returns the folder holding a document and the document's path
// relative to it. The innermost folder wins when folders nest.
func (s *Server) folderFor(u protocol.DocumentURI) (*folder, string, error) {
	path, err := filePath(u)
	if err != nil {
		return nil, "", err
	}
	f, rel := s.ownerOf(path)
	if f == nil {
		return nil, "", fmt.Errorf("%s: %w", path, analysis.ErrOutsideRoot)
	}
	return f, rel, nil
}

// ownerOf returns the innermost folder holding a file (named as the
// editor names it, or with links resolved) and the file's relative path.
func (s *Server) ownerOf(path string) (*folder, string) {
	var best *folder
	var bestRel string
	for _, f := range s.snapshotFolders() {
		rel, err := analysis.RelPath(f.dir, path)
		if err != nil {
			if rel, err = f.ws.Rel(path); err != nil {
				continue
			}
		}
		if best == nil || len(f.dir) > len(best.dir) {
			best, bestRel = f, rel
		}
	}
	return best, bestRel
}

// owns reports whether a file of f (relative path) is f's own, not that of
// a folder nested inside it, which answers for it instead.
func (s *Server) owns(f *folder, rel string) bool {
	owner, _ := s.ownerOf(filepath.Join(f.dir, filepath.FromSlash(rel)))
	return owner == f
}

// fileSymbols returns a document's folder and its symbols as the editor
// sees them (the open document's, else the index's).
func (s *Server) fileSymbols(ctx context.Context, u protocol.DocumentURI) (*folder, []analysis.SymbolInfo, error) {
	f, rel, err := s.folderFor(u)
	if err != nil {
		return nil, nil, err
	}
	syms, err := f.ws.FileSymbols(ctx, rel)
	if err != nil {
		return nil, nil, err
	}
	return f, syms, nil
}

// sortedFolders returns folders by root, for stable answers.
func sortedFolders(fs []*folder) []*folder {
	sort.Slice(fs, func(i, j int) bool { return fs[i].root() < fs[j].root() })
	return fs
}
