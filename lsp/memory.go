package lsp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/internal/session"
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

// session returns the state this server owns (see package session):
// the memory database's one pool, shared by the rules, the memory
// documents and the memory graph; the routing statistics; the router. It
// is made on first use, in the state directories the settings or
// --data-dir name then.
func (s *Server) session() (*session.Session, error) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if s.sess != nil {
		return s.sess, nil
	}
	s.mu.Lock()
	dataDir := s.opts.DataDir
	if s.settings.DataDir != "" {
		dataDir = s.settings.DataDir
	}
	s.mu.Unlock()
	dirs, err := state.Resolve(dataDir)
	if err != nil {
		return nil, err
	}
	sess, err := session.New(s.bg, dirs, session.Options{
		Memory:          []memory.Option{memory.WithOnChange(s.rulesChanged)},
		Team:            s.teamOptions(),
		DeferSlotWrites: true,
		SlotsPending:    s.slotsPending,
		DocumentRoots: func() []string {
			var roots []string
			for _, f := range sortedFolders(s.snapshotFolders()) {
				roots = append(roots, f.root())
			}
			return roots
		},
	})
	if err != nil {
		return nil, err
	}
	s.sess = sess
	return sess, nil
}

// closeSession writes the slot moves kept in memory and closes what the
// session opened, once.
func (s *Server) closeSession() {
	s.sessMu.Lock()
	sess := s.sess
	s.sessMu.Unlock()
	if sess == nil {
		return
	}
	if err := sess.Close(); err != nil {
		s.log.Warn("close memory", zap.Error(err))
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

// userDatabase returns the memory database's one pool, opening the
// rules (and creating the file) if needed: the memory documents and the
// memory graph share it.
func (s *Server) userDatabase(ctx context.Context) (*state.DB, error) {
	if _, err := s.memoryStore(ctx, true); err != nil {
		return nil, err
	}
	sess, err := s.session()
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return sess.Database(ctx)
}

// openMemory opens the memory store; s.mem.mu is held.
func (s *Server) openMemory(ctx context.Context, create bool) (*memory.Store, error) {
	sess, err := s.session()
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	if !create && !sess.MemoryExists() {
		return nil, nil
	}
	st, err := sess.Memory(ctx)
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
