package analysis

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// BM25 as FTS5 computes it (fts5_aux.c): k1 = 1.2, b = 0.75, an idf of
// log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, term frequencies
// weighted by column and document lengths counted over all columns.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	bm25IDFMin  = 1e-6
	maxTermFreq = math.MaxUint16
)

// memIndex is an in-memory inverted index of the chunks' search terms: the
// postings of each term with its column-weighted frequency in each chunk,
// and each chunk's length. It ranks chunks by the same BM25 as the text
// index in SQLite, which, compiled to WebAssembly, spends most of a
// search scoring the chunks of its many OR-ed terms; here a search costs
// a walk of its terms' postings.
//
// A memIndex is immutable once published: a refresh makes a new one that
// shares the postings of the old, appending to them (one refresh runs at a
// time, always from the latest, so appends never overwrite what a reader
// of an older one reads).
type memIndex struct {
	// key is the chunks' state (Store.chunksState) it was made for.
	key string
	// ids maps a document (a chunk's position here) to its chunk id.
	ids []int64
	// length is each document's token count over all columns; 0 for a
	// document removed since (its file changed or went away).
	length []uint32
	// live counts the documents not removed, tokens their lengths.
	live   int
	tokens int64
	// rows and rowTokens are the document count and the token count BM25
	// uses: the text index's own (see ftsTotals).
	rows, rowTokens int64
	terms           map[string]*postingList
	// files maps a file id to what it was when its chunks were read, and
	// to its documents.
	files map[int64]memFile
}

// postingList is the documents holding a term, in increasing order, and
// the term's column-weighted frequency in each.
type postingList struct {
	docs []uint32
	freq []uint16
}

// memFile is what a memIndex knows of one indexed file: its content hash
// and the first id and number of its chunks when read (a file indexed
// again gets new chunks), and its documents.
type memFile struct {
	hash           int64
	firstID, count int64
	docs           []uint32
}

// memState guards a Store's memIndex and its loading.
type memState struct {
	mu sync.Mutex
	// enabled is set by Store.KeepTermsInMemory.
	enabled bool
	idx     *memIndex
	// loading is set while a load or refresh runs in the background.
	loading bool
	// stale asks the next refresh to read everything again.
	stale bool
	// done is closed when the running load ends (nil when none runs).
	done chan struct{}
	err  error
}

// KeepTermsInMemory makes searches of the chunks (SearchChunks) rank them
// from an in-memory copy of their terms, loaded in the background on the
// first search and kept up to date with the index (each change reads
// only the changed files' chunks again); until it is ready, and while it
// catches up with a change, searches ask SQLite's text index as before.
// It is for processes that serve many searches (a language server, an MCP
// server): a command that searches once would only pay for the load. The
// copy takes about as much memory as the chunks' text.
func (s *indexStore) KeepTermsInMemory() {
	s.mem.mu.Lock()
	s.mem.enabled = true
	s.mem.mu.Unlock()
}

// LoadTermsInMemory keeps the chunks' terms in memory (KeepTermsInMemory)
// and loads or refreshes them now, returning when they match the index as
// it is: for a server once its index is built, and for benchmarks.
func (s *indexStore) LoadTermsInMemory(ctx context.Context) error {
	s.KeepTermsInMemory()
	for {
		key, err := s.chunksState(ctx)
		if err != nil {
			return err
		}
		s.mem.mu.Lock()
		if s.mem.idx != nil && s.mem.idx.key == key && !s.mem.stale {
			s.mem.mu.Unlock()
			return nil
		}
		done := s.startMemLoadLocked()
		s.mem.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("load search terms: %w", ctx.Err())
		}
		s.mem.mu.Lock()
		err = s.mem.err
		s.mem.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// memIndexFor returns the in-memory index when it is enabled and matches
// the chunks' state key; otherwise it starts loading or refreshing it in
// the background (when enabled) and returns nil.
func (s *indexStore) memIndexFor(key string) *memIndex {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if !s.mem.enabled {
		return nil
	}
	if m := s.mem.idx; m != nil && m.key == key && !s.mem.stale {
		return m
	}
	s.startMemLoadLocked()
	return nil
}

// startMemLoadLocked starts a load or refresh unless one runs, and
// returns a channel closed when the running one ends. s.mem.mu is held.
func (s *indexStore) startMemLoadLocked() chan struct{} {
	if s.mem.loading {
		return s.mem.done
	}
	s.mem.loading, s.mem.done = true, make(chan struct{})
	old, stale := s.mem.idx, s.mem.stale
	s.mem.stale = false
	done := s.mem.done
	go func() {
		// The load belongs to the Store, not to the search that started
		// it: it ends when the Store closes.
		m, err := s.loadMemIndex(s.closing, old, stale)
		s.mem.mu.Lock()
		if err == nil {
			s.mem.idx = m
		}
		s.mem.err, s.mem.loading = err, false
		s.mem.mu.Unlock()
		close(done)
	}()
	return done
}

// markMemStale asks for the in-memory index to be read again from the
// start: a search found it pointing at chunks that are gone.
func (s *indexStore) markMemStale() {
	s.mem.mu.Lock()
	s.mem.stale = true
	s.mem.mu.Unlock()
}

// loadMemIndex makes the in-memory index of the chunks as they are: from
// old, reading again only the chunks of the files that changed, or from
// nothing.
func (s *indexStore) loadMemIndex(ctx context.Context, old *memIndex, full bool) (*memIndex, error) {
	key, err := s.chunksState(ctx)
	if err != nil {
		return nil, err
	}
	files, err := s.memFileStates(ctx)
	if err != nil {
		return nil, err
	}
	var m *memIndex
	if old == nil || full || len(old.ids) > 2*old.live+1024 {
		// From nothing: the first load, or one past many removals.
		m = &memIndex{terms: map[string]*postingList{}, files: map[int64]memFile{}}
	} else {
		m = &memIndex{
			ids: old.ids, length: slices.Clone(old.length), live: old.live, tokens: old.tokens,
			terms: make(map[string]*postingList, len(old.terms)), files: make(map[int64]memFile, len(files)),
		}
		for t, l := range old.terms {
			c := *l
			m.terms[t] = &c
		}
		for id, f := range old.files {
			if now, ok := files[id]; ok && now.hash == f.hash && now.firstID == f.firstID && now.count == f.count {
				m.files[id] = f
				continue
			}
			for _, d := range f.docs {
				m.live--
				m.tokens -= int64(m.length[d])
				m.length[d] = 0
			}
		}
	}
	var read []int64
	for id := range files {
		if _, ok := m.files[id]; !ok {
			read = append(read, id)
		}
	}
	slices.Sort(read)
	m.key = key
	if len(read) > 0 {
		if err := m.readFiles(ctx, s.db.DB, read, files); err != nil {
			return nil, err
		}
	}
	// BM25's document count and average length are the text index's own
	// (a contentless index does not take a deleted chunk's out of them):
	// its ranking stays what it was.
	m.rows, m.rowTokens = int64(m.live), m.tokens
	if n, tokens, ok, err := s.ftsTotals(ctx); err != nil {
		return nil, err
	} else if ok {
		m.rows, m.rowTokens = n, tokens
	}
	return m, nil
}

// ftsTotals reads the text index's count of rows and of tokens in all
// columns (its averages record, row 1 of its data table: varints of the
// row count and each column's token count).
func (s *indexStore) ftsTotals(ctx context.Context) (rows, tokens int64, ok bool, err error) {
	var block []byte
	err = s.db.QueryRowContext(ctx, `SELECT block FROM chunk_fts_data WHERE id = 1`).Scan(&block)
	if err == sql.ErrNoRows {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("read the text index's totals: %w", err)
	}
	v, n := ftsVarint(block)
	if n == 0 {
		return 0, 0, false, nil
	}
	rows, block = int64(v), block[n:]
	for range 3 {
		v, n := ftsVarint(block)
		if n == 0 {
			return 0, 0, false, nil
		}
		tokens += int64(v)
		block = block[n:]
	}
	return rows, tokens, rows > 0, nil
}

// ftsVarint decodes an SQLite varint (big-endian groups of seven bits,
// the ninth byte whole) and returns it with its length, 0 when b is too
// short.
func ftsVarint(b []byte) (uint64, int) {
	var v uint64
	for i := range min(len(b), 9) {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// memFileStates returns what identifies each indexed file's chunks: its
// hash, and its chunks' first id and count (files without chunks are
// left out).
func (s *indexStore) memFileStates(ctx context.Context) (map[int64]memFile, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.id, f.hash, c.first, c.n
		FROM (SELECT file_id, min(id) AS first, count(*) AS n FROM chunks GROUP BY file_id) c
		JOIN files f ON f.id = c.file_id`)
	if err != nil {
		return nil, fmt.Errorf("read the chunks' files: %w", err)
	}
	defer rows.Close()
	out := map[int64]memFile{}
	for rows.Next() {
		var id int64
		var f memFile
		if err := rows.Scan(&id, &f.hash, &f.firstID, &f.count); err != nil {
			return nil, fmt.Errorf("read the chunks' files: %w", err)
		}
		out[id] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the chunks' files: %w", err)
	}
	return out, nil
}

// readFiles reads the chunks of files (ids, sorted) and adds them, with
// files' states, as new documents.
func (m *memIndex) readFiles(ctx context.Context, db *sql.DB, ids []int64, states map[int64]memFile) error {
	// A few hundred files at a time: an IN list of every file of a large
	// workspace would be a statement of megabytes.
	const batch = 500
	var buf []byte
	freq := map[string]uint16{}
	for len(ids) > 0 {
		n := min(batch, len(ids))
		marks := strings.Repeat(",?", n)[1:]
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		rows, err := db.QueryContext(ctx, `SELECT c.id, c.file_id, f.path, c.name, c.context, c.text
			FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.file_id IN (`+marks+`) ORDER BY c.id`, args...)
		if err != nil {
			return fmt.Errorf("read the chunks' terms: %w", err)
		}
		for rows.Next() {
			var id, file int64
			var p, name, context, text string
			if err := rows.Scan(&id, &file, &p, &name, &context, &text); err != nil {
				rows.Close()
				return fmt.Errorf("read the chunks' terms: %w", err)
			}
			clear(freq)
			var length uint32
			var terms [3]string
			terms, buf = appendChunkTerms(buf, p, name, context, text)
			for col, weight := range [3]uint16{weightName, weightContext, weightBody} {
				for t := range strings.FieldsSeq(terms[col]) {
					freq[t] = uint16(min(maxTermFreq, int(freq[t])+int(weight)))
					length++
				}
			}
			doc := uint32(len(m.ids))
			m.ids = append(m.ids, id)
			m.length = append(m.length, length)
			m.live++
			m.tokens += int64(length)
			for t, f := range freq {
				l := m.terms[t]
				if l == nil {
					l = &postingList{}
					m.terms[strings.Clone(t)] = l
				}
				l.docs = append(l.docs, doc)
				l.freq = append(l.freq, f)
			}
			st := m.files[file]
			if st.docs == nil {
				st = states[file]
			}
			st.docs = append(st.docs, doc)
			m.files[file] = st
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("read the chunks' terms: %w", err)
		}
	}
	return nil
}

// memHit is a chunk ranked by the in-memory index.
type memHit struct {
	id    int64
	score float64
}

// search ranks the documents holding any of terms (distinct) by BM25, as
// SearchChunks's SQL does, and returns the best limit, best first (ties
// by chunk id).
func (m *memIndex) search(terms []string, limit int) []memHit {
	if m.live == 0 || limit <= 0 {
		return nil
	}
	n := float64(m.rows)
	avgdl := float64(m.rowTokens) / n
	// Scores by document, and the documents scored, in the order first
	// met.
	scores := make([]float64, len(m.ids))
	var scored []uint32
	for _, t := range terms {
		l := m.terms[t]
		if l == nil {
			continue
		}
		hits := 0
		for _, d := range l.docs {
			if m.length[d] > 0 {
				hits++
			}
		}
		if hits == 0 {
			continue
		}
		idf := math.Log((n - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = bm25IDFMin
		}
		for i, d := range l.docs {
			dl := m.length[d]
			if dl == 0 {
				continue
			}
			if scores[d] == 0 {
				scored = append(scored, d)
			}
			f := float64(l.freq[i])
			scores[d] += idf * (f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl)))
		}
	}
	better := func(a, b memHit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
	// The best limit by a bounded heap, worst on top: a common word
	// scores most of the chunks, of which a few are wanted.
	top := make([]memHit, 0, min(limit, len(scored)))
	worse := func(i, j int) bool { return better(top[i], top[j]) > 0 }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(top) {
				return
			}
			if c+1 < len(top) && worse(c+1, c) {
				c++
			}
			if !worse(c, i) {
				return
			}
			top[i], top[c] = top[c], top[i]
			i = c
		}
	}
	for _, d := range scored {
		h := memHit{m.ids[d], scores[d]}
		if len(top) < limit {
			top = append(top, h)
			for i := len(top) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(i, p) {
					break
				}
				top[i], top[p] = top[p], top[i]
				i = p
			}
			continue
		}
		if better(h, top[0]) < 0 {
			top[0] = h
			down(0)
		}
	}
	slices.SortFunc(top, better)
	return top
}

// memEnabled reports whether searches use the in-memory index when ready.
func (s *indexStore) memEnabled() bool {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	return s.mem.enabled
}

// memSearch ranks chunks by the in-memory index and reads the best; ok is
// false when one of them is no longer in the database.
func (s *indexStore) memSearch(ctx context.Context, m *memIndex, terms []string, limit int, columns string) (hits []ChunkHit, ok bool, err error) {
	ranked := m.search(terms, limit)
	if len(ranked) == 0 {
		return nil, true, nil
	}
	ids := make([]int64, len(ranked))
	for i, h := range ranked {
		ids[i] = h.id
	}
	chunks, err := s.chunks(ctx, ids, columns)
	if err != nil {
		return nil, false, fmt.Errorf("search chunks: %w", err)
	}
	if len(chunks) != len(ids) {
		return nil, false, nil
	}
	out := make([]ChunkHit, len(chunks))
	for i, c := range chunks {
		out[i] = ChunkHit{ChunkInfo: c, Score: ranked[i].score}
	}
	return out, true, nil
}
