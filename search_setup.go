package main

import (
	"context"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

// newSearcher sets up search over an open index: routing, the word
// vectors the index embeds chunks with, and routing feedback in the user's
// database. The returned function releases what it opened.
func newSearcher(ctx context.Context, g *globalFlags, ix *analysis.Index, vec retrieval.Vectorizer) (*retrieval.Searcher, func(), error) {
	dirs, err := state.Resolve(g.dataDir)
	if err != nil {
		return nil, nil, err
	}
	fb, err := feedback.Open(ctx, dirs.MemoryPath())
	if err != nil {
		return nil, nil, err
	}
	s := &retrieval.Searcher{Index: ix, Feedback: fb, Vectors: vec}
	return s, func() { fb.Close() }, nil
}
