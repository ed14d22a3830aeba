package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/retrieval"
)

// searchFlags are the flags of anchorage search.
type searchFlags struct {
	graphFlags
	topK     int
	strategy string
	budget   int
}

func newSearchCmd(g *globalFlags) *cobra.Command {
	f := &searchFlags{}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the code: the query is routed to a semantic, structural, keyword or hybrid search",
		Long: `Routes the query (see anchorage route), runs the search over the index of
--root and prints the best results. The index is brought up to date first
(built if there is none) unless --no-refresh. Prefixes force a strategy:
kw: (or grep:), re: (a regular expression), sym:, sem:, hybrid:.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ix, err := openGraph(cmd, g, &f.graphFlags)
			if err != nil {
				return err
			}
			defer ix.Close()
			s, closeSearcher, err := newSearcher(ctx, g, ix, indexVectors(ix), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeSearcher()
			resp, err := s.Search(ctx, retrieval.Request{
				Query: strings.Join(args, " "), TopK: f.topK,
				Strategy: retrieval.Strategy(strings.ToLower(f.strategy)), Budget: f.budget,
			})
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), resp)
			}
			printSearch(cmd.OutOrStdout(), resp)
			return nil
		},
	}
	cmd.Flags().IntVar(&f.topK, "top-k", retrieval.DefaultTopK, "number of results")
	cmd.Flags().StringVar(&f.strategy, "strategy", "", "force a strategy: semantic, structural, keyword or hybrid")
	cmd.Flags().IntVar(&f.budget, "budget", 0, "print whole results, cut to this many tokens in all (0: a few lines each)")
	f.addFlags(cmd.Flags(), "search the index as it is, without updating it first")
	return cmd
}

// printSearch prints a search's results for a terminal.
func printSearch(w io.Writer, r *retrieval.Response) {
	fmt.Fprintf(w, "%s (confidence %.2f): %s — %d results in %.1f ms\n", r.Strategy, r.Confidence, r.Reasoning, len(r.Results), r.ElapsedMS)
	if r.Total > len(r.Results) {
		fmt.Fprintf(w, "(%d found in all)\n", r.Total)
	}
	if r.Notice != "" {
		fmt.Fprintf(w, "note: %s\n", r.Notice)
	}
	for _, res := range r.Results {
		star := " "
		if res.MultiStrategy {
			star = "★"
		}
		loc := fmt.Sprintf("%s:%d", res.File, res.Line)
		if res.EndLine > res.Line {
			loc += fmt.Sprintf("-%d", res.EndLine)
		}
		fmt.Fprintf(w, "\n%s [%s] %s", star, res.Strategy, loc)
		if res.Symbol != "" {
			fmt.Fprintf(w, "  %s %s", res.Kind, res.Symbol)
		}
		fmt.Fprintln(w)
		for _, l := range strings.Split(res.Snippet, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
		if res.Truncated {
			fmt.Fprintln(w, "    … (cut to the token budget)")
		}
	}
}
