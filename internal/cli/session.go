package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/state"
)

// openSession returns the state of this run (see package session): the
// user database of --data-dir and the stores sharing its one pool (the
// slot moves kept in memory and written at Close when deferSlots); the
// memory documents of --root; the
// routing statistics; and the indexes, opened with the workspace's
// settings after reading as much as check says. mem configures the
// rules store (a project, a correction session, an LLM). The caller
// closes the session.
func openSession(ctx context.Context, g *globalFlags, check analysis.CheckLevel, deferSlots bool, mem ...memory.Option) (*session.Session, error) {
	dirs, err := state.Resolve(g.dataDir)
	if err != nil {
		return nil, err
	}
	opts := session.Options{Memory: mem, DeferSlotWrites: deferSlots}
	if g.settings != nil && g.settings.Settings.TeamURL != "" {
		opts.Team = session.TeamOptions{URL: g.settings.Settings.TeamURL, OnStatus: teamStatusLine(g.stderr)}
	}
	if root, err := memdoc.CleanRoot(g.root); err == nil {
		opts.DocumentRoots = func() []string { return []string{root} }
	}
	opts.Index = func(string) (analysis.Options, error) {
		vec, err := vectorSignal(g)
		if err != nil {
			return analysis.Options{}, err
		}
		o := analysis.Options{Embedder: vec, Check: check}
		if g.settings != nil {
			s := g.settings.Settings
			o.Ignore, o.MaxFileSize, o.Languages = s.Exclude, s.MaxFileSize, s.Languages
		}
		return o, nil
	}
	return session.New(ctx, dirs, opts)
}

// teamStatusLine returns the TeamOptions.OnStatus of a command: a line on
// stderr when the team database cannot be reached, and when it is back.
func teamStatusLine(w io.Writer) func(session.TeamStatus) {
	if w == nil {
		w = io.Discard
	}
	told := false
	return func(s session.TeamStatus) {
		switch {
		case !s.Reachable:
			told = true
			fmt.Fprintf(w, "anchorage: the team database %s cannot be reached (%s); team rules come from the local cache, and proposals wait in the outbox\n", s.URL, s.Error)
		case told:
			fmt.Fprintf(w, "anchorage: the team database %s is reachable again\n", s.URL)
		}
	}
}
