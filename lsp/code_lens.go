package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// lensData is a code lens's data, kept by the editor between
// textDocument/codeLens and codeLens/resolve.
type lensData struct {
	Kind   feature.LensKind     `json:"kind"`
	URI    protocol.DocumentURI `json:"uri"`
	Symbol string               `json:"symbol,omitempty"`
	// Rules are the rules of the lens, most important first.
	Rules []int64 `json:"rules"`
}

// codeLens answers the lenses of a document (feature.Lenses), without
// their commands (codeLens/resolve fills them in).
func (s *Server) codeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	u := p.TextDocument.URI
	f, rules, err := s.documentRules(ctx, u)
	if err != nil {
		return nil, s.memoryError("textDocument/codeLens", err)
	}
	lines := func() int {
		if _, rel, err := s.folderFor(u); err == nil && f != nil {
			if text, ok := s.memoryWorkspace(f, nil).FileText(rel); ok {
				return strings.Count(string(text), "\n") + 1
			}
		}
		return 0
	}
	lenses := feature.Lenses(rules, lines)
	out := make([]protocol.CodeLens, len(lenses))
	for i, l := range lenses {
		out[i] = protocol.CodeLens{Range: toRange(l.Range), Data: lensData{Kind: l.Kind, URI: u, Symbol: l.Symbol, Rules: l.Rules}}
	}
	return out, nil
}

// codeLensResolve fills in a lens's command: "⚓ N rules: <first rule>"
// opening the symbol's rules with their actions
// (anchorage.memory.exampleRules), or "⚓ anchor lost: <rule>"
// re-anchoring it.
func (s *Server) codeLensResolve(ctx context.Context, lens *protocol.CodeLens) (*protocol.CodeLens, error) {
	var d lensData
	raw, err := json.Marshal(lens.Data)
	if err == nil {
		err = json.Unmarshal(raw, &d)
	}
	if err != nil || len(d.Rules) == 0 || (d.Kind != feature.LensAnchor && d.Kind != feature.LensLost) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "codeLens/resolve: not a lens of this server (data %s)", raw)
	}
	var first memory.Rule
	st := s.editorMemory(ctx)
	if st != nil {
		first, err = st.Rule(ctx, d.Rules[0])
	} else {
		err = memory.ErrUnknownRule
	}
	if errors.Is(err, memory.ErrUnknownRule) {
		// Deleted since the lens was made: an inert lens until the
		// editor asks again.
		lens.Command = &protocol.Command{Title: feature.GoneLensTitle(d.Rules[0])}
		return lens, nil
	}
	if err != nil {
		return nil, s.memoryError("codeLens/resolve", err)
	}
	title := feature.LensTitle(d.Kind, len(d.Rules), first)
	switch d.Kind {
	case feature.LensAnchor:
		args := command.ExampleRulesArgs{URI: d.URI, Symbol: d.Symbol, Rules: d.Rules}
		lens.Command = &protocol.Command{Title: title, Command: string(command.MemoryExampleRules.Name()), Arguments: []any{args}}
	case feature.LensLost:
		lens.Command = &protocol.Command{Title: title, Command: string(command.MemoryReanchor.Name()), Arguments: []any{command.IDArgs{ID: first.ID}}}
	}
	return lens, nil
}

// refreshCodeLenses asks the editor to ask for code lenses again, when it
// supports that. go.lsp.dev/protocol has no client method for it: the
// request is sent over the connection.
func (s *Server) refreshCodeLenses() {
	s.mu.Lock()
	ws := s.caps.Workspace
	s.mu.Unlock()
	if ws == nil || ws.CodeLens == nil || !ws.CodeLens.RefreshSupport || s.conn == nil {
		return
	}
	s.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, "workspace/codeLens/refresh", nil, nil); err != nil {
			s.log.Debug("workspace/codeLens/refresh failed", zap.Error(err))
		}
	})
}
