package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ChunkInfo is a stored chunk with its file.
type ChunkInfo struct {
	ID int64
	// NodeID is the chunk's symbol's id, 0 for module-level code.
	NodeID int64
	Path   string
	// Language is the file's language.
	Language string
	Kind     Kind
	// Name is the chunk's symbol's qualified name (see Chunk.Name).
	Name string
	// Symbol is the chunk's symbol's own name, "" for module-level code.
	Symbol string
	Part   int
	Parts  int
	// StartLine and EndLine are 0-based and inclusive.
	StartLine, EndLine int
	Context            string
	Callers            string
	Text               string
}

const chunkColumns = `c.id, coalesce(c.node_id, 0), f.path, f.language, c.kind, c.name, c.sym_name, c.part, c.parts,
	c.start_line, c.end_line, c.context, ` + chunkCallers + `, c.text`

// chunkCallers is the callers sentence of chunk c: its own (chunks written
// before chunk_callers existed) or that of its symbol's name.
const chunkCallers = `coalesce(nullif(c.callers, ''),
	(SELECT l.list FROM chunk_callers l WHERE l.name = c.sym_name AND c.node_id IS NOT NULL), '')`

// chunkPlaceColumns are chunkColumns without the text, context and
// callers, which are most of a chunk's bytes (scanChunk leaves them
// empty).
const chunkPlaceColumns = `c.id, coalesce(c.node_id, 0), f.path, f.language, c.kind, c.name, c.sym_name, c.part, c.parts,
	c.start_line, c.end_line, '', '', ''`

func scanChunk(rows interface{ Scan(...any) error }) (ChunkInfo, error) {
	var c ChunkInfo
	var kind string
	err := rows.Scan(&c.ID, &c.NodeID, &c.Path, &c.Language, &kind, &c.Name, &c.Symbol, &c.Part, &c.Parts,
		&c.StartLine, &c.EndLine, &c.Context, &c.Callers, &c.Text)
	c.Kind = Kind(kind)
	return c, err
}

// ChunkHit is a chunk found by a text search, with its BM25 score
// (higher is better).
type ChunkHit struct {
	ChunkInfo
	Score float64
}

// Text index column weights for BM25: a word in a chunk's name counts
// more than in its context (path, doc), which counts more than in its code.
const (
	weightName    = 4.0
	weightContext = 2.0
	weightBody    = 1.0
)

// commonTerm is the share of chunks above which a term is left out of a
// query that has rarer ones, in an index of at least commonTermMinChunks:
// its weight in BM25 is small, and reading its long list of chunks is most
// of a query's time. Small indexes are fast anyway and keep every term.
const (
	commonTerm          = 0.08
	commonTermMinChunks = 20000
)

// SearchChunks ranks chunks by BM25 against terms (as AppendTerms makes
// them; any of them may match) and returns the best limit.
func (s *indexStore) SearchChunks(ctx context.Context, terms []string, limit int) ([]ChunkHit, error) {
	return s.searchChunks(ctx, terms, limit, chunkColumns)
}

// RankChunks is SearchChunks for callers that need only where the chunks
// are: the hits have no Text, Context or Callers, and cost a fraction of
// SearchChunks's to read.
func (s *indexStore) RankChunks(ctx context.Context, terms []string, limit int) ([]ChunkHit, error) {
	return s.searchChunks(ctx, terms, limit, chunkPlaceColumns)
}

// searchChunks is SearchChunks, reading columns (chunkColumns or
// chunkPlaceColumns) of each hit.
func (s *indexStore) searchChunks(ctx context.Context, terms []string, limit int, columns string) ([]ChunkHit, error) {
	terms, err := s.dropCommonTerms(ctx, terms)
	if err != nil {
		return nil, err
	}
	var distinct []string
	seen := map[string]bool{}
	for _, t := range terms {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		distinct = append(distinct, t)
	}
	if len(distinct) == 0 || limit <= 0 {
		return nil, nil
	}
	if s.memEnabled() {
		key, err := s.chunksState(ctx)
		if err != nil {
			return nil, err
		}
		if m := s.memIndexFor(key); m != nil {
			hits, ok, err := s.memSearch(ctx, m, distinct, limit, columns)
			if err != nil || ok {
				return hits, err
			}
			// It names chunks that are gone: ask SQLite, and read the
			// terms again.
			s.markMemStale()
		}
	}
	return s.ftsSearchChunks(ctx, distinct, limit, columns)
}

// ftsSearchChunks is SearchChunks by SQLite's text index; terms are
// distinct and not empty.
func (s *indexStore) ftsSearchChunks(ctx context.Context, terms []string, limit int, columns string) ([]ChunkHit, error) {
	var q strings.Builder
	for _, t := range terms {
		if q.Len() > 0 {
			q.WriteString(" OR ")
		}
		q.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	if q.Len() == 0 || limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT `+columns+`, -h.score
		FROM (SELECT rowid, bm25(chunk_fts, %g, %g, %g) AS score FROM chunk_fts WHERE chunk_fts MATCH ?
			ORDER BY score LIMIT ?) h
		JOIN chunks c ON c.id = h.rowid JOIN files f ON f.id = c.file_id
		ORDER BY h.score`, weightName, weightContext, weightBody), q.String(), limit)
	if err != nil {
		return nil, fmt.Errorf("search chunks: %w", err)
	}
	defer rows.Close()
	var out []ChunkHit
	for rows.Next() {
		var h ChunkHit
		var kind string
		err := rows.Scan(&h.ID, &h.NodeID, &h.Path, &h.Language, &kind, &h.Name, &h.Symbol, &h.Part, &h.Parts,
			&h.StartLine, &h.EndLine, &h.Context, &h.Callers, &h.Text, &h.Score)
		if err != nil {
			return nil, fmt.Errorf("search chunks: %w", err)
		}
		h.Kind = Kind(kind)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search chunks: %w", err)
	}
	return out, nil
}

// dropCommonTerms leaves out of terms those held by more than commonTerm
// of the chunks, unless nothing rarer remains.
func (s *indexStore) dropCommonTerms(ctx context.Context, terms []string) ([]string, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	docs, total, err := s.termStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	if total < commonTermMinChunks {
		return terms, nil
	}
	var rare []string
	for _, t := range terms {
		if float64(docs[t]) <= commonTerm*float64(total) {
			rare = append(rare, t)
		}
	}
	if len(rare) == 0 {
		return terms, nil
	}
	return rare, nil
}

// TermChunks returns how many chunks hold each of terms (search terms, as
// AppendTerms makes them); terms no chunk holds are left out.
func (s *indexStore) TermChunks(ctx context.Context, terms []string) (map[string]int, error) {
	docs, _, err := s.TermStats(ctx, terms)
	return docs, err
}

// TermStats returns how many chunks hold each of terms (as TermChunks
// does) and how many chunks there are. The counts are kept in memory
// until the chunks change: a common word's count costs as much as a
// search.
func (s *indexStore) TermStats(ctx context.Context, terms []string) (map[string]int, int, error) {
	if len(terms) == 0 {
		n, err := s.ChunkCount(ctx)
		return map[string]int{}, n, err
	}
	return s.termStats(ctx, terms)
}

// Chunks returns the chunks with the given ids, in that order; ids that
// no longer exist are left out.
func (s *indexStore) Chunks(ctx context.Context, ids []int64) ([]ChunkInfo, error) {
	return s.chunks(ctx, ids, chunkColumns)
}

// chunks is Chunks, reading columns (chunkColumns or chunkPlaceColumns).
func (s *indexStore) chunks(ctx context.Context, ids []int64, columns string) ([]ChunkInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	marks := make([]string, len(ids))
	for i, id := range ids {
		args[i], marks[i] = id, "?"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+` FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE c.id IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	byID := map[int64]ChunkInfo{}
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		byID[c.ID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	out := make([]ChunkInfo, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// ChunkCount returns how many chunks are stored.
func (s *indexStore) ChunkCount(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// Vectors are the stored vectors of every chunk, for a brute-force
// nearest-neighbour search. They are read once and kept until the chunks
// change.
type Vectors struct {
	IDs  []int64
	Data [][]byte
	pos  map[int64]int
}

// Of returns the vector of a chunk, or nil.
func (v *Vectors) Of(id int64) []byte {
	if i, ok := v.pos[id]; ok {
		return v.Data[i]
	}
	return nil
}

// vectorCache keeps the last Vectors read, keyed by the chunks' state.
type vectorCache struct {
	mu  sync.Mutex
	key [3]int64
	v   *Vectors
}

// ChunkVectors returns the vectors of all chunks that have one. The
// result is shared: callers must not modify it.
func (s *indexStore) ChunkVectors(ctx context.Context) (*Vectors, error) {
	// The key sees this process's writes (generation) and, roughly,
	// another's (the chunks' ids and count).
	var key [3]int64
	key[2] = s.generation.Load()
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), count(*) FROM chunks`).Scan(&key[0], &key[1]); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	s.vectors.mu.Lock()
	defer s.vectors.mu.Unlock()
	if s.vectors.v != nil && s.vectors.key == key {
		return s.vectors.v, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, vector FROM chunks WHERE vector IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	v := &Vectors{pos: map[int64]int{}}
	for rows.Next() {
		var id int64
		var b sql.RawBytes
		if err := rows.Scan(&id, &b); err != nil {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
		v.pos[id] = len(v.IDs)
		v.IDs = append(v.IDs, id)
		v.Data = append(v.Data, append([]byte(nil), b...))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	s.vectors.key, s.vectors.v = key, v
	return v, nil
}

// FilePaths returns the root-relative paths of the indexed files, sorted.
func (s *indexStore) FilePaths(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("list files: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// EnclosingSymbol returns the innermost symbol of a file whose range holds
// a 0-based line, other than the module.
func (s *indexStore) EnclosingSymbol(ctx context.Context, path string, line int) (SymbolInfo, bool, error) {
	syms, err := s.querySymbols(ctx, `f.path = ? AND n.kind != 'module' AND n.start_line <= ? AND n.end_line >= ?
		ORDER BY n.start_byte DESC LIMIT 1`, path, line, line)
	if err != nil {
		return SymbolInfo{}, false, fmt.Errorf("symbol at %s:%d: %w", path, line+1, err)
	}
	if len(syms) == 0 {
		return SymbolInfo{}, false, nil
	}
	return syms[0], true, nil
}

// ChunkOf returns the first chunk of a symbol, by the symbol's id.
func (s *indexStore) ChunkOf(ctx context.Context, symbolID int64) (ChunkInfo, bool, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+chunkColumns+` FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE c.node_id = ? ORDER BY c.part LIMIT 1`, symbolID)
	c, err := scanChunk(row)
	if err == sql.ErrNoRows {
		return ChunkInfo{}, false, nil
	}
	if err != nil {
		return ChunkInfo{}, false, fmt.Errorf("chunk of symbol %d: %w", symbolID, err)
	}
	return c, true, nil
}

// RelatedTerm returns the search term of the chunk index closest to stem,
// a word's stem that no chunk holds as it is, with how many chunks hold
// it: the commonest term that begins with stem, else the longest of
// stem's prefixes (down to four letters, at most three letters shorter)
// that is a term. The light stemmer leaves some forms apart (decorator,
// decorat); this joins them. It returns "" when stem is shorter than five
// bytes or nothing is close.
func (s *indexStore) RelatedTerm(ctx context.Context, stem string) (string, int, error) {
	if len(stem) < 5 {
		return "", 0, nil
	}
	var term string
	var d int
	err := s.db.QueryRowContext(ctx, `SELECT term, doc FROM chunk_vocab WHERE term > ? AND term < ? ORDER BY doc DESC LIMIT 1`,
		stem, stem+"\U0010FFFF").Scan(&term, &d)
	switch {
	case err == nil:
		return term, d, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", 0, fmt.Errorf("terms starting %q: %w", stem, err)
	}
	for k := len(stem) - 1; k >= max(4, len(stem)-3); k-- {
		err := s.db.QueryRowContext(ctx, `SELECT doc FROM chunk_vocab WHERE term = ?`, stem[:k]).Scan(&d)
		switch {
		case err == nil:
			return stem[:k], d, nil
		case !errors.Is(err, sql.ErrNoRows):
			return "", 0, fmt.Errorf("term %q: %w", stem[:k], err)
		}
	}
	return "", 0, nil
}
