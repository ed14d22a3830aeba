package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// contextInject runs anchorage.context.inject {uri?, query?, budget?,
// language?}: the rules of the user's memory that apply (universal, the
// document's language, its folder's project), the document's own first,
// each with its example's current source (open documents as edited),
// in Markdown that fits the budget. It answers {"markdown", "rules",
// "tokens", …} (see memory.Injection). Without a uri, the first folder's
// project and index serve.
func (s *Server) contextInject(ctx context.Context, a command.InjectArgs) (*memory.Injection, error) {
	var err error
	req := memory.InjectRequest{Query: a.Query, Budget: a.Budget, Language: a.Language}
	var f *folder
	if a.URI != "" {
		if f, req.File, err = s.folderFor(a.URI); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.ContextInject.Name()), err)
		}
	} else if folders := sortedFolders(s.snapshotFolders()); len(folders) > 0 {
		f = folders[0]
	}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil, s.memoryError(string(command.ContextInject.Name()), err)
	}
	deps := memory.InjectDeps{Store: st, Recall: s.recallRuleIDs}
	if f != nil {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		req.Project = s.projectOf(f)
		deps.Index = f.ws.Index()
		deps.Overlay = func(rel string) ([]byte, bool) {
			text, _, ok := f.ws.Text(rel)
			return text, ok
		}
	}
	inj, err := memory.Inject(ctx, req, deps)
	if err != nil {
		if errors.Is(err, memory.ErrSecretFile) || errors.Is(err, analysis.ErrOutsideRoot) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", string(command.ContextInject.Name()), err)
		}
		return nil, s.memoryError(string(command.ContextInject.Name()), err)
	}
	return inj, nil
}
