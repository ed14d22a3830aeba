package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

// routingStats is what anchorage routing-stats --json prints.
type routingStats struct {
	Database   string                   `json:"database"`
	Strategies []feedback.StrategyStats `json:"strategies"`
}

func newRoutingStatsCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "routing-stats",
		Short: "Show how each search strategy has fared: searches, confidence, results used",
		Long: `Prints, for each search strategy, the searches routed to it, the router's
mean confidence, the mean number of results, how many distinct results
were used (opened from an editor), and the utilisation: the share of
searches with at least one result used. The statistics are kept in
feedback.db beside the user's database (see --data-dir).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := state.Resolve(g.dataDir)
			if err != nil {
				return err
			}
			rs := routingStats{Database: dirs.FeedbackPath(), Strategies: []feedback.StrategyStats{}}
			// Reading statistics creates no database: the statistics
			// are read where they are, or imported once from the user
			// database, where versions before kept them.
			_, err = os.Stat(rs.Database)
			if errors.Is(err, fs.ErrNotExist) {
				_, err = os.Stat(dirs.MemoryPath())
			}
			if err == nil {
				s, err := feedback.OpenStats(cmd.Context(), rs.Database, dirs.MemoryPath())
				if err != nil {
					return err
				}
				defer s.Close()
				if rs.Strategies, err = s.Stats(cmd.Context()); err != nil {
					return err
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("routing statistics: %w", err)
			}
			w := cmd.OutOrStdout()
			if g.json {
				return writeJSON(w, rs)
			}
			if len(rs.Strategies) == 0 {
				fmt.Fprintf(w, "No routing feedback yet (%s).\n", rs.Database)
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "STRATEGY\tQUERIES\tAVG CONFIDENCE\tAVG RESULTS\tRESULTS USED\tUTILISATION")
			for _, st := range rs.Strategies {
				fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.1f\t%d\t%.1f%%\n",
					st.Strategy, st.Queries, st.AvgConfidence, st.AvgResults, st.Used, 100*st.Utilisation)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(w, "\nutilisation: the share of searches with at least one result used")
			return nil
		},
	}
}
