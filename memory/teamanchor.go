package memory

import (
	"context"
	"errors"
	"fmt"
)

// AnchorTeamRule anchors the local copy of an approved team rule in the
// member's own checkout: at the proposer's example (file and symbol) when
// a workspace defines it, else at the best example the anchor engine
// finds, first in the workspace holding the proposer's file. It returns
// the rule as stored and, without an anchor, a note saying why.
func (x *Anchors) AnchorTeamRule(ctx context.Context, tr TeamRule) (Rule, string) {
	if tr.RuleID == 0 {
		return Rule{}, fmt.Sprintf("team rule %s is not approved", tr.ID)
	}
	r, err := x.Store.Rule(ctx, tr.RuleID)
	if err != nil {
		x.warn(err)
		return Rule{}, err.Error()
	}
	if tr.ExampleSymbol != "" {
		if w, rel := x.holdingRel(tr.ExampleFile); w != nil {
			if stored, ok := x.chooseTeamExample(ctx, w, rel, r, tr.ExampleSymbol); ok {
				return stored, ""
			}
		}
	}
	return x.Anchor(ctx, r, tr.ExampleFile)
}

// chooseTeamExample anchors r at symbol in file rel of w; false when the
// workspace does not define it there.
func (x *Anchors) chooseTeamExample(ctx context.Context, w *Workspace, rel string, r Rule, symbol string) (Rule, bool) {
	an, err := w.Anchorer(ctx)
	if err != nil {
		x.warn(fmt.Errorf("anchoring team rule %s in %s: %w", r.Team, w.Root, err))
		return r, false
	}
	res, err := an.Choose(ctx, r.Content, symbol, rel, 0)
	if err != nil {
		if !errors.Is(err, ErrNoSuchSymbol) && !errors.Is(err, ErrAmbiguousSymbol) {
			x.warn(fmt.Errorf("anchoring team rule %s in %s: %w", r.Team, w.Root, err))
		}
		return r, false
	}
	res.Scope = r.Scope
	ra := res.RuleAnchor(w.Root, w.Project)
	if ra == nil {
		return r, false
	}
	if err := x.Store.SetAnchor(ctx, r.ID, *ra); err != nil {
		x.warn(fmt.Errorf("team rule %s was not anchored: %w", r.Team, err))
		return r, false
	}
	stored, err := x.Store.Rule(ctx, r.ID)
	if err != nil {
		x.warn(err)
		return r, false
	}
	return stored, true
}
