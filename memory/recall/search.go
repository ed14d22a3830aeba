package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Search limits.
const (
	// DefaultTopK is how many results a search returns by default;
	// MaxTopK the most it returns.
	DefaultTopK = 8
	MaxTopK     = 100
	// MaxRadius is the largest search radius, in hops.
	MaxRadius = 6
	// MaxQueryBytes caps a query.
	MaxQueryBytes = 4096
)

// Query is a memory search.
type Query struct {
	// Text is what to look for.
	Text string
	// Slot is the slot to search from (A, B or C); "" chooses the slot
	// whose topic is closest to Text, as Focus does.
	Slot string
	// Radius is how many hops from the anchor to search; 0 means the
	// slot's hop budget.
	Radius int
	// NoFallback keeps a localized search that finds nothing from
	// ranking every memory (the fallback is on by default).
	NoFallback bool
	// TopK is how many results to return; 0 means DefaultTopK.
	TopK int
	// Anchors, with IncludeContent, replace each document's content by
	// only these sections (memdoc.Select).
	Anchors []string
	// IncludeContent returns each result's content.
	IncludeContent bool
}

// Result is one memory found.
type Result struct {
	ID    string  `json:"id"`
	Kind  string  `json:"kind"`
	Title string  `json:"title"`
	Scope string  `json:"scope,omitempty"`
	Path  string  `json:"path,omitempty"`
	Score float64 `json:"score"`
	// Hops is the distance from the slot's anchor (0 for a global
	// result).
	Hops int `json:"hops"`
	// Via is "slot" for a result found near an anchor, "global" for one
	// of the ranking of every memory.
	Via string `json:"via"`
	// Content is the memory's text (with IncludeContent): a rule's
	// content and rationale, a document's file or, with Anchors, the
	// sections asked for.
	Content        string               `json:"content,omitempty"`
	MissingAnchors []string             `json:"missing_anchors,omitempty"`
	TokenMetrics   *memdoc.TokenMetrics `json:"token_metrics,omitempty"`
}

// Response is a search's answer.
type Response struct {
	Results []Result `json:"results"`
	// Slot is the slot searched from, or "".
	Slot string `json:"slot"`
	// Fallback reports a localized search that found nothing and fell
	// back to ranking every memory.
	Fallback bool `json:"fallback"`
	// Notices say what the user may want to know (an empty slot, no
	// hit and no fallback).
	Notices []string `json:"notices"`
	// Visited counts the memories the localized search scored.
	Visited int `json:"-"`
}

// Via values.
const (
	ViaSlot   = "slot"
	ViaGlobal = "global"
)

// ContentSource is a Source that gives memories' full content.
type ContentSource interface {
	Source
	// Content returns the content of the memories of ids it knows.
	Content(ctx context.Context, ids []string) (map[string]string, error)
}

// checkQuery validates q and fills in defaults.
func checkQuery(q *Query) error {
	q.Text = strings.TrimSpace(q.Text)
	switch {
	case q.Text == "":
		return errors.New("empty query")
	case len(q.Text) > MaxQueryBytes:
		return fmt.Errorf("query longer than %d bytes", MaxQueryBytes)
	case q.Radius < 0 || q.Radius > MaxRadius:
		return fmt.Errorf("radius %d is not between 0 and %d", q.Radius, MaxRadius)
	case q.TopK < 0:
		return fmt.Errorf("top_k %d is negative", q.TopK)
	}
	if why := retrieval.NotText(q.Text); why != "" {
		return fmt.Errorf("query is not text: %s", why)
	}
	if q.Slot != "" {
		name, err := ParseSlot(q.Slot)
		if err != nil {
			return err
		}
		q.Slot = name
	}
	if q.TopK == 0 {
		q.TopK = DefaultTopK
	}
	q.TopK = min(q.TopK, MaxTopK)
	var anchors []string
	for _, a := range q.Anchors {
		if a = strings.TrimSpace(a); a != "" {
			anchors = append(anchors, a)
		}
	}
	q.Anchors = anchors
	return nil
}

// Search finds the memories relevant to q.Text. With a slot (q.Slot, or
// the one whose topic is closest to the query), it searches the graph
// from the slot's anchor out to the radius (beam search, Params.Beam
// best per hop); memories scoring at least Params.Hit are hits, the best
// first, and the slot's anchor moves to the best one (unless the slot is
// pinned). Without a hit it falls back to ranking every memory (unless
// q.NoFallback), and the slot is anchored on the best of those. Without
// any slot to start from, it is the plain search (Global). A query far
// from every slot's topic takes the least recently used slot, as Focus
// does.
func (s *Store) Search(ctx context.Context, q Query) (Response, error) {
	if err := checkQuery(&q); err != nil {
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	v := s.emb.Embed(q.Text)
	resp := Response{Results: []Result{}, Notices: []string{}}
	if v.IsZero() {
		resp.Notices = append(resp.Notices, "the query has no word the memory search knows")
		return resp, nil
	}
	sc := newScorer(s.p, v, q.Text)
	s.mu.Lock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		s.mu.Unlock()
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	slots, err := s.readSlots(ctx, s.db)
	if err != nil {
		s.mu.Unlock()
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	now := s.now()
	counters := map[string]int64{counterSearches: 1}
	k := -1
	newTopic := false
	if q.Slot != "" {
		k = slotIndex(q.Slot)
	} else if i, ok := selectSlot(s.p, slots, v, false); ok {
		k = i
	} else if len(g.index) > 0 {
		// A new topic: search from the slot in use; if that finds
		// nothing, the topic takes the least recently used slot.
		newTopic = true
		k = activeSlot(slots)
		if k < 0 {
			if k = reassignable(slots); k >= 0 {
				slots[k] = Slot{Name: slots[k].Name, HopBudget: slots[k].HopBudget, Topic: v, Summary: summarize(q.Text), dirty: true}
			}
		}
	}
	var found []visit
	via := ViaGlobal
	if k >= 0 {
		sl := &slots[k]
		resp.Slot = sl.Name
		sl.LastUsed, sl.dirty = now, true
		start, anchored := g.index[sl.Anchor]
		if sl.Anchor != "" && !anchored {
			resp.Notices = append(resp.Notices, fmt.Sprintf("slot %s's anchor %s is gone", sl.Name, sl.Anchor))
		}
		if anchored {
			radius := q.Radius
			if radius == 0 {
				radius = sl.HopBudget
			}
			visits := g.beam(sc, start, radius, s.p.Beam)
			resp.Visited = len(visits)
			counters[counterLocalSearches]++
			counters[counterVisited] += int64(len(visits))
			for _, x := range visits {
				if x.score >= s.p.Hit {
					found = append(found, x)
				}
			}
			if len(found) > 0 {
				sortVisits(found)
				via = ViaSlot
				counters[counterLocalHits]++
				counters[counterHops] += int64(found[0].hops)
				if !sl.Pinned {
					if best := g.nodes[found[0].node].ID; best != sl.Anchor {
						sl.Anchor, sl.moved = best, true
					}
					sl.Topic = Blend(sl.Topic, v, s.p.TopicRate)
				}
			} else {
				resp.Fallback = !q.NoFallback
				if q.NoFallback {
					resp.Notices = append(resp.Notices, fmt.Sprintf("nothing near slot %s's anchor within %d hops", sl.Name, radius))
				}
			}
		} else if sl.Anchor == "" && q.Slot != "" {
			resp.Notices = append(resp.Notices, fmt.Sprintf("slot %s has no anchor: ranked every memory", sl.Name))
		}
		if via == ViaGlobal && !(anchored && q.NoFallback) {
			found = g.global(sc, q.TopK)
			if resp.Fallback {
				counters[counterFallbacks]++
			}
			if newTopic && anchored {
				if r := reassignable(slots); r >= 0 && r != k {
					k, sl = r, &slots[r]
					*sl = Slot{Name: sl.Name, HopBudget: sl.HopBudget, Topic: v, Summary: summarize(q.Text), LastUsed: now, dirty: true,
						Anchor: sl.Anchor}
					resp.Slot = sl.Name
				}
			}
			if !sl.Pinned && len(found) > 0 && found[0].score >= s.p.Hit {
				if best := g.nodes[found[0].node].ID; best != sl.Anchor {
					sl.Anchor, sl.moved = best, true
				}
				sl.Topic = Blend(sl.Topic, v, s.p.TopicRate)
			}
		}
	} else {
		found = g.global(sc, q.TopK)
	}
	if len(found) > q.TopK {
		found = found[:q.TopK]
	}
	for _, x := range found {
		if x.score <= 0 {
			continue
		}
		n := g.nodes[x.node]
		hops := x.hops
		if via == ViaGlobal {
			hops = 0
		}
		resp.Results = append(resp.Results, Result{ID: n.ID, Kind: n.Kind, Title: n.Title, Scope: n.Scope, Path: n.Path,
			Score: math.Round(x.score*10000) / 10000, Hops: hops, Via: via})
	}
	err = s.recordSlots(ctx, slots, counters)
	s.mu.Unlock()
	if err != nil {
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	if q.IncludeContent {
		if err := s.fillContent(ctx, resp.Results, q.Anchors); err != nil {
			return Response{}, fmt.Errorf("memory search: %w", err)
		}
	}
	return resp, nil
}

// RuleIDs returns the ids of the rules a localized memory search finds
// for text (near the slot closest to it, with the fallback), best first:
// what memory.InjectDeps.Recall asks for.
func (s *Store) RuleIDs(ctx context.Context, text string) ([]int64, error) {
	resp, err := s.Search(ctx, Query{Text: text, TopK: MaxTopK})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, r := range resp.Results {
		if id, ok := ParseRuleID(r.ID); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Nearby returns at most n memories a localized search finds for text
// near the closest slot's anchor, leaving out the ids in exclude: only
// local hits, never the ranking of every memory, so that what is shown
// follows the user's current topic.
func (s *Store) Nearby(ctx context.Context, text string, exclude []string, n int) ([]Result, error) {
	resp, err := s.Search(ctx, Query{Text: text, NoFallback: true, TopK: n + len(exclude)})
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range resp.Results {
		if r.Via == ViaSlot && !slices.Contains(exclude, r.ID) && len(out) < n {
			out = append(out, r)
		}
	}
	return out, nil
}

// Global is the plain memory search: every memory ranked against
// q.Text, the slots neither used nor changed.
func (s *Store) Global(ctx context.Context, q Query) (Response, error) {
	if err := checkQuery(&q); err != nil {
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	resp := Response{Results: []Result{}, Notices: []string{}}
	v := s.emb.Embed(q.Text)
	if v.IsZero() {
		resp.Notices = append(resp.Notices, "the query has no word the memory search knows")
		return resp, nil
	}
	s.mu.Lock()
	g, err := s.graphLocked(ctx)
	if err != nil {
		s.mu.Unlock()
		return Response{}, fmt.Errorf("memory search: %w", err)
	}
	for _, x := range g.global(newScorer(s.p, v, q.Text), q.TopK) {
		if x.score <= 0 {
			continue
		}
		n := g.nodes[x.node]
		resp.Results = append(resp.Results, Result{ID: n.ID, Kind: n.Kind, Title: n.Title, Scope: n.Scope, Path: n.Path,
			Score: math.Round(x.score*10000) / 10000, Via: ViaGlobal})
	}
	s.mu.Unlock()
	if q.IncludeContent {
		if err := s.fillContent(ctx, resp.Results, q.Anchors); err != nil {
			return Response{}, fmt.Errorf("memory search: %w", err)
		}
	}
	return resp, nil
}

// fillContent sets each result's content from the sources; with
// anchors, a document's content is only those sections, with the missing
// ones and the token savings.
func (s *Store) fillContent(ctx context.Context, rs []Result, anchors []string) error {
	if len(rs) == 0 {
		return nil
	}
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	content := map[string]string{}
	for _, src := range s.sources {
		cs, ok := src.(ContentSource)
		if !ok {
			continue
		}
		m, err := cs.Content(ctx, ids)
		if err != nil {
			return fmt.Errorf("read %s content: %w", src.Kind(), err)
		}
		for k, v := range m {
			if _, dup := content[k]; !dup {
				content[k] = v
			}
		}
	}
	for i := range rs {
		full, ok := content[rs[i].ID]
		if !ok {
			full = rs[i].Title
		}
		rs[i].Content = full
		if len(anchors) > 0 && rs[i].Kind == KindDocument {
			sel, missing := memdoc.Select(full, anchors)
			tm := memdoc.Metrics(full, sel)
			rs[i].Content, rs[i].TokenMetrics = sel, &tm
			rs[i].MissingAnchors = missing
			if rs[i].MissingAnchors == nil {
				rs[i].MissingAnchors = []string{}
			}
		}
	}
	return nil
}
