package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/memory/recall"
)

func newMemorySearchCmd(m *memoryFlags) *cobra.Command {
	var (
		q          recall.Query
		noFallback bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the rules and memory documents, near a working-memory slot first",
		Long: `Search the coding rules and the memory documents of --root. With a slot
(--slot, or the slot whose topic is closest to the query), the search
starts at the slot's anchor and follows the memory graph out to --radius
hops; the anchor moves to the best hit. When nothing there is relevant it
ranks every memory instead, unless --no-fallback. With --anchors and
--include-content, a memory document's content is only the named
sections, with the token savings.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			q.NoFallback = noFallback
			rs, err := openRecall(cmd.Context(), m, false, true)
			if err != nil {
				return err
			}
			resp := recall.Response{Results: []recall.Result{}, Notices: []string{"no memory yet"}}
			if rs != nil {
				// The search moves the slots; closing writes the move.
				resp, err = rs.graph.Search(cmd.Context(), q)
				if cerr := rs.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
			if m.json {
				return writeJSON(cmd.OutOrStdout(), resp)
			}
			printMemorySearch(cmd.OutOrStdout(), resp)
			return nil
		},
	}
	cmd.Flags().StringVar(&q.Slot, "slot", "", "search from this slot (A, B or C; default: the slot closest to the query)")
	cmd.Flags().IntVar(&q.Radius, "radius", 0, fmt.Sprintf("hops from the slot's anchor, up to %d (default: the slot's hop budget)", recall.MaxRadius))
	cmd.Flags().BoolVar(&noFallback, "no-fallback", false, "do not rank every memory when nothing near the anchor is relevant")
	cmd.Flags().IntVar(&q.TopK, "top-k", recall.DefaultTopK, "most results")
	cmd.Flags().StringSliceVar(&q.Anchors, "anchors", nil, "with --include-content: only these sections of memory documents (comma-separated ids)")
	cmd.Flags().BoolVar(&q.IncludeContent, "include-content", false, "print each memory's content")
	return cmd
}

// printMemorySearch writes the results, best first.
func printMemorySearch(w io.Writer, r recall.Response) {
	where := "every memory"
	if r.Slot != "" {
		where = "slot " + r.Slot
		if r.Fallback {
			where += ", then every memory"
		}
	}
	fmt.Fprintf(w, "%d result(s) from %s\n", len(r.Results), where)
	for _, res := range r.Results {
		loc := res.Scope
		if res.Path != "" {
			loc = res.Path
		}
		fmt.Fprintf(w, "%-12s %.3f %-6s hops %d  %s  [%s]\n", res.ID, res.Score, res.Via, res.Hops, res.Title, loc)
		if res.Content != "" {
			for _, line := range strings.Split(strings.TrimRight(res.Content, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
		if len(res.MissingAnchors) > 0 {
			fmt.Fprintf(w, "    missing sections: %s\n", strings.Join(res.MissingAnchors, ", "))
		}
		if res.TokenMetrics != nil {
			fmt.Fprintf(w, "    tokens: %d of %d (%.1f%% saved)\n", res.TokenMetrics.ReturnedTokens, res.TokenMetrics.FullTokens, res.TokenMetrics.SavingsPct)
		}
	}
	for _, n := range r.Notices {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
