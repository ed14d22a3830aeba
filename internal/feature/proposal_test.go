package feature

import (
	"context"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

func TestProposalDiagnostic(t *testing.T) {
	tests := []struct {
		name string
		p    memory.Proposal
		want string
	}{
		{"one correction", memory.Proposal{ID: 3, Content: "Wrap errors", Scope: "language:go", Frequency: 1},
			"Proposed rule: Wrap errors (language:go, from 1 correction)"},
		{"a conflict on a line of its own, capitalised", memory.Proposal{ID: 4, Content: "Panic", Scope: "universal", Frequency: 3, Conflict: "contradicts rule 2"},
			"Proposed rule: Panic (universal, from 3 corrections)\nContradicts rule 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ProposalDiagnostic(tt.p)
			if n.Message != tt.want {
				t.Errorf("Message = %q; want %q", n.Message, tt.want)
			}
			if n.Data.Proposal != tt.p.ID || n.Data.Content != tt.p.Content || n.Data.Conflict != tt.p.Conflict || len(n.Data.ScopeChoices) == 0 {
				t.Errorf("Data = %+v; want the proposal's id, text, conflict and scope choices", n.Data)
			}
		})
	}
}

func TestProposalSeverity(t *testing.T) {
	tests := []struct {
		setting string
		want    Severity
		shown   bool
	}{
		{"", SeverityInformation, true},
		{"information", SeverityInformation, true},
		{"Warning", SeverityWarning, true},
		{"hint", SeverityHint, true},
		{"OFF", 0, false},
		{"loud", SeverityInformation, true},
	}
	for _, tt := range tests {
		if got, shown := ProposalSeverity(tt.setting); got != tt.want || shown != tt.shown {
			t.Errorf("ProposalSeverity(%q) = %d, %v; want %d, %v", tt.setting, got, shown, tt.want, tt.shown)
		}
	}
}

// files is a workspace of files for PlaceProposal.
type files map[string]struct {
	text string
	syms []analysis.SymbolInfo
}

func (fs files) Has(file string) bool { _, ok := fs[file]; return ok }

func (fs files) Symbols(_ context.Context, file string) []analysis.SymbolInfo { return fs[file].syms }

func (fs files) Text(file string) ([]byte, bool) {
	f, ok := fs[file]
	return []byte(f.text), ok && f.text != ""
}

func TestPlaceProposal(t *testing.T) {
	rng := func(l1, c1, l2, c2 int) analysis.Range {
		return analysis.Range{Start: analysis.Position{Line: l1, Column: c1}, End: analysis.Position{Line: l2, Column: c2}}
	}
	load := analysis.SymbolInfo{Kind: analysis.KindFunction, Name: "Load", QualifiedName: "Load",
		Range: analysis.Range{Start: analysis.Position{Line: 4}}, NameRange: rng(4, 5, 4, 9)}
	ws := files{
		"/w/a.go": {text: "package a\n\n\tx := 1 // é😀  \n", syms: []analysis.SymbolInfo{load}},
		"/w/b.go": {},
	}
	tests := []struct {
		name string
		p    memory.Proposal
		file string
		want analysis.Range
		ok   bool
	}{
		{"the range its corrections were about",
			memory.Proposal{File: "/w/a.go", Range: &memory.Range{Start: memory.Position{Line: 2, Character: 1}, End: memory.Position{Line: 2, Character: 4}}},
			"/w/a.go", rng(2, 1, 2, 4), true},
		{"an empty range is widened to its line's text, in UTF-16 units",
			memory.Proposal{File: "/w/a.go", Range: &memory.Range{Start: memory.Position{Line: 2}, End: memory.Position{Line: 2}}},
			"/w/a.go", rng(2, 1, 2, 14), true},
		{"a blank line stays empty",
			memory.Proposal{File: "/w/a.go", Range: &memory.Range{Start: memory.Position{Line: 1}, End: memory.Position{Line: 1}}},
			"/w/a.go", rng(1, 0, 1, 0), true},
		{"the example's name",
			memory.Proposal{File: "/w/b.go", ExampleFile: "/w/a.go", ExampleSymbol: "Load"},
			"/w/a.go", rng(4, 5, 4, 9), true},
		{"an example gone: the first line of the corrections' file, unreadable",
			memory.Proposal{File: "/w/b.go", ExampleFile: "/w/a.go", ExampleSymbol: "Gone"},
			"/w/b.go", rng(0, 0, 0, 0), true},
		{"the first line of the corrections' file",
			memory.Proposal{File: "/w/a.go"},
			"/w/a.go", rng(0, 0, 0, 9), true},
		{"a range in a file outside: the example",
			memory.Proposal{File: "/elsewhere.go", Range: &memory.Range{}, ExampleFile: "/w/a.go", ExampleSymbol: "Load"},
			"/w/a.go", rng(4, 5, 4, 9), true},
		{"nothing in the workspace", memory.Proposal{File: "/elsewhere.go"}, "", analysis.Range{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, ok := PlaceProposal(context.Background(), tt.p, ws)
			if ok != tt.ok || pl.File != tt.file || pl.Range != tt.want {
				t.Errorf("PlaceProposal = %+v, %v; want %s %+v, %v", pl, ok, tt.file, tt.want, tt.ok)
			}
		})
	}
}

func TestLineRange(t *testing.T) {
	text := []byte("first\r\n  \t second line \r\n\n")
	tests := []struct {
		line     int
		from, to int
	}{{0, 0, 5}, {1, 4, 15}, {2, 0, 0}, {3, 0, 0}, {40, 0, 0}}
	for _, tt := range tests {
		r := LineRange(text, tt.line)
		if r.Start.Line != tt.line || r.End.Line != tt.line || r.Start.Column != tt.from || r.End.Column != tt.to {
			t.Errorf("LineRange(%d) = %+v; want columns %d–%d on line %d", tt.line, r, tt.from, tt.to, tt.line)
		}
	}
	if got := LineRange([]byte(strings.Repeat("x", 3)), 0); got.End.Column != 3 {
		t.Errorf("LineRange of a last line without a newline ends at %d; want 3", got.End.Column)
	}
}
