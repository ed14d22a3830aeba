package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/retrieval"
)

func newRouteCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "route QUERY",
		Short: "Show how a query would be searched: semantic, structural, keyword or hybrid, and why",
		Long: `Classifies a query without searching: the strategy, a confidence, a one-line
reason, and what each search backend would be given. Prefixes force a
strategy: kw: (or grep:), re: (a regular expression), sym:, sem:, hybrid:.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := strings.Join(args, " ")
			if strings.TrimSpace(q) == "" {
				return retrieval.ErrEmptyQuery
			}
			rt := retrieval.DefaultRouter().Route(q)
			if g.json {
				return writeJSON(cmd.OutOrStdout(), rt)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s (confidence %.2f): %s\n", rt.Strategy, rt.Confidence, rt.Reasoning)
			if rt.SemanticQuery != "" {
				fmt.Fprintf(w, "  semantic query:   %s\n", rt.SemanticQuery)
			}
			switch {
			case rt.StructuralOperation != "" && rt.StructuralQuery != "":
				fmt.Fprintf(w, "  structural query: %s %s\n", rt.StructuralOperation, rt.StructuralQuery)
			case rt.StructuralOperation != "":
				// A hybrid search follows the graph from its best
				// semantic result, known only once it has run.
				fmt.Fprintf(w, "  structural query: %s of the best semantic result\n", rt.StructuralOperation)
			}
			if rt.KeywordQuery != "" {
				kind := "text"
				if rt.KeywordRegex {
					kind = "regex"
				}
				fmt.Fprintf(w, "  keyword %-9s %s\n", kind+":", rt.KeywordQuery)
			}
			return nil
		},
	}
}
