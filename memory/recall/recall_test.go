package recall

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/memory"
)

func TestVecRoundTrip(t *testing.T) {
	e, err := NewEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "Wrap errors with fmt.Errorf and %w", "sqlite WAL busy timeout"} {
		t.Run(text, func(t *testing.T) {
			v := e.Embed(text)
			b, _ := v.MarshalBinary()
			var w Vec
			if err := w.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, w) {
				t.Errorf("round trip changed the vector")
			}
			if !v.IsZero() {
				if s := Similarity(v, w); s < 0.999 || s > 1.001 {
					t.Errorf("self-similarity %v, want 1", s)
				}
			}
		})
	}
	for _, bad := range [][]byte{nil, {9}, {1, 5}, {1, 1, 0, 1, 2}} {
		var w Vec
		if err := w.UnmarshalBinary(bad); !errors.Is(err, errBadVec) {
			t.Errorf("UnmarshalBinary(%v) = %v, want errBadVec", bad, err)
		}
	}
}

func TestSimilaritySeparatesTopics(t *testing.T) {
	e, _ := NewEmbedder()
	a := e.Embed("Wrap errors with fmt.Errorf and %w so callers can use errors.Is")
	b := e.Embed("Compare errors with errors.Is instead of ==")
	c := e.Embed("Open the SQLite database in WAL mode with a busy timeout")
	if ab, ac := Similarity(a, b), Similarity(a, c); ab <= ac+0.2 {
		t.Errorf("same topic %.2f, other topic %.2f: want the same topic clearly closer", ab, ac)
	}
}

// openRules opens a memory.Store and a Store over its rules, kept
// current through memory.WithOnChange.
func openRules(t *testing.T, opts ...Option) (*memory.Store, *Store) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	var rs *Store
	ms, err := memory.Open(ctx, path, memory.WithOnChange(func(ctx context.Context, _ []int64) {
		if rs != nil {
			if _, err := rs.Sync(ctx); err != nil {
				t.Errorf("sync on change: %v", err)
			}
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	rs, err = Open(ctx, path, append([]Option{WithSources(Rules{Store: ms})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return ms, rs
}

func addRule(t *testing.T, ms *memory.Store, content, scope string) string {
	t.Helper()
	r, err := ms.AddRule(context.Background(), memory.Rule{Category: memory.CategoryRule, Scope: scope, Content: content, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	return RuleID(r.ID)
}

func TestSyncFollowsWrites(t *testing.T) {
	ctx := context.Background()
	ms, rs := openRules(t)
	a := addRule(t, ms, "Wrap errors with fmt.Errorf and %w", "language:go")
	b := addRule(t, ms, "Compare wrapped errors with errors.Is", "language:go")
	c := addRule(t, ms, "Open SQLite in WAL mode with a busy timeout", "universal")
	n, e, err := rs.Len(ctx)
	if err != nil || n != 3 {
		t.Fatalf("Len = %d, %d, %v; want 3 memories", n, e, err)
	}
	if e == 0 {
		t.Errorf("no edge between two rules on wrapping errors")
	}
	// An update re-embeds; nothing else changes on a second Sync.
	id, _ := ParseRuleID(c)
	r, _ := ms.Rule(ctx, id)
	r.Content = "Prepare SQL statements once outside loops"
	if _, err := ms.UpdateRule(ctx, r); err != nil {
		t.Fatal(err)
	}
	m, err := rs.Lookup(ctx, c)
	if err != nil || m.Title != r.Content {
		t.Errorf("after update, Lookup(%s) = %q, %v", c, m.Title, err)
	}
	sum, err := rs.Sync(ctx)
	if err != nil || sum.Added+sum.Updated+sum.Removed != 0 || sum.Unchanged != 3 {
		t.Errorf("idle Sync = %+v, %v; want 3 unchanged", sum, err)
	}
	// A deletion removes the node, its edges and a slot's anchor on it.
	if _, err := rs.Set(ctx, "B", a); err != nil {
		t.Fatal(err)
	}
	id, _ = ParseRuleID(a)
	if err := ms.DeleteRule(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Lookup(ctx, a); !errors.Is(err, ErrUnknownMemory) {
		t.Errorf("deleted rule still in the graph: %v", err)
	}
	st, _ := rs.Status(ctx)
	if st.Slots[1].Anchor != nil {
		t.Errorf("slot B still anchored on a deleted rule: %+v", st.Slots[1].Anchor)
	}
	// A second Store on the same file sees the same graph.
	other, err := Open(ctx, rs.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Lookup(ctx, b); err != nil {
		t.Errorf("another Store does not see %s: %v", b, err)
	}
}

func TestGraphPrunes(t *testing.T) {
	ms, _ := synthMemories(loadTopics(t), 400, 3)
	p := DefaultParams()
	p.KMax = 8
	s := openStore(t, ms, WithParams(p))
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.graphLocked(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g.edges == 0 {
		t.Fatal("no edges")
	}
	for i, a := range g.adj {
		if len(a) > p.KMax {
			t.Errorf("%s has %d neighbours, more than kmax %d", g.nodes[i].ID, len(a), p.KMax)
		}
		for _, e := range a {
			if !e.near && float64(e.w) < p.Theta {
				t.Errorf("edge %s–%s of weight %v below θ", g.nodes[i].ID, g.nodes[e.to].ID, e.w)
			}
			want := p.weight(g.nodes[i], g.nodes[e.to]).w
			if d := float64(e.w) - want; d > 1e-4 || d < -1e-4 {
				t.Errorf("edge weight %v, want α·sim+β·time+γ·co = %v", e.w, want)
			}
		}
	}
}

func TestSlotHysteresis(t *testing.T) {
	// Two inputs between two close topics: the first a little closer to
	// slot A's (0.71 against 0.63), the second a little closer to B's
	// (0.71 against 0.70).
	inputs := []string{"errors wrap Is", "errors compare wrap Errorf", "errors wrap Is", "errors compare wrap Errorf",
		"errors wrap Is", "errors compare wrap Errorf"}
	for _, tt := range []struct {
		name       string
		hysteresis float64
		wantFlap   bool
	}{{"with hysteresis", DefaultParams().Hysteresis, false}, {"without", 0, true}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p := DefaultParams()
			p.Hysteresis = tt.hysteresis
			p.TopicRate = 0 // topics stay put: this is about the choice alone
			clock := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
			tick := func() time.Time { clock = clock.Add(time.Second); return clock }
			ms, rs := openRules(t, WithParams(p), WithClock(tick))
			wrap := addRule(t, ms, "Wrap errors with fmt.Errorf and the %w verb", "language:go")
			is := addRule(t, ms, "Compare errors with errors.Is, never with ==", "language:go")
			sql := addRule(t, ms, "Open SQLite databases in WAL mode with a busy timeout", "universal")
			if _, err := rs.Set(ctx, "B", is); err != nil {
				t.Fatal(err)
			}
			if _, err := rs.Set(ctx, "A", wrap); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range inputs {
				f, err := rs.Focus(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, f.Slot)
			}
			switches := 0
			for i := 1; i < len(got); i++ {
				if got[i] != got[i-1] {
					switches++
				}
			}
			if flapped := switches > 1; flapped != tt.wantFlap {
				t.Errorf("slots %v: flapped %v, want %v", got, flapped, tt.wantFlap)
			}
			if tt.wantFlap {
				return
			}
			// A clearly different topic takes the unused slot C.
			f, err := rs.Focus(ctx, "sqlite database WAL busy timeout")
			if err != nil {
				t.Fatal(err)
			}
			if f.Slot != "C" || !f.NewTopic || f.Anchor != sql {
				t.Errorf("new topic went to %+v, want slot C anchored on %s", f, sql)
			}
			// A fourth topic takes the least recently used slot.
			f, err = rs.Focus(ctx, "goroutine channel mutex")
			if err != nil {
				t.Fatal(err)
			}
			if !f.NewTopic || f.Slot != "B" {
				t.Errorf("fourth topic went to %+v, want the least recently used slot B", f)
			}
		})
	}
}

func TestPinBlocksMoves(t *testing.T) {
	ctx := context.Background()
	ms, rs := openRules(t)
	wrap := addRule(t, ms, "Wrap errors with fmt.Errorf and the %w verb", "language:go")
	addRule(t, ms, "Compare wrapped errors with errors.Is", "language:go")
	if _, err := rs.Pin(ctx, "A", wrap); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"compare wrapped errors with errors.Is", "errors.Is on wrapped errors"} {
		resp, err := rs.Search(ctx, Query{Text: q, Slot: "A"})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 || resp.Results[0].Via != ViaSlot {
			t.Errorf("search %q from A = %+v, want a local hit", q, resp)
		}
	}
	addRule(t, ms, "Wrap errors once, at the boundary, with errors.Join for several", "language:go")
	if _, err := rs.Focus(ctx, "errors wrap boundary"); err != nil {
		t.Fatal(err)
	}
	st, _ := rs.Status(ctx)
	if a := st.Slots[0]; a.Anchor == nil || a.Anchor.ID != wrap || !a.Pinned {
		t.Errorf("pinned slot A moved: %+v", a)
	}
	// Unpinned, the next search moves it to the best hit.
	if _, err := rs.Unpin(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	resp, err := rs.Search(ctx, Query{Text: "compare wrapped errors with errors.Is", Slot: "A"})
	if err != nil {
		t.Fatal(err)
	}
	st, _ = rs.Status(ctx)
	if st.Slots[0].Anchor.ID != resp.Results[0].ID || st.Slots[0].Anchor.ID == wrap {
		t.Errorf("unpinned slot A at %s, want the best hit %s", st.Slots[0].Anchor.ID, resp.Results[0].ID)
	}
}

func TestNearAnchorWrite(t *testing.T) {
	ctx := context.Background()
	ms, rs := openRules(t)
	wrap := addRule(t, ms, "Wrap errors with fmt.Errorf and the %w verb", "language:go")
	addRule(t, ms, "Compare wrapped errors with errors.Is", "language:go")
	addRule(t, ms, "Open SQLite databases in WAL mode", "universal")
	if _, err := rs.Set(ctx, "A", wrap); err != nil {
		t.Fatal(err)
	}
	before, _ := rs.Metrics(ctx)
	nw := addRule(t, ms, "Say what was being done when wrapping errors", "language:go")
	st, _ := rs.Status(ctx)
	if st.Slots[0].Anchor == nil || st.Slots[0].Anchor.ID != nw {
		t.Fatalf("slot A anchored on %+v, want the new rule %s", st.Slots[0].Anchor, nw)
	}
	rs.mu.Lock()
	g, _ := rs.graphLocked(ctx)
	linked := g.has(g.index[nw], g.index[wrap])
	rs.mu.Unlock()
	if !linked {
		t.Errorf("new rule not linked to the old anchor")
	}
	after, _ := rs.Metrics(ctx)
	if after.AnchorMoves != before.AnchorMoves+1 {
		t.Errorf("anchor moves %d → %d, want one more", before.AnchorMoves, after.AnchorMoves)
	}
}

// TestRadiusMonotone checks that a larger radius never visits fewer
// memories and never loses a hit, from random anchors and queries.
func TestRadiusMonotone(t *testing.T) {
	topics := loadTopics(t)
	ms, _ := synthMemories(topics, 1500, 11)
	s := openStore(t, ms)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		anchor := ms[r.IntN(len(ms))].ID
		tp := topics[r.IntN(len(topics))]
		q := fmt.Sprintf("%s %s %s", tp.words[r.IntN(len(tp.words))], tp.words[r.IntN(len(tp.words))], tp.name)
		prevVisited, prevHit := -1, false
		var prevIDs []string
		for radius := 1; radius <= 4; radius++ {
			if _, err := s.Set(ctx, "A", anchor); err != nil {
				t.Fatal(err)
			}
			resp, err := s.Search(ctx, Query{Text: q, Slot: "A", Radius: radius, NoFallback: true, TopK: MaxTopK})
			if err != nil {
				t.Fatal(err)
			}
			hit := len(resp.Results) > 0
			if resp.Visited < prevVisited {
				t.Errorf("trial %d %q: radius %d visited %d < %d at radius %d", trial, q, radius, resp.Visited, prevVisited, radius-1)
			}
			if prevHit && !hit {
				t.Errorf("trial %d %q: radius %d lost the hit of radius %d", trial, q, radius, radius-1)
			}
			ids := make([]string, len(resp.Results))
			for i, x := range resp.Results {
				ids[i] = x.ID
			}
			for _, id := range prevIDs {
				if len(resp.Results) < MaxTopK && !slices.Contains(ids, id) {
					t.Errorf("trial %d: radius %d lost hit %s", trial, radius, id)
				}
			}
			prevVisited, prevHit, prevIDs = resp.Visited, hit, ids
		}
	}
}

// TestNoSlotsIsPlainSearch checks that without slots set, a search
// returns what the plain search does.
func TestNoSlotsIsPlainSearch(t *testing.T) {
	topics := loadTopics(t)
	ms, _ := synthMemories(topics, 300, 5)
	for i, tp := range topics[:8] {
		q := tp.words[0] + " " + tp.words[1]
		t.Run(q, func(t *testing.T) {
			s := openStore(t, ms)
			ctx := context.Background()
			plain, err := s.Global(ctx, Query{Text: q, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Search(ctx, Query{Text: q, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Results, plain.Results) || got.Fallback {
				t.Errorf("search %d without slots differs from the plain search:\n got %+v\nwant %+v", i, got.Results, plain.Results)
			}
		})
	}
}

func TestSearchFallbackAndErrors(t *testing.T) {
	ctx := context.Background()
	ms, rs := openRules(t)
	wrap := addRule(t, ms, "Wrap errors with fmt.Errorf and the %w verb", "language:go")
	sql := addRule(t, ms, "Open SQLite databases in WAL mode with a busy timeout", "universal")
	if _, err := rs.Set(ctx, "A", wrap); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		q            Query
		wantFallback bool
		wantFirst    string
		wantVia      string
	}{
		{"local hit", Query{Text: "wrap errors with Errorf", Slot: "A", Radius: 1}, false, wrap, ViaSlot},
		{"fallback", Query{Text: "sqlite WAL busy timeout", Slot: "A", Radius: 1}, true, sql, ViaGlobal},
		{"no fallback", Query{Text: "sqlite WAL busy timeout", Slot: "B", Radius: 1, NoFallback: true}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := rs.Set(ctx, "A", wrap); err != nil {
				t.Fatal(err)
			}
			if tt.name == "no fallback" {
				if _, err := rs.Set(ctx, "B", wrap); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := rs.Search(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Fallback != tt.wantFallback {
				t.Errorf("fallback = %v, want %v", resp.Fallback, tt.wantFallback)
			}
			if tt.wantFirst == "" {
				if len(resp.Results) != 0 || len(resp.Notices) == 0 {
					t.Errorf("got %+v, want no results and a notice", resp)
				}
				return
			}
			if len(resp.Results) == 0 || resp.Results[0].ID != tt.wantFirst || resp.Results[0].Via != tt.wantVia {
				t.Errorf("results %+v, want %s first via %s", resp.Results, tt.wantFirst, tt.wantVia)
			}
		})
	}
	for _, q := range []Query{{Text: ""}, {Text: "x", Slot: "D"}, {Text: "x", Radius: -1}, {Text: "x\x00y"}, {Text: "x", TopK: -2}} {
		if _, err := rs.Search(ctx, q); err == nil {
			t.Errorf("Search(%+v) succeeded, want an error", q)
		}
	}
	for _, bad := range []struct{ slot, id string }{{"Z", wrap}, {"A", "rule:999"}, {"A", "bogus"}} {
		if _, err := rs.Set(ctx, bad.slot, bad.id); err == nil {
			t.Errorf("Set(%q, %q) succeeded, want an error", bad.slot, bad.id)
		}
	}
	m, err := rs.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Searches != 3 || m.LocalHits != 1 || m.Fallbacks != 1 || m.Nodes != 2 {
		t.Errorf("metrics %+v, want 3 searches, 1 local hit, 1 fallback, 2 nodes", m)
	}
}

func TestParseIDs(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{{"rule:12", true}, {"rule:0", false}, {"rule:012", false}, {"rule:-3", false}, {"doc:notes/a.md", true}, {"doc:", false}, {"12", false}} {
		if err := CheckID(tt.in); (err == nil) != tt.ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", tt.in, err, tt.ok)
		}
	}
	for _, tt := range []struct{ in, want string }{{"a", "A"}, {" C ", "C"}, {"D", ""}, {"", ""}} {
		got, err := ParseSlot(tt.in)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("ParseSlot(%q) = %q, %v", tt.in, got, err)
		}
	}
}

// TestStoredGraphMatches checks that after each Sync (a bootstrap, then
// additions, updates and removals) the graph another Store reads from the
// database is the one in memory.
func TestStoredGraphMatches(t *testing.T) {
	ctx := context.Background()
	ms, _ := synthMemories(loadTopics(t), 400, 9)
	s := openStore(t, ms[:300])
	rules := s.sources[0].(*listSource)
	docs := s.sources[1].(*listSource)
	check := func(step string) {
		t.Helper()
		other, err := Open(ctx, s.path)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		other.mu.Lock()
		got, err := other.graphLocked(ctx)
		other.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		want := s.g.edgeSet()
		s.mu.Unlock()
		have := got.edgeSet()
		if len(have) != len(want) {
			t.Errorf("%s: %d edges stored, %d in memory", step, len(have), len(want))
		}
		for k, e := range want {
			if h, ok := have[k]; !ok || h.w != e.w {
				t.Errorf("%s: edge %v stored as %+v (%v), in memory %+v", step, k, h, ok, e)
				return
			}
		}
	}
	check("bootstrap")
	for _, m := range ms[300:310] {
		if m.Kind == KindDocument {
			docs.ms = append(docs.ms, m)
		} else {
			rules.ms = append(rules.ms, m)
		}
	}
	if _, err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("additions")
	for i := range 5 {
		rules.ms[i].Text += " with a timeout"
		rules.ms[i].UpdatedAt = rules.ms[i].UpdatedAt.Add(time.Hour)
	}
	rules.ms = rules.ms[10:]
	sum, err := s.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Removed != 10 || sum.Updated != 0 {
		t.Errorf("sync = %+v, want 10 removed", sum)
	}
	check("removals")
	for i := range 5 {
		rules.ms[i].Text += " and a retry"
	}
	if sum, err = s.Sync(ctx); err != nil || sum.Updated != 5 {
		t.Fatalf("sync = %+v, %v; want 5 updated", sum, err)
	}
	check("updates")
	if _, err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	check("bootstrap again")
}
