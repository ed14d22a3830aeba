package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// cmdContextInject returns the rules that apply to a document or a
// question, with their examples, as Markdown for an assistant's context.
const cmdContextInject = "anchorage.context.inject"

// injectArgs are anchorage.context.inject's: all optional.
type injectArgs struct {
	// URI is the document being worked on: its language and folder
	// select the rules, its text ranks them.
	URI protocol.DocumentURI `json:"uri,omitempty"`
	// Query ranks the rules by their overlap with it.
	Query string `json:"query,omitempty"`
	// Budget is the most tokens of Markdown; 0 means
	// memory.DefaultInjectBudget.
	Budget int `json:"budget,omitempty"`
	// Language selects a language's rules without a document, or
	// instead of the document's.
	Language string `json:"language,omitempty"`
}

// decodeInjectArgs reads anchorage.context.inject's arguments: none, or
// one object.
func decodeInjectArgs(args []any) (injectArgs, error) {
	const want = `{"uri"?: document, "query"?: text, "budget"?: tokens}`
	var a injectArgs
	if len(args) == 0 || args[0] == nil {
		return a, nil
	}
	raw, err := json.Marshal(args[0])
	if err != nil {
		return a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: arguments: %v", cmdContextInject, err)
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: want %s, got %s: %v", cmdContextInject, want, raw, err)
	}
	if a.Budget < 0 {
		return a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: budget %d is negative", cmdContextInject, a.Budget)
	}
	if a.Language != "" && memory.NormalizeLanguage(a.Language) == "" {
		return a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %q is not a language name", cmdContextInject, a.Language)
	}
	return a, nil
}

// contextInject runs anchorage.context.inject {uri?, query?, budget?,
// language?}: the rules of the user's memory that apply (universal, the
// document's language, its folder's project), the document's own first,
// each with its example's current source (open documents as edited),
// in Markdown that fits the budget. It answers {"markdown", "rules",
// "tokens", …} (see memory.Injection). Without a uri, the first folder's
// project and index serve.
func (s *Server) contextInject(ctx context.Context, args []any) (any, error) {
	a, err := decodeInjectArgs(args)
	if err != nil {
		return nil, err
	}
	req := memory.InjectRequest{Query: a.Query, Budget: a.Budget, Language: a.Language}
	var f *folder
	if a.URI != "" {
		if f, req.File, err = s.folderFor(a.URI); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", cmdContextInject, err)
		}
	} else if folders := sortedFolders(s.snapshotFolders()); len(folders) > 0 {
		f = folders[0]
	}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return nil, s.memoryError(cmdContextInject, err)
	}
	deps := memory.InjectDeps{Store: st, Recall: s.recallRuleIDs}
	if f != nil {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		req.Project = s.projectOf(f)
		deps.Index = f.ws.Index()
		deps.Overlay = func(rel string) ([]byte, bool) {
			text, _, _, ok := f.ws.Snapshot(rel)
			return text, ok
		}
	}
	inj, err := memory.Inject(ctx, req, deps)
	if err != nil {
		if errors.Is(err, memory.ErrSecretFile) || errors.Is(err, analysis.ErrOutsideRoot) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", cmdContextInject, err)
		}
		return nil, s.memoryError(cmdContextInject, err)
	}
	return inj, nil
}
