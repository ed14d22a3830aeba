package retrieval

import (
	"context"
	"path"
	"sort"

	"github.com/anchorage-dev/anchorage/analysis"
)

// StructuralSymbols answers a structural route from the code graph with
// the symbols it asks for: the callers of its symbol, its callees, the
// types above and below it, what a change to it reaches, or, for a search,
// its definitions. Each symbol appears once, in the graph's order, up to
// limit. A symbol that names nothing gives no symbols and no error; import
// questions are about files and give none.
func StructuralSymbols(ctx context.Context, st *analysis.Index, rt Route, limit int) ([]analysis.SymbolInfo, error) {
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
			for _, c := range likelyCallees(calls) {
				add(*c.Callee)
			}
		case OpInheritance:
			bases, derived, err := st.Inheritance(ctx, d, 0)
			if err != nil {
				return nil, err
			}
			for _, rel := range inheritanceOrder(rt.InheritanceDirection, bases, derived) {
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

// likelyCallees returns the resolved calls in the order a reader expects
// them: calls that name one definition first, then ambiguous calls
// (f.Close() when a hundred types have a Close) resolved in the caller's
// own package, then the other guesses.
func likelyCallees(calls []analysis.CallSite) []analysis.CallSite {
	tier := func(c analysis.CallSite) int {
		switch {
		case !c.Ambiguous:
			return 0
		case path.Dir(c.Callee.Path) == path.Dir(c.Path):
			return 1
		}
		return 2
	}
	var out []analysis.CallSite
	for _, c := range calls {
		if c.Callee != nil {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return tier(out[i]) < tier(out[j]) })
	return out
}

// inheritanceOrder lists the types related to a type that the question
// asks for: only its subtypes for "subclasses of X" and "implementations
// of X" (concrete types before the interfaces that embed X), only its
// bases for "what does X extend", and bases then subtypes when the
// question did not say. A question about subtypes never answers with a
// base: "subclasses of HTTPHandler" is not logging.Handler.
func inheritanceOrder(direction string, bases, derived []analysis.Relation) []analysis.Relation {
	switch direction {
	case DirectionUp:
		return append([]analysis.Relation(nil), bases...)
	case DirectionDown:
		sorted := append([]analysis.Relation(nil), derived...)
		sort.SliceStable(sorted, func(i, j int) bool {
			abstract := func(k analysis.Kind) bool { return k == analysis.KindInterface || k == analysis.KindTrait }
			return !abstract(sorted[i].Symbol.Kind) && abstract(sorted[j].Symbol.Kind)
		})
		return sorted
	}
	return append(append([]analysis.Relation(nil), bases...), derived...)
}
