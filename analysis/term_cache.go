package analysis

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// maxCachedTerms bounds the terms whose chunk counts a Store keeps: a
// workspace's vocabulary is tens of thousands of terms; past the bound
// the cache starts afresh.
const maxCachedTerms = 1 << 18

// termCache keeps, for the chunks' current state, how many chunks hold
// each term asked about and how many chunks there are. Counting the
// chunks of a term walks its whole posting list (fts5vocab), so a common
// word costs as much as a search: a task of hundreds of words asks about
// the same common words again and again.
type termCache struct {
	mu    sync.Mutex
	key   [3]int64
	valid bool
	total int
	docs  map[string]int // 0: no chunk holds the term
}

// chunkState returns a key that changes whenever the chunks do: this
// process's writes (generation) and, roughly, another's (the chunks'
// highest id and count).
func (s *Store) chunkState(ctx context.Context) ([3]int64, error) {
	var key [3]int64
	key[2] = s.generation.Load()
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), count(*) FROM chunks`).Scan(&key[0], &key[1]); err != nil {
		return key, fmt.Errorf("read the chunks' state: %w", err)
	}
	return key, nil
}

// termStats returns the chunk counts of terms (those no chunk holds left
// out) and the number of chunks, from the cache where it has them.
func (s *Store) termStats(ctx context.Context, terms []string) (map[string]int, int, error) {
	key, err := s.chunkState(ctx)
	if err != nil {
		return nil, 0, err
	}
	c := &s.terms
	out := make(map[string]int, len(terms))
	var missing []string
	c.mu.Lock()
	if !c.valid || c.key != key || len(c.docs) > maxCachedTerms {
		c.key, c.valid, c.total, c.docs = key, true, int(key[1]), map[string]int{}
	}
	total := c.total
	for _, t := range terms {
		n, ok := c.docs[t]
		switch {
		case !ok:
			missing = append(missing, t)
		case n > 0:
			out[t] = n
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, total, nil
	}
	found, err := s.termChunks(ctx, missing)
	if err != nil {
		return nil, 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range missing {
		n := found[t]
		if c.key == key {
			c.docs[t] = n
		}
		if n > 0 {
			out[t] = n
		}
	}
	return out, total, nil
}

// termChunks counts the chunks of each term in the database.
func (s *Store) termChunks(ctx context.Context, terms []string) (map[string]int, error) {
	out := map[string]int{}
	// One statement for all the terms: a task's hundreds of words would
	// otherwise each pay for preparing it.
	stmt, err := s.db.PrepareContext(ctx, `SELECT doc FROM chunk_vocab WHERE term = ?`)
	if err != nil {
		return nil, fmt.Errorf("count chunks of terms: %w", err)
	}
	defer stmt.Close()
	for _, t := range terms {
		var docs int
		err := stmt.QueryRowContext(ctx, t).Scan(&docs)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("count chunks of term %q: %w", t, err)
		}
		out[t] = docs
	}
	return out, nil
}
