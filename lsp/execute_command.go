package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// commandTable binds every declared command (package command) to the
// server's handler of it.
func (s *Server) commandTable() (command.Table, error) {
	return command.NewTable(
		command.Bind(command.Callers, s.graphCommand(analysis.OpCallers)),
		command.Bind(command.Callees, s.graphCommand(analysis.OpCallees)),
		command.Bind(command.BlastRadius, s.graphCommand(analysis.OpBlastRadius)),
		command.Bind(command.Inheritance, s.graphCommand(analysis.OpInheritance)),
		command.Bind(command.IndexStatus, s.indexStatus),
		command.Bind(command.Search, s.search),
		command.Bind(command.SearchUsed, s.searchUsed),
		command.Bind(command.RoutingStats, s.routingStats),
		command.Bind(command.Reindex, s.reindex),
		command.Bind(command.ContextInject, s.contextInject),
		command.Bind(command.MemoryRecordCorrection, s.recordCorrection),
		command.Bind(command.MemoryPropose, s.proposeRules),
		command.Bind(command.MemoryApprove, s.approveProposal),
		command.Bind(command.MemoryApproveAll, s.approveAllProposals),
		command.Bind(command.MemoryScopeChoices, s.scopeChoices),
		command.Bind(command.MemoryReject, s.rejectProposal),
		command.Bind(command.MemoryList, s.listRules),
		command.Bind(command.MemoryProposals, s.listProposals),
		command.Bind(command.MemoryReanchor, s.reanchorRule),
		command.Bind(command.MemoryExampleRules, s.exampleRules),
		command.Bind(command.MemoryUseExample, s.useExample),
		command.Bind(command.MemoryDeleteRule, s.deleteRule),
		command.Bind(command.MemorySearch, s.memorySearch),
		command.Bind(command.Stats, s.memoryGraphStats),
		command.Bind(command.SlotsStatus, s.slotsStatus),
		command.Bind(command.SlotsSet, s.slotsChange(command.SlotsSet.Name())),
		command.Bind(command.SlotsPin, s.slotsChange(command.SlotsPin.Name())),
		command.Bind(command.SlotsUnpin, s.slotsChange(command.SlotsUnpin.Name())),
		command.Bind(command.MemoryTeamStatus, s.teamStatus),
		command.Bind(command.MemoryTeamPull, s.teamPull),
		command.Bind(command.MemoryTeamPropose, s.teamPropose),
		command.Bind(command.MemoryTeamApprove, s.teamDecide(command.MemoryTeamApprove, memory.TeamActionApprove)),
		command.Bind(command.MemoryTeamReject, s.teamDecide(command.MemoryTeamReject, memory.TeamActionReject)),
		command.Bind(command.MemoryTeamRetire, s.teamDecide(command.MemoryTeamRetire, memory.TeamActionRetire)),
	)
}

// executeCommand runs a command: its argument is decoded into the type
// the command declares, and one that does not fit is InvalidParams,
// naming the field.
func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	table, err := s.commandTable()
	if err != nil {
		return nil, err
	}
	h, ok := table[command.Name(p.Command)]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	args := make([]json.RawMessage, len(p.Arguments))
	for i, a := range p.Arguments {
		raw, err := json.Marshal(a)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument %d: %v", p.Command, i+1, err)
		}
		args[i] = raw
	}
	res, err := h.Run(ctx, args)
	var ae *command.ArgError
	if errors.As(err, &ae) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", ae)
	}
	return res, err
}

// graphCommand answers a graph operation over every folder.
func (s *Server) graphCommand(op string) func(context.Context, command.SymbolArgs) (*analysis.Answer, error) {
	return func(ctx context.Context, args command.SymbolArgs) (*analysis.Answer, error) {
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
}

// indexStatus runs anchorage.index.status.
func (s *Server) indexStatus(ctx context.Context, _ command.NoArgs) (command.IndexStatusResult, error) {
	out := []command.FolderStatus{}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		st, err := f.ws.Index().LastStats(ctx)
		if err != nil {
			return command.IndexStatusResult{}, err
		}
		out = append(out, command.FolderStatus{
			Root: f.root(), Indexing: f.indexing.Load() > 0, Done: f.done.Load(), Total: f.total.Load(),
			Database: f.ws.Index().Path(), Stats: st,
		})
	}
	return command.IndexStatusResult{Folders: out}, nil
}
