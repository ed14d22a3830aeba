package retrieval

import (
	"context"

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
	switch rt.StructuralOperation {
	case OpCallers, OpCallees, OpInheritance, OpBlastRadius:
	default:
		return nil, nil
	}
	defs, err := st.Lookup(ctx, rt.StructuralQuery)
	if err != nil {
		return nil, err
	}
	// A name defined in many places (Close, String) is asked about its
	// first definitions only: the answer is cut to limit anyway.
	if len(defs) > maxStructuralDefs {
		defs = defs[:maxStructuralDefs]
	}
	var out []analysis.SymbolInfo
	seen := map[int64]bool{}
	add := func(s analysis.SymbolInfo) {
		if s.ID != 0 && !seen[s.ID] && len(out) < limit {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	for _, d := range defs {
		if len(out) >= limit {
			break
		}
		switch rt.StructuralOperation {
		case OpCallers:
			calls, err := st.Callers(ctx, d)
			if err != nil {
				return nil, err
			}
			for _, c := range calls {
				add(c.Caller)
			}
		case OpCallees:
			calls, err := st.Callees(ctx, d)
			if err != nil {
				return nil, err
			}
			for _, c := range calls {
				if c.Callee != nil {
					add(*c.Callee)
				}
			}
		case OpInheritance:
			bases, derived, err := st.Inheritance(ctx, d, 0)
			if err != nil {
				return nil, err
			}
			for _, rel := range append(bases, derived...) {
				add(rel.Symbol)
			}
		case OpBlastRadius:
			rels, err := st.BlastRadiusLimit(ctx, d, 0, limit)
			if err != nil {
				return nil, err
			}
			for _, rel := range rels {
				add(rel.Symbol)
			}
		}
	}
	return out, nil
}

// maxStructuralDefs caps the definitions of one name a structural search
// asks the graph about.
const maxStructuralDefs = 25

func capSymbols(s []analysis.SymbolInfo, limit int) []analysis.SymbolInfo {
	if len(s) > limit {
		return s[:limit]
	}
	return s
}
