package memory

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
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

// TestAnchorRankFeatures checks the features that read a candidate's
// file path, its own name, its length and the identifiers the rule names.
func TestAnchorRankFeatures(t *testing.T) {
	known := func(rule string) anchorQuery {
		rq := analyzeAnchorRule(rule)
		for i := range rq.terms {
			rq.terms[i].known, rq.terms[i].weight = true, 1
		}
		return rq
	}
	t.Run("path", func(t *testing.T) {
		tests := []struct {
			rule, file string
			want       float64
		}{
			{"Guard flow-control window increments against overflow", "flow.go", 1.0 / 7},
			{"Give every async test case its own event loop runner", "async_case.py", 2.0 / 7},
			// The extension is not a word of the path; database is db.
			{"Wrap database errors", "internal/db/db.go", 1.0 / 3},
			{"Wrap database errors", "api/handlers.go", 0},
			{"Guard flow-control window increments against overflow", "", 0},
		}
		for _, tt := range tests {
			rq := known(tt.rule)
			if got := rq.pathShare(tt.file); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("%q in %q: %.3f, want %.3f", tt.rule, tt.file, got, tt.want)
			}
		}
	})
	t.Run("head", func(t *testing.T) {
		tests := []struct {
			rule, name string
			want       float64
		}{
			{"Seal a mock so that reading an attribute raises", "seal", 1},
			// check stands for valid in code; stream is the second word.
			{"Check that a stream ID is non-zero", "validStreamID", 1},
			{"Check that a stream ID is non-zero", "streamByID", 1},
			{"Check that a stream ID is non-zero", "writeFrame", 0},
			{"Seal a mock so that reading an attribute raises", "", 0},
		}
		for _, tt := range tests {
			rq := known(tt.rule)
			if got := rq.headIn(tt.name); got != tt.want {
				t.Errorf("%q, name %q: %v, want %v", tt.rule, tt.name, got, tt.want)
			}
		}
	})
	t.Run("long", func(t *testing.T) {
		for _, tt := range []struct {
			lines int
			want  float64
		}{{1, 0}, {40, 0}, {80, 0.5}, {160, 1}, {1000, 1}} {
			if got := anchorLong(tt.lines); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("%d lines: %.3f, want %.3f", tt.lines, got, tt.want)
			}
		}
	})
	t.Run("quoted", func(t *testing.T) {
		rq := analyzeAnchorRule("Return ErrFrameTooLarge and register work with addCleanup, not Close or sync.Once")
		want := []string{"errframetoolarge", "addcleanup"}
		if !slices.Equal(rq.quoted, want) {
			t.Fatalf("quoted %q, want %q", rq.quoted, want)
		}
		c := &anchorCand{sym: analysis.SymbolInfo{Name: "endWrite", Kind: analysis.KindMethod, Path: "frame.go"}, rank: -1}
		text := "func (f *Framer) endWrite() error {\n\treturn ErrFrameTooLarge\n}"
		f := rq.features(c, text, anchorStems(text))
		if f.Quoted != 0.5 {
			t.Errorf("Quoted of a function returning ErrFrameTooLarge: %v, want 0.5", f.Quoted)
		}
	})
}

// TestAnchorErrorName checks which definitions a rule that names them
// shows by the code that raises them rather than by their definition.
func TestAnchorErrorName(t *testing.T) {
	for _, c := range []struct {
		name string
		kind analysis.Kind
		want bool
	}{
		{"LimitOverrunError", analysis.KindClass, true},
		{"RepositoryException", analysis.KindClass, true},
		{"ResourceWarning", analysis.KindClass, true},
		{"ConnError", analysis.KindStruct, true},
		{"Error", analysis.KindStruct, false},
		{"ErrorCode", analysis.KindType, false},
		{"wrapError", analysis.KindFunction, false},
		{"UserRepository", analysis.KindClass, false},
	} {
		if got := anchorErrorName(analysis.SymbolInfo{Name: c.name, Kind: c.kind}); got != c.want {
			t.Errorf("anchorErrorName(%s %s) = %v, want %v", c.kind, c.name, got, c.want)
		}
	}
}
