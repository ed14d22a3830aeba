package lsp

import (
	"context"
	"errors"
	"path"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// exampleRules runs anchorage.memory.exampleRules {uri, symbol?, rules?}:
// the rules anchored on that symbol of the document (or the rules given by
// id), most important first, each with its rationale, its corrections and
// the actions on it (feature.RuleActions).
func (s *Server) exampleRules(ctx context.Context, a command.ExampleRulesArgs) (command.ExampleRulesResult, error) {
	name := string(command.MemoryExampleRules.Name())
	out := command.ExampleRulesResult{URI: a.URI, Symbol: a.Symbol, Rules: []command.ExampleRuleView{}}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.ExampleRulesResult{}, s.memoryError(name, err)
	}
	if st == nil {
		return out, nil
	}
	var doc []feature.ExampleRule
	if len(a.Rules) == 0 {
		if _, doc, err = s.documentRules(ctx, a.URI); err != nil {
			return command.ExampleRulesResult{}, s.memoryError(name, err)
		}
	}
	rules, err := feature.ExampleRulesOf(ctx, st, a.Rules, doc, a.Symbol)
	if err != nil {
		return command.ExampleRulesResult{}, s.memoryError(name, err)
	}
	x := s.anchors(st)
	for i, r := range rules {
		p := x.Locate(ctx, r)
		v := command.ExampleRuleView{RuleView: command.RuleView{Rule: r, Location: s.placementLocation(p), AnchorStatus: p.Status},
			Manual: r.Anchor != nil && memory.ReadAnchorMeta(r).Manual, Corrections: []command.CorrectionView{}}
		cs, err := st.RuleCorrections(ctx, r.ID)
		if err != nil {
			return command.ExampleRulesResult{}, s.memoryError(name, err)
		}
		fcs := make([]feature.Correction, len(cs))
		for j, c := range cs {
			cv := command.CorrectionView{Text: c.Text, File: c.File}
			if f, rel := s.folderOfFile(c.File); f != nil {
				cv.Location = &protocol.Location{URI: f.fileURI(rel), Range: correctionRange(c.Range)}
			}
			fcs[j] = feature.CorrectionOf(c, cv.Location != nil)
			cv.Line = fcs[j].Line
			v.Corrections = append(v.Corrections, cv)
		}
		var candidates []memory.AnchorCandidate
		var in *folder
		if i < feature.MaxChoiceRules {
			in, candidates = s.otherExamples(ctx, x, r)
		}
		for _, ra := range feature.RuleActions(r, p.Status, fcs, candidates) {
			v.Actions = append(v.Actions, ruleAction(ra, v.Corrections, in))
		}
		out.Rules = append(out.Rules, v)
	}
	return out, nil
}

// correctionRange is the range of a correction, empty at the top of the
// file when it has none.
func correctionRange(r *memory.Range) protocol.Range {
	if r == nil {
		return protocol.Range{}
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// otherExamples returns the best candidate examples of rule r, best
// first, and the folder they are in (nil and none when no open folder
// has any).
func (s *Server) otherExamples(ctx context.Context, x *memory.Anchors, r memory.Rule) (*folder, []memory.AnchorCandidate) {
	origins, err := x.Store.RuleOrigins(ctx, r.ID)
	if err != nil {
		s.warn("rule %d: where its corrections were made: %v", r.ID, err)
	}
	hint := ""
	if r.Anchor != nil {
		hint = r.Anchor.File
	}
	w, res := x.BestFrom(ctx, r.Content, r.Scope, hint, origins)
	if w == nil && len(x.Workspaces) > 0 {
		w = x.Workspaces[0]
	}
	f := s.workspaceFolder(w)
	if f == nil || res == nil {
		return nil, nil
	}
	return f, res.Candidates
}

// ruleAction is a feature.RuleAction as the command answers it: a
// correction of cs to open, or a command on the rule (a candidate
// example of folder f to use).
func ruleAction(a feature.RuleAction, cs []command.CorrectionView, f *folder) command.RuleAction {
	cmd := func(title string, name command.Name, arg any) command.RuleAction {
		return command.RuleAction{Title: a.Title, Kind: "command", Command: &protocol.Command{Title: title, Command: string(name), Arguments: []any{arg}}}
	}
	switch a.Op {
	case feature.RuleOpOpen:
		return command.RuleAction{Title: a.Title, Kind: "open", Location: cs[a.Correction].Location}
	case feature.RuleOpUseExample:
		c := a.Candidate
		return cmd("Use as the example", command.MemoryUseExample.Name(), command.UseExampleArgs{ID: a.Rule, URI: f.fileURI(c.File), Symbol: c.Symbol, Line: c.Line})
	case feature.RuleOpReanchor:
		return cmd(a.Title, command.MemoryReanchor.Name(), command.IDArgs{ID: a.Rule})
	case feature.RuleOpDelete:
		return cmd("Delete rule", command.MemoryDeleteRule.Name(), command.IDArgs{ID: a.Rule})
	}
	return command.RuleAction{Title: a.Title, Kind: "command"} // an operation this server does not run: nothing to do
}

// useExample runs anchorage.memory.useExample {id, uri, symbol, line?}:
// the definition becomes the rule's example, kept until the user changes
// it. A name the document does not define leaves the rule as it was.
func (s *Server) useExample(ctx context.Context, a command.UseExampleArgs) (command.RuleResult, error) {
	f, rel, err := s.folderFor(a.URI)
	if err != nil {
		return command.RuleResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: uri: %v", string(command.MemoryUseExample.Name()), err)
	}
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	r, err := st.Rule(ctx, a.ID)
	if err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	w := s.memoryWorkspace(f, nil)
	an, err := w.Anchorer(ctx)
	if err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	res, err := an.Choose(ctx, r.Content, a.Symbol, rel, a.Line)
	if errors.Is(err, memory.ErrNoSuchSymbol) || errors.Is(err, memory.ErrAmbiguousSymbol) {
		return command.RuleResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: rule %d keeps its example: %v", string(command.MemoryUseExample.Name()), a.ID, err)
	}
	if err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	res.Scope = r.Scope
	ra := res.RuleAnchor(w.Root, w.Project)
	if err := st.SetAnchor(ctx, r.ID, *ra); err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	if r, err = st.Rule(ctx, r.ID); err != nil {
		return command.RuleResult{}, s.memoryError(string(command.MemoryUseExample.Name()), err)
	}
	s.memoryChanged(ctx)
	p := s.anchors(st).Locate(ctx, r)
	return command.RuleResult{Rule: command.RuleView{Rule: r, Location: s.placementLocation(p), AnchorStatus: p.Status}}, nil
}

// deleteRule runs anchorage.memory.deleteRule {id}.
func (s *Server) deleteRule(ctx context.Context, a command.IDArgs) (command.DeletedResult, error) {
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return command.DeletedResult{}, s.memoryError(string(command.MemoryDeleteRule.Name()), err)
	}
	if err := st.DeleteRule(ctx, a.ID); err != nil {
		return command.DeletedResult{}, s.memoryError(string(command.MemoryDeleteRule.Name()), err)
	}
	s.memoryChanged(ctx)
	return command.DeletedResult{Deleted: a.ID}, nil
}

// exampleActions are the "Use F as the example of rule N" actions
// (feature.ExampleActions) of the definition whose name line holds the
// start of the requested range, for the rules that apply to the document.
func (s *Server) exampleActions(ctx context.Context, p *protocol.CodeActionParams) []protocol.CodeAction {
	if !kindWanted(p.Context.Only, protocol.Refactor) {
		return nil
	}
	f, rel, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	st := s.editorMemory(ctx)
	if st == nil {
		return nil
	}
	syms, err := f.ws.FileSymbols(ctx, rel)
	if err != nil {
		return nil
	}
	def, ok := feature.DefinitionAt(syms, int(p.Range.Start.Line))
	if !ok {
		return nil
	}
	rules, err := st.RulesFor(ctx, memory.LanguageOfFile(rel), s.projectOf(f))
	if err != nil {
		return nil
	}
	var out []protocol.CodeAction
	for _, a := range feature.ExampleActions(def, rel, rules) {
		out = append(out, protocol.CodeAction{
			Title: a.Title, Kind: protocol.Refactor,
			Command: &protocol.Command{Title: a.Title, Command: string(command.MemoryUseExample.Name()), Arguments: []any{command.UseExampleArgs{
				ID: a.Rule, URI: p.TextDocument.URI, Symbol: a.Symbol, Line: a.Line,
			}}},
		})
	}
	return out
}

// renameFiles keeps the anchors of renamed files and directories
// (workspace/willRenameFiles and workspace/didRenameFiles): a rule
// anchored in an old file is anchored in its new one.
func (s *Server) renameFiles(ctx context.Context, p *protocol.RenameFilesParams) error {
	st := s.editorMemory(ctx)
	if st == nil || len(p.Files) == 0 {
		return nil
	}
	rules, err := st.Rules(ctx, memory.RuleFilter{Anchored: true})
	if err != nil {
		return err
	}
	x := s.anchors(st)
	changed := false
	for _, fr := range p.Files {
		of, oldRel, err := s.folderFor(protocol.DocumentURI(fr.OldURI))
		if err != nil {
			continue
		}
		nf, newRel, err := s.folderFor(protocol.DocumentURI(fr.NewURI))
		if err != nil || nf != of {
			continue // out of the folder: the anchor is lost there
		}
		for i, r := range rules {
			if s.workspaceFolder(x.WorkspaceOf(r)) != of {
				continue
			}
			file := path.Clean(r.Anchor.File)
			var moved string
			switch {
			case file == oldRel:
				moved = newRel
			case strings.HasPrefix(file, oldRel+"/"):
				moved = newRel + strings.TrimPrefix(file, oldRel)
			default:
				continue
			}
			a := *r.Anchor
			a.File = moved
			if err := st.SetAnchor(ctx, r.ID, a); err != nil {
				return err
			}
			rules[i].Anchor = &a
			changed = true
		}
	}
	if changed {
		s.memoryChanged(ctx)
	}
	return nil
}

// willRenameFiles answers workspace/willRenameFiles: the anchors move with
// their files; the server has no edits to add.
func (s *Server) willRenameFiles(ctx context.Context, p *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	if err := s.renameFiles(ctx, p); err != nil {
		s.warn("keeping anchors of renamed files: %v", err)
	}
	return nil, nil
}

// didRenameFiles handles workspace/didRenameFiles (see renameFiles).
func (s *Server) didRenameFiles(ctx context.Context, p *protocol.RenameFilesParams) error {
	return s.renameFiles(ctx, p)
}

// fileOperations are the file operations the server follows, for editors
// that send them: renames of any file or folder, for the anchors in them.
// Editors that do not say they send file operations are not told (Neovim
// 0.7, told, showed no end of indexing in the screen test).
func fileOperations(caps protocol.ClientCapabilities) *protocol.ServerCapabilitiesWorkspaceFileOperations {
	if caps.Workspace == nil || caps.Workspace.FileOperations == nil ||
		!caps.Workspace.FileOperations.WillRename && !caps.Workspace.FileOperations.DidRename {
		return nil
	}
	all := &protocol.FileOperationRegistrationOptions{Filters: []protocol.FileOperationFilter{
		{Scheme: "file", Pattern: protocol.FileOperationPattern{Glob: "**/*"}},
	}}
	return &protocol.ServerCapabilitiesWorkspaceFileOperations{WillRename: all, DidRename: all}
}
