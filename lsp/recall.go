package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// Working-memory commands (package memory/recall): the slots A, B and C,
// memory search near them, and the memory statistics.
const (
	cmdAnchorsStatus = "anchorage.anchors.status"
	cmdAnchorsSet    = "anchorage.anchors.set"
	cmdAnchorsPin    = "anchorage.anchors.pin"
	cmdAnchorsUnpin  = "anchorage.anchors.unpin"
	cmdMemorySearch  = "anchorage.memory.search"
	cmdStats         = "anchorage.stats"
)

// recallCommandNames lists the working-memory commands, for initialize.
func recallCommandNames() []string {
	return []string{cmdAnchorsStatus, cmdAnchorsSet, cmdAnchorsPin, cmdAnchorsUnpin, cmdMemorySearch, cmdStats}
}

// recallSyncEvery is how often the slots' inputs bring the graph up to
// date with rules and documents written meanwhile (commands do it every
// time).
const recallSyncEvery = 10 * time.Second

// recallState is the memory graph as the server uses it, opened on first
// use once a memory database exists. Its zero value is ready to use.
type recallState struct {
	mu       sync.Mutex
	graph    *recall.Store
	docs     *memdoc.Store
	lastSync time.Time
	// warming is set while readyRecallStore opens or syncs the graph in
	// the background; busy while recallStore opens or syncs it.
	warming atomic.Bool
	busy    atomic.Bool

	// focusMu orders the slots' inputs; lastFocus is the last one fed,
	// so that edits within one symbol do not repeat it.
	focusMu   sync.Mutex
	lastFocus string
	// focusNext is the newest place to focus on, taken by the one
	// goroutine that runs while focusRunning is set: a burst of edits
	// moves the slots once, to where the last one was made.
	focusNext    atomic.Pointer[focusPlace]
	focusRunning atomic.Bool
}

// focusPlace is where an edit was made.
type focusPlace struct {
	f   *folder
	rel string
	pos protocol.Position
}

// closeRecall closes the memory graph and the memory documents' store,
// if they were opened.
func (s *Server) closeRecall() {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if s.rec.graph != nil {
		s.rec.graph.Close()
		s.rec.graph = nil
	}
	if s.rec.docs != nil {
		s.rec.docs.Close()
		s.rec.docs = nil
	}
}

// memoryDocumentStore returns the memory documents' store in the memory
// database, opened (and the database created) on first use. It stays open
// until the server stops, shared by the syncs of memory documents and the
// memory graph.
func (s *Server) memoryDocumentStore(ctx context.Context) (*memdoc.Store, error) {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.memoryDocumentStoreLocked(ctx)
}

// memoryDocumentStoreLocked is memoryDocumentStore with s.rec.mu held.
func (s *Server) memoryDocumentStoreLocked(ctx context.Context) (*memdoc.Store, error) {
	if s.rec.docs != nil {
		return s.rec.docs, nil
	}
	path, err := s.memoryPath()
	if err != nil {
		return nil, fmt.Errorf("memory documents: %w", err)
	}
	docs, err := memdoc.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	s.rec.docs = docs
	return docs, nil
}

// recallStore returns the memory graph over the user's rules and the
// memory documents of the workspace folders, brought up to date when
// sync is true or recallSyncEvery has passed. Without a memory database
// it returns nil and no error.
func (s *Server) recallStore(ctx context.Context, sync bool) (*recall.Store, error) {
	mem, err := s.memoryStore(ctx, false)
	if err != nil || mem == nil {
		return nil, err
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if s.rec.graph == nil || sync || time.Since(s.rec.lastSync) > recallSyncEvery {
		s.rec.busy.Store(true)
		defer s.rec.busy.Store(false)
	}
	if s.rec.graph == nil {
		path, err := s.memoryPath()
		if err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		docs, err := s.memoryDocumentStoreLocked(ctx)
		if err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		var roots []string
		for _, f := range sortedFolders(s.snapshotFolders()) {
			roots = append(roots, f.root())
		}
		g, err := recall.Open(ctx, path, recall.WithSources(recall.Rules{Store: mem}, recall.Documents{Store: docs, Roots: roots}))
		if err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		s.rec.graph = g
		sync = true
	}
	if sync || time.Since(s.rec.lastSync) > recallSyncEvery {
		if _, err := s.rec.graph.Sync(ctx); err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		s.rec.lastSync = time.Now()
	}
	return s.rec.graph, nil
}

// readyRecallStore returns the memory graph when it is open and nobody is
// opening or syncing it, without waiting. Otherwise it returns nil (or
// the graph as it is, when only a sync is due) and opens or syncs it in
// the background, once at a time.
func (s *Server) readyRecallStore() *recall.Store {
	if !s.rec.mu.TryLock() {
		if s.rec.busy.Load() {
			return nil // being opened or synced: that takes a while
		}
		s.rec.mu.Lock() // held for a moment only
	}
	g := s.rec.graph
	due := g == nil || time.Since(s.rec.lastSync) > recallSyncEvery
	s.rec.mu.Unlock()
	if due && s.rec.warming.CompareAndSwap(false, true) {
		s.goBackground(func(ctx context.Context) {
			defer s.rec.warming.Store(false)
			if _, err := s.recallStore(ctx, false); err != nil && ctx.Err() == nil {
				s.log.Debug("memory graph", zap.Error(err))
			}
		})
	}
	return g
}

// recallCommand runs a working-memory command; ok is false for a command
// that is not one.
func (s *Server) recallCommand(ctx context.Context, name string, args []any) (result any, ok bool, err error) {
	switch name {
	case cmdAnchorsStatus:
		result, err = s.anchorsStatus(ctx)
	case cmdAnchorsSet, cmdAnchorsPin, cmdAnchorsUnpin:
		result, err = s.anchorsChange(ctx, name, args)
	case cmdMemorySearch:
		result, err = s.memorySearch(ctx, args)
	case cmdStats:
		result, err = s.memoryGraphStats(ctx)
	default:
		return nil, false, nil
	}
	return result, true, err
}

// emptySlots is the status of the slots before there is a memory.
func emptySlots() recall.Status {
	st := recall.Status{Slots: []recall.SlotStatus{}}
	for _, n := range recall.SlotNames() {
		st.Slots = append(st.Slots, recall.SlotStatus{Slot: n, HopBudget: recall.DefaultParams().HopBudget})
	}
	return st
}

func (s *Server) anchorsStatus(ctx context.Context) (any, error) {
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(cmdAnchorsStatus, err)
	}
	if g == nil {
		return emptySlots(), nil
	}
	st, err := g.Status(ctx)
	if err != nil {
		return nil, s.memoryError(cmdAnchorsStatus, err)
	}
	return st, nil
}

// slotArgs are the arguments of anchors.set|pin|unpin: {"slot": "A",
// "id": "rule:12"} or positional ["A", "rule:12"].
type slotArgs struct {
	Slot string `json:"slot"`
	ID   string `json:"id"`
}

func decodeSlotArgs(args []any) (slotArgs, error) {
	var a slotArgs
	if len(args) == 0 {
		return a, errors.New("missing argument: the slot")
	}
	switch v := args[0].(type) {
	case string:
		a.Slot = v
		if len(args) > 1 {
			id, ok := args[1].(string)
			if !ok {
				return a, fmt.Errorf("the memory id must be a string, not %v", args[1])
			}
			a.ID = id
		}
	default:
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, fmt.Errorf("arguments: %w", err)
		}
	}
	if _, err := recall.ParseSlot(a.Slot); err != nil {
		return a, err
	}
	return a, nil
}

func (s *Server) anchorsChange(ctx context.Context, name string, args []any) (any, error) {
	a, err := decodeSlotArgs(args)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, err)
	}
	if name != cmdAnchorsUnpin {
		if err := recall.CheckID(a.ID); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, err)
		}
	}
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(name, err)
	}
	if g == nil {
		if name == cmdAnchorsUnpin {
			return emptySlots(), nil
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v: %s (there is no memory yet)", name, recall.ErrUnknownMemory, a.ID)
	}
	var st recall.Status
	switch name {
	case cmdAnchorsSet:
		st, err = g.Set(ctx, a.Slot, a.ID)
	case cmdAnchorsPin:
		st, err = g.Pin(ctx, a.Slot, a.ID)
	default:
		st, err = g.Unpin(ctx, a.Slot)
	}
	if errors.Is(err, recall.ErrUnknownMemory) || errors.Is(err, recall.ErrUnknownSlot) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, err)
	}
	if err != nil {
		return nil, s.memoryError(name, err)
	}
	return st, nil
}

// memorySearchArgs are the arguments of anchorage.memory.search.
type memorySearchArgs struct {
	Query          string   `json:"query"`
	Slot           string   `json:"slot"`
	Radius         int      `json:"radius"`
	Fallback       *bool    `json:"fallback"`
	TopK           int      `json:"top_k"`
	Anchors        []string `json:"anchors"`
	IncludeContent bool     `json:"includeContent"`
}

func (s *Server) memorySearch(ctx context.Context, args []any) (any, error) {
	var a memorySearchArgs
	if len(args) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: missing argument: the query", cmdMemorySearch)
	}
	switch v := args[0].(type) {
	case string:
		a.Query = v
	default:
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: arguments: %v", cmdMemorySearch, err)
		}
	}
	q := recall.Query{Text: a.Query, Slot: a.Slot, Radius: a.Radius, NoFallback: a.Fallback != nil && !*a.Fallback,
		TopK: a.TopK, Anchors: a.Anchors, IncludeContent: a.IncludeContent}
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(cmdMemorySearch, err)
	}
	if g == nil {
		if strings.TrimSpace(q.Text) == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: empty query", cmdMemorySearch)
		}
		return recall.Response{Results: []recall.Result{}, Notices: []string{"there is no memory yet"}}, nil
	}
	resp, err := g.Search(ctx, q)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	return resp, nil
}

// memoryStatsResult is anchorage.stats: the rules and the memory graph.
type memoryStatsResult struct {
	Memory *memory.Stats   `json:"memory"`
	Graph  *recall.Metrics `json:"graph"`
}

func (s *Server) memoryGraphStats(ctx context.Context) (any, error) {
	out := memoryStatsResult{}
	mem, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil, s.memoryError(cmdStats, err)
	}
	if mem == nil {
		return out, nil
	}
	st, err := mem.Stats(ctx)
	if err != nil {
		return nil, s.memoryError(cmdStats, err)
	}
	out.Memory = &st
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return nil, s.memoryError(cmdStats, err)
	}
	m, err := g.Metrics(ctx)
	if err != nil {
		return nil, s.memoryError(cmdStats, err)
	}
	out.Graph = &m
	return out, nil
}

// focusRecall feeds what the user works on, the document u and the
// innermost symbol around pos, to the working-memory slots, in the
// background. Nothing happens without a memory database, and an input
// equal to the last one is not fed again.
func (s *Server) focusRecall(u protocol.DocumentURI, pos protocol.Position) {
	f, rel, err := s.folderFor(u)
	if err != nil {
		return
	}
	s.rec.focusNext.Store(&focusPlace{f: f, rel: rel, pos: pos})
	if !s.rec.focusRunning.CompareAndSwap(false, true) {
		return // the running goroutine takes it
	}
	s.goBackground(func(ctx context.Context) {
		for {
			p := s.rec.focusNext.Swap(nil)
			if p == nil {
				s.rec.focusRunning.Store(false)
				// An edit may have come between the Swap and the Store.
				if s.rec.focusNext.Load() == nil || !s.rec.focusRunning.CompareAndSwap(false, true) {
					return
				}
				continue
			}
			s.focusOn(ctx, p)
		}
	})
}

// focusOn feeds the symbol at a place to the working-memory slots.
func (s *Server) focusOn(ctx context.Context, p *focusPlace) {
	syms, err := p.f.ws.FileSymbols(ctx, p.rel)
	if err != nil {
		return
	}
	input := recall.FocusText(p.rel, syms, int(p.pos.Line))
	s.rec.focusMu.Lock()
	defer s.rec.focusMu.Unlock()
	if input == s.rec.lastFocus {
		return
	}
	g, err := s.recallStore(ctx, false)
	if err != nil || g == nil {
		return
	}
	if _, err := g.Focus(ctx, input); err != nil {
		if ctx.Err() == nil {
			s.log.Debug("memory slots", zap.Error(err))
		}
		return
	}
	s.rec.lastFocus = input
}

// recallRuleIDs is memory.InjectDeps.Recall: the rules a localized memory
// search finds for text, near the slot closest to it, best first.
func (s *Server) recallRuleIDs(ctx context.Context, text string) ([]int64, error) {
	g, err := s.recallStore(ctx, false)
	if err != nil || g == nil {
		return nil, err
	}
	return g.RuleIDs(ctx, text)
}

// rulesChanged is memory.WithOnChange: after every write of rules, the
// memory graph, once opened, takes the change in the background (a new
// rule near a slot's anchor becomes the anchor).
func (s *Server) rulesChanged(context.Context, []int64) {
	s.rec.mu.Lock()
	open := s.rec.graph != nil
	s.rec.mu.Unlock()
	if !open {
		return // opened later, it syncs then
	}
	s.goBackground(func(ctx context.Context) {
		if _, err := s.recallStore(ctx, true); err != nil && ctx.Err() == nil {
			s.log.Debug("memory graph", zap.Error(err))
		}
	})
}
