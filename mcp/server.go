package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Options configure a Service.
type Options struct {
	// Session owns the process's state: the memory database and its
	// stores, the routing statistics and the router. Its DocumentRoots
	// should return the index's root, for memory_search to see the
	// workspace's memory documents. Its owner closes it, after the
	// Service.
	Session *session.Session
	// Index is the workspace's index (Session.Index); the Service brings
	// it up to date in the background. Its owner closes it.
	Index *analysis.Index
	// Vectors is the vector signal the index embeds chunks with, for
	// semantic search; nil ranks by BM25 alone.
	Vectors retrieval.Vectorizer
	// Project names the workspace for project:<name> rule scopes; ""
	// means memory.ProjectName of the index's root.
	Project string
	// Profile selects the tools served; "" means ProfileAll.
	Profile Profile
	// Version is the server's version in the initialize answer.
	Version string
	// Log receives the server's log lines (stderr: stdout is the
	// protocol's); nil discards them.
	Log io.Writer
	// NoIndex answers from the index as it is, without updating it.
	NoIndex bool
	// MemoryOptions configure the memory store (memory.LLMOption: an LLM
	// that phrases proposals); the project is set from Project.
	MemoryOptions []memory.Option
	// MemoryDocuments are the globs that find the workspace's memory
	// documents for memory_search; nil means memdoc.DefaultGlobs.
	MemoryDocuments []string
}

// Service answers MCP tool calls about one workspace. Create it with New,
// serve it with Run, and Close it.
type Service struct {
	opts     Options
	ix       *analysis.Index
	root     string
	project  string
	router   *retrieval.Router
	searcher *retrieval.Searcher
	log      *log.Logger

	// indexing is set while the background update runs; done and total
	// are its progress, in files; indexErr is why it failed, if it did.
	indexing atomic.Bool
	done     atomic.Int64
	total    atomic.Int64
	indexErr atomic.Pointer[string]
	indexed  chan struct{}
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	memMu sync.Mutex
	mem   *memory.Store

	recall recallState

	closeOnce sync.Once
	closeErr  error
}

// New returns a Service over an opened index.
func New(opts Options) (*Service, error) {
	if opts.Index == nil {
		return nil, errors.New("mcp: no index")
	}
	if opts.Session == nil {
		return nil, errors.New("mcp: no session")
	}
	if opts.Profile == "" {
		opts.Profile = ProfileAll
	}
	if _, err := ParseProfile(string(opts.Profile)); err != nil {
		return nil, err
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	s := &Service{
		opts:    opts,
		ix:      opts.Index,
		root:    opts.Index.Root(),
		project: opts.Project,
		router:  opts.Session.Router(),
		log:     log.New(w, "anchorage mcp: ", log.LstdFlags),
		indexed: make(chan struct{}),
	}
	if s.project == "" {
		s.project = memory.ProjectName(s.root)
	}
	// The memory database is not created here: reading tools do not
	// create it; record_correction and propose do.
	fb, err := opts.Session.Feedback(context.Background())
	if err != nil {
		// Searches still answer; they are not recorded.
		s.log.Printf("searches are not recorded for routing statistics: %v", err)
		fb = nil
	}
	s.searcher = &retrieval.Searcher{
		Index: s.ix, Router: s.router, Vectors: opts.Vectors, Feedback: fb,
		Partial: s.partial,
	}
	if opts.NoIndex {
		close(s.indexed)
	}
	return s, nil
}

// Root returns the workspace root, absolute with links resolved.
func (s *Service) Root() string { return s.root }

// Server returns an MCP server with the tools of the Service's profile.
func (s *Service) Server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "anchorage", Title: "Anchorage", Version: s.opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
	})
	srv.AddReceivingMiddleware(shortErrors)
	for _, t := range s.tools() {
		if s.opts.Profile.Has(t.name) {
			t.add(srv)
		}
	}
	return srv
}

// instructions tell the agent what the server is for.
const instructions = `Anchorage knows this workspace's code graph (symbols, calls, inheritance), answers routed code searches, and keeps the user's coding rules anchored to real examples in the code. Tools answer from what is indexed so far: a result marked partial may miss code that is still being indexed. Rules are approved by the user only: record corrections and ask for proposals, never expect a proposal to become a rule by itself.`

// Start brings the index up to date in the background (unless
// Options.NoIndex); tools answer meanwhile from what is indexed so far.
func (s *Service) Start(ctx context.Context) {
	if s.opts.NoIndex || s.cancel != nil {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.indexing.Store(true)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.indexed)
		defer s.indexing.Store(false)
		start := time.Now()
		sum, err := s.ix.Update(ctx, func(p analysis.Progress) {
			s.done.Store(int64(p.Done))
			s.total.Store(int64(p.Total))
		})
		if err != nil {
			if ctx.Err() == nil {
				msg := err.Error()
				s.indexErr.Store(&msg)
				s.log.Printf("indexing %s failed: %v", s.root, err)
			}
			return
		}
		s.log.Printf("indexed %s: %d files (%d parsed), %d symbols in %.2fs",
			s.root, sum.Files, sum.Parsed, sum.Symbols, time.Since(start).Seconds())
	}()
}

// Indexed returns a channel closed when the background indexing ends.
func (s *Service) Indexed() <-chan struct{} { return s.indexed }

// Run starts indexing and serves MCP over t until the client leaves or
// ctx ends.
func (s *Service) Run(ctx context.Context, t sdk.Transport) error {
	s.Start(ctx)
	err := s.Server().Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Close stops indexing and writes what the memory graph keeps pending.
// The index, the memory and the routing statistics belong to the session,
// which closes them.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		s.wg.Wait()
		s.closeErr = s.recall.close()
	})
	return s.closeErr
}

// partial says whether the index is still being built (or failed to be),
// and how far it got: the notion of a partial answer that search uses.
func (s *Service) partial() (bool, string) {
	if p := s.indexErr.Load(); p != nil {
		return true, "indexing failed: " + *p
	}
	if !s.indexing.Load() {
		return false, ""
	}
	total := s.total.Load()
	if total == 0 {
		return true, "indexing: scanning the workspace"
	}
	return true, fmt.Sprintf("indexing: %d of %d files", s.done.Load(), total)
}

// IndexState is how complete the index is, in every code tool's answer.
type IndexState struct {
	// Partial is set while the workspace is still being indexed (or its
	// indexing failed): the answer may miss code not indexed yet.
	Partial bool `json:"partial"`
	// Notice says how far indexing got.
	Notice string `json:"notice,omitempty"`
}

func (s *Service) indexState() IndexState {
	p, why := s.partial()
	return IndexState{Partial: p, Notice: why}
}

// memoryStore returns the user's memory, opened on first use. When
// create is false and there is no database yet, it returns nil and no
// error. A database that cannot be opened is an error, and is opened
// again on the next call, never replaced.
func (s *Service) memoryStore(ctx context.Context, create bool) (*memory.Store, error) {
	s.memMu.Lock()
	defer s.memMu.Unlock()
	if s.mem != nil {
		return s.mem, nil
	}
	if !create && !s.opts.Session.MemoryExists() {
		return nil, nil
	}
	base, err := s.opts.Session.Memory(ctx)
	if err != nil {
		return nil, err
	}
	opts := append([]memory.Option{memory.WithProject(s.project)}, s.opts.MemoryOptions...)
	st, err := base.With(opts...)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", base.Path(), err)
	}
	s.mem = st
	return st, nil
}
