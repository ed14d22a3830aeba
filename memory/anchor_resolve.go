package memory

import (
	"context"
	"fmt"
	"strings"
)

// ExampleElsewhere is the state of an example in another project's
// workspace, whose root is not known: it is not looked at.
const ExampleElsewhere = "elsewhere"

// ExampleState is what became of a rule's example in the code as it is
// now.
type ExampleState struct {
	// Status is ExampleShown when the example was found (File, Symbol
	// and Line say where it is now), ExampleLost when its file or
	// definition is gone, ExampleSecret for a file that may hold
	// credentials (not read), ExampleElsewhere for an example in another
	// project's workspace, ExampleNone for a rule without an anchor.
	Status string `json:"status"`
	// File is relative to the workspace root (forward slashes).
	File string `json:"file,omitempty"`
	// Symbol is the qualified name now: another than the anchor's when
	// the definition was renamed.
	Symbol string `json:"symbol,omitempty"`
	// Line is the definition's first line now, 1-based.
	Line int `json:"line,omitempty"`
	// Moved reports a definition found in another file than the
	// anchor's, or under another name.
	Moved bool `json:"moved,omitempty"`
}

// ResolveExamples finds the example of each anchored rule in the code as
// it is now, as Inject does (the anchored definition by name, then the
// same code under another name, then the name in another file of the
// workspace), for a listing that must not show a deleted definition as
// if it existed. project is the project of the rules' workspace ("" for
// deps.Store's). The result maps each rule's ID to its state.
func ResolveExamples(ctx context.Context, deps InjectDeps, project string, rules []Rule) (map[int64]ExampleState, error) {
	in, err := newInjector(deps)
	if err != nil {
		return nil, fmt.Errorf("resolve examples: %w", err)
	}
	defer in.close()
	project = strings.TrimSpace(project)
	if project == "" && deps.Store != nil {
		project = deps.Store.Project()
	}
	if project == "" && in.root != "" {
		project = ProjectName(in.root)
	}
	in.project = project
	out := make(map[int64]ExampleState, len(rules))
	for _, r := range rules {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.Anchor == nil || strings.TrimSpace(r.Anchor.File) == "" {
			out[r.ID] = ExampleState{Status: ExampleNone}
			continue
		}
		if root, here := in.anchorRoot(r); root == "" && !here {
			// Another project's workspace, whose root is not known:
			// its example cannot be looked at from here.
			out[r.ID] = ExampleState{Status: ExampleElsewhere, File: r.Anchor.File, Symbol: r.Anchor.Symbol}
			continue
		}
		ex, status, err := in.resolve(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("resolve the example of rule %d: %w", r.ID, err)
		}
		st := ExampleState{Status: status}
		if ex != nil {
			st.File, st.Symbol, st.Line, st.Moved = ex.info.File, ex.info.Symbol, ex.info.Line, ex.info.Moved
		}
		out[r.ID] = st
	}
	return out, nil
}
