package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

// memoryState is the user's memory as the server uses it: the store,
// opened on first use, and the proposal diagnostics published from it.
// Its zero value is ready to use.
type memoryState struct {
	mu    sync.Mutex
	store *memory.Store
	// shown is the last memory error shown to the user, so that a
	// broken database is reported once, not on every request.
	shown string
	// session labels the corrections recorded through this server.
	session string

	// publishMu orders publications of proposal diagnostics; published
	// holds the documents whose last publication was not empty.
	publishMu sync.Mutex
	published map[protocol.DocumentURI]bool
}

// closeMemory closes the memory store, if it was opened.
func (s *Server) closeMemory() {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if s.mem.store != nil {
		if err := s.mem.store.Close(); err != nil {
			s.log.Warn("close memory", zap.Error(err))
		}
		s.mem.store = nil
	}
}

// memoryPath returns the user's memory database, as the settings or
// --data-dir place it.
func (s *Server) memoryPath() (string, error) {
	s.mu.Lock()
	dataDir := s.opts.DataDir
	if s.settings.DataDir != "" {
		dataDir = s.settings.DataDir
	}
	s.mu.Unlock()
	dirs, err := state.Resolve(dataDir)
	if err != nil {
		return "", err
	}
	return dirs.MemoryPath(), nil
}

// memorySettings returns the memory settings in force.
func (s *Server) memorySettings() MemorySettings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.Memory
}

// projectOf names the project of a folder for project:<name> scopes: the
// memory.project setting when it is a valid name, else the folder's base
// name.
func (s *Server) projectOf(f *folder) string {
	if p := strings.TrimSpace(s.memorySettings().Project); p != "" {
		if _, err := memory.NormalizeScope(memory.ProjectScope(p)); err == nil {
			return p
		}
	}
	return memory.ProjectName(f.dir)
}

// anchorThreshold is the memory.anchorThreshold setting when it is
// between 0 and 1, else 0 (the default threshold).
func (s *Server) anchorThreshold() float64 {
	t := s.memorySettings().AnchorThreshold
	if t > 0 && t <= 1 {
		return t
	}
	return 0
}

// llmOption is the memory option of the memory.llm settings: nil without
// a model; a bad setting is reported and leaves the deterministic
// fallback.
func (s *Server) llmOption() memory.Option {
	set := s.memorySettings().LLM
	if strings.TrimSpace(set.Model) == "" {
		return nil
	}
	timeout := time.Duration(0)
	if set.Timeout > 0 && set.Timeout <= math.MaxInt64/float64(time.Second) {
		timeout = time.Duration(set.Timeout * float64(time.Second))
	}
	opt, err := memory.LLMOption(memory.OllamaConfig{URL: set.URL, Model: set.Model, Timeout: timeout})
	if err != nil {
		s.warn("memory.llm settings ignored, proposals use the deterministic fallback: %v", err)
		return nil
	}
	return opt
}

// memoryStore returns the user's memory, opened on first use with the
// project of the first workspace folder. When create is false and there
// is no memory database yet, it returns nil and no error. A database
// that cannot be opened (corrupt, locked) is reported to the user and
// returned as an error; it is opened again on the next use, and never
// replaced.
func (s *Server) memoryStore(ctx context.Context, create bool) (*memory.Store, error) {
	st, err := s.openedMemory(ctx, create)
	if err != nil || st == nil {
		return nil, err
	}
	return s.memoryView(st, "")
}

// openedMemory is memoryStore without the server's view: the store as
// opened, for callers that only need to know there is a memory.
func (s *Server) openedMemory(ctx context.Context, create bool) (*memory.Store, error) {
	s.mem.mu.Lock()
	if st := s.mem.store; st != nil {
		s.mem.mu.Unlock()
		return st, nil
	}
	st, err := s.openMemory(ctx, create)
	if err == nil {
		s.mem.store = st
		s.mem.shown = ""
	}
	s.mem.mu.Unlock()
	if err != nil {
		s.memoryFailed(err)
		return nil, err
	}
	return st, nil
}

// openMemory opens the memory store; s.mem.mu is held.
func (s *Server) openMemory(ctx context.Context, create bool) (*memory.Store, error) {
	path, err := s.memoryPath()
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	st, err := memory.Open(ctx, path, memory.WithOnChange(s.rulesChanged))
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return st, nil
}

// memoryView returns the open store as this server uses it: corrections
// labelled with the server's session (and proposals made from it), or
// with session when not "" (memory.AllSessions: every open correction);
// the project of the first workspace folder; and opts.
func (s *Server) memoryView(st *memory.Store, session string, opts ...memory.Option) (*memory.Store, error) {
	if session == "" {
		session = s.memorySession()
	}
	opts = append([]memory.Option{memory.WithSession(session)}, opts...)
	if folders := sortedFolders(s.snapshotFolders()); len(folders) > 0 {
		if p := s.projectOf(folders[0]); p != "" {
			opts = append(opts, memory.WithProject(p))
		}
	}
	return st.With(opts...)
}

// memorySession is the label of the corrections recorded through this
// server: "lsp-<process id>-<start time>", made on first use.
func (s *Server) memorySession() string {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if s.mem.session == "" {
		s.mem.session = fmt.Sprintf("lsp-%d-%s", os.Getpid(), time.Now().UTC().Format("20060102T150405.000"))
	}
	return s.mem.session
}

// memoryFailed shows a memory error that the user must act on (a corrupt,
// locked or unopenable database) in the editor, once per distinct error.
func (s *Server) memoryFailed(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	msg := err.Error()
	s.mem.mu.Lock()
	repeat := s.mem.shown == msg
	s.mem.shown = msg
	s.mem.mu.Unlock()
	s.log.Warn("memory", zap.Error(err))
	if repeat || s.client == nil {
		return
	}
	hint := ""
	switch {
	case errors.Is(err, memory.ErrCorrupt):
		hint = " Your rules were left as they are: move the file aside or repair it to start again."
	case errors.Is(err, memory.ErrLocked):
		hint = " Another process holds it; try again when it is done."
	}
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if err := s.client.ShowMessage(ctx, &protocol.ShowMessageParams{
		Type: protocol.MessageTypeError, Message: "Anchorage memory: " + msg + "." + hint,
	}); err != nil {
		s.log.Debug("window/showMessage failed", zap.Error(err))
	}
}

// memoryError turns an error of a memory command into the protocol's:
// bad arguments (unknown ids, decided proposals, empty text, bad scopes)
// are invalid parameters; a broken database is shown to the user too.
func (s *Server) memoryError(cmd string, err error) error {
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rpcErr):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, memory.ErrUnknownProposal), errors.Is(err, memory.ErrUnknownRule),
		errors.Is(err, memory.ErrAlreadyDecided), errors.Is(err, memory.ErrEmptyCorrection),
		errors.Is(err, memory.ErrCorrectionTooLong), errors.Is(err, memory.ErrInvalidScope), errors.Is(err, memory.ErrInvalidSession),
		errors.Is(err, memory.ErrEmptyRule), errors.Is(err, memory.ErrRuleTooLong), errors.Is(err, memory.ErrRuleNotText):
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", cmd, err)
	case errors.Is(err, memory.ErrCorrupt), errors.Is(err, memory.ErrLocked):
		s.memoryFailed(err)
	}
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", cmd, err)
}

// correctionResult is anchorage.memory.recordCorrection's answer.
type correctionResult struct {
	Correction memory.Correction `json:"correction"`
	// Open is how many corrections wait for anchorage.memory.propose.
	Open int `json:"open_corrections"`
}

// recordCorrection runs anchorage.memory.recordCorrection {text, uri?,
// range?, session?} or ["text"]: the file, its language and project come
// from the uri, which must be in a workspace folder; the session is the
// server's unless named.
func (s *Server) recordCorrection(ctx context.Context, a command.CorrectionArgs) (any, error) {
	c := memory.Correction{Text: a.Text, Session: a.Session}
	if a.URI != "" {
		f, rel, err := s.folderFor(a.URI)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.MemoryRecordCorrection.Name()), err)
		}
		c.File, c.Project = rel, s.projectOf(f)
	}
	if r := a.Range; r != nil { // whole, and with its uri (command.CorrectionArgs.Validate)
		c.Range = &memory.Range{
			Start: memory.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
			End:   memory.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
		}
	}
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	if st, err = s.memoryView(st, a.Session); err != nil {
		return nil, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	rec, err := st.RecordCorrection(ctx, c)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	open, err := st.OpenCorrections(ctx)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryRecordCorrection.Name()), err)
	}
	return correctionResult{Correction: rec, Open: len(open)}, nil
}

// proposalView is a proposal as the memory commands answer it, with the
// place its diagnostic is shown, if any.
type proposalView struct {
	memory.Proposal
	Location *protocol.Location `json:"location"`
}

// proposeRules runs anchorage.memory.propose {session?}: the open
// corrections of the server's session (or of the session named, or all
// for "*") become at most five pending proposals, phrased by the LLM of
// the memory.llm settings if any, each given a candidate example by the
// anchor engine, and published as hint diagnostics.
func (s *Server) proposeRules(ctx context.Context, a command.SessionArgs) (any, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	if st, err = s.memoryView(st, a.Session, s.llmOption()); err != nil {
		return nil, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	ps, err := st.Propose(ctx)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	s.anchors(st).SetExamples(ctx, ps)
	locs, err := s.publishProposals(ctx, "")
	if err != nil {
		return nil, s.memoryError(string(command.MemoryPropose.Name()), err)
	}
	out := make([]proposalView, len(ps))
	for i, p := range ps {
		out[i] = proposalView{Proposal: p}
		if loc, ok := locs[p.ID]; ok {
			out[i].Location = &loc
		}
	}
	return map[string]any{"proposals": out}, nil
}

// listProposals runs anchorage.memory.proposals: every pending
// proposal, from any session (the CLI's, an earlier server's), with where
// its hint is shown. It proposes nothing and creates no database.
func (s *Server) listProposals(ctx context.Context, _ command.NoArgs) (any, error) {
	out := []proposalView{}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	if st == nil {
		return map[string]any{"proposals": out}, nil
	}
	ps, err := st.Proposals(ctx, memory.StatusPending)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	locs, err := s.publishProposals(ctx, "")
	if err != nil {
		return nil, s.memoryError(string(command.MemoryProposals.Name()), err)
	}
	for _, p := range ps {
		v := proposalView{Proposal: p}
		if loc, ok := locs[p.ID]; ok {
			v.Location = &loc
		}
		out = append(out, v)
	}
	return map[string]any{"proposals": out}, nil
}

// approvalView is what approving a proposal did, with the rule's anchor
// resolved.
type approvalView struct {
	memory.Approval
	// Location is where the rule's example is now, or nil.
	Location *ruleLocation `json:"location"`
	// AnchorStatus is anchored, lost, elsewhere, pending or none (see
	// ruleView).
	AnchorStatus memory.AnchorStatus `json:"anchor_status"`
	// AnchorNote says why the rule has no anchor, when it has none.
	AnchorNote string `json:"anchor_note,omitempty"`
	// Summary tells the approval in one line, for editors to show.
	Summary string `json:"summary"`
}

// scopeChoices runs anchorage.memory.scopeChoices {ids}: the scopes the
// pending proposals can be approved with together, as editors offer them.
func (s *Server) scopeChoices(ctx context.Context, a command.ScopeChoicesArgs) (command.ScopeChoicesResult, error) {
	name := string(command.MemoryScopeChoices.Name())
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.ScopeChoicesResult{}, s.memoryError(name, err)
	}
	if st == nil {
		return command.ScopeChoicesResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v %d (there is no memory yet)", name, memory.ErrUnknownProposal, a.IDs[0])
	}
	ps := make([]memory.Proposal, len(a.IDs))
	for i, id := range a.IDs {
		if ps[i], err = st.Proposal(ctx, id); err != nil {
			return command.ScopeChoicesResult{}, s.memoryError(name, err)
		}
	}
	return command.ScopeChoicesResult{Choices: feature.ScopeChoices(ps)}, nil
}

// approveProposal runs anchorage.memory.approve {id, scope?}: the proposal
// becomes a rule (or merges into one), which is anchored at once to its
// best example in the workspace.
func (s *Server) approveProposal(ctx context.Context, a command.IDArgs) (any, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryApprove.Name()), err)
	}
	ap, err := st.Approve(ctx, a.ID, a.Scope)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryApprove.Name()), err)
	}
	// The approval is committed: what follows may fail without undoing
	// it, and says so in the answer.
	view := s.anchorApproval(ctx, s.anchors(st), ap)
	s.memoryChanged(ctx)
	return view, nil
}

// approveAllProposals runs anchorage.memory.approveAll {scope?}: every
// pending proposal is approved, strongest first, and its rule anchored.
func (s *Server) approveAllProposals(ctx context.Context, a command.ScopeArgs) (any, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryApproveAll.Name()), err)
	}
	aps, err := st.ApproveAll(ctx, a.Scope)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryApproveAll.Name()), err)
	}
	out := make([]approvalView, 0, len(aps))
	x := s.anchors(st)
	for _, ap := range aps {
		out = append(out, s.anchorApproval(ctx, x, ap))
	}
	if len(aps) > 0 {
		s.memoryChanged(ctx)
	}
	return map[string]any{"approvals": out}, nil
}

// anchorApproval anchors the rule of an approval (see
// memory.Anchors.AnchorApproval) and returns its view.
func (s *Server) anchorApproval(ctx context.Context, x *memory.Anchors, ap memory.Approval) approvalView {
	aa := x.AnchorApproval(ctx, ap)
	loc := s.placementLocation(aa.Placement)
	v := approvalView{Approval: aa.Approval, Location: loc, AnchorStatus: aa.Placement.Status, AnchorNote: aa.Note}
	sum := feature.Approval{Merged: v.Merged, RuleID: v.Rule.ID, Scope: v.Rule.Scope, Content: v.Rule.Content,
		Note: v.AnchorNote, Superseded: v.Superseded}
	if loc != nil && v.AnchorStatus == memory.AnchorLive {
		sum.Anchored, sum.Symbol, sum.Path, sum.Line = true, loc.Symbol, loc.Path, loc.Line
	}
	v.Summary = feature.ApprovalSummary(sum)
	return v
}

// rejectProposal runs anchorage.memory.reject {id}.
func (s *Server) rejectProposal(ctx context.Context, a command.IDArgs) (any, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	if err := st.Reject(ctx, a.ID); err != nil {
		return nil, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	p, err := st.Proposal(ctx, a.ID)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryReject.Name()), err)
	}
	s.memoryChanged(ctx)
	return map[string]any{"proposal": p}, nil
}

// ruleView is a rule as the memory commands answer it, with its anchor
// resolved through the live graph.
type ruleView struct {
	memory.Rule
	// Location is where the anchor's symbol is now, or nil.
	Location *ruleLocation `json:"location"`
	// AnchorStatus is "anchored" (Location is set), "lost" (the file or
	// symbol is gone: re-anchor it), "elsewhere" (anchored in a
	// workspace that is not open), "pending" (its folder is still being
	// indexed) or "none" (no anchor).
	AnchorStatus memory.AnchorStatus `json:"anchor_status"`
}

// listRules runs anchorage.memory.list {scope?, uri?, symbol?}: the
// active rules, most important first.
func (s *Server) listRules(ctx context.Context, a command.ListArgs) (any, error) {
	filter := memory.RuleFilter{}
	if strings.TrimSpace(a.Scope) != "" {
		if !isScopeKind(a.Scope) {
			if _, err := memory.NormalizeScope(a.Scope); err != nil {
				return nil, s.memoryError(string(command.MemoryList.Name()), err)
			}
		}
		filter.Scopes = []string{a.Scope}
	}
	var (
		docFolder *folder
		rel       string
	)
	if a.URI != "" {
		f, r, err := s.folderFor(a.URI)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.MemoryList.Name()), err)
		}
		docFolder, rel = f, r
		filter.AnchorFile = rel
	}
	out := []ruleView{}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryList.Name()), err)
	}
	if st == nil {
		return map[string]any{"rules": out}, nil // no memory yet
	}
	rules, err := st.Rules(ctx, filter)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryList.Name()), err)
	}
	x := s.anchors(st)
	for _, r := range rules {
		if docFolder != nil && workspaceFolder(x.WorkspaceOf(r)) != docFolder {
			continue
		}
		if a.Symbol != "" && (r.Anchor == nil || r.Anchor.Symbol != a.Symbol) {
			continue
		}
		p := x.Locate(ctx, r)
		out = append(out, ruleView{Rule: r, Location: s.placementLocation(p), AnchorStatus: p.Status})
	}
	return map[string]any{"rules": out}, nil
}

// isScopeKind reports whether a scope filter names a kind of scope.
func isScopeKind(scope string) bool {
	k := strings.ToLower(strings.TrimSpace(scope))
	return k == memory.KindLanguage || k == memory.KindProject
}

// reanchorRule runs anchorage.memory.reanchor {id}: the anchor engine
// looks for the rule's best example again. A new example replaces the
// anchor; when there is none, a lost anchor is cleared and a live one
// kept.
func (s *Server) reanchorRule(ctx context.Context, a command.IDArgs) (any, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryReanchor.Name()), err)
	}
	re, err := s.anchors(st).Reanchor(ctx, a.ID)
	if err != nil {
		return nil, s.memoryError(string(command.MemoryReanchor.Name()), err)
	}
	s.memoryChanged(ctx)
	return map[string]any{
		"rule":       ruleView{Rule: re.Rule, Location: s.placementLocation(re.Placement), AnchorStatus: re.Placement.Status},
		"reanchored": re.Reanchored, "note": re.Note,
	}, nil
}

// memoryChanged brings the editor up to date after rules or proposals
// changed: proposal diagnostics are published again, and code lenses
// refreshed when the editor supports it.
func (s *Server) memoryChanged(ctx context.Context) {
	if _, err := s.publishProposals(ctx, ""); err != nil {
		s.warn("publishing proposals: %v", err)
	}
	s.refreshCodeLenses()
}

// ---------------------------------------------------------------------------
// Anchors through the live graph: the folders as memory.Workspaces.

// folderWorkspace is a folder as package memory sees a workspace.
type folderWorkspace struct {
	s *Server
	f *folder
}

func (w folderWorkspace) Root() string    { return w.f.root() }
func (w folderWorkspace) Project() string { return w.s.projectOf(w.f) }
func (w folderWorkspace) IsOpen(rel string) bool {
	return w.f.ws.IsOpen(rel)
}
func (w folderWorkspace) Indexing() bool { return w.f.indexing.Load() > 0 }

func (w folderWorkspace) HasFile(rel string) bool {
	if w.f.ws.IsOpen(rel) {
		return true
	}
	if _, err := os.Stat(filepath.Join(w.f.dir, filepath.FromSlash(rel))); err != nil {
		return false
	}
	return w.s.owns(w.f, rel)
}

func (w folderWorkspace) FileSymbols(ctx context.Context, rel string) ([]analysis.SymbolInfo, error) {
	return w.f.ws.FileSymbols(ctx, rel)
}

func (w folderWorkspace) Anchorer(ctx context.Context) (*memory.Anchorer, error) {
	if err := w.f.ws.Flush(ctx); err != nil {
		return nil, err
	}
	return &memory.Anchorer{Searcher: w.s.searcherFor(w.f), Project: w.s.projectOf(w.f)}, nil
}

// anchors returns the anchoring service over the open folders, with the
// memory.anchorThreshold setting; problems that do not fail a request
// go to the log.
func (s *Server) anchors(st *memory.Store) *memory.Anchors {
	folders := sortedFolders(s.snapshotFolders())
	ws := make([]memory.Workspace, len(folders))
	for i, f := range folders {
		ws[i] = folderWorkspace{s: s, f: f}
	}
	return &memory.Anchors{Store: st, Workspaces: ws, Threshold: s.anchorThreshold(), Warn: func(err error) {
		s.log.Info("anchoring", zap.Error(err))
	}}
}

// workspaceFolder returns the folder of a memory workspace, or nil.
func workspaceFolder(w memory.Workspace) *folder {
	if fw, ok := w.(folderWorkspace); ok {
		return fw.f
	}
	return nil
}

// ruleLocation is where a rule's anchor is now.
type ruleLocation struct {
	URI protocol.DocumentURI `json:"uri"`
	// Range is the symbol's, SelectionRange its name's.
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selection_range"`
	Symbol         string         `json:"symbol,omitempty"`
	// Line is Range's first line, 1-based.
	Line int `json:"line"`
	// Path is the file's path for messages: relative to its workspace
	// folder, after the folder's name when several are open.
	Path string `json:"path"`
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
func (s *Server) placementLocation(p memory.Placement) *ruleLocation {
	f := workspaceFolder(p.Workspace)
	if p.Status != memory.AnchorLive || f == nil {
		return nil
	}
	if p.Symbol == nil {
		top := protocol.Range{}
		return &ruleLocation{URI: f.fileURI(p.File), Range: top, SelectionRange: top, Line: 1, Path: s.displayPath(f, p.File)}
	}
	sym := *p.Symbol
	return &ruleLocation{
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
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if (folderWorkspace{s: s, f: f}).HasFile(rel) {
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
		if workspaceFolder(w) != f {
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

// shorten cuts text to at most n runes, with an ellipsis.
func shorten(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// plural returns "1 correction", "3 corrections".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
