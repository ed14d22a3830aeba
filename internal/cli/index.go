package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// indexFlags configure what is indexed, for one run: they override the
// settings file (globalFlags.settings holds the result).
type indexFlags struct {
	exclude   []string
	maxSize   int64
	languages []string
}

// register adds --exclude, --max-file-size and --languages to fs; when
// names what the flags act on ("when refreshing").
func (f *indexFlags) register(fs *pflag.FlagSet, when string) {
	fs.StringSliceVar(&f.exclude, "exclude", nil, "paths to skip"+when+", in .gitignore syntax (\"!\" brings one back); they add to the built-in exclusions ("+strings.Join(analysis.DefaultExclude(), ",")+") and replace the settings file's exclude")
	fs.Int64Var(&f.maxSize, "max-file-size", analysis.DefaultMaxFileSize, "skip files larger than this many bytes"+when)
	fs.StringSliceVar(&f.languages, "languages", nil, languagesFlagHelp(analysis.Names()))
}

// vectors is a vector signal for semantic search: it embeds the index's
// chunks and the queries.
type vectors interface {
	analysis.Embedder
	retrieval.Vectorizer
}

// vectorSignal returns the embedding server the flags configure, else the
// built-in word vectors.
func vectorSignal(g *globalFlags) (vectors, error) {
	if g.embedding.Kind != "" {
		return retrieval.NewProviderVectors(g.embedding)
	}
	return retrieval.NewWordVectors()
}

// indexVectors returns the vector signal an index opened by a session
// of openSession
// embeds its chunks with.
func indexVectors(ix *analysis.Index) retrieval.Vectorizer {
	v, _ := ix.Embedder().(retrieval.Vectorizer)
	return v
}

// updateWithProgress updates the index, drawing a progress bar on stderr
// when it is a terminal.
func updateWithProgress(ctx context.Context, cmd *cobra.Command, ix *analysis.Index) (*analysis.Summary, error) {
	var progress func(analysis.Progress)
	if f, ok := cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		progress = func(p analysis.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions(p.Total,
					progressbar.OptionSetWriter(f),
					progressbar.OptionSetDescription("indexing"),
					progressbar.OptionShowCount(),
					progressbar.OptionSetItsString("files"),
					progressbar.OptionShowIts(),
					progressbar.OptionThrottle(65_000_000),
					progressbar.OptionClearOnFinish())
			}
			bar.Set(p.Done)
		}
		defer func() {
			if bar != nil {
				bar.Finish()
			}
		}()
	}
	if ix.Rebuilt {
		fmt.Fprintf(cmd.ErrOrStderr(), "anchorage: the index database %s was unreadable and has been rebuilt\n", ix.Path())
	}
	return ix.Update(ctx, progress)
}

func newIndexCmd(g *globalFlags) *cobra.Command {
	f := &indexFlags{}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index the workspace into its code graph (incremental)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(cmd.Context(), g, analysis.CheckOpen, false)
			if err != nil {
				return err
			}
			defer sess.Close()
			ix, err := sess.Index(cmd.Context(), g.root)
			if err != nil {
				return err
			}
			sum, err := updateWithProgress(cmd.Context(), cmd, ix)
			if err != nil {
				return err
			}
			// An index can update without reading what it holds: read
			// it, so that damage is found (and repaired, see execute)
			// now rather than by the next query.
			if err := ix.Probe(cmd.Context()); err != nil {
				return err
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			noteOneRunFlags(cmd.ErrOrStderr(), g.settings)
			return nil
		},
	}
	f.register(cmd.Flags(), "")
	return cmd
}

func printSummary(w io.Writer, s *analysis.Summary) {
	fmt.Fprintf(w, "Indexed %s in %.2fs\n", s.Root, s.Seconds)
	fmt.Fprintf(w, "  files:      %d (%d parsed, %d unchanged, %d removed)\n", s.Files, s.Parsed, s.Unchanged, s.Deleted)
	for _, lang := range sortedKeys(s.ByLanguage) {
		fmt.Fprintf(w, "    %-11s %d\n", lang, s.ByLanguage[lang])
	}
	fmt.Fprintf(w, "  symbols:    %d\n", s.Symbols)
	fmt.Fprintf(w, "  edges:      %d\n", s.Edges)
	fmt.Fprintf(w, "  unresolved calls: %d\n", s.Unresolved)
	if s.ParseErrors > 0 {
		fmt.Fprintf(w, "  files with syntax errors: %d (symbols that parsed are kept)\n", s.ParseErrors)
	}
	if s.InvalidUTF8 > 0 {
		fmt.Fprintf(w, "  files with invalid UTF-8: %d\n", s.InvalidUTF8)
	}
	if len(s.Skipped) > 0 {
		fmt.Fprintln(w, "  skipped:")
		for _, reason := range sortedKeys(s.Skipped) {
			fmt.Fprintf(w, "    %-21s %d\n", reason, s.Skipped[reason])
		}
	}
	for _, p := range s.Problems {
		if p.Detail != "" {
			fmt.Fprintf(w, "  %s: %s (%s)\n", p.Path, p.Reason, p.Detail)
		} else {
			fmt.Fprintf(w, "  %s: %s\n", p.Path, p.Reason)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
