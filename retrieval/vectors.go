package retrieval

import (
	"fmt"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// WordVectors is the built-in vector signal: offline word vectors (see
// package wordvec) averaged over a text's words. It embeds chunks for the
// index (analysis.Embedder) and queries for the semantic backend
// (Vectorizer), and is safe for concurrent use.
type WordVectors struct {
	m *wordvec.Model
}

// NewWordVectors loads the built-in word vectors.
func NewWordVectors() (*WordVectors, error) {
	m, err := wordvec.Load()
	if err != nil {
		return nil, fmt.Errorf("load word vectors: %w", err)
	}
	return &WordVectors{m: m}, nil
}

// Model names the vectors, so that the index re-embeds its chunks when
// they change.
func (w *WordVectors) Model() string { return w.m.Stamp() }

// Embed returns the quantised vector of text, or nil when none of its
// words is known.
func (w *WordVectors) Embed(text string) []byte {
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
