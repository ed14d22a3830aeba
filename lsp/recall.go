package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

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
	// flushing is set while a background write of the slots waits.
	flushing atomic.Bool
}

// focusPlace is where an edit was made.
type focusPlace struct {
	f   *folder
	rel string
	pos protocol.Position
	// syms are the document's symbols when the request read them.
	syms []analysis.SymbolInfo
}

// closeRecall closes the memory graph and the memory documents' store,
// if they were opened.
func (s *Server) closeRecall() {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	s.rec.graph = nil
	s.rec.docs = nil
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
	if _, err := s.userDatabase(ctx); err != nil {
		return nil, fmt.Errorf("memory documents: %w", err)
	}
	sess, err := s.session()
	if err != nil {
		return nil, fmt.Errorf("memory documents: %w", err)
	}
	docs, err := sess.Documents(ctx)
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
	mem, err := s.openedMemory(ctx, false)
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
		if _, err := s.memoryDocumentStoreLocked(ctx); err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		sess, err := s.session()
		if err != nil {
			return nil, fmt.Errorf("memory graph: %w", err)
		}
		g, err := sess.Recall(ctx)
		if err != nil {
			return nil, err
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

// slotsPending schedules one background write of the slots' moves and
// counters, Options.SlotFlushEvery from now: hovers and edits move the
// slots, and a read must not write (nor wait for the disk). The server
// writes what is left when it stops (closeRecall).
func (s *Server) slotsPending() {
	every := s.opts.SlotFlushEvery
	if every == 0 {
		every = DefaultSlotFlushEvery
	}
	if every < 0 || !s.rec.flushing.CompareAndSwap(false, true) {
		return
	}
	s.goBackground(func(ctx context.Context) {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-ctx.Done():
			s.rec.flushing.Store(false)
			return // closeRecall writes them
		case <-t.C:
		}
		s.rec.flushing.Store(false)
		s.rec.mu.Lock()
		g := s.rec.graph
		s.rec.mu.Unlock()
		if g == nil {
			return
		}
		if err := g.Flush(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("write the memory slots", zap.Error(err))
		}
	})
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
// emptySlots is the status of the slots before there is a memory.
func emptySlots() recall.Status {
	st := recall.Status{Slots: []recall.SlotStatus{}}
	for _, n := range recall.SlotNames() {
		st.Slots = append(st.Slots, recall.SlotStatus{Slot: n, HopBudget: recall.DefaultParams().HopBudget})
	}
	return st
}

// slotsStatus runs anchorage.slots.status.
func (s *Server) slotsStatus(ctx context.Context, _ command.NoArgs) (recall.Status, error) {
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return recall.Status{}, s.memoryError(string(command.SlotsStatus.Name()), err)
	}
	if g == nil {
		return emptySlots(), nil
	}
	st, err := g.Status(ctx)
	if err != nil {
		return recall.Status{}, s.memoryError(string(command.SlotsStatus.Name()), err)
	}
	return st, nil
}

// slotsChange returns the handler of anchorage.slots.set, pin or unpin.
func (s *Server) slotsChange(cmd command.Name) func(context.Context, command.SlotArgs) (recall.Status, error) {
	return func(ctx context.Context, a command.SlotArgs) (recall.Status, error) {
		return s.changeSlot(ctx, cmd, a)
	}
}

// changeSlot sets, pins or unpins a slot.
func (s *Server) changeSlot(ctx context.Context, cmd command.Name, a command.SlotArgs) (recall.Status, error) {
	name := string(cmd)
	if cmd != command.SlotsUnpin.Name() {
		if err := recall.CheckID(a.ID); err != nil {
			return recall.Status{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, err)
		}
	}
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return recall.Status{}, s.memoryError(name, err)
	}
	if g == nil {
		if cmd == command.SlotsUnpin.Name() {
			return emptySlots(), nil
		}
		return recall.Status{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v: %s (there is no memory yet)", name, recall.ErrUnknownMemory, a.ID)
	}
	var st recall.Status
	switch cmd {
	case command.SlotsSet.Name():
		st, err = g.Set(ctx, a.Slot, a.ID)
	case command.SlotsPin.Name():
		st, err = g.Pin(ctx, a.Slot, a.ID)
	default:
		st, err = g.Unpin(ctx, a.Slot)
	}
	if errors.Is(err, recall.ErrUnknownMemory) || errors.Is(err, recall.ErrUnknownSlot) {
		return recall.Status{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, err)
	}
	if err != nil {
		return recall.Status{}, s.memoryError(name, err)
	}
	return st, nil
}

// memorySearch runs anchorage.memory.search.
func (s *Server) memorySearch(ctx context.Context, a command.MemorySearchArgs) (recall.Response, error) {
	q := recall.Query{Text: a.Query, Slot: a.Slot, Radius: a.Radius, NoFallback: a.Fallback != nil && !*a.Fallback,
		TopK: a.TopK, Anchors: a.Anchors, IncludeContent: a.IncludeContent}
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return recall.Response{}, s.memoryError(string(command.MemorySearch.Name()), err)
	}
	if g == nil {
		if strings.TrimSpace(q.Text) == "" {
			return recall.Response{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: empty query", string(command.MemorySearch.Name()))
		}
		return recall.Response{Results: []recall.Result{}, Notices: []string{"there is no memory yet"}}, nil
	}
	resp, err := g.Search(ctx, q)
	if err != nil {
		return recall.Response{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	return resp, nil
}

// memoryGraphStats runs anchorage.stats.
func (s *Server) memoryGraphStats(ctx context.Context, _ command.NoArgs) (command.StatsResult, error) {
	out := command.StatsResult{}
	mem, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.StatsResult{}, s.memoryError(string(command.Stats.Name()), err)
	}
	if mem == nil {
		return out, nil
	}
	st, err := mem.Stats(ctx)
	if err != nil {
		return command.StatsResult{}, s.memoryError(string(command.Stats.Name()), err)
	}
	out.Memory = &st
	g, err := s.recallStore(ctx, true)
	if err != nil {
		return command.StatsResult{}, s.memoryError(string(command.Stats.Name()), err)
	}
	m, err := g.Metrics(ctx)
	if err != nil {
		return command.StatsResult{}, s.memoryError(string(command.Stats.Name()), err)
	}
	out.Graph = &m
	return out, nil
}

// focusRecall feeds what the user works on, the document u and the
// innermost symbol around pos, to the working-memory slots, in the
// background. Nothing happens without a memory database, and an input
// equal to the last one is not fed again.
func (s *Server) focusRecall(u protocol.DocumentURI, pos protocol.Position) {
	s.focusRecallOn(u, pos, nil)
}

// focusRecallOn is focusRecall with the document's symbols, when the
// caller has read them (nil: they are read in the background).
func (s *Server) focusRecallOn(u protocol.DocumentURI, pos protocol.Position, syms []analysis.SymbolInfo) {
	f, rel, err := s.folderFor(u)
	if err != nil {
		return
	}
	s.rec.focusNext.Store(&focusPlace{f: f, rel: rel, pos: pos, syms: syms})
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
	syms := p.syms
	if syms == nil {
		// The newest parse's symbols, never a parse of its own: edits come
		// faster than parses, and requests need the parser.
		var ok bool
		if syms, ok = p.f.ws.ParsedSymbols(p.rel); !ok {
			var err error
			if syms, err = p.f.ws.FileSymbols(ctx, p.rel); err != nil {
				return
			}
		}
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
