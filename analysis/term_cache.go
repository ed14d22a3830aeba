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
	key   string
	valid bool
	total int
	docs  map[string]int // 0: no chunk holds the term
}

// chunksState returns a key that changes whenever the chunks do: this
// process's writes (generation) and another's, which change the text
// index's structure record (FTS5 keeps it in row 10 of its data table,
// with a counter every write increments). It is one row read by its key,
// where counting the chunks reads them all.
func (s *indexStore) chunksState(ctx context.Context) (string, error) {
	var block []byte
	err := s.db.QueryRowContext(ctx, `SELECT block FROM chunk_fts_data WHERE id = 10`).Scan(&block)
	if err != nil && err != sql.ErrNoRows {
		return "", fmt.Errorf("read the chunks' state: %w", err)
	}
	return fmt.Sprintf("%d\x00%s", s.generation.Load(), block), nil
}

// termStats returns the chunk counts of terms (those no chunk holds left
// out) and the number of chunks, from the cache where it has them.
func (s *indexStore) termStats(ctx context.Context, terms []string) (map[string]int, int, error) {
	key, err := s.chunksState(ctx)
	if err != nil {
		return nil, 0, err
	}
	c := &s.terms
	c.mu.Lock()
	fresh := c.valid && c.key == key
	c.mu.Unlock()
	if !fresh {
		total, err := s.ChunkCount(ctx)
		if err != nil {
			return nil, 0, err
		}
		c.mu.Lock()
		c.key, c.valid, c.total, c.docs = key, true, total, map[string]int{}
		c.mu.Unlock()
	}
	out := make(map[string]int, len(terms))
	var missing []string
	c.mu.Lock()
	if len(c.docs) > maxCachedTerms {
		c.docs = map[string]int{}
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
func (s *indexStore) termChunks(ctx context.Context, terms []string) (map[string]int, error) {
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
