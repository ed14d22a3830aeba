package limits

import (
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	tests := []struct {
		check func(string, int) error
		v     int
		ok    bool
	}{
		{Depth, 0, false}, {Depth, -1, false}, {Depth, 1, true}, {Depth, MaxDepth, true}, {Depth, 1000, false},
		{TopK, -5, false}, {TopK, 0, false}, {TopK, 10, true}, {TopK, MaxTopK + 1, false},
		{Budget, -1, false}, {Budget, 0, true}, {Budget, MaxBudget, true}, {Budget, MaxBudget + 1, false},
		{Symbols, 0, false}, {Symbols, 50, true}, {Symbols, MaxSymbols + 1, false},
	}
	for i, tt := range tests {
		err := tt.check("--x", tt.v)
		if (err == nil) != tt.ok {
			t.Errorf("%d: check(%d) = %v, want ok %v", i, tt.v, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--x") {
			t.Errorf("%d: %v does not name the parameter", i, err)
		}
	}
}
