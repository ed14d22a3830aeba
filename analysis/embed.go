package analysis

import (
	"context"
	"fmt"
	"sync"

	"github.com/ncruces/go-sqlite3"
)

// Embedder turns the text of a chunk into the vector stored with it.
// Model names what built the vectors: when it changes, every chunk is
// embedded again. Embed must be safe for concurrent use.
type Embedder interface {
	Model() string
	Embed(text string) []byte
}

// InlineEmbedder is an Embedder cheap enough to run while a search runs
// (the built-in word vectors take microseconds a chunk). The index stores
// no vectors for it: a search embeds the chunks it ranks, with the
// callers the index knows then, and indexing pays nothing for vectors.
type InlineEmbedder interface {
	Embedder
	// EmbedsInline marks the Embedder as inline; it does nothing.
	EmbedsInline()
}

// BatchEmbedder is an Embedder that embeds many texts at once (a server
// reached over the network); EmbedChunks uses it when it can. A failure
// leaves the chunks without vectors, to be embedded by a later update.
type BatchEmbedder interface {
	Embedder
	EmbedBatch(ctx context.Context, texts []string) ([][]byte, error)
}

// ChunkEmbeddingText is what a chunk's vector is computed from: its
// contextual prefix, the callers the index knows, and its text.
func ChunkEmbeddingText(context, callers, text string) string {
	if callers != "" {
		context += " " + callers
	}
	return context + "\n" + text
}

// embedBatch is the number of chunks read, embedded and written at once.
const embedBatch = 2048

// EmbedChunks computes the vectors of the chunks that have none, on all
// workers, and stamps the index with the embedder's model; when the stamp
// names another model, every vector is computed again. It does nothing
// without an embedder. With an InlineEmbedder it only stamps the index,
// dropping the vectors of another model.
func (ix *Index) EmbedChunks(ctx context.Context) error {
	return ix.embedChunks(ctx, nil)
}

// embedJob is one chunk to embed: its text, then its vector.
type embedJob struct {
	id   int64
	text string
	vec  []byte
}

// embedChunks is EmbedChunks, reading and embedding the chunks while the
// vectors already computed are written. When meanwhile is not nil, it runs
// on this goroutine while the first chunks are embedded (work of a first
// build on the write connection, which needs no vectors), and vectors are
// written once it returns; they wait in memory, up to embedBuffer bytes.
func (ix *Index) embedChunks(ctx context.Context, meanwhile func() error) error {
	e := ix.opts.Embedder
	if e == nil {
		if meanwhile != nil {
			return meanwhile()
		}
		return nil
	}
	ix.embedMu.Lock()
	defer ix.embedMu.Unlock()
	stamp, err := ix.VectorModel(ctx)
	if err != nil {
		return fmt.Errorf("embed chunks: %w", err)
	}
	if stamp != e.Model() {
		// Vectors are written after their stamp: an index without one
		// has none to drop.
		if stamp != "" {
			if _, err := ix.store.db.ExecContext(ctx, `UPDATE chunks SET vector = NULL WHERE vector IS NOT NULL`); err != nil {
				return fmt.Errorf("embed chunks: %w", err)
			}
			ix.store.generation.Add(1)
		}
		if _, err := ix.store.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES('vector_model', ?)`, e.Model()); err != nil {
			return fmt.Errorf("embed chunks: %w", err)
		}
	}
	if _, ok := e.(InlineEmbedder); ok {
		if meanwhile != nil {
			return meanwhile()
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	budget := newByteBudget(embedBuffer)
	batches := make(chan []embedJob, 1024) // bounded by budget
	produced := make(chan error, 1)
	go func() {
		defer close(batches)
		produced <- ix.embedBatches(ctx, e, budget, batches)
	}()
	fail := func(err error) error {
		cancel()
		budget.close()
		for range batches {
		}
		<-produced
		return err
	}
	if meanwhile != nil {
		if err := meanwhile(); err != nil {
			return fail(err)
		}
	}
	for jobs := range batches {
		// As the files' writer does (parseAll), the vectors' writer
		// commits what it wrote and waits for its turn when a burst holds
		// the indexer back.
		var st *sqlite3.Stmt
		err := ix.writeInTurns(ctx, len(jobs), vectorYieldEvery,
			func(w *indexWriter) (err error) {
				st, err = w.stmt(`UPDATE chunks SET vector = ? WHERE id = ?`)
				return err
			},
			func(w *indexWriter, i int) error {
				st.BindBlob(1, jobs[i].vec)
				st.BindInt64(2, jobs[i].id)
				if err := st.Exec(); err != nil {
					return fmt.Errorf("store vector: %w", err)
				}
				return nil
			})
		budget.release(vectorBytes(jobs))
		switch {
		case err != nil && err == ctx.Err():
			return fail(err)
		case err != nil:
			return fail(fmt.Errorf("embed chunks: %w", err))
		}
	}
	if err := <-produced; err != nil {
		return err
	}
	return ctx.Err()
}

// vectorYieldEvery is how many vectors the writer stores between its
// looks at whether a burst holds the indexer back (a vector's row is
// written in tens of microseconds).
const vectorYieldEvery = 64

// embedBuffer bounds the bytes of vectors computed and not yet written.
const embedBuffer = 64 << 20

// vectorBytes is what a batch's vectors take in memory.
func vectorBytes(jobs []embedJob) int64 {
	n := int64(0)
	for _, j := range jobs {
		n += int64(len(j.vec)) + 64
	}
	return n
}

// embedBatches reads the chunks that have no vector, a batch at a time,
// embeds them and sends them to out, each once budget grants its bytes.
func (ix *Index) embedBatches(ctx context.Context, e Embedder, budget *byteBudget, out chan<- []embedJob) error {
	after := int64(0)
	for {
		rows, err := ix.store.db.QueryContext(ctx, `SELECT c.id, c.context, `+chunkCallers+`, c.text FROM chunks c
			WHERE c.vector IS NULL AND c.id > ? ORDER BY c.id LIMIT ?`, after, embedBatch)
		if err != nil {
			return fmt.Errorf("embed chunks: %w", err)
		}
		var jobs []embedJob
		for rows.Next() {
			var j embedJob
			var context, callers, text string
			if err := rows.Scan(&j.id, &context, &callers, &text); err != nil {
				rows.Close()
				return fmt.Errorf("embed chunks: %w", err)
			}
			j.text = ChunkEmbeddingText(context, callers, text)
			jobs = append(jobs, j)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("embed chunks: %w", err)
		}
		if len(jobs) == 0 {
			return nil
		}
		after = jobs[len(jobs)-1].id
		if be, ok := e.(BatchEmbedder); ok {
			texts := make([]string, len(jobs))
			for i, j := range jobs {
				texts[i] = j.text
			}
			vecs, err := be.EmbedBatch(ctx, texts)
			if err != nil {
				return fmt.Errorf("embed chunks with %s: %w", e.Model(), err)
			}
			if len(vecs) != len(jobs) {
				return fmt.Errorf("embed chunks with %s: %d vectors for %d chunks", e.Model(), len(vecs), len(jobs))
			}
			for i := range jobs {
				if jobs[i].vec = vecs[i]; jobs[i].vec == nil {
					jobs[i].vec = []byte{}
				}
			}
		} else {
			var wg sync.WaitGroup
			workers := max(1, ix.opts.Workers)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < len(jobs); i += workers {
						// A keystroke goes first (foreground.go).
						if !ix.fg.acquire(ctx) {
							return
						}
						if jobs[i].vec = e.Embed(jobs[i].text); jobs[i].vec == nil {
							jobs[i].vec = []byte{} // no vector, but embedded
						}
						ix.fg.release()
					}
				}()
			}
			wg.Wait()
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for i := range jobs {
			jobs[i].text = ""
		}
		if !budget.acquire(vectorBytes(jobs)) {
			return ctx.Err()
		}
		select {
		case out <- jobs:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// byteBudget lets a producer hold at most a number of bytes at once.
type byteBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	size   int64
	free   int64
	closed bool
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{size: n, free: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n bytes are free, or all are when n is more than the
// budget, and takes them; it returns false once the budget is closed.
func (b *byteBudget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.free < n && b.free < b.size {
		b.cond.Wait()
	}
	b.free -= n
	return !b.closed
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *byteBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// VectorModel returns the model that made the stored chunk vectors (as
// Embedder.Model names it), or "" when no chunk has a vector yet.
func (ix *Index) VectorModel(ctx context.Context) (string, error) {
	var stamp string
	err := ix.store.db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'vector_model'), '')`).Scan(&stamp)
	if err != nil {
		return "", fmt.Errorf("read vector model: %w", err)
	}
	return stamp, nil
}
