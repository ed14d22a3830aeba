package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// Kinds of code lens.
const (
	lensAnchor = "anchor" // above a symbol that anchors rules
	lensLost   = "lost"   // where an anchored symbol was, when it vanished
)

// lensData is a code lens's data, kept by the editor between
// textDocument/codeLens and codeLens/resolve.
type lensData struct {
	Kind   string               `json:"kind"`
	URI    protocol.DocumentURI `json:"uri"`
	Symbol string               `json:"symbol,omitempty"`
	// Rules are the rules of the lens, most important first.
	Rules []int64 `json:"rules"`
}

// codeLens answers the lenses of a document, without their commands
// (codeLens/resolve fills them in): one above each symbol that anchors
// rules, on its name as the document now has it, and one where the
// definition was (the top of the file when that is not known) for each
// rule whose anchored symbol is gone.
func (s *Server) codeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	u := p.TextDocument.URI
	f, rules, err := s.documentRules(ctx, u)
	if err != nil {
		return nil, s.memoryError("textDocument/codeLens", err)
	}
	lines := -1 // the document's lines, once known
	lostAt := func(r memory.Rule) protocol.Range {
		line := memory.ReadAnchorMeta(r).Line - 1
		if line <= 0 || f == nil {
			return protocol.Range{}
		}
		if lines < 0 {
			lines = 0
			if _, rel, err := s.folderFor(u); err == nil {
				if text, ok := (folderWorkspace{s: s, f: f}).FileText(rel); ok {
					lines = strings.Count(string(text), "\n") + 1
				}
			}
		}
		line = min(line, max(lines-1, 0))
		pos := protocol.Position{Line: uint32(line)}
		return protocol.Range{Start: pos, End: pos}
	}
	out := []protocol.CodeLens{}
	bySymbol := map[protocol.Range]int{} // symbol's name → index in out
	for _, dr := range rules {
		switch dr.Status {
		case memory.AnchorLive:
			r := protocol.Range{}
			if dr.Rule.Anchor.Symbol != "" {
				r = selectionRange(dr.Symbol)
			}
			if i, ok := bySymbol[r]; ok {
				d := out[i].Data.(lensData)
				d.Rules = append(d.Rules, dr.Rule.ID)
				out[i].Data = d
				continue
			}
			bySymbol[r] = len(out)
			out = append(out, protocol.CodeLens{Range: r, Data: lensData{
				Kind: lensAnchor, URI: u, Symbol: dr.Rule.Anchor.Symbol, Rules: []int64{dr.Rule.ID},
			}})
		case memory.AnchorLost:
			// Where the definition was.
			out = append(out, protocol.CodeLens{Range: lostAt(dr.Rule), Data: lensData{
				Kind: lensLost, URI: u, Symbol: dr.Rule.Anchor.Symbol, Rules: []int64{dr.Rule.ID},
			}})
		}
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
	if err != nil || len(d.Rules) == 0 || (d.Kind != lensAnchor && d.Kind != lensLost) {
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
		lens.Command = &protocol.Command{Title: fmt.Sprintf("⚓ rule %d no longer exists", d.Rules[0])}
		return lens, nil
	}
	if err != nil {
		return nil, s.memoryError("codeLens/resolve", err)
	}
	switch d.Kind {
	case lensAnchor:
		title := fmt.Sprintf("⚓ %s: %s", plural(len(d.Rules), "rule"), shorten(first.Content, 80))
		args := command.ExampleRulesArgs{URI: d.URI, Symbol: d.Symbol, Rules: d.Rules}
		lens.Command = &protocol.Command{Title: title, Command: string(command.MemoryExampleRules.Name()), Arguments: []any{args}}
	case lensLost:
		lens.Command = &protocol.Command{
			Title:   "⚓ anchor lost: " + shorten(first.Content, 80),
			Command: string(command.MemoryReanchor.Name()), Arguments: []any{command.IDArgs{ID: first.ID}},
		}
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
