package analysis

import (
	"context"
	"fmt"
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
