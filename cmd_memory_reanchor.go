package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/anchorage-dev/anchorage/memory"
)

// anchorOutcome is what anchoring did to one rule.
type anchorOutcome struct {
	Rule   int64              `json:"rule"`
	Scope  string             `json:"scope"`
	Text   string             `json:"content"`
	Anchor *memory.RuleAnchor `json:"anchor"`
}

// anchorRules finds the best example of each rule in the --root workspace
// and stores it (or clears a rule's anchor when nothing is good enough).
// The index is brought up to date first. progress, when set, is told of
// each rule done.
func anchorRules(ctx context.Context, cmd *cobra.Command, m *memoryFlags, s *memory.Store, rules []memory.Rule, progress func(done, total int)) ([]anchorOutcome, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	ix, err := openIndex(ctx, m.globalFlags)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := updateWithProgress(ctx, cmd, ix); err != nil {
		return nil, err
	}
	searcher, closeSearcher, err := newSearcher(ctx, m.globalFlags, ix, indexVectors(ix), cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	defer closeSearcher()
	searcher.Feedback = nil // anchoring is not a user's search
	a := &memory.Anchorer{Searcher: searcher, Project: m.projectName()}
	var out []anchorOutcome
	for i, r := range rules {
		language := ""
		if lang, ok := strings.CutPrefix(r.Scope, "language:"); ok {
			language = lang
		}
		anchor, err := a.AnchorRule(ctx, r.Content, r.Scope, language)
		if err != nil {
			return out, fmt.Errorf("anchor rule %d: %w", r.ID, err)
		}
		if anchor != nil {
			err = s.SetAnchor(ctx, r.ID, *anchor)
		} else {
			err = s.ClearAnchor(ctx, r.ID)
		}
		if err != nil {
			return out, fmt.Errorf("anchor rule %d: %w", r.ID, err)
		}
		out = append(out, anchorOutcome{Rule: r.ID, Scope: r.Scope, Text: r.Content, Anchor: anchor})
		if progress != nil {
			progress(i+1, len(rules))
		}
	}
	return out, nil
}

// printAnchorOutcomes prints what anchoring did, one rule per line.
func printAnchorOutcomes(w io.Writer, outs []anchorOutcome) {
	for _, o := range outs {
		if o.Anchor == nil {
			fmt.Fprintf(w, "rule %d: no example good enough (%s)\n", o.Rule, o.Text)
			continue
		}
		fmt.Fprintf(w, "rule %d: anchored at %s in %s (quality %.2f)\n", o.Rule, o.Anchor.Symbol, o.Anchor.File, o.Anchor.Score)
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
			s, err := m.openMemory(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := s.Rule(ctx, id)
			if err != nil {
				return err
			}
			outs, err := anchorRules(ctx, cmd, m, s, []memory.Rule{r}, nil)
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
	var scopes []string
	cmd := &cobra.Command{
		Use:   "reanchor",
		Short: "Find the best code example of every rule (or those of --scope) again",
		Long: `Anchors every active rule again in the --root workspace, with a progress
bar on a terminal: after large changes, or to anchor rules approved
elsewhere. --scope keeps the rules of a scope (universal, language,
project, language:<lang>, project:<name>).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := m.openMemory(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			rules, err := s.Rules(ctx, memory.RuleFilter{Scopes: scopes})
			if err != nil {
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
			outs, err := anchorRules(ctx, cmd, m, s, rules, progress)
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
	return cmd
}
