package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/memory"
)

// Proposal diagnostics (feature.ProposalDiagnostic) carry this source
// and code, which code action requests send back.
const (
	diagnosticSource = "anchorage"
	proposalCode     = "proposal"
)

// proposalSeverity is the protocol's severity for the memory.proposalSeverity
// setting, and false when proposals are not shown.
func proposalSeverity(setting string) (protocol.DiagnosticSeverity, bool) {
	sev, ok := feature.ProposalSeverity(setting)
	return protocol.DiagnosticSeverity(sev), ok
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
	var pd feature.ProposalData
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

// proposalLocation returns where a proposal is shown
// (feature.PlaceProposal), false for a proposal of no file in the
// workspace.
func (s *Server) proposalLocation(ctx context.Context, p memory.Proposal) (protocol.Location, bool) {
	pl, ok := feature.PlaceProposal(ctx, p, proposalFiles{s})
	if !ok {
		return protocol.Location{}, false
	}
	f, rel := s.folderOfFile(pl.File)
	if f == nil {
		return protocol.Location{}, false
	}
	return protocol.Location{URI: f.fileURI(rel), Range: toRange(pl.Range)}, true
}

// proposalFiles are the files of the server's folders as placing a
// proposal reads them (feature.Files): the editor's text and symbols of
// an open document, else the file's and the index's.
type proposalFiles struct{ s *Server }

func (pf proposalFiles) Has(file string) bool {
	f, _ := pf.s.folderOfFile(file)
	return f != nil
}

func (pf proposalFiles) Symbols(ctx context.Context, file string) []analysis.SymbolInfo {
	f, rel := pf.s.folderOfFile(file)
	if f == nil {
		return nil
	}
	syms, err := f.ws.FileSymbols(ctx, rel)
	if err != nil {
		pf.s.log.Debug("proposal example", zap.String("file", rel), zap.Error(err))
		return nil
	}
	return syms
}

func (pf proposalFiles) Text(file string) ([]byte, bool) {
	f, rel := pf.s.folderOfFile(file)
	if f == nil {
		return nil, false
	}
	if text, _, ok := f.ws.Text(rel); ok {
		return text, true
	}
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
	return b, err == nil
}

// proposalDiagnostic is the diagnostic showing a pending proposal
// (feature.ProposalDiagnostic), at Information severity (pendingProposals
// applies the setting).
func proposalDiagnostic(p memory.Proposal, r protocol.Range) protocol.Diagnostic {
	n := feature.ProposalDiagnostic(p)
	return protocol.Diagnostic{
		Range: r, Severity: protocol.DiagnosticSeverityInformation, Source: diagnosticSource, Code: proposalCode,
		Message: n.Message, Data: n.Data,
	}
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
