package memory

import (
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

func TestAnchorConstructor(t *testing.T) {
	sym := func(lang string, kind analysis.Kind, qualified string) analysis.SymbolInfo {
		name := qualified
		for i := len(qualified) - 1; i >= 0; i-- {
			if qualified[i] == '.' {
				name = qualified[i+1:]
				break
			}
		}
		return analysis.SymbolInfo{Language: lang, Kind: kind, Name: name, QualifiedName: qualified}
	}
	tests := []struct {
		sym  analysis.SymbolInfo
		want bool
	}{
		{sym("python", analysis.KindMethod, "ProcessPoolExecutor.__init__"), true},
		{sym("python", analysis.KindMethod, "Point.__new__"), true},
		{sym("python", analysis.KindMethod, "Future.result"), false},
		{sym("go", analysis.KindFunction, "puddle.NewPool"), true},
		{sym("go", analysis.KindFunction, "puddle.newValueCancelCtx"), true},
		{sym("go", analysis.KindFunction, "http2.New"), true},
		{sym("go", analysis.KindFunction, "uuid.Newline"), false}, // a word that begins with new
		{sym("go", analysis.KindFunction, "uuid.newer"), false},
		{sym("go", analysis.KindMethod, "Pool.NewResource"), false}, // a method, not a constructor
		{sym("java", analysis.KindMethod, "UserRepository.UserRepository"), true},
		{sym("java", analysis.KindMethod, "UserRepository.findById"), false},
		{sym("typescript", analysis.KindMethod, "ApiClient.constructor"), true},
		{sym("rust", analysis.KindMethod, "Config.new"), true},
		{sym("rust", analysis.KindFunction, "config.new_config"), false},
	}
	for _, tt := range tests {
		if got := anchorConstructor(tt.sym); got != tt.want {
			t.Errorf("anchorConstructor(%s %s %s) = %v, want %v", tt.sym.Language, tt.sym.Kind, tt.sym.QualifiedName, got, tt.want)
		}
	}
	init := sym("python", analysis.KindMethod, "ProcessPoolExecutor.__init__")
	for rule, want := range map[string]float64{
		"A worker process that has run its allowed number of tasks must be replaced": 1,
		"Reject a pool whose maximum size is below one when it is created":           0,
		"Default to the CPU count plus a few workers":                                0,
		"The constructor validates its options":                                      0,
	} {
		rq := analyzeAnchorRule(rule)
		if got := rq.constructorFor(init); got != want {
			t.Errorf("%q: constructorFor(__init__) = %v, want %v", rule, got, want)
		}
	}
}

func TestAnchorQuantifier(t *testing.T) {
	const one = "Take a capacity slot before the lock, and give the slot back if the pool was closed"
	tests := []struct {
		rule, name string
		want       float64
	}{
		{one, "AcquireAllIdle", 1},
		{one, "cancel_all", 1},
		{one, "releaseMany", 1},
		{one, "acquire", 0},
		{one, "Allocate", 0}, // a word that begins with all
		{one, "allowed", 0},
		// The rule speaks of all of them: the name says what it says.
		{"When a health check grabs all idle resources, start a new generation", "AcquireAllIdle", 0},
		{"Close every still-running async generator when the loop shuts down", "shutdown_all", 0},
	}
	for _, tt := range tests {
		rq := analyzeAnchorRule(tt.rule)
		if got := rq.quantifier(tt.name); got != tt.want {
			t.Errorf("%q: quantifier(%q) = %v, want %v", tt.rule, tt.name, got, tt.want)
		}
	}
}

func TestAnchorOwnFile(t *testing.T) {
	tests := []struct {
		path, name string
		want       float64
	}{
		{"nanotime.go", "nanotime", 1},
		{"internal/genstack/gen_stack.go", "GenStack", 1},
		{"concurrent/futures/get_chunks.py", "_get_chunks", 1},
		{"pool.go", "nanotime", 0},
		{"nanotime.go", "LastUsedNanotime", 0},
		{"", "x", 0},
	}
	for _, tt := range tests {
		if got := anchorOwnFile(analysis.SymbolInfo{Path: tt.path, Name: tt.name}); got != tt.want {
			t.Errorf("anchorOwnFile(%s, %s) = %v, want %v", tt.path, tt.name, got, tt.want)
		}
	}
}
