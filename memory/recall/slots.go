package recall

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
)

// SlotNames are the working-memory slots.
var slotNames = [...]string{"A", "B", "C"}

// SlotNames returns the names of the slots: A, B and C.
func SlotNames() []string { return slotNames[:] }

// ErrUnknownSlot reports a slot name other than A, B or C.
var ErrUnknownSlot = errors.New("no such slot (want A, B or C)")

// ParseSlot returns the slot name s stands for ("a" or " A " is "A").
func ParseSlot(s string) (string, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	for _, n := range slotNames {
		if t == n {
			return n, nil
		}
	}
	return "", fmt.Errorf("slot %q: %w", s, ErrUnknownSlot)
}

func slotIndex(name string) int {
	for i, n := range slotNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Slot is one working-memory slot.
type Slot struct {
	// Name is A, B or C.
	Name string
	// Anchor is the memory id searches start from, or "".
	Anchor string
	// Topic is the slot's topic vector; zero for an unused slot.
	Topic Vec
	// Summary says what the slot is about: the input that took it or
	// the title of the memory set on it.
	Summary string
	// HopBudget is the slot's search radius.
	HopBudget int
	// Pinned slots keep their anchor and topic whatever the user does.
	Pinned bool
	// LastUsed is when the slot last took an input or a search; zero
	// for never.
	LastUsed time.Time

	dirty bool // changed, to be written
	moved bool // the anchor changed
}

// readSlots reads the three slots; those never written have the
// defaults.
func (s *Store) readSlots(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) ([]Slot, error) {
	out := make([]Slot, len(slotNames))
	for i, n := range slotNames {
		out[i] = Slot{Name: n, HopBudget: s.p.HopBudget}
	}
	rows, err := q.QueryContext(ctx, `SELECT slot, anchor, topic, summary, hop_budget, pinned, last_used FROM recall_slots`)
	if err != nil {
		return nil, fmt.Errorf("read slots: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name   string
			anchor sql.NullString
			topic  []byte
			sl     Slot
			last   int64
		)
		if err := rows.Scan(&name, &anchor, &topic, &sl.Summary, &sl.HopBudget, &sl.Pinned, &last); err != nil {
			return nil, fmt.Errorf("read slots: %w", err)
		}
		i := slotIndex(name)
		if i < 0 {
			continue
		}
		sl.Name, sl.Anchor = name, anchor.String
		if len(topic) > 0 {
			if err := sl.Topic.UnmarshalBinary(topic); err != nil {
				// A broken topic is forgotten, not fatal: the slot
				// takes the next input.
				sl.Topic = Vec{}
			}
		}
		if last > 0 {
			sl.LastUsed = time.UnixMilli(last)
		}
		if sl.HopBudget <= 0 {
			sl.HopBudget = s.p.HopBudget
		}
		out[i] = sl
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read slots: %w", err)
	}
	for i, sl := range out {
		if p, ok := s.pendingSlots[sl.Name]; ok {
			p.dirty, p.moved = false, false
			out[i] = p
		}
	}
	return out, nil
}

// writeSlots writes the slots marked dirty.
func writeSlots(ctx context.Context, tx *sql.Tx, slots []Slot) error {
	for _, sl := range slots {
		if !sl.dirty {
			continue
		}
		var anchor, topic any
		if sl.Anchor != "" {
			anchor = sl.Anchor
		}
		if !sl.Topic.IsZero() {
			topic, _ = sl.Topic.MarshalBinary()
		}
		var last int64
		if !sl.LastUsed.IsZero() {
			last = sl.LastUsed.UnixMilli()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO recall_slots(slot, anchor, topic, summary, hop_budget, pinned, last_used)
			VALUES(?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(slot) DO UPDATE SET anchor = excluded.anchor, topic = excluded.topic, summary = excluded.summary,
				hop_budget = excluded.hop_budget, pinned = excluded.pinned, last_used = excluded.last_used`,
			sl.Name, anchor, topic, sl.Summary, sl.HopBudget, sl.Pinned, last); err != nil {
			return fmt.Errorf("write slot %s: %w", sl.Name, err)
		}
	}
	return nil
}

// selectSlot returns the slot an input of topic v goes to, and false for
// a new topic (no slot's topic is at least Params.NewTopic similar). The
// active slot (the last used) keeps the input unless another is closer by
// more than Params.Hysteresis, so that inputs between two close topics do
// not flap between their slots. With anchored, only slots with an anchor
// are considered.
func selectSlot(p Params, slots []Slot, v Vec, anchored bool) (int, bool) {
	active, best := -1, -1
	sims := make([]float64, len(slots))
	for i, sl := range slots {
		if sl.Topic.IsZero() || (anchored && sl.Anchor == "") {
			continue
		}
		sims[i] = Similarity(v, sl.Topic)
		if best < 0 || sims[i] > sims[best] {
			best = i
		}
		if active < 0 || sl.LastUsed.After(slots[active].LastUsed) {
			active = i
		}
	}
	if best < 0 || sims[best] < p.NewTopic {
		return -1, false
	}
	if active != best && sims[active] >= p.NewTopic && sims[best] < sims[active]+p.Hysteresis {
		return active, true
	}
	return best, true
}

// activeSlot returns the most recently used slot with an anchor, or -1.
func activeSlot(slots []Slot) int {
	k := -1
	for i, sl := range slots {
		if sl.Anchor != "" && (k < 0 || sl.LastUsed.After(slots[k].LastUsed)) {
			k = i
		}
	}
	return k
}

// reassignable returns the slot a new topic takes: an unused slot, else
// the least recently used; never a pinned one. It returns -1 when every
// slot is pinned.
func reassignable(slots []Slot) int {
	k := -1
	for i, sl := range slots {
		if sl.Pinned {
			continue
		}
		if sl.Topic.IsZero() && sl.Anchor == "" {
			return i
		}
		if k < 0 || sl.LastUsed.Before(slots[k].LastUsed) {
			k = i
		}
	}
	return k
}

// summarize shortens an input to a slot summary: its first line, at most
// 80 bytes.
func summarize(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexAny(text, "\r\n"); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	const max = 80
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

// FocusResult says where an input went.
type FocusResult struct {
	// Slot is the slot that took the input, or "" (an input without a
	// known word, or every slot pinned and none close).
	Slot string `json:"slot"`
	// NewTopic reports that the input took a slot for a new topic.
	NewTopic bool `json:"new_topic"`
	// Anchor is the slot's anchor afterwards.
	Anchor string `json:"anchor"`
}

// FocusText is Focus's input for a position in a file: the file's path
// (rel, slash-separated) and the innermost symbol of syms whose range
// holds line (0-based), with its signature and doc.
func FocusText(rel string, syms []analysis.SymbolInfo, line int) string {
	var best *analysis.SymbolInfo
	for i := range syms {
		sym := &syms[i]
		if sym.Kind == analysis.KindModule || line < sym.Range.Start.Line || line > sym.Range.End.Line {
			continue
		}
		if best == nil || sym.Range.End.Line-sym.Range.Start.Line <= best.Range.End.Line-best.Range.Start.Line {
			best = sym
		}
	}
	parts := []string{strings.ReplaceAll(rel, "/", " ")}
	if best != nil {
		parts = append(parts, best.QualifiedName, best.Signature, best.Doc)
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// Focus feeds what the user works on (a file's path, the symbol at the
// cursor, its text) to the slots: the slot whose topic is close takes it
// (with hysteresis, see selectSlot) and its topic moves toward it, unless
// pinned; an input far from every slot is a new topic and takes the least
// recently used unpinned slot, anchored on the memory that best matches
// it (if one scores at least Params.Hit).
func (s *Store) Focus(ctx context.Context, text string) (FocusResult, error) {
	v := s.emb.Embed(text)
	if v.IsZero() {
		return FocusResult{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		return FocusResult{}, fmt.Errorf("focus: %w", err)
	}
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		return FocusResult{}, fmt.Errorf("focus: %w", err)
	}
	now := s.now()
	var res FocusResult
	k, ok := selectSlot(s.p, slots, v, false)
	if ok {
		sl := &slots[k]
		sl.LastUsed, sl.dirty = now, true
		if !sl.Pinned {
			sl.Topic = Blend(sl.Topic, v, s.p.TopicRate)
			if sl.Anchor == "" {
				s.anchorOnBest(g, sl, newScorer(s.p, v, text))
			}
		}
	} else {
		if k = reassignable(slots); k < 0 {
			return FocusResult{}, nil
		}
		sl := &slots[k]
		*sl = Slot{Name: sl.Name, HopBudget: sl.HopBudget, Topic: v, Summary: summarize(text), LastUsed: now, dirty: true,
			Anchor: sl.Anchor}
		s.anchorOnBest(g, sl, newScorer(s.p, v, text))
		res.NewTopic = true
	}
	if err := s.recordSlots(ctx, slots, nil); err != nil {
		return FocusResult{}, fmt.Errorf("focus: %w", err)
	}
	res.Slot, res.Anchor = slots[k].Name, slots[k].Anchor
	return res, nil
}

// anchorOnBest anchors sl on the memory that best matches, if one scores
// at least Params.Hit; otherwise sl keeps no anchor.
func (s *Store) anchorOnBest(g *graph, sl *Slot, sc scorer) {
	old := sl.Anchor
	sl.Anchor = ""
	if top := g.global(sc, 1); len(top) > 0 && top[0].score >= s.p.Hit {
		sl.Anchor = g.nodes[top[0].node].ID
	}
	if sl.Anchor != old && sl.Anchor != "" {
		sl.moved = true
	}
}

// saveSlots writes the dirty slots and adds the anchor moves and the
// counters to the metrics, in one transaction. A read-only database (a
// read-only data directory) keeps none of it: searches still answer.
func (s *Store) saveSlots(ctx context.Context, slots []Slot, counters map[string]int64) error {
	if s.readOnly {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := writeSlots(ctx, tx, slots); err != nil {
		return err
	}
	if counters == nil {
		counters = map[string]int64{}
	}
	for _, sl := range slots {
		if sl.moved {
			counters[counterAnchorMoves]++
		}
	}
	if err := addCounters(ctx, tx, counters); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, sl := range slots {
		if sl.dirty {
			delete(s.pendingSlots, sl.Name) // written as it is now
		}
	}
	return nil
}

// recordSlots records what following the user changed (slot moves and
// the counters of searches): with WithDeferredWrites it is kept in memory
// for Flush, and nothing is written; otherwise it is saved at once (see
// saveSlots). s.mu must be held.
func (s *Store) recordSlots(ctx context.Context, slots []Slot, counters map[string]int64) error {
	if !s.deferred {
		return s.saveSlots(ctx, slots, counters)
	}
	if s.readOnly {
		return nil
	}
	if s.pendingSlots == nil {
		s.pendingSlots = map[string]Slot{}
	}
	if s.pendingCounters == nil {
		s.pendingCounters = map[string]int64{}
	}
	added := false
	for _, sl := range slots {
		if sl.moved {
			s.pendingCounters[counterAnchorMoves]++
			added = true
		}
		if sl.dirty {
			s.pendingSlots[sl.Name] = sl
			added = true
		}
	}
	for k, v := range counters {
		if v != 0 {
			s.pendingCounters[k] += v
			added = true
		}
	}
	if added && s.onPending != nil {
		s.onPending()
	}
	return nil
}

// Pending reports whether slot moves or counters wait for Flush.
func (s *Store) Pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pendingSlots) > 0 || len(s.pendingCounters) > 0
}

// Flush writes the slot moves and counters that WithDeferredWrites kept in
// memory, in one transaction; on failure they stay pending for the next
// Flush. It does nothing when none are pending.
func (s *Store) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pendingSlots) == 0 && len(s.pendingCounters) == 0 {
		return nil
	}
	slots := make([]Slot, 0, len(s.pendingSlots))
	for _, n := range slotNames {
		if sl, ok := s.pendingSlots[n]; ok {
			sl.dirty, sl.moved = true, false
			slots = append(slots, sl)
		}
	}
	counters := s.pendingCounters
	s.pendingCounters = nil
	if err := s.saveSlots(ctx, slots, counters); err != nil {
		if s.pendingCounters == nil {
			s.pendingCounters = map[string]int64{}
		}
		for k, v := range counters {
			s.pendingCounters[k] += v
		}
		return s.db.Wrap("write memory slots", err)
	}
	return nil
}

// AnchorInfo names a slot's anchor.
type AnchorInfo struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
}

// SlotStatus is a slot as anchorage.anchors.status shows it.
type SlotStatus struct {
	Slot string `json:"slot"`
	// Anchor is nil for a slot without one.
	Anchor    *AnchorInfo `json:"anchor"`
	Summary   string      `json:"summary"`
	Pinned    bool        `json:"pinned"`
	HopBudget int         `json:"hop_budget"`
	// LastUsed is RFC 3339 in UTC, or "" for never.
	LastUsed string `json:"last_used"`
}

// Status is the three slots.
type Status struct {
	Slots []SlotStatus `json:"slots"`
}

// Status returns the slots.
func (s *Store) Status(ctx context.Context) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked(ctx)
}

func (s *Store) statusLocked(ctx context.Context) (Status, error) {
	g, err := s.graphLocked(ctx)
	if err != nil {
		return Status{}, fmt.Errorf("slot status: %w", err)
	}
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		return Status{}, fmt.Errorf("slot status: %w", err)
	}
	out := Status{Slots: []SlotStatus{}}
	for _, sl := range slots {
		st := SlotStatus{Slot: sl.Name, Summary: sl.Summary, Pinned: sl.Pinned, HopBudget: sl.HopBudget}
		if !sl.LastUsed.IsZero() {
			st.LastUsed = sl.LastUsed.UTC().Format(time.RFC3339)
		}
		if sl.Anchor != "" {
			st.Anchor = &AnchorInfo{ID: sl.Anchor, Kind: kindOf(sl.Anchor)}
			if i, ok := g.index[sl.Anchor]; ok {
				st.Anchor.Kind, st.Anchor.Title = g.nodes[i].Kind, g.nodes[i].Title
			}
		}
		out.Slots = append(out.Slots, st)
	}
	return out, nil
}

func kindOf(id string) string {
	if strings.HasPrefix(id, "doc:") {
		return KindDocument
	}
	return KindRule
}

// Set anchors slot on the memory id: the slot's topic becomes the
// memory's and its summary the memory's title. A pinned slot stays pinned
// (on the new anchor). It returns the slots afterwards.
func (s *Store) Set(ctx context.Context, slot, id string) (Status, error) {
	return s.setSlot(ctx, slot, id, false)
}

// Pin anchors slot on id like Set and pins it: automatic moves (searches,
// inputs, new rules) leave it as it is until Unpin.
func (s *Store) Pin(ctx context.Context, slot, id string) (Status, error) {
	return s.setSlot(ctx, slot, id, true)
}

func (s *Store) setSlot(ctx context.Context, slot, id string, pin bool) (Status, error) {
	name, err := ParseSlot(slot)
	if err != nil {
		return Status{}, err
	}
	if err := CheckID(id); err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		return Status{}, fmt.Errorf("set slot %s: %w", name, err)
	}
	i, ok := g.index[id]
	if !ok {
		return Status{}, fmt.Errorf("set slot %s: %w: %s (run anchorage anchors bootstrap if it is new)", name, ErrUnknownMemory, id)
	}
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		return Status{}, fmt.Errorf("set slot %s: %w", name, err)
	}
	sl := &slots[slotIndex(name)]
	sl.moved = sl.Anchor != id
	sl.Anchor, sl.Topic, sl.Summary = id, g.nodes[i].vec, g.nodes[i].Title
	sl.Pinned = sl.Pinned || pin
	sl.LastUsed, sl.dirty = s.now(), true
	if err := s.saveSlots(ctx, slots, nil); err != nil {
		return Status{}, fmt.Errorf("set slot %s: %w", name, err)
	}
	return s.statusLocked(ctx)
}

// Unpin lets slot move again.
func (s *Store) Unpin(ctx context.Context, slot string) (Status, error) {
	name, err := ParseSlot(slot)
	if err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		return Status{}, fmt.Errorf("unpin slot %s: %w", name, err)
	}
	sl := &slots[slotIndex(name)]
	sl.Pinned, sl.dirty = false, true
	if err := s.saveSlots(ctx, slots, nil); err != nil {
		return Status{}, fmt.Errorf("unpin slot %s: %w", name, err)
	}
	return s.statusLocked(ctx)
}
