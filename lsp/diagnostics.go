package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/memory"
)

// Diagnostics of pending proposals: each is shown (at Information
// severity unless the memory.proposalSeverity setting says otherwise) on
// the lines its corrections were about, else at its candidate example
// (the symbol's name), else on the first line of the file the corrections
// were made in, for the user to approve or reject with a code action.
const (
	diagnosticSource = "anchorage"
	proposalCode     = "proposal"
)

// proposalData is a proposal diagnostic's data, which the editor sends
// back with code action requests. Besides the proposal's id it carries
// what editors show of a proposal, so that they never read it out of the
// message.
type proposalData struct {
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
	ScopeChoices []feature.ScopeChoice `json:"scope_choices,omitempty"`
}

// Values of the memory.proposalSeverity setting.
const (
	proposalSeverityInformation = "information"
	proposalSeverityWarning     = "warning"
	proposalSeverityHint        = "hint"
	proposalSeverityOff         = "off"
)

// proposalSeverity is the severity proposals are shown at, and false when
// they are not shown (the setting is "off").
func proposalSeverity(setting string) (protocol.DiagnosticSeverity, bool) {
	switch strings.ToLower(setting) {
	case proposalSeverityOff:
		return 0, false
	case proposalSeverityHint:
		return protocol.DiagnosticSeverityHint, true
	case proposalSeverityWarning:
		return protocol.DiagnosticSeverityWarning, true
	default:
		return protocol.DiagnosticSeverityInformation, true
	}
}

// proposalOf returns the proposal id of an anchorage proposal diagnostic,
// or 0.
func proposalOf(d protocol.Diagnostic) int64 {
	if d.Source != diagnosticSource || d.Code != proposalCode || d.Data == nil {
		return 0
	}
	raw, err := json.Marshal(d.Data)
	if err != nil {
		return 0
	}
	var pd proposalData
	if json.Unmarshal(raw, &pd) != nil {
		return 0
	}
	return pd.Proposal
}

// pendingView is the pending proposals and where each is shown.
type pendingView struct {
	proposals []memory.Proposal
	byID      map[int64]memory.Proposal
	locs      map[int64]protocol.Location
	byURI     map[protocol.DocumentURI][]protocol.Diagnostic
}

// pendingProposals reads the pending proposals and places them. Their
// diagnostics are left out when the memory.proposalSeverity setting is
// "off" (the code actions and commands still know them).
func (s *Server) pendingProposals(ctx context.Context, st *memory.Store) (*pendingView, error) {
	ps, err := st.Proposals(ctx, memory.StatusPending)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	severity, shown := proposalSeverity(s.settings.Memory.ProposalSeverity)
	s.mu.Unlock()
	v := &pendingView{proposals: ps, byID: map[int64]memory.Proposal{}, locs: map[int64]protocol.Location{},
		byURI: map[protocol.DocumentURI][]protocol.Diagnostic{}}
	for _, p := range ps {
		v.byID[p.ID] = p
		loc, ok := s.proposalLocation(ctx, p)
		if !ok {
			continue
		}
		v.locs[p.ID] = loc
		if shown {
			d := proposalDiagnostic(p, loc.Range)
			d.Severity = severity
			v.byURI[loc.URI] = append(v.byURI[loc.URI], d)
		}
	}
	return v, nil
}

// proposalLocation returns where a proposal is shown: the lines of its
// file its corrections were about, else its candidate example's name, as
// the live graph has it, else the first line of the file the corrections
// were made in. An empty range is widened to the text of its line, so
// that editors underline something. It is false for a proposal of no file
// in the workspace.
func (s *Server) proposalLocation(ctx context.Context, p memory.Proposal) (protocol.Location, bool) {
	if p.Range != nil {
		if f, rel := s.folderOfFile(p.File); f != nil {
			r := protocol.Range{
				Start: protocol.Position{Line: uint32(p.Range.Start.Line), Character: uint32(p.Range.Start.Character)},
				End:   protocol.Position{Line: uint32(p.Range.End.Line), Character: uint32(p.Range.End.Character)},
			}
			if r.Start == r.End {
				r = s.lineRange(f, rel, r.Start.Line)
			}
			return protocol.Location{URI: f.fileURI(rel), Range: r}, true
		}
	}
	if p.ExampleFile != "" && p.ExampleSymbol != "" {
		if f, rel := s.folderOfFile(p.ExampleFile); f != nil {
			syms, err := f.ws.FileSymbols(ctx, rel)
			if err != nil {
				s.log.Debug("proposal example", zap.String("file", rel), zap.Error(err))
			} else if sym, ok := analysis.NearestSymbol(syms, p.ExampleSymbol, -1); ok {
				return protocol.Location{URI: f.fileURI(rel), Range: selectionRange(sym)}, true
			}
		}
	}
	if f, rel := s.folderOfFile(p.File); f != nil {
		return protocol.Location{URI: f.fileURI(rel), Range: s.lineRange(f, rel, 0)}, true
	}
	return protocol.Location{}, false
}

// lineRange is the range of a line's text, from its first character that
// is not a space to its end (the editor's text of an open document, else
// the file's); an empty range at the line's start when the line is blank
// or cannot be read.
func (s *Server) lineRange(f *folder, rel string, line uint32) protocol.Range {
	empty := protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}
	text, _, ok := f.ws.Text(rel)
	if !ok {
		b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
		if err != nil {
			return empty
		}
		text = b
	}
	for i := uint32(0); i < line; i++ {
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
	start := utf16Units(string(text[:len(text)-len(trimmed)]))
	return protocol.Range{
		Start: protocol.Position{Line: line, Character: uint32(start)},
		End:   protocol.Position{Line: line, Character: uint32(start + utf16Units(string(trimmed)))},
	}
}

// proposalDiagnostic is the diagnostic showing a pending proposal, at
// Information severity (pendingProposals applies the setting). Its data
// carries the proposal (proposalData).
func proposalDiagnostic(p memory.Proposal, r protocol.Range) protocol.Diagnostic {
	msg := fmt.Sprintf("Proposed rule: %s (%s, from %s)", p.Content, p.Scope, plural(p.Frequency, "correction"))
	if p.Conflict != "" {
		msg += "\n" + upperFirst(p.Conflict)
	}
	return protocol.Diagnostic{
		Range: r, Severity: protocol.DiagnosticSeverityInformation, Source: diagnosticSource, Code: proposalCode,
		Message: msg, Data: proposalData{
			Proposal: p.ID, Content: p.Content, Scope: p.Scope, Category: p.Category, Frequency: p.Frequency,
			Language: p.Language, Project: p.Project, Conflict: p.Conflict, File: p.File,
			ScopeChoices: feature.ScopeChoices([]memory.Proposal{p}),
		},
	}
}

// upperFirst capitalises the first letter of text.
func upperFirst(text string) string {
	r, n := utf8.DecodeRuneInString(text)
	if n == 0 {
		return text
	}
	return string(unicode.ToUpper(r)) + text[n:]
}

// publishProposals publishes the pending proposals' diagnostics: for
// every document that has some or had some, or, when only is set, for
// that document alone. It returns where each proposal is shown. Without
// a memory database it publishes nothing.
func (s *Server) publishProposals(ctx context.Context, only protocol.DocumentURI) (map[int64]protocol.Location, error) {
	s.mem.publishMu.Lock()
	defer s.mem.publishMu.Unlock()
	st := s.editorMemory(ctx)
	if st == nil {
		return nil, nil
	}
	v, err := s.pendingProposals(ctx, st)
	if err != nil {
		return nil, err
	}
	if s.mem.published == nil {
		s.mem.published = map[protocol.DocumentURI]bool{}
	}
	var targets []protocol.DocumentURI
	if only != "" {
		if len(v.byURI[only]) > 0 || s.mem.published[only] {
			targets = append(targets, only)
		}
	} else {
		for u := range v.byURI {
			targets = append(targets, u)
		}
		for u := range s.mem.published {
			if len(v.byURI[u]) == 0 {
				targets = append(targets, u)
			}
		}
	}
	for _, u := range targets {
		diags := v.byURI[u]
		if diags == nil {
			diags = []protocol.Diagnostic{}
		}
		if err := s.publishDiagnostics(u, diags); err != nil {
			return nil, err
		}
		if len(diags) > 0 {
			s.mem.published[u] = true
		} else {
			delete(s.mem.published, u)
		}
	}
	return v.locs, nil
}

// publishDiagnostics publishes the proposal diagnostics of a document,
// with the memory document warnings it has (see publishMerged).
func (s *Server) publishDiagnostics(u protocol.DocumentURI, diags []protocol.Diagnostic) error {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	return s.publishMerged(u, diags, nil)
}

// sendDiagnostics sends textDocument/publishDiagnostics.
func (s *Server) sendDiagnostics(u protocol.DocumentURI, diags []protocol.Diagnostic) error {
	if s.client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if err := s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: diags}); err != nil {
		return fmt.Errorf("publish diagnostics of %s: %w", u, err)
	}
	return nil
}

// didOpenDocument opens a document, then publishes the proposals shown
// in it, in the background (reading the memory must not hold up the
// editor's next messages).
func (s *Server) didOpenDocument(ctx context.Context, p *protocol.DidOpenTextDocumentParams, text []byte) error {
	err := s.didOpen(ctx, p, text)
	u := p.TextDocument.URI
	if _, _, ok := s.memoryDocumentOf(u); ok {
		s.memoryDocumentOpened(u, string(text))
	}
	if strings.HasPrefix(string(u), "file:") {
		s.goBackground(func(ctx context.Context) {
			if _, err := s.publishProposals(ctx, u); err != nil && ctx.Err() == nil {
				s.log.Warn("publishing proposals", zap.String("uri", string(u)), zap.Error(err))
			}
		})
	}
	return err
}
