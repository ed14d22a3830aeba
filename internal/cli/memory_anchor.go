package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// anchorTestFlags are the flags of anchorage memory anchor-test.
type anchorTestFlags struct {
	graphFlags
	scope      string
	language   string
	threshold  float64
	candidates int
}

// newMemoryAnchorTestCmd returns anchorage memory anchor-test: where the
// anchor engine would anchor a rule in the --root workspace, with every
// score, without storing anything.
func newMemoryAnchorTestCmd(g *globalFlags) *cobra.Command {
	f := &anchorTestFlags{}
	cmd := &cobra.Command{
		Use:   "anchor-test RULE",
		Short: "Find the best code example for a rule in the workspace, with its scores and the ranked candidates",
		Long: `Searches the --root workspace for the best concrete example of RULE (a
function, method or type) as anchoring an approved rule would, and prints it
with its quality = 0.6·relevance + 0.2·size + 0.2·recency and the ranked
candidates. The rule is anchored when the best quality reaches --threshold.
--scope restricts candidates: language:<lang> to that language's files;
project:<name> anchors only when the workspace is that project (see
--project). The index is brought up to date first (built if there is none)
unless --no-refresh. Nothing is stored.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			sess, err := openSession(ctx, g, analysis.CheckOpen, true)
			if err != nil {
				return err
			}
			defer sess.Close()
			ix, err := openGraphIn(cmd, sess, g, &f.graphFlags)
			if err != nil {
				return err
			}
			s := newSearcher(ctx, sess, ix, cmd.ErrOrStderr())
			a := &memory.Anchorer{Searcher: s, Project: projectFlag(cmd)}
			res, err := a.FindAnchor(ctx, strings.Join(args, " "), memory.AnchorOptions{
				Scope: f.scope, Language: f.language, Threshold: f.threshold, MaxCandidates: f.candidates,
			})
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			printAnchorResult(cmd.OutOrStdout(), res)
			return nil
		},
	}
	cmd.Flags().StringVar(&f.scope, "scope", memory.ScopeUniversal, "the rule's scope: universal, language:<lang> or project:<name>")
	cmd.Flags().StringVar(&f.language, "language", "", "only examples in this language (go, python, typescript, …)")
	cmd.Flags().Float64Var(&f.threshold, "threshold", memory.DefaultAnchorThreshold, "the quality an example needs to be the anchor (0 to 1)")
	cmd.Flags().IntVar(&f.candidates, "candidates", memory.DefaultAnchorCandidates, "how many ranked candidates to list")
	f.addFlags(cmd.Flags(), "search the index as it is, without updating it first")
	return cmd
}

// projectFlag returns the --project flag of the memory command, when the
// command runs under it and it was given; "" lets the anchorer name the
// project after the root.
func projectFlag(cmd *cobra.Command) string {
	if fl := cmd.Flags().Lookup("project"); fl != nil {
		return strings.TrimSpace(fl.Value.String())
	}
	return ""
}

// printAnchorResult prints an anchoring for a terminal.
func printAnchorResult(w io.Writer, r *memory.AnchorResult) {
	fmt.Fprintf(w, "Rule: %s\n", r.Rule)
	if r.Language != "" {
		fmt.Fprintf(w, "Scope: %s (%s files only)\n", r.Scope, r.Language)
	} else {
		fmt.Fprintf(w, "Scope: %s\n", r.Scope)
	}
	if a := r.Anchor; a != nil {
		fmt.Fprintf(w, "⚓ %s  %s %s\n   quality %.2f = 0.6·%.2f relevance + 0.2·%.2f size + 0.2·%.2f recency (threshold %.2f)\n",
			location(a.File, a.Line), a.Kind, a.Symbol, a.Quality, a.Relevance, a.Size, a.Recency, r.Threshold)
	} else {
		fmt.Fprintf(w, "No anchor: %s\n", r.Reason)
	}
	if len(r.Candidates) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCandidates (%.1f ms):\n", r.ElapsedMS)
	fmt.Fprintf(w, "  %-7s %-9s %-5s %-7s %-5s  %s\n", "quality", "relevance", "size", "recency", "terms", "example")
	for _, c := range r.Candidates {
		extra := ""
		if c.Home != "" {
			extra = " (the corrections' " + c.Home + ")"
		}
		if x := c.Excerpt; x != nil {
			extra += fmt.Sprintf(" shown by lines %d–%d", x.From, x.To)
		}
		fmt.Fprintf(w, "  %-7.2f %-9.2f %-5.2f %-7.2f %-5s  %s  %s %s%s\n", c.Quality, c.Relevance, c.Size, c.Recency,
			fmt.Sprintf("%d/%d", c.MatchedTerms, c.KeyTerms), location(c.File, c.Line), c.Kind, c.Symbol, extra)
	}
}
