// Package recall keeps a graph over the user's memories (coding rules and
// memory documents) and three working-memory slots, A, B and C, that
// follow what the user works on, so that a memory search can look near
// the current topic first and only fall back to ranking every memory.
//
// The graph links two memories by an edge of weight
// w = α·sim + β·time + γ·co (Params): sim is the similarity of their
// topic vectors (see Vec), time their closeness in time, co their shared
// tags (a rule's scope and category, a document's context type and
// tier). Edges lighter than θ are pruned and each memory keeps its kmax
// heaviest. Sync keeps the graph equal to its Sources (by id and update
// time) and Bootstrap rebuilds it.
//
// A slot holds an anchor memory, a topic vector, a summary, a hop budget,
// a pinned flag and when it was last used. Focus feeds a slot with what
// the user works on; Search, given a slot (or choosing one), searches the
// graph from the slot's anchor out to its radius, moves the anchor to
// the best hit, and falls back to the global ranking when nothing near
// the anchor is relevant enough (Params.Hit).
//
// Everything is kept in the user's memory database (the file of package
// memory), in tables of its own under the component "recall" of
// schema_versions. A Store keeps the graph in memory too and reloads it
// when another process changed it.
package recall

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anchorage-dev/anchorage/state"
)

// Component is this package's row in schema_versions.
const Component = "recall"

// ErrUnknownMemory reports a memory id that is not in the graph.
var ErrUnknownMemory = errors.New("no such memory")

// Store is the memory graph and the slots.
type Store struct {
	db *state.DB
	// owned is set when Open opened db, for Close to close it.
	owned bool
	// readOnly is set when the database could only be opened for
	// reading: slot moves and counters are then not kept.
	readOnly bool
	path     string
	emb      *Embedder
	p        Params
	now      func() time.Time
	sources  []Source

	// deferred is set by WithDeferredWrites; onPending is its callback.
	deferred  bool
	onPending func()
	// pendingSlots and pendingCounters are what following the user
	// changed and Flush has not written yet (guarded by mu).
	pendingSlots    map[string]Slot
	pendingCounters map[string]int64

	mu  sync.Mutex // guards g and gen, and orders slot updates
	g   *graph
	gen int64 // generation g was loaded at; -1 before loading
}

// Option configures a Store.
type Option func(*Store)

// WithParams replaces DefaultParams.
func WithParams(p Params) Option { return func(s *Store) { s.p = p } }

// WithDeferredWrites keeps what following the user changes (the slots
// that Focus and Search move, the counters of searches) in memory rather
// than writing it on every call, so that reads such as a hover do not
// write to the user database: Flush writes it, in one transaction. The
// slots and metrics this Store reports include what is pending.
// onPending, if not nil, is called (with the Store's lock held: it must
// not call the Store) each time something becomes pending, for the owner
// to schedule a Flush off the request path.
func WithDeferredWrites(onPending func()) Option {
	return func(s *Store) { s.deferred, s.onPending = true, onPending }
}

// WithSources sets what Sync reads.
func WithSources(src ...Source) Option { return func(s *Store) { s.sources = src } }

// WithClock sets the clock (for tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithEmbedder shares an Embedder between stores.
func WithEmbedder(e *Embedder) Option { return func(s *Store) { s.emb = e } }

// Open opens the graph and slots in the memory database at path (the
// file of package memory: state.Dirs.MemoryPath), creating the file and
// this component's tables if needed.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s := &Store{path: path, p: DefaultParams(), now: time.Now, gen: -1}
	for _, o := range opts {
		o(s)
	}
	if s.emb == nil {
		e, err := NewEmbedder()
		if err != nil {
			return nil, fmt.Errorf("open memory graph %s: %w", path, err)
		}
		s.emb = e
	}
	db, err := state.Open(ctx, path, state.User, state.Options{})
	if err != nil {
		return nil, fmt.Errorf("open memory graph: %w", err)
	}
	if err := s.init(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns the memory graph and slots in db, a user database that
// other components share (see state.Open), and brings their tables up to
// date. Close leaves db open: its owner closes it.
func New(ctx context.Context, db *state.DB, opts ...Option) (*Store, error) {
	s := &Store{path: db.Path(), p: DefaultParams(), now: time.Now, gen: -1}
	for _, o := range opts {
		o(s)
	}
	if s.emb == nil {
		e, err := NewEmbedder()
		if err != nil {
			return nil, fmt.Errorf("open memory graph %s: %w", db.Path(), err)
		}
		s.emb = e
	}
	if err := s.init(ctx, db); err != nil {
		return nil, err
	}
	return s, nil
}

// init brings the tables of db up to date and keeps db.
func (s *Store) init(ctx context.Context, db *state.DB) error {
	if err := db.Migrate(ctx, Component, migrations()); err != nil {
		return fmt.Errorf("open memory graph: %w", err)
	}
	s.db, s.readOnly = db, db.ReadOnly()
	return nil
}

// Close writes what is pending (see WithDeferredWrites), and closes the
// database if Open opened it; a Store of New leaves it to its owner.
func (s *Store) Close() error {
	err := s.Flush(context.Background())
	if !s.owned {
		return err
	}
	return errors.Join(err, s.db.Close())
}

// Params returns the store's parameters.
func (s *Store) Params() Params { return s.p }

// Embedder returns the store's embedder.
func (s *Store) Embedder() *Embedder { return s.emb }

func migrations() []string { return []string{schemaV1} }

// schemaV1: times are Unix milliseconds; vectors are Vec.MarshalBinary;
// an edge is stored once, with u < v.
const schemaV1 = `CREATE TABLE recall_nodes(
		id TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		title TEXT NOT NULL,
		scope TEXT NOT NULL DEFAULT '',
		path TEXT NOT NULL DEFAULT '',
		tags TEXT NOT NULL DEFAULT '[]', -- JSON array
		triggers TEXT NOT NULL DEFAULT '[]', -- JSON array
		boost REAL NOT NULL DEFAULT 1,
		made_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		hash TEXT NOT NULL, -- of what the memory's node is made of
		stamp TEXT NOT NULL, -- Embedder.Stamp of vec
		vec BLOB NOT NULL
	);
	CREATE TABLE recall_edges(
		u TEXT NOT NULL,
		v TEXT NOT NULL,
		w REAL NOT NULL,
		near_anchor INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY(u, v)
	) WITHOUT ROWID;
	CREATE INDEX recall_edges_v ON recall_edges(v);
	CREATE TABLE recall_slots(
		slot TEXT PRIMARY KEY,
		anchor TEXT,
		topic BLOB,
		summary TEXT NOT NULL DEFAULT '',
		hop_budget INTEGER NOT NULL,
		pinned INTEGER NOT NULL DEFAULT 0,
		last_used INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE recall_meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
	INSERT INTO recall_meta(key, value) VALUES('generation', 0);`

// generation reads the graph's generation, which every change of nodes
// or edges increments.
func generation(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var g int64
	err := q.QueryRowContext(ctx, `SELECT value FROM recall_meta WHERE key = 'generation'`).Scan(&g)
	return g, err
}

// graphLocked returns the graph, reloading it when the database holds a
// newer generation; s.mu is held.
func (s *Store) graphLocked(ctx context.Context) (*graph, error) {
	gen, err := generation(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("read memory graph: %w", err)
	}
	if s.g != nil && gen == s.gen {
		return s.g, nil
	}
	g, err := s.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("read memory graph: %w", err)
	}
	s.g, s.gen = g, gen
	return g, nil
}

// load reads the whole graph.
func (s *Store) load(ctx context.Context) (*graph, error) {
	g := newGraph()
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, title, scope, path, tags, triggers, boost, made_at, updated_at, vec
		FROM recall_nodes ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			n             node
			tags, trig    string
			made, updated int64
			blob          []byte
		)
		if err := rows.Scan(&n.ID, &n.Kind, &n.Title, &n.Scope, &n.Path, &tags, &trig, &n.Boost, &made, &updated, &blob); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tags), &n.Tags); err != nil {
			return nil, fmt.Errorf("memory %s: tags: %w", n.ID, err)
		}
		if err := json.Unmarshal([]byte(trig), &n.Triggers); err != nil {
			return nil, fmt.Errorf("memory %s: triggers: %w", n.ID, err)
		}
		if err := n.vec.UnmarshalBinary(blob); err != nil {
			return nil, fmt.Errorf("memory %s: %w", n.ID, err)
		}
		n.Time, n.UpdatedAt = time.UnixMilli(made), time.UnixMilli(updated)
		n.lowerTriggers = lowerAll(n.Triggers)
		g.add(&n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	erows, err := s.db.QueryContext(ctx, `SELECT u, v, w, near_anchor FROM recall_edges`)
	if err != nil {
		return nil, err
	}
	defer erows.Close()
	for erows.Next() {
		var (
			u, v string
			w    float64
			near bool
		)
		if err := erows.Scan(&u, &v, &w, &near); err != nil {
			return nil, err
		}
		a, ok1 := g.index[u]
		b, ok2 := g.index[v]
		if !ok1 || !ok2 || a == b || g.has(a, b) {
			continue // an edge of a node gone: the next Sync drops it
		}
		g.adj[a] = append(g.adj[a], edge{to: b, w: float32(w), near: near})
		g.adj[b] = append(g.adj[b], edge{to: a, w: float32(w), near: near})
		g.edges++
	}
	if err := erows.Err(); err != nil {
		return nil, err
	}
	for i := range g.adj {
		sort.SliceStable(g.adj[i], func(x, y int) bool { return g.adj[i][x].w > g.adj[i][y].w })
	}
	return g, nil
}

func lowerAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, x := range ss {
		if x = strings.ToLower(strings.TrimSpace(x)); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// SyncSummary says what Sync changed.
type SyncSummary struct {
	Added   int `json:"added"`
	Updated int `json:"updated"`
	Removed int `json:"removed"`
	// Unchanged counts the memories left as they were.
	Unchanged int `json:"unchanged"`
	// Edges is the graph's edge count afterwards.
	Edges int `json:"edges"`
	// NearAnchor counts the new rules written near a slot's anchor.
	NearAnchor int `json:"near_anchor"`
}

// Sync brings the graph up to date with the Store's sources (WithSources):
// memories new or changed since the last Sync (by id and update time) are
// embedded and linked, memories gone are removed with their edges, and
// slots anchored on them lose their anchor. A new rule close to an active
// slot's topic is written near its anchor (linked to the anchor's most
// similar neighbours) and becomes the slot's anchor, unless the slot is
// pinned. When nothing changed it only reads.
func (s *Store) Sync(ctx context.Context) (SyncSummary, error) {
	return s.sync(ctx, false)
}

// Bootstrap rebuilds the graph from the sources: every memory embedded
// again and every edge recomputed.
func (s *Store) Bootstrap(ctx context.Context) (SyncSummary, error) {
	return s.sync(ctx, true)
}

// maxNearAnchorBatch is the most new rules one Sync writes near anchors;
// more at once is an import, not the user at work.
const maxNearAnchorBatch = 8

func (s *Store) sync(ctx context.Context, full bool) (SyncSummary, error) {
	var sum SyncSummary
	lists := map[string][]Memory{}
	for _, src := range s.sources {
		ms, err := src.Memories(ctx)
		if err != nil {
			return sum, fmt.Errorf("sync memory graph: list %ss: %w", src.Kind(), err)
		}
		lists[src.Kind()] = append(lists[src.Kind()], ms...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		return sum, fmt.Errorf("sync memory graph: %w", err)
	}
	stamp := s.emb.Stamp()
	stamps, err := s.stamps(ctx) // id → stamp + hash
	if err != nil {
		return sum, fmt.Errorf("sync memory graph: %w", err)
	}
	// Work on a copy so that a failed write leaves s.g as stored.
	ng := g.clone()
	listed := map[string]bool{}
	var changed, added []int32
	for kind, ms := range lists {
		for _, m := range ms {
			if m.Kind == "" {
				m.Kind = kind
			}
			listed[m.ID] = true
			i, ok := ng.index[m.ID]
			if ok && !full && ng.nodes[i].UpdatedAt.Equal(time.UnixMilli(m.UpdatedAt.UnixMilli())) &&
				stamps[m.ID] == stamp+" "+memoryHash(m) {
				sum.Unchanged++
				continue
			}
			n := &node{Memory: m, vec: s.emb.Embed(m.Text), lowerTriggers: lowerAll(m.Triggers), hash: memoryHash(m)}
			n.Text = ""
			n.Time = time.UnixMilli(m.Time.UnixMilli())
			n.UpdatedAt = time.UnixMilli(m.UpdatedAt.UnixMilli())
			j := ng.add(n)
			if ok {
				sum.Updated++
				changed = append(changed, j)
			} else {
				sum.Added++
				added = append(added, j)
			}
		}
	}
	var removed []string
	for id, i := range ng.index {
		if _, owned := lists[ng.nodes[i].Kind]; owned && !listed[id] {
			removed = append(removed, id)
		}
	}
	sort.Strings(removed)
	for _, id := range removed {
		ng.remove(id)
	}
	sum.Removed = len(removed)
	if sum.Added+sum.Updated+sum.Removed == 0 {
		sum.Edges = ng.edges
		return sum, nil
	}
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		return sum, fmt.Errorf("sync memory graph: %w", err)
	}
	var touchedIDs []string
	for _, i := range append(changed, added...) {
		touchedIDs = append(touchedIDs, ng.nodes[i].ID)
	}
	rebuilt := full || len(added)+len(changed) > len(ng.index)/2
	if rebuilt {
		ng = ng.compact()
		ng.rebuild(s.p)
	} else {
		for _, i := range append(changed, added...) {
			ng.connect(s.p, i)
		}
		if len(added) <= maxNearAnchorBatch {
			for _, i := range added {
				if ng.nodes[i].Kind != KindRule {
					continue
				}
				if s.nearAnchorLocked(ng, slots, i) {
					sum.NearAnchor++
				}
			}
		}
	}
	for k := range slots {
		if a := slots[k].Anchor; a != "" {
			if _, ok := ng.index[a]; !ok {
				slots[k].Anchor = ""
				slots[k].dirty = true
			}
		}
	}
	sum.Edges = ng.edges
	var before, after map[edgeKey]edge
	if rebuilt {
		after = ng.edgeSet()
	} else {
		// Only edges with an end in a touched or removed memory, or in
		// one of their neighbours, can have changed: an edge a link
		// pushed out of a full neighbour has that neighbour as an end.
		around := map[string]bool{}
		mark := func(gr *graph, id string) {
			around[id] = true
			if i, ok := gr.index[id]; ok {
				for _, e := range gr.adj[i] {
					around[gr.nodes[e.to].ID] = true
				}
			}
		}
		for _, id := range removed {
			mark(g, id)
		}
		for _, id := range touchedIDs {
			mark(g, id)
			mark(ng, id)
		}
		before, after = g.edgesAround(around), ng.edgesAround(around)
	}
	for k := range slots {
		if _, ok := s.pendingSlots[slots[k].Name]; ok {
			slots[k].dirty = true // written now, with the graph
		}
	}
	gen, err := s.writeGraph(ctx, ng, before, after, removed, touchedIDs, slots, rebuilt)
	if err != nil {
		return SyncSummary{}, fmt.Errorf("sync memory graph: %w", err)
	}
	for _, sl := range slots {
		if sl.dirty {
			delete(s.pendingSlots, sl.Name)
		}
	}
	s.g, s.gen = ng, gen
	return sum, nil
}

// memoryHash identifies what a memory's node is made of, so that a
// change within the same millisecond as the last is not missed.
func memoryHash(m Memory) string {
	h := sha256.New()
	for _, part := range append([]string{m.Kind, m.Title, m.Text, m.Scope, m.Path, strconv.FormatFloat(m.Boost, 'g', -1, 64),
		strconv.FormatInt(m.Time.UnixMilli(), 10)}, append(append([]string(nil), m.Tags...), m.Triggers...)...) {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// stamps reads each node's vector stamp and hash.
func (s *Store) stamps(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, stamp || ' ' || hash FROM recall_nodes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// nearAnchorLocked writes the new rule i near the anchor of the slot its
// topic selects, if any, and moves that slot's anchor to it.
func (s *Store) nearAnchorLocked(g *graph, slots []Slot, i int32) bool {
	k, ok := selectSlot(s.p, slots, g.nodes[i].vec, true)
	if !ok || slots[k].Pinned || slots[k].Anchor == "" {
		return false
	}
	a, ok := g.index[slots[k].Anchor]
	if !ok {
		return false
	}
	g.nearAnchor(s.p, i, a)
	slots[k].Anchor = g.nodes[i].ID
	slots[k].Topic = Blend(slots[k].Topic, g.nodes[i].vec, s.p.TopicRate)
	slots[k].LastUsed = s.now()
	slots[k].dirty = true
	slots[k].moved = true
	return true
}

// clone copies the graph.
func (g *graph) clone() *graph {
	c := &graph{nodes: append([]*node(nil), g.nodes...), index: make(map[string]int32, len(g.index)),
		adj: make([][]edge, len(g.adj)), edges: g.edges}
	for k, v := range g.index {
		c.index[k] = v
	}
	for i, a := range g.adj {
		c.adj[i] = append([]edge(nil), a...)
	}
	return c
}

// compact drops the holes of removed nodes (and every edge).
func (g *graph) compact() *graph {
	c := newGraph()
	for _, n := range g.nodes {
		if n != nil {
			c.add(n)
		}
	}
	return c
}

// writeGraph stores the changes of edges from before to after, the removed
// and touched nodes and the changed slots in one transaction, and returns
// the new generation.
func (s *Store) writeGraph(ctx context.Context, g *graph, before, after map[edgeKey]edge, removed, touched []string,
	slots []Slot, full bool) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	for _, id := range removed {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_nodes WHERE id = ?`, id); err != nil {
			return 0, err
		}
	}
	up, err := tx.PrepareContext(ctx, `INSERT INTO recall_nodes(id, kind, title, scope, path, tags, triggers, boost, made_at, updated_at, hash, stamp, vec)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, title = excluded.title, scope = excluded.scope, path = excluded.path,
			tags = excluded.tags, triggers = excluded.triggers, boost = excluded.boost, made_at = excluded.made_at,
			updated_at = excluded.updated_at, hash = excluded.hash, stamp = excluded.stamp, vec = excluded.vec`)
	if err != nil {
		return 0, err
	}
	defer up.Close()
	stamp := s.emb.Stamp()
	for _, id := range touched {
		i, ok := g.index[id]
		if !ok {
			continue
		}
		n := g.nodes[i]
		blob, _ := n.vec.MarshalBinary()
		tags, _ := json.Marshal(nonNil(n.Tags))
		trig, _ := json.Marshal(nonNil(n.Triggers))
		boost := n.Boost
		if boost <= 0 {
			boost = 1
		}
		if _, err := up.ExecContext(ctx, n.ID, n.Kind, n.Title, n.Scope, n.Path, string(tags), string(trig), boost,
			n.Time.UnixMilli(), n.UpdatedAt.UnixMilli(), n.hash, stamp, blob); err != nil {
			return 0, err
		}
	}
	if full {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_edges`); err != nil {
			return 0, err
		}
		before = nil
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM recall_edges WHERE u = ? AND v = ?`)
	if err != nil {
		return 0, err
	}
	defer del.Close()
	for k := range before {
		if _, ok := after[k]; !ok {
			if _, err := del.ExecContext(ctx, k.u, k.v); err != nil {
				return 0, err
			}
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO recall_edges(u, v, w, near_anchor) VALUES(?, ?, ?, ?)
		ON CONFLICT(u, v) DO UPDATE SET w = excluded.w, near_anchor = excluded.near_anchor`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	for k, e := range after {
		if old, ok := before[k]; ok && old.w == e.w && old.near == e.near {
			continue
		}
		if _, err := ins.ExecContext(ctx, k.u, k.v, float64(e.w), e.near); err != nil {
			return 0, err
		}
	}
	// Edges of removed nodes that another process added meanwhile.
	if len(removed) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_edges WHERE u NOT IN (SELECT id FROM recall_nodes)
			OR v NOT IN (SELECT id FROM recall_nodes)`); err != nil {
			return 0, err
		}
	}
	if err := writeSlots(ctx, tx, slots); err != nil {
		return 0, err
	}
	moves := 0
	for _, sl := range slots {
		if sl.moved {
			moves++
		}
	}
	if err := addCounters(ctx, tx, map[string]int64{counterAnchorMoves: int64(moves)}); err != nil {
		return 0, err
	}
	gen, err := bumpGeneration(ctx, tx)
	if err != nil {
		return 0, err
	}
	return gen, tx.Commit()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// bumpGeneration increments the graph's generation.
func bumpGeneration(ctx context.Context, tx *sql.Tx) (int64, error) {
	var g int64
	err := tx.QueryRowContext(ctx, `UPDATE recall_meta SET value = value + 1 WHERE key = 'generation' RETURNING value`).Scan(&g)
	return g, err
}

// Lookup returns the memory of an id as the graph holds it (Text empty).
func (s *Store) Lookup(ctx context.Context, id string) (Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		return Memory{}, err
	}
	i, ok := g.index[id]
	if !ok {
		return Memory{}, fmt.Errorf("%w: %s", ErrUnknownMemory, id)
	}
	return g.nodes[i].Memory, nil
}

// Len returns the number of memories and edges in the graph.
func (s *Store) Len(ctx context.Context) (nodes, edges int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		return 0, 0, err
	}
	return len(g.index), g.edges, nil
}
