package memory

import (
	"context"
	"path/filepath"
	"testing"
)

func TestAnchorNameSpell(t *testing.T) {
	tests := []struct {
		rule, name string
		want       float64
	}{
		{"Check the delta chain depth against a fixed maximum", "checkDeltaChainDepth", 1},
		{"Check the delta chain depth against a fixed maximum", "check_delta_chain_depth", 1},
		// check stands for verify and validate in code.
		{"Check the magic signature and the version in a file's header", "verifyFileHeader", 1},
		{"Check the magic signature and the version in a file's header", "validateHeader", 1},
		// Two of three parts are rule terms.
		{"Check the delta chain depth against a fixed maximum", "deltaChainLen", 2.0 / 3},
		// One rule term is not a spelling, however short the name.
		{"Check the delta chain depth against a fixed maximum", "deltaOffset", 0},
		{"Check the delta chain depth against a fixed maximum", "Delta", 0},
		{"Wake up the next waiter that is not cancelled", "_wakeup_next", 1},
		{"Log through the package's logger", "", 0},
	}
	for _, tt := range tests {
		rq := analyzeAnchorRule(tt.rule)
		if got := rq.nameSpell(tt.name); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("%q spelled by %q: %.3f, want %.3f", tt.rule, tt.name, got, tt.want)
		}
	}
}

// TestAnchorNamesSpellTheRule checks that a function whose long name is
// built of the rule's words is the example, ahead of the helpers and the
// type beside it that hold the same words.
func TestAnchorNamesSpellTheRule(t *testing.T) {
	a := NewAnchorer(openEvalIndex(t, filepath.Join("testdata", "anchornames"), ""))
	tests := []struct{ rule, sym string }{
		{"Check the delta chain depth against a fixed maximum so a crafted pack cannot make resolution run away", "pack.checkDeltaChainDepth"},
		{"Check the magic signature and the version in a file's header before decoding anything else", "pack.validateHeader"},
	}
	for _, tt := range tests {
		res, err := a.FindAnchor(context.Background(), tt.rule, AnchorOptions{Scope: "language:go"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) == 0 || res.Candidates[0].Symbol != tt.sym {
			t.Errorf("%q: candidates %+v, want %s first", tt.rule, res.Candidates, tt.sym)
		}
	}
}
