package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// searchFlags are the flags of anchorage search.
type searchFlags struct {
	graphFlags
	topK     int
	strategy string
	budget   int
	group    string
	snippets bool
}

func newSearchCmd(g *globalFlags) *cobra.Command {
	f := &searchFlags{}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the code: the query is routed to a semantic, structural, keyword or hybrid search",
		Long: `Routes the query (see anchorage route), runs the search over the index of
--root and prints the best results, one line each (--snippets adds their
code). A pasted task — an issue, a bug report with a traceback, a log, a
diff — is searched by the files and names it mentions and by meaning; use
"-" as the query to read it from standard input. The index is brought up to date first
(built if there is none) unless --no-refresh. Prefixes force a strategy:
kw: (or grep:), re: (a regular expression), sym:, sem:, hybrid:.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			group, err := feature.ParseGroup(f.group)
			if err != nil {
				return fmt.Errorf("--group %q: the only grouping is %q", f.group, retrieval.GroupFiles)
			}
			strategy, err := feature.ParseStrategy(f.strategy)
			if err != nil {
				return fmt.Errorf("--strategy: %w", err)
			}
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
			query := strings.Join(args, " ")
			if query == "-" {
				// A task too long for a command line: read it from stdin.
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), retrieval.MaxTaskQuery+1))
				if err != nil {
					return fmt.Errorf("read the query from standard input: %w", err)
				}
				query = string(b)
			}
			resp, err := feature.Search(ctx, retrieval.Request{
				Query: query, TopK: f.topK, Strategy: strategy, Budget: f.budget, Group: group,
			}, []feature.SearchFolder{{Searcher: s}})
			if err != nil {
				return err
			}
			quoteResponse(resp)
			if g.json {
				return writeJSON(cmd.OutOrStdout(), resp)
			}
			printSearch(cmd.OutOrStdout(), resp, f.snippets || f.budget > 0)
			return nil
		},
	}
	cmd.Flags().IntVar(&f.topK, "top-k", retrieval.DefaultTopK, "number of results")
	cmd.Flags().StringVar(&f.strategy, "strategy", "", "force a strategy: semantic, structural, keyword or hybrid")
	cmd.Flags().IntVar(&f.budget, "budget", 0, "print whole results, cut to this many tokens in all (0: one line each)")
	cmd.Flags().StringVar(&f.group, "group", "", `"files": list files, each with its best functions and why it was chosen`)
	cmd.Flags().BoolVar(&f.snippets, "snippets", false, "print each result's first lines of code")
	f.addFlags(cmd.Flags(), "search the index as it is, without updating it first")
	return cmd
}

// printSearch prints a search's results for a terminal: one line each
// (place, symbol, first line of its doc or the matched text), with their
// first lines of code when snippets is set, or grouped by file.
func printSearch(w io.Writer, r *feature.SearchAnswer, snippets bool) {
	fmt.Fprintf(w, "%s (confidence %.2f): %s — %d results in %.1f ms\n", r.Strategy, r.Confidence, r.Reasoning, len(r.Results), r.ElapsedMS)
	if r.Total > len(r.Results) {
		fmt.Fprintf(w, "(%d found in all)\n", r.Total)
	}
	if r.Notice != "" {
		fmt.Fprintf(w, "note: %s\n", r.Notice)
	}
	if len(r.Files) > 0 {
		for _, f := range r.Files {
			fmt.Fprintf(w, "\n%s\n", f.File)
			if len(f.Why) > 0 {
				fmt.Fprintf(w, "  why: %s\n", strings.Join(f.Why, "; "))
			}
			for _, res := range f.Functions {
				printResult(w, res, snippets, "  ")
			}
		}
		return
	}
	if !snippets {
		fmt.Fprintln(w)
	}
	for _, res := range r.Results {
		printResult(w, res.Result, snippets, "")
	}
}

// printResult prints one result: "file:line  kind symbol — summary", with
// its snippet below when snippets is set.
func printResult(w io.Writer, res retrieval.Result, snippets bool, indent string) {
	star := ""
	if res.MultiStrategy {
		star = "★ "
	}
	loc := fmt.Sprintf("%s:%d", res.File, res.Line)
	if snippets {
		fmt.Fprintln(w)
		if res.EndLine > res.Line {
			loc += fmt.Sprintf("-%d", res.EndLine)
		}
	}
	line := indent + star + loc
	if res.Symbol != "" {
		line += "  " + res.Symbol
	}
	if sum := resultSummary(res); sum != "" && !snippets {
		line += " — " + sum
	}
	fmt.Fprintln(w, line)
	if !snippets {
		return
	}
	for _, l := range strings.Split(res.Snippet, "\n") {
		fmt.Fprintf(w, "%s    %s\n", indent, l)
	}
	if res.Truncated {
		fmt.Fprintf(w, "%s    … (cut to the token budget)\n", indent)
	}
}

// resultSummary is the one line that says what a result is: the first
// line of its doc, or the matched line of a keyword search, or the first
// line of its code.
func resultSummary(res retrieval.Result) string {
	text := res.Doc
	if text == "" || res.Strategy == retrieval.Keyword {
		text = res.Snippet
	}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 100 {
				l = l[:97] + "…"
			}
			return l
		}
	}
	return ""
}
