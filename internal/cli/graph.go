package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/fname"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// graphFlags are the flags of the graph commands.
type graphFlags struct {
	indexFlags
	depth     int
	noRefresh bool
	limit     int
}

func newGraphCmd(g *globalFlags) *cobra.Command {
	f := &graphFlags{}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Query the code graph: callers, callees, inheritance, imports, blast radius, symbols",
	}
	f.addFlags(cmd.PersistentFlags(), "answer from the index as it is, without updating it first")

	perDef := func(op, short string, defaultDepth int) *cobra.Command {
		c := &cobra.Command{
			Use:   op + " SYMBOL",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				sess, ix, err := openGraph(cmd, g, f)
				if err != nil {
					return err
				}
				defer sess.Close()
				a, err := ix.Ask(cmd.Context(), op, args[0], f.depth)
				if err != nil {
					return fmt.Errorf("%w in %s", err, ix.Root())
				}
				quoteAnswer(a)
				if g.json {
					return writeJSON(cmd.OutOrStdout(), a)
				}
				printAnswer(cmd.OutOrStdout(), a)
				return nil
			},
		}
		if defaultDepth > 0 {
			c.Flags().IntVar(&f.depth, "depth", defaultDepth, "how many levels to follow")
		}
		return c
	}

	cmd.AddCommand(
		perDef(analysis.OpCallers, "List the calls that reach a symbol", 0),
		perDef(analysis.OpCallees, "List the calls a symbol makes", 0),
		perDef(analysis.OpInheritance, "Show what a type extends, implements or embeds, and what extends it", 1),
		perDef(analysis.OpBlastRadius, "List what a change to a symbol may affect: callers and derived types, transitively", 3),
		newImportsCmd(g, f),
		newSymbolsCmd(g, f),
	)
	return cmd
}

// addFlags adds the flags of commands that bring the index up to date
// before answering: --no-refresh (described by noRefresh), --exclude,
// --max-file-size and --languages.
func (f *graphFlags) addFlags(fs *pflag.FlagSet, noRefresh string) {
	fs.BoolVar(&f.noRefresh, "no-refresh", false, noRefresh)
	f.register(fs, " when refreshing")
}

// openGraphIn returns the index of the --root workspace, which sess
// owns, brought up to date first unless --no-refresh (incrementally:
// unchanged files are not read).
func openGraphIn(cmd *cobra.Command, sess *session.Session, g *globalFlags, f *graphFlags) (*analysis.Index, error) {
	ix, err := sess.Index(cmd.Context(), g.root)
	if err != nil {
		return nil, err
	}
	if !f.noRefresh {
		if _, err := updateWithProgress(cmd.Context(), cmd, ix); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// openGraph opens the session of this run (see openSession) and its
// index of the --root workspace as openGraphIn does. The caller closes
// the session, which closes the index.
func openGraph(cmd *cobra.Command, g *globalFlags, f *graphFlags) (*session.Session, *analysis.Index, error) {
	sess, err := openSession(cmd.Context(), g, analysis.CheckOpen, false)
	if err != nil {
		return nil, nil, err
	}
	ix, err := openGraphIn(cmd, sess, g, f)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, ix, nil
}

func newImportsCmd(g *globalFlags, f *graphFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "imports FILE|DIR|MODULE",
		Short: "List what a file, package or module imports, and what imports it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, ix, err := openGraph(cmd, g, f)
			if err != nil {
				return err
			}
			defer sess.Close()
			files, imports, importedBy, err := ix.Imports(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if raw, qerr := fname.Unquote(args[0]); len(files) == 0 && qerr == nil && raw != args[0] {
				// A file name as printed, with \xNN escapes.
				if files, imports, importedBy, err = ix.Imports(cmd.Context(), raw); err != nil {
					return err
				}
			}
			importedBy = retrieval.TestsLast(importedBy)
			quoteStrings(files)
			quoteImports(imports)
			quoteImports(importedBy)
			if len(files) == 0 {
				return fmt.Errorf("no indexed file, directory or module named %q in %s", args[0], ix.Root())
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{
					"target": args[0], "files": files, "imports": nonNil(imports), "imported_by": nonNil(importedBy),
				})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s (%d files)\n  imports:\n", args[0], len(files))
			for _, imp := range imports {
				fmt.Fprintf(w, "    %-40s %s\n", imp.Name, location(imp.Path, imp.Line))
			}
			fmt.Fprintln(w, "  imported by:")
			for _, imp := range importedBy {
				fmt.Fprintf(w, "    %-40s %s\n", location(imp.Path, imp.Line), imp.Name)
			}
			return nil
		},
	}
}

func newSymbolsCmd(g *globalFlags, f *graphFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "symbols QUERY",
		Short: "Search symbols by name: exact, prefix, camel-case initials (FBI finds FindByID), substring",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, ix, err := openGraph(cmd, g, f)
			if err != nil {
				return err
			}
			defer sess.Close()
			matches, err := ix.Symbols(cmd.Context(), args[0], f.limit)
			if err != nil {
				return err
			}
			for i := range matches {
				quoteSymbol(&matches[i].SymbolInfo)
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"query": args[0], "symbols": nonNil(matches)})
			}
			w := cmd.OutOrStdout()
			for _, m := range matches {
				fmt.Fprintf(w, "%-9s %-10s %-40s %s\n", m.Match, m.Kind, m.QualifiedName, location(m.Path, m.Range.Start.Line+1))
			}
			if len(matches) == 0 {
				fmt.Fprintf(w, "no symbol matches %q\n", args[0])
			}
			return nil
		},
	}
	c.Flags().IntVar(&f.limit, "limit", 50, "most symbols to list")
	return c
}

// printAnswer prints a graph answer, one block per definition.
func printAnswer(w io.Writer, a *analysis.Answer) {
	for i, d := range a.Definitions {
		def := d.Definition
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(a.Definitions) > 1 {
			fmt.Fprintf(w, "[%d/%d] ", i+1, len(a.Definitions))
		}
		fmt.Fprintf(w, "%s %s  %s\n", def.Kind, def.QualifiedName, location(def.Path, def.Range.Start.Line+1))
		switch r := d.Result.(type) {
		case []analysis.CallSite:
			printSites(w, r, a.Operation == analysis.OpCallers)
			if d.OmittedAmbiguous > 0 {
				fmt.Fprintf(w, "  … and %d more ambiguous calls (same-name methods of other types may be meant), left out\n", d.OmittedAmbiguous)
			}
		case *analysis.InheritanceResult:
			fmt.Fprintln(w, "  bases:")
			printRelations(w, r.Bases, "    ")
			fmt.Fprintln(w, "  derived:")
			printRelations(w, r.Derived, "    ")
		case []analysis.Relation:
			printRelations(w, r, "  ")
		}
	}
}

func printSites(w io.Writer, sites []analysis.CallSite, callers bool) {
	if len(sites) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, s := range sites {
		call := s.Name
		if s.Qualifier != "" {
			call = s.Qualifier + "." + s.Name
		}
		note := ""
		if s.Ambiguous {
			note = "  (ambiguous: may call another type's " + s.Name + ")"
		}
		if callers {
			fmt.Fprintf(w, "  %-32s %-36s %s%s\n", location(s.Path, s.Line), s.Caller.QualifiedName, call, note)
			continue
		}
		target := "(unresolved)"
		if s.Callee != nil {
			target = s.Callee.QualifiedName + "  " + location(s.Callee.Path, s.Callee.Range.Start.Line+1)
		}
		fmt.Fprintf(w, "  %-32s %-28s → %s%s\n", location(s.Path, s.Line), call, target, note)
	}
}

func printRelations(w io.Writer, rels []analysis.Relation, indent string) {
	if len(rels) == 0 {
		fmt.Fprintf(w, "%s(none)\n", indent)
	}
	for _, r := range rels {
		if r.Symbol.Name == "" {
			fmt.Fprintf(w, "%s%d %-10s %s (not in the workspace)\n", indent, r.Depth, r.Via, r.Name)
			continue
		}
		fmt.Fprintf(w, "%s%d %-10s %-36s %s\n", indent, r.Depth, r.Via, r.Symbol.QualifiedName, location(r.Symbol.Path, r.Symbol.Range.Start.Line+1))
	}
}

func location(path string, line int) string {
	return fmt.Sprintf("%s:%d", path, line)
}

// nonNil makes empty results print as [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
