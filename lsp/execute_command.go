package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/limits"
)

// Commands the server executes; each returns JSON that editors render.
const (
	cmdCallers     = "anchorage.callers"
	cmdCallees     = "anchorage.callees"
	cmdBlastRadius = "anchorage.blastRadius"
	cmdInheritance = "anchorage.inheritance"
	cmdIndexStatus = "anchorage.index.status"
)

// graphCommands maps graph commands to the graph operations they answer.
func graphCommands() map[string]string {
	return map[string]string{
		cmdCallers:     analysis.OpCallers,
		cmdCallees:     analysis.OpCallees,
		cmdBlastRadius: analysis.OpBlastRadius,
		cmdInheritance: analysis.OpInheritance,
	}
}

// commandNames lists the commands advertised in initialize.
func commandNames() []string {
	return append([]string{cmdCallers, cmdCallees, cmdBlastRadius, cmdInheritance, cmdIndexStatus,
		cmdSearch, cmdSearchUsed, cmdRoutingStats, cmdReindex, cmdContextInject}, append(memoryCommandNames(), recallCommandNames()...)...)
}

// symbolArgs are the arguments of the graph commands: either one object
// {"symbol": "Repo.Find", "depth": 2} or positional ["Repo.Find", 2].
type symbolArgs struct {
	Symbol string `json:"symbol"`
	Depth  int    `json:"depth"`
}

func decodeSymbolArgs(args []any) (symbolArgs, error) {
	var a symbolArgs
	if len(args) == 0 {
		return a, errors.New("missing argument: the symbol")
	}
	switch v := args[0].(type) {
	case string:
		a.Symbol = v
		if len(args) > 1 {
			d, ok := args[1].(float64)
			if !ok {
				return a, fmt.Errorf("depth must be a number, not %v", args[1])
			}
			a.Depth = int(d)
		}
	default:
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, fmt.Errorf("arguments: %w", err)
		}
	}
	if a.Symbol == "" {
		return a, errors.New("missing argument: the symbol")
	}
	if a.Depth != 0 {
		// 0 means the operation's default; others are checked as
		// the command line and MCP check them.
		if err := limits.Depth("depth", a.Depth); err != nil {
			return a, err
		}
	}
	return a, nil
}

func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	switch p.Command {
	case cmdIndexStatus:
		return s.indexStatus(ctx)
	case cmdSearch:
		return s.search(ctx, p.Arguments)
	case cmdSearchUsed:
		return s.searchUsed(ctx, p.Arguments)
	case cmdRoutingStats:
		return s.routingStats(ctx)
	case cmdReindex:
		return s.reindex()
	case cmdContextInject:
		return s.contextInject(ctx, p.Arguments)
	}
	if res, ok, err := s.memoryCommand(ctx, p.Command, p.Arguments); ok {
		return res, err
	}
	if res, ok, err := s.recallCommand(ctx, p.Command, p.Arguments); ok {
		return res, err
	}
	op, ok := graphCommands()[p.Command]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	args, err := decodeSymbolArgs(p.Arguments)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", p.Command, err)
	}
	answer := &analysis.Answer{Symbol: args.Symbol, Operation: op, Definitions: []analysis.DefinitionAnswer{}}
	var notFound error
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		a, err := f.ws.Index().Ask(ctx, op, args.Symbol, args.Depth)
		var nf *analysis.ErrNoSymbol
		if errors.As(err, &nf) {
			notFound = err
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range a.Definitions {
			if s.owns(f, d.Definition.Path) {
				answer.Definitions = append(answer.Definitions, d)
			}
		}
	}
	if len(answer.Definitions) == 0 && notFound != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", notFound)
	}
	return answer, nil
}

// folderStatus is one folder in anchorage.index.status.
type folderStatus struct {
	Root     string `json:"root"`
	Indexing bool   `json:"indexing"`
	Done     int64  `json:"done"`
	Total    int64  `json:"total"`
	Database string `json:"database"`
	analysis.Stats
}

func (s *Server) indexStatus(ctx context.Context) (any, error) {
	out := []folderStatus{}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		st, err := f.ws.Index().LastStats(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, folderStatus{
			Root: f.root(), Indexing: f.indexing.Load() > 0, Done: f.done.Load(), Total: f.total.Load(),
			Database: f.ws.Index().Path(), Stats: st,
		})
	}
	return map[string]any{"folders": out}, nil
}
