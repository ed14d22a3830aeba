// Package session owns the state of one Anchorage process: the pool of the
// user's memory database and the stores that share it (rules, memory
// documents, the memory graph and its working-memory slots), the routing
// statistics, the router, and one index per workspace root. Each is
// opened once, on first use, with one policy, and closed once by Close.
//
// The language server, the MCP server and the command line take their
// state from a Session instead of assembling it themselves (compare
// gopls's internal/cache.Session).
package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

// ErrClosed is returned by a Session's methods after Close.
var ErrClosed = errors.New("session: closed")

// Options configure a Session.
type Options struct {
	// Memory configure the rules store (memory.WithOnChange, an LLM, a
	// project). A front end that needs other options for one request
	// derives a Store with (*memory.Store).With, which shares the pool.
	Memory []memory.Option
	// DocumentRoots returns the workspace roots whose memory documents
	// feed the memory graph (recall.Documents); it is called when the
	// graph is first opened. nil means none.
	DocumentRoots func() []string
	// DeferSlotWrites keeps the slot moves and search counters of the
	// memory graph in memory (recall.WithDeferredWrites): reads do not
	// write. Close writes what is pending; so does FlushSlots.
	DeferSlotWrites bool
	// SlotsPending, if set with DeferSlotWrites, is called each time a
	// slot write becomes pending, for the owner to schedule FlushSlots off
	// the request path. It must not call the memory graph.
	SlotsPending func()
	// Index returns the options of the index of root (absolute, links
	// resolved), called when that index is first opened; nil means the
	// index in the cache directory (state.Dirs.IndexPath) with the
	// defaults. Root is set and DBPath "" is filled in.
	Index func(root string) (analysis.Options, error)
	// Team configures the team's rules; its zero value means no team,
	// and then nothing of the team's runs (see Team).
	Team TeamOptions
}

// A Session owns a process's state. Its methods are safe for concurrent
// use. Create it with New and release it with Close.
type Session struct {
	dirs state.Dirs
	opts Options

	mu     sync.Mutex // guards the fields below
	closed bool
	db     *state.DB
	mem    *memory.Store
	docs   *memdoc.Store
	graph  *recall.Store
	fb     *feedback.Store
	team   *Team

	idxMu   sync.Mutex // guards the fields below
	indexes map[string]*indexEntry
	// retired are indexes replaced by RebuildIndex that some callers
	// still hold.
	retired []*indexEntry
}

// indexEntry is the index of one root; ready is closed once ix or err is
// set. refs counts the references callers took (guarded by
// Session.idxMu).
type indexEntry struct {
	ready chan struct{}
	ix    *analysis.Index
	err   error
	refs  int
}

// New returns a Session over the state directories dirs. It opens
// nothing: each part is opened on first use.
func New(ctx context.Context, dirs state.Dirs, opts Options) (*Session, error) {
	if dirs.Data == "" || dirs.Cache == "" {
		return nil, errors.New("new session: the data and cache directories must be set (see state.Resolve)")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	return &Session{dirs: dirs, opts: opts, indexes: map[string]*indexEntry{}}, nil
}

// Dirs returns the state directories of the session.
func (s *Session) Dirs() state.Dirs { return s.dirs }

// Router returns the process's router (retrieval.DefaultRouter).
func (s *Session) Router() *retrieval.Router { return retrieval.DefaultRouter() }

// MemoryExists reports whether the user's memory database exists: reading
// commands create no database.
func (s *Session) MemoryExists() bool {
	_, err := os.Stat(s.dirs.MemoryPath())
	return !errors.Is(err, fs.ErrNotExist)
}

// Database returns the one pool of the user's memory database, opening
// it (and creating the file) on first use with the state.User profile.
// The session owns it: callers do not close it.
func (s *Session) Database(ctx context.Context) (*state.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.databaseLocked(ctx)
}

func (s *Session) databaseLocked(ctx context.Context) (*state.DB, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if s.db != nil {
		return s.db, nil
	}
	db, err := state.Open(ctx, s.dirs.MemoryPath(), state.User, state.Options{})
	if err != nil {
		return nil, fmt.Errorf("open memory: %w", err)
	}
	s.db = db
	return db, nil
}

// Memory returns the user's rules over the shared pool, opened on first
// use with Options.Memory. The session owns it: its Close does nothing.
func (s *Session) Memory(ctx context.Context) (*memory.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.memoryLocked(ctx)
}

func (s *Session) memoryLocked(ctx context.Context) (*memory.Store, error) {
	if s.mem != nil && !s.closed {
		return s.mem, nil
	}
	db, err := s.databaseLocked(ctx)
	if err != nil {
		return nil, err
	}
	opts := s.opts.Memory
	if s.opts.Team.URL != "" {
		opts = append(slices.Clone(opts), memory.WithTeam(true))
	}
	st, err := memory.New(ctx, db, opts...)
	if err != nil {
		return nil, fmt.Errorf("open memory: %w", err)
	}
	s.mem = st
	return st, nil
}

// Documents returns the memory documents over the shared pool, opened on
// first use.
func (s *Session) Documents(ctx context.Context) (*memdoc.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.documentsLocked(ctx)
}

func (s *Session) documentsLocked(ctx context.Context) (*memdoc.Store, error) {
	if s.docs != nil && !s.closed {
		return s.docs, nil
	}
	db, err := s.databaseLocked(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory documents: %w", err)
	}
	docs, err := memdoc.New(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("memory documents: %w", err)
	}
	s.docs = docs
	return docs, nil
}

// Recall returns the memory graph and working-memory slots over the
// shared pool, opened on first use with the rules and the memory
// documents of Options.DocumentRoots as its sources. It is not synced:
// callers call Sync when their policy says so.
func (s *Session) Recall(ctx context.Context) (*recall.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.graph != nil && !s.closed {
		return s.graph, nil
	}
	mem, err := s.memoryLocked(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory graph: %w", err)
	}
	docs, err := s.documentsLocked(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory graph: %w", err)
	}
	var roots []string
	if s.opts.DocumentRoots != nil {
		roots = s.opts.DocumentRoots()
	}
	opts := []recall.Option{recall.WithSources(recall.Rules{Store: mem}, recall.Documents{Store: docs, Roots: roots})}
	if s.opts.DeferSlotWrites {
		opts = append(opts, recall.WithDeferredWrites(s.opts.SlotsPending))
	}
	g, err := recall.New(ctx, s.db, opts...)
	if err != nil {
		return nil, fmt.Errorf("memory graph: %w", err)
	}
	s.graph = g
	return g, nil
}

// FlushSlots writes the slot moves and counters the memory graph keeps
// in memory (Options.DeferSlotWrites). It does nothing when the graph was
// not opened or nothing is pending.
func (s *Session) FlushSlots(ctx context.Context) error {
	s.mu.Lock()
	g := s.graph
	s.mu.Unlock()
	if g == nil {
		return nil
	}
	if err := g.Flush(ctx); err != nil {
		return fmt.Errorf("write the working-memory slots: %w", err)
	}
	return nil
}

// Feedback returns the routing statistics (feedback.db), opened on first
// use (see feedback.OpenStats).
func (s *Session) Feedback(ctx context.Context) (*feedback.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.fb != nil {
		return s.fb, nil
	}
	fb, err := feedback.OpenStats(ctx, s.dirs.FeedbackPath(), s.dirs.MemoryPath())
	if err != nil {
		return nil, err
	}
	s.fb = fb
	return fb, nil
}

// Index returns the index of the workspace at root, opened once per root
// (its absolute path with links resolved) with Options.Index however
// many callers ask at once. The session owns it: callers do not close it.
// Each call takes a reference, which ReleaseIndex gives back; a caller
// that keeps the index until the session closes need not release it. A
// failed open is not kept: the next call tries again.
func (s *Session) Index(ctx context.Context, root string) (*analysis.Index, error) {
	key, err := canonicalRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return s.index(ctx, key, s.opts.Index)
}

// OpenIndex is Index with the options of the first opening given by the
// caller instead of Options.Index (opts.Root names the workspace; an
// empty opts.DBPath means the index in the cache directory). When the
// root's index is open already it is returned as it is: the caller
// applies its settings with the Index's Configure methods.
func (s *Session) OpenIndex(ctx context.Context, opts analysis.Options) (*analysis.Index, error) {
	key, err := canonicalRoot(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return s.index(ctx, key, func(string) (analysis.Options, error) { return opts, nil })
}

// index returns the index of key, opening it with the options options
// gives (nil: the defaults) if no caller has, and takes a reference.
func (s *Session) index(ctx context.Context, key string, options func(string) (analysis.Options, error)) (*analysis.Index, error) {
	for {
		s.idxMu.Lock()
		if s.indexes == nil {
			s.idxMu.Unlock()
			return nil, ErrClosed
		}
		e, ok := s.indexes[key]
		if !ok {
			e = &indexEntry{ready: make(chan struct{}), refs: 1}
			s.indexes[key] = e
			s.idxMu.Unlock()
			e.ix, e.err = s.openIndex(ctx, key, options)
			if e.err != nil {
				s.idxMu.Lock()
				if s.indexes != nil && s.indexes[key] == e {
					delete(s.indexes, key)
				}
				s.idxMu.Unlock()
			}
			close(e.ready)
			return e.ix, e.err
		}
		s.idxMu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("open index of %s: %w", key, ctx.Err())
		}
		if e.err == nil {
			s.idxMu.Lock()
			current := s.indexes != nil && s.indexes[key] == e
			if current {
				e.refs++
			}
			s.idxMu.Unlock()
			if current {
				return e.ix, nil
			}
			continue // released or rebuilt meanwhile: look again
		}
		// The other caller's open failed (perhaps its context ended):
		// try again with this one.
	}
}

// openIndex opens the index of root with the options options gives.
func (s *Session) openIndex(ctx context.Context, root string, options func(string) (analysis.Options, error)) (*analysis.Index, error) {
	var opts analysis.Options
	if options != nil {
		o, err := options(root)
		if err != nil {
			return nil, fmt.Errorf("open index of %s: %w", root, err)
		}
		opts = o
	}
	opts.Root = root
	if opts.DBPath == "" {
		opts.DBPath = s.dirs.IndexPath(root)
	}
	return analysis.Open(ctx, opts)
}

// ReleaseIndex gives back a reference to ix that Index, OpenIndex or
// RebuildIndex took, and closes ix when it was the last: a language
// server releases the index of a folder the editor removed. Releasing an
// index the session does not hold, or after Close, does nothing.
func (s *Session) ReleaseIndex(ix *analysis.Index) error {
	if ix == nil {
		return nil
	}
	s.idxMu.Lock()
	if s.indexes == nil {
		s.idxMu.Unlock()
		return nil
	}
	var e *indexEntry
	for key, x := range s.indexes {
		if x.ix == ix {
			e = x
			if x.refs--; x.refs <= 0 {
				delete(s.indexes, key)
			}
			break
		}
	}
	if e == nil {
		for i, x := range s.retired {
			if x.ix == ix {
				e = x
				if x.refs--; x.refs <= 0 {
					s.retired = slices.Delete(s.retired, i, i+1)
				}
				break
			}
		}
	}
	last := e != nil && e.refs <= 0
	s.idxMu.Unlock()
	if !last {
		return nil
	}
	if err := ix.Close(); err != nil {
		return fmt.Errorf("close the index of %s: %w", ix.Root(), err)
	}
	return nil
}

// RebuildIndex replaces damaged, an index of the session found damaged,
// with one built afresh: its database is removed and a new index of the
// same root is opened with opts (as OpenIndex's), which later callers of
// Index get. damaged stays open for those holding it until they release
// it (or the session closes), so that its open documents can move to the
// new index. When the root's index was rebuilt already (another holder
// found the same damage), the current one is returned and nothing is
// removed. The caller holds a reference to the index returned.
func (s *Session) RebuildIndex(ctx context.Context, damaged *analysis.Index, opts analysis.Options) (*analysis.Index, error) {
	key, err := canonicalRoot(damaged.Root())
	if err != nil {
		return nil, fmt.Errorf("rebuild index: %w", err)
	}
	s.idxMu.Lock()
	if s.indexes == nil {
		s.idxMu.Unlock()
		return nil, ErrClosed
	}
	e, ok := s.indexes[key]
	if ok && e.ix == damaged {
		delete(s.indexes, key)
		s.retired = append(s.retired, e)
	}
	s.idxMu.Unlock()
	if ok && e.ix == damaged {
		if err := analysis.RemoveDatabase(damaged.Path()); err != nil {
			return nil, fmt.Errorf("rebuild the index of %s: %w", key, err)
		}
	}
	opts.Root = key
	if opts.DBPath == "" {
		opts.DBPath = damaged.Path()
	}
	return s.OpenIndex(ctx, opts)
}

// canonicalRoot returns root absolute, cleaned, with links resolved.
func canonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	return abs, nil
}

// Close stops the team's sync, writes the pending slot moves, closes every index, the routing
// statistics and the memory pool, each once, and reports every error. A
// second Close does nothing and returns nil.
func (s *Session) Close() error {
	s.mu.Lock()
	tm := s.team
	s.mu.Unlock()
	if tm != nil {
		tm.close() // its goroutine uses the memory: first
	}
	s.idxMu.Lock()
	indexes := slices.Collect(maps.Values(s.indexes))
	indexes = append(indexes, s.retired...)
	s.indexes, s.retired = nil, nil
	s.idxMu.Unlock()
	var errs []error
	for _, e := range indexes {
		<-e.ready
		if e.ix != nil {
			errs = append(errs, e.ix.Close())
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.Join(errs...)
	}
	s.closed = true
	if s.graph != nil {
		errs = append(errs, s.graph.Close()) // flushes; leaves the pool open
	}
	if s.docs != nil {
		errs = append(errs, s.docs.Close())
	}
	if s.mem != nil {
		errs = append(errs, s.mem.Close())
	}
	if s.fb != nil {
		errs = append(errs, s.fb.Close())
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	s.graph, s.docs, s.mem, s.fb, s.db = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}
