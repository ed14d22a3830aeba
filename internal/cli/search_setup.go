package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

// newSearcher sets up search over an open index: routing, the word
// vectors the index embeds chunks with, and routing feedback in its own
// statistics database (state.Dirs.FeedbackPath: a search never writes to
// the user's rules, nor waits for the disk). Feedback is optional: when
// that database cannot be opened (damaged, read-only, a full disk), searches are not recorded,
// which is said on warn, and search works all the same. The returned
// function releases what it opened.
func newSearcher(ctx context.Context, g *globalFlags, ix *analysis.Index, vec retrieval.Vectorizer, warn io.Writer) (*retrieval.Searcher, func(), error) {
	dirs, err := state.Resolve(g.dataDir)
	if err != nil {
		return nil, nil, err
	}
	s := &retrieval.Searcher{Index: ix, Vectors: vec}
	fb, err := feedback.OpenStats(ctx, dirs.FeedbackPath(), dirs.MemoryPath())
	if err != nil {
		fmt.Fprintf(warn, "anchorage: searches are not recorded for routing statistics: %v\n", err)
		return s, func() {}, nil
	}
	s.Feedback = fb
	return s, func() { fb.Close() }, nil
}
