package feature

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// A pending proposal is shown as a diagnostic (at Information severity
// unless the memory.proposalSeverity setting says otherwise) on the lines
// its corrections were about, else at its candidate example (the
// symbol's name), else on the first line of the file the corrections were
// made in, for the user to approve or reject with a code action.

// ProposalData is what a proposal's diagnostic carries besides its
// message: the proposal's id, which editors send back with code action
// requests, and what editors show of a proposal, so that they never read
// it out of the message.
type ProposalData struct {
	Proposal  int64  `json:"proposal"`
	Content   string `json:"content,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Category  string `json:"category,omitempty"`
	Frequency int    `json:"frequency,omitempty"`
	Language  string `json:"language,omitempty"`
	Project   string `json:"project,omitempty"`
	Conflict  string `json:"conflict,omitempty"`
	// File is where the corrections were made, relative to its folder.
	File string `json:"file,omitempty"`
	// ScopeChoices are the scopes the proposal can be approved with, in
	// the order to offer them (the argument scope of
	// anchorage.memory.approve).
	ScopeChoices []ScopeChoice `json:"scope_choices,omitempty"`
}

// ProposalNote is the diagnostic of a pending proposal, before its place
// and severity are known.
type ProposalNote struct {
	// Message is "Proposed rule: <text> (<scope>, from N corrections)",
	// then the conflict it has, if any, on a line of its own.
	Message string
	Data    ProposalData
}

// ProposalDiagnostic returns the diagnostic showing p.
func ProposalDiagnostic(p memory.Proposal) ProposalNote {
	msg := fmt.Sprintf("Proposed rule: %s (%s, from %s)", p.Content, p.Scope, Plural(p.Frequency, "correction"))
	if p.Conflict != "" {
		msg += "\n" + upperFirst(p.Conflict)
	}
	return ProposalNote{Message: msg, Data: ProposalData{
		Proposal: p.ID, Content: p.Content, Scope: p.Scope, Category: p.Category, Frequency: p.Frequency,
		Language: p.Language, Project: p.Project, Conflict: p.Conflict, File: p.File,
		ScopeChoices: ScopeChoices([]memory.Proposal{p}),
	}}
}

// Severity is how strongly an editor shows a diagnostic.
type Severity int

// Severities of proposal diagnostics, as the protocol numbers them.
const (
	SeverityWarning     Severity = 2
	SeverityInformation Severity = 3
	SeverityHint        Severity = 4
)

// Values of the memory.proposalSeverity setting.
const (
	ProposalSeverityInformation = "information"
	ProposalSeverityWarning     = "warning"
	ProposalSeverityHint        = "hint"
	ProposalSeverityOff         = "off"
)

// ProposalSeverity is the severity proposals are shown at for a value of
// the memory.proposalSeverity setting (any case; Information for one it
// does not know), and false when they are not shown ("off").
func ProposalSeverity(setting string) (Severity, bool) {
	switch strings.ToLower(setting) {
	case ProposalSeverityOff:
		return 0, false
	case ProposalSeverityHint:
		return SeverityHint, true
	case ProposalSeverityWarning:
		return SeverityWarning, true
	default:
		return SeverityInformation, true
	}
}

// Files is what placing a proposal reads of the workspace. Files are
// named as proposals name them.
type Files interface {
	// Has reports whether file is in the workspace.
	Has(file string) bool
	// Symbols returns file's symbols as the editor has them; nil when
	// they cannot be read.
	Symbols(ctx context.Context, file string) []analysis.SymbolInfo
	// Text returns file's text as the editor has it, false when it
	// cannot be read.
	Text(file string) ([]byte, bool)
}

// ProposalPlace is where a proposal's diagnostic is shown.
type ProposalPlace struct {
	// File is the file, as the proposal names it.
	File string
	// Range has its columns in UTF-16 units.
	Range analysis.Range
}

// PlaceProposal returns where p is shown: the lines of its file its
// corrections were about, else its candidate example's name, as the
// editor has it, else the first line of the file the corrections were
// made in. An empty range is widened to the text of its line, so that
// editors underline something. It is false for a proposal of no file in
// the workspace.
func PlaceProposal(ctx context.Context, p memory.Proposal, files Files) (ProposalPlace, bool) {
	line := func(file string, n int) ProposalPlace {
		text, ok := files.Text(file)
		if !ok {
			pos := analysis.Position{Line: n}
			return ProposalPlace{File: file, Range: analysis.Range{Start: pos, End: pos}}
		}
		return ProposalPlace{File: file, Range: LineRange(text, n)}
	}
	if p.Range != nil && files.Has(p.File) {
		if p.Range.Start == p.Range.End {
			return line(p.File, p.Range.Start.Line), true
		}
		return ProposalPlace{File: p.File, Range: analysis.Range{
			Start: analysis.Position{Line: p.Range.Start.Line, Column: p.Range.Start.Character},
			End:   analysis.Position{Line: p.Range.End.Line, Column: p.Range.End.Character},
		}}, true
	}
	if p.ExampleFile != "" && p.ExampleSymbol != "" && files.Has(p.ExampleFile) {
		if sym, ok := analysis.NearestSymbol(files.Symbols(ctx, p.ExampleFile), p.ExampleSymbol, -1); ok {
			return ProposalPlace{File: p.ExampleFile, Range: NameRange(sym)}, true
		}
	}
	if files.Has(p.File) {
		return line(p.File, 0), true
	}
	return ProposalPlace{}, false
}

// LineRange is the range of line (0-based) of text, from its first
// character that is not a space to its end, columns in UTF-16 units; an
// empty range at the line's start when the line is blank or past the end.
func LineRange(text []byte, line int) analysis.Range {
	empty := analysis.Range{Start: analysis.Position{Line: line}, End: analysis.Position{Line: line}}
	for i := 0; i < line; i++ {
		nl := bytes.IndexByte(text, '\n')
		if nl < 0 {
			return empty
		}
		text = text[nl+1:]
	}
	if nl := bytes.IndexByte(text, '\n'); nl >= 0 {
		text = text[:nl]
	}
	text = bytes.TrimRight(text, " \t\r")
	trimmed := bytes.TrimLeft(text, " \t")
	if len(trimmed) == 0 {
		return empty
	}
	start := utf16Len(text[:len(text)-len(trimmed)])
	return analysis.Range{
		Start: analysis.Position{Line: line, Column: start},
		End:   analysis.Position{Line: line, Column: start + utf16Len(trimmed)},
	}
}

// utf16Len is how many UTF-16 units encode b.
func utf16Len(b []byte) int {
	n := 0
	for _, r := range string(b) {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// upperFirst capitalises the first letter of text.
func upperFirst(text string) string {
	r, n := utf8.DecodeRuneInString(text)
	if n == 0 {
		return text
	}
	return string(unicode.ToUpper(r)) + text[n:]
}
