package recall

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// Params tune the graph, the slots and the search. DefaultParams are the
// documented defaults; the zero value is not useful.
type Params struct {
	// Alpha, Beta and Gamma weigh an edge's similarity, closeness in
	// time and shared tags: w = α·sim + β·time + γ·co.
	Alpha, Beta, Gamma float64
	// Theta is the least weight an edge keeps (near-anchor links
	// excepted); KMax the most neighbours a node keeps.
	Theta float64
	KMax  int
	// TimeScale is the time closeness' scale: time = exp(−|Δt|/scale).
	TimeScale time.Duration
	// NearAnchorLinks is how many of the anchor's neighbourhood a new
	// rule written near it links to.
	NearAnchorLinks int
	// Beam is how many nodes each hop of a localized search expands.
	Beam int
	// HopBudget is a new slot's radius.
	HopBudget int
	// Hit is the least score of a search hit: a localized search that
	// finds nothing scoring at least Hit falls back.
	Hit float64
	// NewTopic is the least similarity of an input to a slot's topic for
	// the input to stay on that slot: below it for every slot, the input
	// is a new topic and takes the least recently used slot.
	NewTopic float64
	// Hysteresis is how much closer another slot must be than the
	// active one to take over, so that two close topics do not flap.
	Hysteresis float64
	// TopicRate is how far a slot's topic moves toward each input.
	TopicRate float64
}

// DefaultParams returns the defaults: α, β, γ = 0.7, 0.2, 0.1, θ = 0.35,
// kmax = 32, a week's time scale, beam 16, radius 2.
func DefaultParams() Params {
	return Params{
		Alpha: 0.7, Beta: 0.2, Gamma: 0.1, Theta: 0.35, KMax: 32,
		TimeScale: 7 * 24 * time.Hour, NearAnchorLinks: 8,
		Beam: 16, HopBudget: 2, Hit: 0.42,
		NewTopic: 0.3, Hysteresis: 0.08, TopicRate: 0.3,
	}
}

// node is a memory in the graph.
type node struct {
	Memory
	vec Vec
	// lowerTriggers are Triggers in lower case.
	lowerTriggers []string
	hash          string // memoryHash
}

// edge is one side of an undirected edge.
type edge struct {
	to   int32
	w    float32
	near bool // a near-anchor link, kept below Theta
}

// graph is the memory graph in memory. Removed nodes leave a nil hole
// in nodes until the graph is rebuilt.
type graph struct {
	nodes []*node
	index map[string]int32
	adj   [][]edge // each sorted by weight, heaviest first
	edges int
}

func newGraph() *graph { return &graph{index: map[string]int32{}} }

// add appends a node without edges; it replaces a node of the same id,
// dropping that node's edges.
func (g *graph) add(n *node) int32 {
	if i, ok := g.index[n.ID]; ok {
		g.isolate(i)
		g.nodes[i] = n
		return i
	}
	i := int32(len(g.nodes))
	g.nodes = append(g.nodes, n)
	g.adj = append(g.adj, nil)
	g.index[n.ID] = i
	return i
}

// remove drops a node and its edges.
func (g *graph) remove(id string) {
	i, ok := g.index[id]
	if !ok {
		return
	}
	g.isolate(i)
	g.nodes[i] = nil
	delete(g.index, id)
}

// isolate drops every edge of node i.
func (g *graph) isolate(i int32) {
	for _, e := range g.adj[i] {
		g.unlinkSide(e.to, i)
		g.edges--
	}
	g.adj[i] = nil
}

func (g *graph) unlinkSide(from, to int32) {
	a := g.adj[from]
	for k, e := range a {
		if e.to == to {
			g.adj[from] = append(a[:k:k], a[k+1:]...)
			return
		}
	}
}

func (g *graph) has(a, b int32) bool {
	for _, e := range g.adj[a] {
		if e.to == b {
			return true
		}
	}
	return false
}

func insertSorted(a []edge, e edge) []edge {
	k := sort.Search(len(a), func(k int) bool { return a[k].w < e.w })
	a = append(a, edge{})
	copy(a[k+1:], a[k:])
	a[k] = e
	return a
}

// link adds the edge a–b of weight w if both ends have room or it is
// heavier than the lightest edge of a full end, which it then replaces.
// It reports whether the edge was added.
func (g *graph) link(a, b int32, w float32, near bool, kmax int) bool {
	if a == b || g.has(a, b) {
		return false
	}
	for _, x := range [2]int32{a, b} {
		if len(g.adj[x]) >= kmax && g.adj[x][len(g.adj[x])-1].w >= w {
			return false
		}
	}
	for _, x := range [2]int32{a, b} {
		if len(g.adj[x]) >= kmax {
			last := g.adj[x][len(g.adj[x])-1]
			g.adj[x] = g.adj[x][:len(g.adj[x])-1]
			g.unlinkSide(last.to, x)
			g.edges--
		}
	}
	g.adj[a] = insertSorted(g.adj[a], edge{to: b, w: w, near: near})
	g.adj[b] = insertSorted(g.adj[b], edge{to: a, w: w, near: near})
	g.edges++
	return true
}

// parts are the parts of an edge's weight.
type parts struct{ w, sim, time, co float64 }

// weight returns the weight of an edge between a and b.
func (p Params) weight(a, b *node) parts {
	sim := max(0, Similarity(a.vec, b.vec))
	dt := math.Abs(float64(a.Time.Sub(b.Time)))
	tm := 0.0
	if p.TimeScale > 0 && !a.Time.IsZero() && !b.Time.IsZero() {
		tm = math.Exp(-dt / float64(p.TimeScale))
	}
	co := jaccard(a.Tags, b.Tags)
	return parts{w: p.Alpha*sim + p.Beta*tm + p.Gamma*co, sim: sim, time: tm, co: co}
}

// jaccard returns |a∩b| / |a∪b| of two small sets.
func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}

// cand is a candidate neighbour.
type cand struct {
	to int32
	w  float32
}

// candidates returns the nodes node i may link to: weight at least θ,
// the kmax heaviest.
func (g *graph) candidates(p Params, i int32) []cand {
	n := g.nodes[i]
	var out []cand
	for j, m := range g.nodes {
		if m == nil || int32(j) == i {
			continue
		}
		if w := p.weight(n, m).w; w >= p.Theta {
			out = append(out, cand{int32(j), float32(w)})
		}
	}
	sortCands(out)
	if len(out) > p.KMax {
		out = out[:p.KMax]
	}
	return out
}

func sortCands(c []cand) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].w != c[j].w {
			return c[i].w > c[j].w
		}
		return c[i].to < c[j].to
	})
}

// connect links node i to its candidates.
func (g *graph) connect(p Params, i int32) {
	for _, c := range g.candidates(p, i) {
		g.link(i, c.to, c.w, false, p.KMax)
	}
}

// rebuild drops every edge and links all nodes again: every node's
// candidates (each pair weighed once), heaviest edges first, while both
// ends have room.
func (g *graph) rebuild(p Params) {
	for i := range g.adj {
		g.adj[i] = nil
	}
	g.edges = 0
	top := make([]candHeap, len(g.nodes))
	for i, a := range g.nodes {
		if a == nil {
			continue
		}
		for j := i + 1; j < len(g.nodes); j++ {
			b := g.nodes[j]
			if b == nil {
				continue
			}
			if w := p.weight(a, b).w; w >= p.Theta {
				top[i].push(cand{int32(j), float32(w)}, p.KMax)
				top[j].push(cand{int32(i), float32(w)}, p.KMax)
			}
		}
	}
	type pair struct {
		a, b int32
		w    float32
	}
	var all []pair
	for i, h := range top {
		for _, c := range h {
			if a, b := int32(i), c.to; a < b || !top[b].has(a) {
				all = append(all, pair{min(a, b), max(a, b), c.w})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		if all[i].a != all[j].a {
			return all[i].a < all[j].a
		}
		return all[i].b < all[j].b
	})
	for _, e := range all {
		if len(g.adj[e.a]) < p.KMax && len(g.adj[e.b]) < p.KMax {
			g.link(e.a, e.b, e.w, false, p.KMax)
		}
	}
}

// candHeap keeps the k heaviest candidates: a min-heap by weight.
type candHeap []cand

func (h *candHeap) push(c cand, k int) {
	if len(*h) < k {
		*h = append(*h, c)
		for i := len(*h) - 1; i > 0; {
			parent := (i - 1) / 2
			if (*h)[parent].w <= (*h)[i].w {
				break
			}
			(*h)[parent], (*h)[i] = (*h)[i], (*h)[parent]
			i = parent
		}
		return
	}
	if k == 0 || c.w <= (*h)[0].w {
		return
	}
	(*h)[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(*h) && (*h)[l].w < (*h)[m].w {
			m = l
		}
		if r < len(*h) && (*h)[r].w < (*h)[m].w {
			m = r
		}
		if m == i {
			break
		}
		(*h)[m], (*h)[i] = (*h)[i], (*h)[m]
		i = m
	}
}

func (h candHeap) has(to int32) bool {
	for _, c := range h {
		if c.to == to {
			return true
		}
	}
	return false
}

// nearAnchor links the new node i to the anchor and those of its
// neighbours most similar to i, NearAnchorLinks in all, whatever their
// weight.
func (g *graph) nearAnchor(p Params, i, anchor int32) {
	pool := []int32{anchor}
	for _, e := range g.adj[anchor] {
		if e.to != i {
			pool = append(pool, e.to)
		}
	}
	cs := make([]cand, 0, len(pool))
	for _, j := range pool {
		cs = append(cs, cand{j, float32(Similarity(g.nodes[i].vec, g.nodes[j].vec))})
	}
	sortCands(cs)
	if len(cs) > p.NearAnchorLinks {
		cs = cs[:p.NearAnchorLinks]
	}
	for _, c := range cs {
		w := float32(p.weight(g.nodes[i], g.nodes[c.to]).w)
		g.link(i, c.to, w, w < float32(p.Theta), p.KMax)
	}
}

// edgeKey names an undirected edge by its ends' ids, smaller first.
type edgeKey struct{ u, v string }

func keyOf(a, b string) edgeKey {
	if a > b {
		a, b = b, a
	}
	return edgeKey{a, b}
}

// edgeSet returns every edge by key.
func (g *graph) edgeSet() map[edgeKey]edge {
	out := make(map[edgeKey]edge, g.edges)
	for i, a := range g.adj {
		for _, e := range a {
			if int32(i) < e.to {
				out[keyOf(g.nodes[i].ID, g.nodes[e.to].ID)] = e
			}
		}
	}
	return out
}

// edgesAround returns the edges with an end among ids.
func (g *graph) edgesAround(ids map[string]bool) map[edgeKey]edge {
	out := map[edgeKey]edge{}
	for id := range ids {
		i, ok := g.index[id]
		if !ok {
			continue
		}
		for _, e := range g.adj[i] {
			out[keyOf(id, g.nodes[e.to].ID)] = e
		}
	}
	return out
}

// scorer scores memories against one query.
type scorer struct {
	p     Params
	q     Vec
	lower string // the query in lower case, for trigger phrases
}

func newScorer(p Params, q Vec, text string) scorer {
	return scorer{p: p, q: q, lower: strings.ToLower(text)}
}

// score is a memory's relevance: its similarity to the query times its
// boost (a document's importance tier, memdoc.TierBoost) and, as memory
// documents rank (memdoc.Document.Boost), the factor of its trigger
// phrases the query holds (memdoc.TriggerFactor).
func (s scorer) score(n *node) float64 {
	sc := Similarity(s.q, n.vec)
	if n.Boost > 0 {
		sc *= n.Boost
	}
	if len(n.lowerTriggers) > 0 && s.lower != "" && anyWordIn(n.lowerTriggers, s.lower) {
		sc *= memdoc.TriggerFactor(n.Triggers, s.lower)
	}
	return sc
}

// anyWordIn is a quick test that may let MatchTriggers be skipped: no
// phrase's text is in the query.
func anyWordIn(phrases []string, lowerQuery string) bool {
	for _, p := range phrases {
		w := p
		if i := strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); i > 0 {
			w = p[:i]
		}
		if strings.Contains(lowerQuery, w) {
			return true
		}
	}
	return false
}

// visit is a node a search scored.
type visit struct {
	node  int32
	hops  int
	score float64
}

// beam searches from start out to radius hops: each hop scores the
// unvisited neighbours of the frontier and keeps the width best as the
// next frontier. It returns every node it scored, in the order scored.
// The search for radius r+1 repeats that for r and goes on, so it never
// visits fewer nodes.
func (g *graph) beam(s scorer, start int32, radius, width int) []visit {
	seen := map[int32]bool{start: true}
	visits := []visit{{start, 0, s.score(g.nodes[start])}}
	frontier := visits
	for hop := 1; hop <= radius && len(frontier) > 0; hop++ {
		var next []visit
		for _, f := range frontier {
			for _, e := range g.adj[f.node] {
				if seen[e.to] {
					continue
				}
				seen[e.to] = true
				v := visit{e.to, hop, s.score(g.nodes[e.to])}
				visits = append(visits, v)
				next = append(next, v)
			}
		}
		sortVisits(next)
		if len(next) > width {
			next = next[:width]
		}
		frontier = next
	}
	return visits
}

// sortVisits orders visits best first, then by fewer hops, then by id.
func sortVisits(v []visit) {
	sort.Slice(v, func(i, j int) bool {
		if v[i].score != v[j].score {
			return v[i].score > v[j].score
		}
		if v[i].hops != v[j].hops {
			return v[i].hops < v[j].hops
		}
		return v[i].node < v[j].node
	})
}

// global scores every memory and returns the k best.
func (g *graph) global(s scorer, k int) []visit {
	var top []visit
	for i, n := range g.nodes {
		if n == nil {
			continue
		}
		sc := s.score(n)
		if len(top) == k && (sc < top[k-1].score || sc == top[k-1].score) {
			continue
		}
		v := visit{int32(i), 0, sc}
		at := sort.Search(len(top), func(j int) bool { return top[j].score < sc })
		if len(top) < k {
			top = append(top, visit{})
		}
		copy(top[at+1:], top[at:])
		top[at] = v
	}
	return top
}
