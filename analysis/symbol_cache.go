package analysis

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// symbolCache keeps the answers of the last symbol-name searches while the
// index does not change: an editor asks workspace/symbol again and again
// for the same name while the user types (and the open documents, which
// change then, are overlaid on the stored answer, not written to it).
type symbolCache struct {
	mu      sync.Mutex
	key     string // chunksState when the answers were read
	answers map[symbolQuery][]SymbolMatch
}

type symbolQuery struct {
	query string
	limit int
}

// maxCachedSymbolQueries bounds the answers kept: the cache is emptied
// when it is full.
const maxCachedSymbolQueries = 64

// cachedSymbols is Symbols, answered from the cache when the index has not
// changed since the same search. The result may be modified by the caller.
func (s *indexStore) cachedSymbols(ctx context.Context, query string, limit int) ([]SymbolMatch, error) {
	query = strings.TrimSpace(query)
	if len(query) > MaxNameQuery {
		return nil, nil
	}
	key, err := s.chunksState(ctx)
	if err != nil {
		return nil, err
	}
	q := symbolQuery{query, limit}
	c := &s.symbols
	c.mu.Lock()
	if c.key == key {
		if out, ok := c.answers[q]; ok {
			c.mu.Unlock()
			return slices.Clone(out), nil
		}
	}
	c.mu.Unlock()
	out, err := s.Symbols(ctx, query, limit)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key != key || len(c.answers) >= maxCachedSymbolQueries {
		c.key, c.answers = key, map[symbolQuery][]SymbolMatch{}
	}
	c.answers[q] = slices.Clone(out)
	return out, nil
}
