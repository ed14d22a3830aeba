package recall

import (
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

func TestFocusText(t *testing.T) {
	sym := func(kind analysis.Kind, name string, start, end int) analysis.SymbolInfo {
		return analysis.SymbolInfo{Kind: kind, QualifiedName: name, Signature: "sig " + name, Doc: "doc " + name,
			Range: analysis.Range{Start: analysis.Position{Line: start}, End: analysis.Position{Line: end}}}
	}
	syms := []analysis.SymbolInfo{
		sym(analysis.KindModule, "store", 0, 40),
		sym(analysis.KindClass, "Repo", 2, 20),
		sym(analysis.KindMethod, "Repo.Find", 5, 9),
	}
	for _, tc := range []struct {
		name string
		line int
		want string
	}{
		{"innermost symbol", 6, "store db.go\nRepo.Find\nsig Repo.Find\ndoc Repo.Find"},
		{"enclosing type", 15, "store db.go\nRepo\nsig Repo\ndoc Repo"},
		{"module only: the path", 30, "store db.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FocusText("store/db.go", syms, tc.line); got != tc.want {
				t.Errorf("FocusText(line %d) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}
