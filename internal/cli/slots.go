package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// recallSession is the memory graph of a command, in the session that
// owns it and its rules and documents.
type recallSession struct {
	sess  *session.Session
	graph *recall.Store
}

// Close writes the slot moves the command made (they are deferred, as in
// the server) and closes the session; the error says if they were lost.
func (r *recallSession) Close() error { return r.sess.Close() }

// openRecall opens the memory graph, its rules and the memory documents
// of --root (synced first when syncDocs), and brings the graph up to
// date. It returns nil when there is no memory database and create is
// false. Slot moves are written when the returned session is closed.
func openRecall(ctx context.Context, m *memoryFlags, create, syncDocs bool) (*recallSession, error) {
	path, err := m.memoryPath()
	if err != nil {
		return nil, err
	}
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && !(syncDocs && hasMemoryDocuments(ctx, m)) {
			// Reading creates no database, unless the workspace has
			// memory documents to search: every entry point sees them
			// without `memory docs` having run first.
			return nil, nil
		}
	}
	var mem []memory.Option
	if p := m.projectName(); p != "" {
		mem = append(mem, memory.WithProject(p))
	}
	sess, err := openSession(ctx, m.globalFlags, analysis.CheckOpen, true, mem...)
	if err != nil {
		return nil, err
	}
	g, err := syncedRecall(ctx, sess, m, syncDocs)
	if err != nil {
		sess.Close()
		return nil, err
	}
	return &recallSession{sess: sess, graph: g}, nil
}

// syncedRecall returns the memory graph of sess brought up to date, with
// the memory documents of --root synced first when syncDocs.
func syncedRecall(ctx context.Context, sess *session.Session, m *memoryFlags, syncDocs bool) (*recall.Store, error) {
	if syncDocs {
		if root, err := memdoc.CleanRoot(m.root); err == nil {
			docs, err := sess.Documents(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := docs.Sync(ctx, root, m.memoryGlobs()); err != nil {
				return nil, err
			}
		}
	}
	g, err := sess.Recall(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := g.Sync(ctx); err != nil {
		return nil, err
	}
	return g, nil
}

// hasMemoryDocuments reports whether --root has memory documents.
func hasMemoryDocuments(ctx context.Context, m *memoryFlags) bool {
	root, err := memdoc.CleanRoot(m.root)
	if err != nil {
		return false
	}
	files, _, err := memdoc.Discover(ctx, root, m.memoryGlobs())
	return err == nil && len(files) > 0
}

// newSlotsCmd is "anchorage slots", formerly "anchorage anchors" (an
// alias for one release: "anchor" now means a rule's example only).
func newSlotsCmd(g *globalFlags) *cobra.Command {
	m := &memoryFlags{globalFlags: g}
	cmd := &cobra.Command{
		Use:     "slots",
		Aliases: []string{"anchors"},
		Short:   "Working-memory slots A, B and C: show, set, pin and unpin the memories they hold",
		Long: `Three working-memory slots, A, B and C, follow the topics you work on: each
holds a memory (a rule "rule:<id>" or a memory document "doc:<path>"), a
topic, a summary and a hop budget. A memory search starts near a slot's
memory and only ranks every memory when nothing near it is relevant. The
language server moves the slots as you edit; a pinned slot never moves.

"anchorage anchors" is the former name of this command, kept for one
release.`,
	}
	cmd.PersistentFlags().StringVar(&m.project, "project", "", "project name for project scopes (default: the base name of --root)")
	status := func(cmd *cobra.Command, fn func(context.Context, *recall.Store) (recall.Status, error)) error {
		rs, err := openRecall(cmd.Context(), m, true, false)
		if err != nil {
			return err
		}
		st, err := fn(cmd.Context(), rs.graph)
		if cerr := rs.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if m.json {
			return writeJSON(cmd.OutOrStdout(), st)
		}
		printSlots(cmd.OutOrStdout(), st)
		return nil
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "status",
			Short: "Show the three slots",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return status(cmd, func(ctx context.Context, s *recall.Store) (recall.Status, error) { return s.Status(ctx) })
			},
		},
		&cobra.Command{
			Use:   "set SLOT ID",
			Short: "Put a memory in a slot (rule:<id> or doc:<path>)",
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return status(cmd, func(ctx context.Context, s *recall.Store) (recall.Status, error) { return s.Set(ctx, args[0], args[1]) })
			},
		},
		&cobra.Command{
			Use:   "pin SLOT ID",
			Short: "Anchor a slot on a memory and pin it there",
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return status(cmd, func(ctx context.Context, s *recall.Store) (recall.Status, error) { return s.Pin(ctx, args[0], args[1]) })
			},
		},
		&cobra.Command{
			Use:   "unpin SLOT",
			Short: "Let a pinned slot move again",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return status(cmd, func(ctx context.Context, s *recall.Store) (recall.Status, error) { return s.Unpin(ctx, args[0]) })
			},
		},
		&cobra.Command{
			Use:   "bootstrap",
			Short: "Rebuild the memory graph of every rule and memory document of --root",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				rs, err := openRecall(cmd.Context(), m, true, true)
				if err != nil {
					return err
				}
				sum, err := rs.graph.Bootstrap(cmd.Context())
				if cerr := rs.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				if m.json {
					return writeJSON(cmd.OutOrStdout(), sum)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Memory graph: %d memories (%d new, %d rebuilt), %d edges\n",
					sum.Added+sum.Updated+sum.Unchanged, sum.Added, sum.Updated+sum.Unchanged, sum.Edges)
				return nil
			},
		},
	)
	return cmd
}

// printSlots writes the slots, one a line.
func printSlots(w io.Writer, st recall.Status) {
	for _, s := range st.Slots {
		held := "(empty)"
		if s.Anchor != nil {
			held = s.Anchor.ID
			if s.Anchor.Title != "" {
				held += " " + fmt.Sprintf("%q", s.Anchor.Title)
			}
		}
		pin := ""
		if s.Pinned {
			pin = " pinned"
		}
		used := s.LastUsed
		if used == "" {
			used = "never"
		}
		fmt.Fprintf(w, "%s: %s%s, radius %d, last used %s\n", s.Slot, held, pin, s.HopBudget, used)
		if s.Summary != "" {
			fmt.Fprintf(w, "   %s\n", s.Summary)
		}
	}
}

// recallMetrics returns the memory graph's metrics, synced first, or nil
// when there is no memory database.
func recallMetrics(ctx context.Context, m *memoryFlags) (*recall.Metrics, error) {
	rs, err := openRecall(ctx, m, false, false)
	if err != nil || rs == nil {
		return nil, err
	}
	mt, err := rs.graph.Metrics(ctx)
	if cerr := rs.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return &mt, nil
}
