package analysis

import (
	"context"
	"fmt"
	"strings"
)

// Graph operations answered by Answer, as named on the command line and in
// editor commands.
const (
	OpCallers     = "callers"
	OpCallees     = "callees"
	OpInheritance = "inheritance"
	OpBlastRadius = "blast-radius"
)

// Answer is the answer to a graph question about a symbol: one result per
// definition the symbol names, labelled by the definition. The command
// line prints it and editor commands return it as JSON.
type Answer struct {
	Symbol      string             `json:"symbol"`
	Operation   string             `json:"operation"`
	Definitions []DefinitionAnswer `json:"definitions"`
}

// DefinitionAnswer is the answer for one definition. Result holds
// []CallSite for callers and callees, *InheritanceResult for inheritance
// and []Relation for the blast radius.
type DefinitionAnswer struct {
	Definition SymbolInfo `json:"definition"`
	Result     any        `json:"result"`
	// OmittedAmbiguous counts the ambiguous callers left out after the
	// first MaxAmbiguousCallers (callers only).
	OmittedAmbiguous int `json:"omitted_ambiguous,omitempty"`
}

// InheritanceResult is what a type extends and what extends it.
type InheritanceResult struct {
	Bases   []Relation `json:"bases"`
	Derived []Relation `json:"derived"`
}

// ErrNoSymbol reports a symbol that has no definition; its message
// suggests close names.
type ErrNoSymbol struct {
	Symbol      string
	Suggestions []string
}

func (e *ErrNoSymbol) Error() string {
	if len(e.Suggestions) == 0 {
		return fmt.Sprintf("no symbol named %q", e.Symbol)
	}
	return fmt.Sprintf("no symbol named %q; did you mean %s?", e.Symbol, strings.Join(e.Suggestions, ", "))
}

// Ask answers a graph question (OpCallers, OpCallees, OpInheritance,
// OpBlastRadius) about every definition of symbol. depth ≤ 0 takes the
// operation's default.
func (s *indexStore) Ask(ctx context.Context, op, symbol string, depth int) (*Answer, error) {
	var run func(SymbolInfo) (any, error)
	switch op {
	case OpCallers:
		run = func(d SymbolInfo) (any, error) { return nonNil(s.Callers(ctx, d)) }
	case OpCallees:
		run = func(d SymbolInfo) (any, error) { return nonNil(s.Callees(ctx, d)) }
	case OpInheritance:
		run = func(d SymbolInfo) (any, error) {
			bases, derived, err := s.Inheritance(ctx, d, depth)
			return &InheritanceResult{Bases: orEmpty(bases), Derived: orEmpty(derived)}, err
		}
	case OpBlastRadius:
		run = func(d SymbolInfo) (any, error) { return nonNil(s.BlastRadius(ctx, d, depth)) }
	default:
		return nil, fmt.Errorf("unknown graph operation %q", op)
	}
	defs, err := s.Lookup(ctx, symbol)
	if err != nil {
		return nil, err
	}
	if len(defs) == 0 {
		e := &ErrNoSymbol{Symbol: symbol}
		if matches, err := s.Symbols(ctx, symbol, 5); err == nil {
			for _, m := range matches {
				e.Suggestions = append(e.Suggestions, m.QualifiedName)
			}
		}
		return nil, e
	}
	if op == OpInheritance {
		// Only types extend and are extended: a Java constructor named
		// like its class is not asked about.
		defs = typesFirst(defs)
	}
	a := &Answer{Symbol: symbol, Operation: op}
	for _, d := range defs {
		r, err := run(d)
		if err != nil {
			return nil, err
		}
		da := DefinitionAnswer{Definition: d, Result: r}
		if sites, ok := r.([]CallSite); ok && op == OpCallers {
			da.Result, da.OmittedAmbiguous = CapAmbiguous(sites, MaxAmbiguousCallers)
		}
		a.Definitions = append(a.Definitions, da)
	}
	return a, nil
}

// typesFirst returns the types among defs, or defs when none is a type.
func typesFirst(defs []SymbolInfo) []SymbolInfo {
	var types []SymbolInfo
	for _, d := range defs {
		switch d.Kind {
		case KindClass, KindStruct, KindInterface, KindTrait, KindEnum, KindType:
			types = append(types, d)
		}
	}
	if len(types) == 0 {
		return defs
	}
	return types
}

func nonNil[T any](xs []T, err error) (any, error) {
	return orEmpty(xs), err
}

// orEmpty makes empty results encode as [] rather than null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
