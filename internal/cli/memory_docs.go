package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// docsOutput is what anchorage memory docs --json prints.
type docsOutput struct {
	Root      string             `json:"root"`
	Globs     []string           `json:"globs"`
	Sync      memdoc.SyncSummary `json:"sync"`
	Documents []docsDocument     `json:"documents"`
}

// docsDocument is a document without its content.
type docsDocument struct {
	ID             string           `json:"id"`
	Path           string           `json:"path"`
	Title          string           `json:"title"`
	Description    string           `json:"description,omitempty"`
	TriggerPhrases []string         `json:"trigger_phrases"`
	ImportanceTier string           `json:"importance_tier"`
	ContextType    string           `json:"context_type,omitempty"`
	Sections       []memdoc.Section `json:"sections"`
	Warnings       []memdoc.Warning `json:"warnings"`
}

func newMemoryDocsCmd(m *memoryFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Sync and list the memory documents of --root, with their sections and warnings",
		Long: `Memory documents are Markdown files under the workspace root (by default
.anchorage/memory/**/*.md and specs/**/memory/*.md; see --glob) with an
optional YAML front matter (title, description, trigger_phrases,
importance_tier, contextType) and sections marked
<!-- ANCHOR:id --> … <!-- /ANCHOR:id -->. This command stores them in the
user's memory database (only what changed), where memory search finds
them, and lists each with its sections and the problems found in its
markers as file:line: message. Problems are warnings: the exit status
stays 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			globs := m.memoryGlobs()
			root, err := memdoc.CleanRoot(m.root)
			if err != nil {
				return err
			}
			out := docsOutput{Root: root, Globs: globs, Documents: []docsDocument{}}
			path, err := m.memoryPath()
			if err != nil {
				return err
			}
			files, badGlobs, err := memdoc.Discover(ctx, root, globs)
			if err != nil {
				return err
			}
			_, statErr := os.Stat(path)
			if len(files) > 0 || !errors.Is(statErr, fs.ErrNotExist) {
				// Reading a workspace without documents does not create
				// the memory database.
				sess, err := openSession(ctx, m.globalFlags, analysis.CheckOpen, true)
				if err != nil {
					return err
				}
				defer sess.Close()
				st, err := sess.Documents(ctx)
				if err != nil {
					return err
				}
				if out.Sync, err = st.Sync(ctx, root, globs); err != nil {
					return err
				}
				docs, err := st.Documents(ctx, root)
				if err != nil {
					return err
				}
				for _, d := range docs {
					out.Documents = append(out.Documents, docsDocument{
						ID: d.ID, Path: d.Path, Title: d.Title, Description: d.Description,
						TriggerPhrases: nonNil(d.TriggerPhrases), ImportanceTier: d.ImportanceTier, ContextType: d.ContextType,
						Sections: nonNil(d.Sections), Warnings: nonNil(d.Warnings),
					})
				}
			} else {
				out.Sync.Skipped = badGlobs
			}
			if m.json {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			printDocs(cmd.OutOrStdout(), out)
			return nil
		},
	}
	cmd.Flags().StringSlice("glob", memdoc.DefaultGlobs(), "root-relative pattern of memory documents (repeatable; ** matches any directories; default: the settings file's memory_documents, if any)")
	return cmd
}

// countOf returns "1 word" or "n words".
func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// printDocs prints the documents for a person.
func printDocs(w io.Writer, out docsOutput) {
	for _, sk := range out.Sync.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", sk.Path, sk.Reason)
	}
	if len(out.Documents) == 0 {
		fmt.Fprintf(w, "No memory documents in %s (patterns: %s).\n", out.Root, strings.Join(out.Globs, ", "))
		return
	}
	s := out.Sync
	fmt.Fprintf(w, "%s in %s (%d added, %d updated, %d removed, %d unchanged)\n",
		countOf(len(out.Documents), "memory document"), out.Root, len(s.Added), len(s.Updated), len(s.Removed), s.Unchanged)
	warnings := 0
	for _, d := range out.Documents {
		fmt.Fprintf(w, "\n%s  %s\n", d.ID, d.Title)
		meta := []string{d.ImportanceTier}
		if d.ContextType != "" {
			meta = append(meta, d.ContextType)
		}
		if len(d.TriggerPhrases) > 0 {
			meta = append(meta, "triggers: "+strings.Join(d.TriggerPhrases, ", "))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(meta, "; "))
		for _, sec := range d.Sections {
			depth := 0
			for p := sec.Parent; p >= 0 && p < len(d.Sections) && depth < len(d.Sections); p = d.Sections[p].Parent {
				depth++
			}
			fmt.Fprintf(w, "  %s%s  lines %d-%d\n", strings.Repeat("  ", depth+1), sec.ID, sec.StartLine, sec.EndLine)
		}
		if len(d.Sections) == 0 {
			fmt.Fprintln(w, "    (no sections)")
		}
		for _, wa := range d.Warnings {
			fmt.Fprintf(w, "  %s:%d: %s\n", d.Path, wa.Line, wa.Message)
			warnings++
		}
	}
	if warnings > 0 {
		fmt.Fprintf(w, "\n%s\n", countOf(warnings, "warning"))
	}
}
