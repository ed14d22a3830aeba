package analysis

import (
	"context"
	"fmt"
	"strings"
)

// DefinitionsNamed returns the definitions (not modules) whose own name is
// exactly name, case included.
func (s *indexStore) DefinitionsNamed(ctx context.Context, name string) ([]SymbolInfo, error) {
	defs, err := s.definitionsNamed(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("definitions named %s: %w", name, err)
	}
	return defs, nil
}

// DefinitionsOfNames returns, for each of names, the definitions (not
// modules) whose own name is exactly it, case included, as
// DefinitionsNamed does, in one query; names defined nowhere are left
// out. A task names a hundred names: one query each would spend more on
// preparing them than on finding the definitions.
func (s *indexStore) DefinitionsOfNames(ctx context.Context, names []string) (map[string][]SymbolInfo, error) {
	out := map[string][]SymbolInfo{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	var args []any
	for _, n := range names {
		if n == "" || want[n] || len(n) > MaxNameQuery {
			continue
		}
		want[n] = true
		args = append(args, foldName(n))
	}
	if len(args) == 0 {
		return out, nil
	}
	syms, err := s.querySymbols(ctx, `n.lname IN (`+strings.Repeat(",?", len(args))[1:]+`) AND n.kind != 'module'`, args...)
	if err != nil {
		return nil, fmt.Errorf("definitions of %d names: %w", len(want), err)
	}
	for _, sym := range syms {
		if want[sym.Name] {
			out[sym.Name] = append(out[sym.Name], sym)
		}
	}
	return out, nil
}
