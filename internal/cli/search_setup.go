package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// newSearcher sets up search over an open index of sess: the process's
// router, the vector signal the index embeds chunks with, and routing
// feedback in its own statistics database (state.Dirs.FeedbackPath: a
// search never writes to the user's rules, nor waits for the disk), which
// sess owns. Feedback is optional: when that database cannot be opened
// (damaged, read-only, a full disk), searches are not recorded, which is
// said on warn, and search works all the same.
func newSearcher(ctx context.Context, sess *session.Session, ix *analysis.Index, warn io.Writer) *retrieval.Searcher {
	s := &retrieval.Searcher{Index: ix, Router: sess.Router(), Vectors: indexVectors(ix)}
	fb, err := sess.Feedback(ctx)
	if err != nil {
		fmt.Fprintf(warn, "anchorage: searches are not recorded for routing statistics: %v\n", err)
		return s
	}
	s.Feedback = fb
	return s
}
