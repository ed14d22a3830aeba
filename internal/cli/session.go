package cli

import (
	"context"

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
