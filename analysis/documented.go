package analysis

import (
	"context"
	"fmt"
	"sync"
)

// DocumentedSymbol is a definition with a doc comment or docstring: what
// the code's authors said it does, in their words, beside its name.
type DocumentedSymbol struct {
	Kind Kind
	// Name is the symbol's own name, QualifiedName its name with its
	// class, receiver or module (see SymbolInfo).
	Name, QualifiedName string
	// Path is the file, relative to the root.
	Path string
	Doc  string
}

// DocumentedSymbols calls fn for each symbol other than a module that has
// a doc comment, in no particular order, and stops at the first error fn
// returns.
func (ix *Index) DocumentedSymbols(ctx context.Context, fn func(DocumentedSymbol) error) error {
	rows, err := ix.store.db.QueryContext(ctx, `SELECT n.kind, n.name, n.qualified_name, f.path, n.doc
		FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.doc != '' AND n.kind != 'module'`)
	if err != nil {
		return fmt.Errorf("read documented symbols: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d DocumentedSymbol
		var kind string
		if err := rows.Scan(&kind, &d.Name, &d.QualifiedName, &d.Path, &d.Doc); err != nil {
			return fmt.Errorf("read documented symbols: %w", err)
		}
		d.Kind = Kind(kind)
		if err := fn(d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read documented symbols: %w", err)
	}
	return nil
}

// DerivedKey identifies the state of an index's symbols for a value
// derived from all of them (Derived): it changes with every write of this
// process and, roughly, with another process's.
type DerivedKey struct {
	Generation, MaxID, Count int64
}

// derivedCache keeps values computed from a whole index, by name.
type derivedCache struct {
	mu     sync.Mutex
	values map[string]derivedValue
}

type derivedValue struct {
	key DerivedKey
	v   any
}

// Derived returns the value named name that build computes from the
// whole index, computing it when there is none yet or when fresh reports
// that the one kept, computed at the state old, is stale at the state now.
// A nil fresh keeps a value until any change. Values are shared: callers
// must not modify them. Concurrent callers wait for one build.
func (ix *Index) Derived(ctx context.Context, name string, fresh func(old, now DerivedKey) bool, build func(context.Context) (any, error)) (any, error) {
	s := ix.store
	now := DerivedKey{Generation: s.generation.Load()}
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), count(*) FROM nodes`).Scan(&now.MaxID, &now.Count); err != nil {
		return nil, fmt.Errorf("derive %s: %w", name, err)
	}
	s.derived.mu.Lock()
	defer s.derived.mu.Unlock()
	if d, ok := s.derived.values[name]; ok {
		if d.key == now || (fresh != nil && fresh(d.key, now)) {
			return d.v, nil
		}
	}
	v, err := build(ctx)
	if err != nil {
		return nil, err
	}
	if s.derived.values == nil {
		s.derived.values = map[string]derivedValue{}
	}
	s.derived.values[name] = derivedValue{key: now, v: v}
	return v, nil
}
