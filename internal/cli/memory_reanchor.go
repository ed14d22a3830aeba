package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// anchorOutcome is what anchoring did to one rule.
type anchorOutcome struct {
	Rule   int64              `json:"rule"`
	Scope  string             `json:"scope"`
	Text   string             `json:"content"`
	Anchor *memory.RuleAnchor `json:"anchor"`
	// Manual is set when the anchor is the example the user chose.
	Manual bool `json:"manual,omitempty"`
	// Kept is set when re-anchoring kept the example the user chose
	// (found again where it is now).
	Kept bool `json:"kept,omitempty"`
	// Note says why the rule has no anchor, or what became of the
	// example the user chose.
	Note string `json:"note,omitempty"`
}

// anchorSession is the index and anchor engine of the --root workspace,
// brought up to date, for anchoring rules.
type anchorSession struct {
	a     *memory.Anchorer
	close func()
}

// openAnchorSession opens the --root workspace's index in sess, brings it
// up to date and returns its anchor engine.
func openAnchorSession(ctx context.Context, cmd *cobra.Command, m *memoryFlags, sess *session.Session) (*anchorSession, error) {
	ix, err := sess.Index(ctx, m.root)
	if err != nil {
		return nil, err
	}
	if _, err := updateWithProgress(ctx, cmd, ix); err != nil {
		return nil, err
	}
	// Anchoring is not a user's search: it is not recorded.
	searcher := &retrieval.Searcher{Index: ix, Router: sess.Router(), Vectors: indexVectors(ix)}
	return &anchorSession{
		a:     &memory.Anchorer{Searcher: searcher, Project: m.projectName()},
		close: func() {},
	}, nil
}

// anchorRules finds the best example of each rule in the --root workspace
// and stores it (or clears a rule's anchor when nothing is good enough).
// An example the user chose is kept, followed to where it is now, unless
// it is gone. The index is brought up to date first. progress, when set,
// is told of each rule done.
func anchorRules(ctx context.Context, cmd *cobra.Command, m *memoryFlags, sess *session.Session, s *memory.Store, rules []memory.Rule, progress func(done, total int)) ([]anchorOutcome, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	as, err := openAnchorSession(ctx, cmd, m, sess)
	if err != nil {
		return nil, err
	}
	defer as.close()
	a := as.a
	var out []anchorOutcome
	for i, r := range rules {
		o, err := anchorOne(ctx, a, s, r)
		if err != nil {
			return out, fmt.Errorf("anchor rule %d: %w", r.ID, err)
		}
		out = append(out, o)
		if progress != nil {
			progress(i+1, len(rules))
		}
	}
	return out, nil
}

// anchorOne anchors one rule (see anchorRules).
func anchorOne(ctx context.Context, a *memory.Anchorer, s *memory.Store, r memory.Rule) (anchorOutcome, error) {
	o := anchorOutcome{Rule: r.ID, Scope: r.Scope, Text: r.Content}
	if r.Anchor != nil && memory.ReadAnchorMeta(r).Manual {
		loc, how, ok, err := a.Follow(ctx, r)
		if err != nil {
			return o, err
		}
		if ok {
			o.Kept, o.Manual, o.Anchor = true, true, r.Anchor
			if how != memory.FollowSame {
				moved, err := followTo(ctx, a, r, loc)
				if err != nil {
					return o, err
				}
				if err := s.SetAnchor(ctx, r.ID, moved); err != nil {
					return o, err
				}
				o.Anchor = &moved
				o.Note = fmt.Sprintf("the example you chose was %s: now %s in %s", how, loc.Symbol, loc.File)
			}
			return o, nil
		}
		o.Note = fmt.Sprintf("the example you chose, %s in %s, is gone", r.Anchor.Symbol, r.Anchor.File)
	}
	origins, err := s.RuleOrigins(ctx, r.ID)
	if err != nil {
		return o, err
	}
	language := ""
	if lang, ok := strings.CutPrefix(r.Scope, "language:"); ok {
		language = lang
	}
	res, err := a.FindAnchor(ctx, r.Content, memory.AnchorOptions{Scope: r.Scope, Language: language, Origins: origins})
	if err != nil {
		return o, err
	}
	anchor := res.RuleAnchor(a.Searcher.Index.Root(), a.ProjectName())
	if anchor != nil {
		err = s.SetAnchor(ctx, r.ID, *anchor)
	} else {
		err = s.ClearAnchor(ctx, r.ID)
		o.Note = strings.TrimSpace(o.Note + "; " + res.Reason)
		o.Note = strings.TrimPrefix(o.Note, "; ")
	}
	o.Anchor = anchor
	return o, err
}

// followTo returns r's anchor moved to loc, where Follow found it.
func followTo(ctx context.Context, a *memory.Anchorer, r memory.Rule, loc memory.AnchorLocation) (memory.RuleAnchor, error) {
	sym, ok, err := a.Searcher.Index.FindSymbol(ctx, loc.File, loc.Symbol, loc.Line-1)
	if err != nil {
		return memory.RuleAnchor{}, err
	}
	if !ok {
		return *r.Anchor, nil
	}
	text, _, err := a.SymbolText(sym)
	if err != nil {
		return memory.RuleAnchor{}, err
	}
	return memory.FollowedAnchor(r, sym, text), nil
}

// printAnchorOutcomes prints what anchoring did, one rule per line.
func printAnchorOutcomes(w io.Writer, outs []anchorOutcome) {
	for _, o := range outs {
		switch {
		case o.Anchor == nil && o.Note != "":
			fmt.Fprintf(w, "rule %d: %s (%s)\n", o.Rule, o.Note, o.Text)
		case o.Anchor == nil:
			fmt.Fprintf(w, "rule %d: no example good enough (%s)\n", o.Rule, o.Text)
		case o.Kept:
			fmt.Fprintf(w, "rule %d: kept the example you chose, %s in %s\n", o.Rule, o.Anchor.Symbol, o.Anchor.File)
			if o.Note != "" {
				fmt.Fprintf(w, "  %s\n", o.Note)
			}
		case o.Manual:
			fmt.Fprintf(w, "rule %d: anchored at %s in %s, as you chose (quality %.2f)\n", o.Rule, o.Anchor.Symbol, o.Anchor.File, o.Anchor.Score)
		default:
			fmt.Fprintf(w, "rule %d: anchored at %s in %s (quality %.2f)\n", o.Rule, o.Anchor.Symbol, o.Anchor.File, o.Anchor.Score)
			if o.Note != "" {
				fmt.Fprintf(w, "  %s\n", o.Note)
			}
		}
	}
}

func newMemoryAnchorCmd(m *memoryFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "anchor ID",
		Short: "Find and store the best code example of a rule in the --root workspace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("%q is not a rule id (a positive number, as \"anchorage memory show\" shows)", args[0])
			}
			ctx := cmd.Context()
			s, sess, err := m.openMemory(ctx)
			if err != nil {
				return err
			}
			defer sess.Close()
			r, err := s.Rule(ctx, id)
			if err != nil {
				return err
			}
			outs, err := anchorRules(ctx, cmd, m, sess, s, []memory.Rule{r}, nil)
			if err != nil {
				return err
			}
			if m.json {
				return writeJSON(cmd.OutOrStdout(), outs[0])
			}
			printAnchorOutcomes(cmd.OutOrStdout(), outs)
			return nil
		},
	}
}

func newMemoryReanchorCmd(m *memoryFlags) *cobra.Command {
	var (
		scopes       []string
		symbol, file string
	)
	cmd := &cobra.Command{
		Use:   "reanchor [ID...]",
		Short: "Find the best code example of every rule (or of the given ones) again, or choose one with --symbol",
		Long: `Anchors every active rule again in the --root workspace (or the rules
given by id), with a progress bar on a terminal: after large changes, or to
anchor rules approved elsewhere. --scope keeps the rules of a scope
(universal, language, project, language:<lang>, project:<name>). An example
you chose is kept (followed when it was renamed or moved) until you choose
another.

reanchor ID --symbol NAME makes the definition NAME (a name or a qualified
name, UserRepository.FindByID) the example of rule ID; --file picks among
definitions of the same name.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if symbol == "" && file != "" {
				return errors.New("--file picks the definition of --symbol: give --symbol too")
			}
			if symbol != "" && len(args) != 1 {
				return errors.New("--symbol chooses the example of one rule: give exactly one rule id")
			}
			var ids []int64
			for _, arg := range args {
				id, err := strconv.ParseInt(arg, 10, 64)
				if err != nil || id <= 0 {
					return fmt.Errorf("%q is not a rule id (a positive number, as \"anchorage memory show\" shows)", arg)
				}
				ids = append(ids, id)
			}
			s, sess, err := m.openMemory(ctx)
			if err != nil {
				return err
			}
			defer sess.Close()
			if symbol != "" {
				return chooseExample(ctx, cmd, m, sess, s, ids[0], symbol, file)
			}
			var rules []memory.Rule
			if len(ids) > 0 {
				for _, id := range ids {
					r, err := s.Rule(ctx, id)
					if err != nil {
						return err
					}
					rules = append(rules, r)
				}
			} else if rules, err = s.Rules(ctx, memory.RuleFilter{Scopes: scopes}); err != nil {
				return err
			}
			var progress func(done, total int)
			if f, ok := cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) && len(rules) > 0 {
				bar := progressbar.NewOptions(len(rules), progressbar.OptionSetWriter(f),
					progressbar.OptionSetDescription("anchoring"), progressbar.OptionShowCount(),
					progressbar.OptionSetItsString("rules"), progressbar.OptionClearOnFinish())
				defer bar.Finish()
				progress = func(done, _ int) { bar.Set(done) }
			}
			outs, err := anchorRules(ctx, cmd, m, sess, s, rules, progress)
			if err != nil {
				return err
			}
			if m.json {
				if outs == nil {
					outs = []anchorOutcome{}
				}
				return writeJSON(cmd.OutOrStdout(), map[string]any{"rules": outs})
			}
			if len(outs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "No rules to anchor.")
			}
			printAnchorOutcomes(cmd.OutOrStdout(), outs)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&scopes, "scope", nil, "only the rules of this scope (repeatable)")
	cmd.Flags().StringVar(&symbol, "symbol", "", "make this definition the rule's example (one rule id)")
	cmd.Flags().StringVar(&file, "file", "", "with --symbol: the file that defines it, relative to --root")
	return cmd
}

// chooseExample makes the definition named symbol the example of rule
// id, as the user chose it. A name the workspace does not define leaves
// the rule as it was and says so.
func chooseExample(ctx context.Context, cmd *cobra.Command, m *memoryFlags, sess *session.Session, s *memory.Store, id int64, symbol, file string) error {
	r, err := s.Rule(ctx, id)
	if err != nil {
		return err
	}
	if file != "" {
		if file, err = m.workspaceFile(file); err != nil {
			return fmt.Errorf("rule %d keeps its example: %w", id, err)
		}
	}
	as, err := openAnchorSession(ctx, cmd, m, sess)
	if err != nil {
		return err
	}
	defer as.close()
	res, err := as.a.Choose(ctx, r.Content, symbol, file, 0)
	if err != nil {
		return fmt.Errorf("rule %d keeps its example: %w", id, err)
	}
	res.Scope = r.Scope
	anchor := res.RuleAnchor(as.a.Searcher.Index.Root(), as.a.ProjectName())
	if err := s.SetAnchor(ctx, id, *anchor); err != nil {
		return err
	}
	o := anchorOutcome{Rule: id, Scope: r.Scope, Text: r.Content, Anchor: anchor, Manual: true}
	if m.json {
		return writeJSON(cmd.OutOrStdout(), o)
	}
	printAnchorOutcomes(cmd.OutOrStdout(), []anchorOutcome{o})
	return nil
}
