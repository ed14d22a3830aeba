package embedding

import (
	"context"
	"fmt"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// WordVec is a Provider over the built-in word vectors: offline, about
// 30 µs for a 40-line function. A text with no known word gets the zero
// vector.
type WordVec struct {
	m *wordvec.Model
}

// NewWordVec returns a Provider that embeds with m.
func NewWordVec(m *wordvec.Model) *WordVec { return &WordVec{m: m} }

// Model returns the name of the word vectors, which changes with them.
func (w *WordVec) Model() string { return w.m.Name() }

// Kind returns "wordvec".
func (w *WordVec) Kind() string { return KindWordVec }

// Embed returns wordvec's sentence vector of each text. It stops early
// when ctx is done.
func (w *WordVec) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("embedding: wordvec: %w", err)
			}
		}
		out[i] = w.m.Embed(t)
	}
	return out, nil
}
