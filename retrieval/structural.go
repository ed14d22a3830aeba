package retrieval

import (
	"context"
	"errors"

	"github.com/anchorage-dev/anchorage/analysis"
)

// StructuralSymbols answers a structural route from the code graph with
// the symbols it asks for: the callers of its symbol, its callees, the
// types above and below it, what a change to it reaches, or, for a search,
// its definitions. Each symbol appears once, in the graph's order, up to
// limit. A symbol that names nothing gives no symbols and no error; import
// questions are about files and give none.
func StructuralSymbols(ctx context.Context, st *analysis.Store, rt Route, limit int) ([]analysis.SymbolInfo, error) {
	if rt.StructuralQuery == "" {
		return nil, nil
	}
	if rt.StructuralOperation == OpSearch {
		defs, err := st.Lookup(ctx, rt.StructuralQuery)
		if err != nil || len(defs) > 0 {
			return capSymbols(defs, limit), err
		}
		matches, err := st.Symbols(ctx, rt.StructuralQuery, limit)
		var out []analysis.SymbolInfo
		for _, m := range matches {
			out = append(out, m.SymbolInfo)
		}
		return out, err
	}
	op := map[string]string{
		OpCallers: analysis.OpCallers, OpCallees: analysis.OpCallees,
		OpInheritance: analysis.OpInheritance, OpBlastRadius: analysis.OpBlastRadius,
	}[rt.StructuralOperation]
	if op == "" {
		return nil, nil
	}
	answer, err := st.Ask(ctx, op, rt.StructuralQuery, 0)
	var noSymbol *analysis.ErrNoSymbol
	if errors.As(err, &noSymbol) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []analysis.SymbolInfo
	seen := map[int64]bool{}
	add := func(s analysis.SymbolInfo) {
		if s.ID != 0 && !seen[s.ID] && len(out) < limit {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	for _, d := range answer.Definitions {
		switch r := d.Result.(type) {
		case []analysis.CallSite:
			for _, c := range r {
				if op == analysis.OpCallers {
					add(c.Caller)
				} else if c.Callee != nil {
					add(*c.Callee)
				}
			}
		case *analysis.InheritanceResult:
			for _, rel := range append(r.Bases, r.Derived...) {
				add(rel.Symbol)
			}
		case []analysis.Relation:
			for _, rel := range r {
				add(rel.Symbol)
			}
		}
	}
	return out, nil
}

func capSymbols(s []analysis.SymbolInfo, limit int) []analysis.SymbolInfo {
	if len(s) > limit {
		return s[:limit]
	}
	return s
}
