package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// newMemoryInjectCmd returns anchorage memory inject: the rules that
// apply to a file or a question, with the current source of their
// examples, as Markdown for an assistant's context.
func newMemoryInjectCmd(m *memoryFlags) *cobra.Command {
	var (
		req memory.InjectRequest
		gf  graphFlags
	)
	cmd := &cobra.Command{
		Use:   "inject [--file F] [--query Q] [--budget N]",
		Short: "Print the rules that apply to a file or question, with their code examples, for an assistant's context",
		Long: fmt.Sprintf(`Prints, as Markdown, the rules that apply to --file: universal rules, those
of its language (or --language) and those of the project (see --project),
the rules anchored in the file first, then by relevance to --query and to
the file. Each rule is followed by its example: the anchored symbol's
source as it is now (at most %d lines), found by its name, not its line.
A rule whose example is gone is marked "(example not found)".

The output fits in --budget tokens: %d%% for the rules, the rest for the
examples; what does not fit is cut with a truncation marker or left out.
--json prints the Markdown with the rules injected and the tokens used.
The index of the --root workspace is brought up to date first (built if
there is none) unless --no-refresh. Files that may hold credentials are
never read.`, memory.MaxExampleLines, memory.InjectRulesPercent),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if req.Budget <= 0 {
				return fmt.Errorf("memory inject: --budget must be a positive number of tokens, not %d", req.Budget)
			}
			file, err := injectFileArg(m.root, req.File)
			if err != nil {
				return fmt.Errorf("memory inject: %w", err)
			}
			st, _, sess, err := m.openExistingMemory(ctx)
			if err != nil {
				return err
			}
			if sess == nil { // no memory yet: a session for the index alone
				if sess, err = openSession(ctx, m.globalFlags, analysis.CheckOpen, false); err != nil {
					return err
				}
			}
			defer sess.Close()
			ix, err := openGraphIn(cmd, sess, m.globalFlags, &gf)
			if err != nil {
				return err
			}
			deps := memory.InjectDeps{Store: st, Index: ix}
			if st != nil {
				// The rules near the working memory's slots come first, as
				// in the editor.
				g, err := syncedRecall(ctx, sess, m, true)
				if err != nil {
					return err
				}
				deps.Recall = g.RuleIDs
			}
			inj, err := memory.Inject(ctx, memory.InjectRequest{
				File: file, Language: req.Language, Project: m.projectName(), Query: req.Query, Budget: req.Budget,
			}, deps)
			if err != nil {
				return err
			}
			if m.json {
				return writeJSON(cmd.OutOrStdout(), inj)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), inj.Markdown)
			return err
		},
	}
	cmd.Flags().StringVar(&req.File, "file", "", "the file being worked on (relative to the current directory or to --root)")
	cmd.Flags().StringVar(&req.Query, "query", "", "what the assistant is asked: ranks the rules by their overlap with it")
	cmd.Flags().IntVar(&req.Budget, "budget", memory.DefaultInjectBudget, "the most tokens to print")
	cmd.Flags().StringVar(&req.Language, "language", "", "inject this language's rules (default: the language of --file)")
	gf.addFlags(cmd.Flags(), "resolve examples through the index as it is, without updating it first")
	return cmd
}

// injectFileArg returns --file as an absolute path for memory.Inject to
// make relative to the index's root: a path that exists from the current
// directory is taken from there, any other relative path from the root.
// The file must exist and be inside the root.
func injectFileArg(root, file string) (string, error) {
	if file == "" {
		return "", nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(absRoot); err == nil {
		absRoot = resolved
	}
	abs := file
	if !filepath.IsAbs(file) {
		if _, err := os.Stat(file); err == nil {
			abs, err = filepath.Abs(file)
			if err != nil {
				return "", err
			}
		} else {
			abs = filepath.Join(absRoot, file)
		}
	}
	// The index's root has its links resolved: so must the file's
	// directory (the file itself may be a link the index skips).
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	if _, err := analysis.RelPath(absRoot, abs); err != nil {
		return "", fmt.Errorf("--file %s is not in the workspace %s", file, absRoot)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("--file %s: no such file in %s", file, absRoot)
	} else if err != nil {
		return "", err
	}
	return abs, nil
}
