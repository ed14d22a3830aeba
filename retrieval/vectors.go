package retrieval

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"time"

	"github.com/anchorage-dev/anchorage/retrieval/embedding"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// WordVectors is the built-in vector signal: offline word vectors (see
// package wordvec) averaged over a text's words. It embeds chunks for the
// index (analysis.Embedder) and queries for the semantic backend
// (Vectorizer), and is safe for concurrent use.
type WordVectors struct {
	m *wordvec.Model
	// exp proposes the words of query expansion (Expand): m, or the
	// GloVe vectors when m is the code-search model (expandWithGloVe).
	exp *wordvec.Model
	// expanded keeps the words Expand proposed for each word it was asked
	// about: finding them searches the whole vocabulary, milliseconds a
	// word, and a session asks about the same words again and again.
	expandMu sync.Mutex
	expanded map[string][]string
	// embedded keeps the vectors of the long texts embedded before, by
	// their hash: a search embeds its hundred or so candidate chunks, and
	// the searches of a session meet the same chunks again and again.
	embedMu  sync.Mutex
	embedded map[uint64][]byte
	seed     maphash.Seed
}

// Embedding memory bounds: texts shorter than minEmbedded bytes (a
// query) are embedded afresh; past maxEmbedded texts the memory starts
// afresh (about 5 MB of vectors).
const (
	minEmbedded = 256
	maxEmbedded = 1 << 14
)

// maxExpanded bounds the words whose expansion WordVectors keeps; past it
// the memory starts afresh.
const maxExpanded = 1 << 14

// The built-in vector signal's models. codeVectors embeds chunks and
// queries with the code-search model (wordvec.LoadCode: GloVe fine-tuned
// on doc sentences and the code they describe, scripts/codevec) instead
// of plain GloVe; expandWithGloVe keeps GloVe's neighbours for query
// expansion. The evaluation behind both is in
// testdata/eval/README.md ("A code-search model trained here").
const (
	codeVectors     = true
	expandWithGloVe = true
)

// NewWordVectors loads the built-in word vectors.
func NewWordVectors() (*WordVectors, error) {
	g, err := wordvec.Load()
	if err != nil {
		return nil, fmt.Errorf("load word vectors: %w", err)
	}
	if !codeVectors {
		return WordVectorsOf(g), nil
	}
	c, err := wordvec.LoadCode()
	if err != nil {
		return nil, fmt.Errorf("load word vectors: %w", err)
	}
	w := &WordVectors{m: c, exp: c}
	if expandWithGloVe {
		w.exp = g
	}
	return w, nil
}

// WordVectorsOf returns word vectors over a model, such as a Subset of the
// built-in one; the model also expands queries.
func WordVectorsOf(m *wordvec.Model) *WordVectors { return &WordVectors{m: m, exp: m} }

// Model names the vectors, so that the index re-embeds its chunks when
// they change.
func (w *WordVectors) Model() string { return w.m.Stamp() }

// EmbedsInline marks the word vectors as an analysis.InlineEmbedder: a
// chunk takes microseconds to embed, so searches embed their candidates
// and the index stores no vectors.
func (w *WordVectors) EmbedsInline() {}

// Embed returns the quantised vector of text, or nil when none of its
// words is known.
func (w *WordVectors) Embed(text string) []byte {
	if len(text) < minEmbedded {
		return w.embed(text)
	}
	w.embedMu.Lock()
	if w.embedded == nil || len(w.embedded) >= maxEmbedded {
		if w.embedded == nil {
			w.seed = maphash.MakeSeed()
		}
		w.embedded = make(map[uint64][]byte)
	}
	key := maphash.String(w.seed, text)
	v, ok := w.embedded[key]
	w.embedMu.Unlock()
	if ok {
		return v
	}
	v = w.embed(text)
	w.embedMu.Lock()
	w.embedded[key] = v
	w.embedMu.Unlock()
	return v
}

// embed is Embed without the memory of texts embedded before.
func (w *WordVectors) embed(text string) []byte {
	v := w.m.Embed(text)
	zero := true
	for _, x := range v {
		if x != 0 {
			zero = false
			break
		}
	}
	if zero {
		return nil
	}
	return wordvec.Quantize(v)
}

// Similarity returns the cosine similarity of two vectors made by Embed,
// or -1 when they cannot be compared.
func (w *WordVectors) Similarity(a, b []byte) float64 {
	d, err := wordvec.DotQuantized(a, b)
	if err != nil {
		return -1
	}
	return float64(d)
}

// Expansion of a query by the word vectors: each word of the query that
// says something (expandMinWeight, see wordvec.Model.Weight) proposes its
// expandNeighbors nearest words at a cosine similarity of at least
// expandMinCos.
const (
	expandMinWeight = 0.5
	expandNeighbors = 3
	expandMinCos    = 0.65
)

// Expand proposes the words nearest in vector space to the informative
// words of query (retrieval.Expander).
func (w *WordVectors) Expand(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, word := range wordvec.SplitWords(query) {
		if seen[word] || w.exp.Weight(word) < expandMinWeight {
			continue
		}
		seen[word] = true
		out = append(out, w.expandWord(word)...)
	}
	return out
}

// expandWord returns the words Expand proposes for one word: its nearest
// words in vector space, found once by an exhaustive search of the
// vocabulary and then remembered. The result is shared: callers must not
// modify it.
func (w *WordVectors) expandWord(word string) []string {
	w.expandMu.Lock()
	near, ok := w.expanded[word]
	w.expandMu.Unlock()
	if ok {
		return near
	}
	for _, n := range w.exp.Neighbors(word, expandNeighbors) {
		if n.Cos >= expandMinCos {
			near = append(near, n.Word)
		}
	}
	w.expandMu.Lock()
	defer w.expandMu.Unlock()
	if w.expanded == nil || len(w.expanded) >= maxExpanded {
		w.expanded = map[string][]string{}
	}
	w.expanded[word] = near
	return near
}

// ProviderVectors is the vector signal of an embedding server (see package
// embedding): chunk vectors computed in batches and stamped with the
// server's model, the query embedded at search time. It is opt-in: it
// sends code to the server.
type ProviderVectors struct {
	p embedding.Provider
}

// NewProviderVectors returns the vector signal of an embedding server.
func NewProviderVectors(cfg embedding.Config) (*ProviderVectors, error) {
	p, err := embedding.New(cfg)
	if err != nil {
		return nil, err
	}
	return &ProviderVectors{p: p}, nil
}

// Model stamps the vectors with the provider's kind and model, so that a
// change of either re-embeds the index.
func (v *ProviderVectors) Model() string { return embedding.Stamp(v.p) }

// queryTimeout bounds the embedding of one query.
const queryTimeout = 10 * time.Second

// Embed returns the quantised vector of one text, or nil when the server
// fails (the search then ranks by BM25 alone).
func (v *ProviderVectors) Embed(text string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	out, err := v.EmbedBatch(ctx, []string{text})
	if err != nil || len(out) != 1 {
		return nil
	}
	return out[0]
}

// EmbedBatch returns the quantised, unit-length vectors of texts.
func (v *ProviderVectors) EmbedBatch(ctx context.Context, texts []string) ([][]byte, error) {
	vecs, err := v.p.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(vecs))
	for i, x := range vecs {
		var norm float64
		for _, f := range x {
			norm += float64(f) * float64(f)
		}
		if norm == 0 {
			continue
		}
		unit := make([]float32, len(x))
		for j, f := range x {
			unit[j] = float32(float64(f) / math.Sqrt(norm))
		}
		out[i] = wordvec.Quantize(unit)
	}
	return out, nil
}

// Similarity returns the cosine similarity of two vectors made by Embed,
// or -1 when they cannot be compared (different models' vectors).
func (v *ProviderVectors) Similarity(a, b []byte) float64 {
	d, err := wordvec.DotQuantized(a, b)
	if err != nil {
		return -1
	}
	return float64(d)
}
