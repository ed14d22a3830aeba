package recall

import (
	"context"
	"database/sql"
	"fmt"
	"math"
)

// Counters kept in recall_meta.
const (
	counterSearches      = "searches"
	counterLocalSearches = "local_searches"
	counterLocalHits     = "local_hits"
	counterFallbacks     = "fallbacks"
	counterHops          = "hops"
	counterVisited       = "visited"
	counterAnchorMoves   = "anchor_moves"
)

// addCounters adds to the counters.
func addCounters(ctx context.Context, tx *sql.Tx, add map[string]int64) error {
	for k, v := range add {
		if v == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO recall_meta(key, value) VALUES(?, ?)
			ON CONFLICT(key) DO UPDATE SET value = value + excluded.value`, k, v); err != nil {
			return fmt.Errorf("count %s: %w", k, err)
		}
	}
	return nil
}

// Metrics are how the slots and the graph do, counted since the
// database was made.
type Metrics struct {
	// Searches counts every Search; LocalSearches those that started
	// from a slot's anchor; LocalHits those of them that found a hit
	// near the anchor; Fallbacks those that then ranked every memory.
	Searches      int64 `json:"searches"`
	LocalSearches int64 `json:"local_searches"`
	LocalHits     int64 `json:"local_hits"`
	Fallbacks     int64 `json:"fallbacks"`
	// LocalHitRate is LocalHits / Searches: the share of all searches
	// answered near an anchor. FallbackRate is Fallbacks /
	// LocalSearches: the share of localized searches that fell back.
	LocalHitRate float64 `json:"local_hit_rate"`
	FallbackRate float64 `json:"fallback_rate"`
	// AvgHops is the mean distance, in hops from the anchor, of the
	// best hit of a local hit; AvgVisited the mean number of memories a
	// localized search scored.
	AvgHops    float64 `json:"avg_hops"`
	AvgVisited float64 `json:"avg_visited"`
	// AnchorMoves counts the changes of a slot's anchor.
	AnchorMoves int64 `json:"anchor_moves"`
	// Nodes and Edges are the graph's size.
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
}

// Metrics returns the counters and the graph's size.
func (s *Store) Metrics(ctx context.Context) (Metrics, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM recall_meta`)
	if err != nil {
		return Metrics{}, fmt.Errorf("read memory graph metrics: %w", err)
	}
	c := map[string]int64{}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return Metrics{}, fmt.Errorf("read memory graph metrics: %w", err)
		}
		c[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Metrics{}, fmt.Errorf("read memory graph metrics: %w", err)
	}
	s.mu.Lock()
	for k, v := range s.pendingCounters {
		c[k] += v // not written yet (WithDeferredWrites)
	}
	s.mu.Unlock()
	m := Metrics{
		Searches: c[counterSearches], LocalSearches: c[counterLocalSearches], LocalHits: c[counterLocalHits],
		Fallbacks: c[counterFallbacks], AnchorMoves: c[counterAnchorMoves],
		LocalHitRate: ratio(c[counterLocalHits], c[counterSearches]),
		FallbackRate: ratio(c[counterFallbacks], c[counterLocalSearches]),
		AvgHops:      ratio(c[counterHops], c[counterLocalHits]),
		AvgVisited:   ratio(c[counterVisited], c[counterLocalSearches]),
	}
	if m.Nodes, m.Edges, err = s.Len(ctx); err != nil {
		return Metrics{}, fmt.Errorf("read memory graph metrics: %w", err)
	}
	return m, nil
}

// ratio is a/b rounded to three decimals, 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(float64(a)/float64(b)*1000) / 1000
}

// String sums the metrics up on one line.
func (m Metrics) String() string {
	return fmt.Sprintf("memory graph: %d memories, %d edges; %d searches, local hit rate %.0f%%, fallback rate %.0f%%, %.2f hops on average, %d anchor moves",
		m.Nodes, m.Edges, m.Searches, 100*m.LocalHitRate, 100*m.FallbackRate, m.AvgHops, m.AnchorMoves)
}
