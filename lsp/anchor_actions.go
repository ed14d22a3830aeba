package lsp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
)

// maxChoiceRules is how many rules of one example get their other
// candidate examples listed (each is a search).
const maxChoiceRules = 3

// maxChoices is how many other examples a rule offers.
const maxChoices = 5

// exampleRules runs anchorage.memory.exampleRules {uri, symbol?, rules?}:
// the rules anchored on that symbol of the document (or the rules given by
// id), most important first, each with its rationale, its corrections and
// the actions on it — open a correction, choose another example (the best
// other candidates), re-anchor, delete.
func (s *Server) exampleRules(ctx context.Context, a command.ExampleRulesArgs) (command.ExampleRulesResult, error) {
	out := command.ExampleRulesResult{URI: a.URI, Symbol: a.Symbol, Rules: []command.ExampleRuleView{}}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return command.ExampleRulesResult{}, s.memoryError(string(command.MemoryExampleRules.Name()), err)
	}
	if st == nil {
		return out, nil
	}
	var rules []memory.Rule
	if len(a.Rules) > 0 {
		for _, id := range a.Rules {
			r, err := st.Rule(ctx, id)
			if errors.Is(err, memory.ErrUnknownRule) {
				continue // deleted since the lens was made
			}
			if err != nil {
				return command.ExampleRulesResult{}, s.memoryError(string(command.MemoryExampleRules.Name()), err)
			}
			rules = append(rules, r)
		}
	} else {
		_, drs, err := s.documentRules(ctx, a.URI)
		if err != nil {
			return command.ExampleRulesResult{}, s.memoryError(string(command.MemoryExampleRules.Name()), err)
		}
		for _, dr := range drs {
			if a.Symbol == "" || dr.Rule.Anchor.Symbol == a.Symbol {
				rules = append(rules, dr.Rule)
			}
		}
	}
	x := s.anchors(st)
	views := []command.ExampleRuleView{}
	for i, r := range rules {
		p := x.Locate(ctx, r)
		v := command.ExampleRuleView{RuleView: command.RuleView{Rule: r, Location: s.placementLocation(p), AnchorStatus: p.Status},
			Manual: r.Anchor != nil && memory.ReadAnchorMeta(r).Manual, Corrections: []command.CorrectionView{}}
		cs, err := st.RuleCorrections(ctx, r.ID)
		if err != nil {
			return command.ExampleRulesResult{}, s.memoryError(string(command.MemoryExampleRules.Name()), err)
		}
		for _, c := range cs {
			cv := command.CorrectionView{Text: c.Text, File: c.File}
			if c.Range != nil {
				cv.Line = c.Range.Start.Line + 1
			}
			if f, rel := s.folderOfFile(c.File); f != nil {
				rng := protocol.Range{}
				if c.Range != nil {
					rng = protocol.Range{
						Start: protocol.Position{Line: uint32(c.Range.Start.Line), Character: uint32(c.Range.Start.Character)},
						End:   protocol.Position{Line: uint32(c.Range.End.Line), Character: uint32(c.Range.End.Character)},
					}
				}
				cv.Location = &protocol.Location{URI: f.fileURI(rel), Range: rng}
			}
			v.Corrections = append(v.Corrections, cv)
		}
		v.Actions = s.ruleActions(ctx, x, r, p, v.Corrections, i < maxChoiceRules)
		views = append(views, v)
	}
	out.Rules = views
	return out, nil
}

// ruleActions are the actions on rule r, whose anchor is at p: open its
// corrections, use one of its other best candidates (when choices),
// find its example again, delete it.
func (s *Server) ruleActions(ctx context.Context, x *memory.Anchors, r memory.Rule, p memory.Placement, cs []command.CorrectionView, choices bool) []command.RuleAction {
	var out []command.RuleAction
	for i, c := range cs {
		if c.Location == nil || i == maxChoices {
			continue
		}
		where := c.File
		if c.Line > 0 {
			where = fmt.Sprintf("%s:%d", c.File, c.Line)
		}
		out = append(out, command.RuleAction{Title: fmt.Sprintf("Open correction: “%s” (%s)", shorten(c.Text, 60), where), Kind: "open", Location: c.Location})
	}
	if choices {
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
		if f := s.workspaceFolder(w); f != nil && res != nil {
			n := 0
			for _, c := range res.Candidates {
				if n == maxChoices {
					break
				}
				if r.Anchor != nil && c.File == r.Anchor.File && c.Symbol == r.Anchor.Symbol {
					continue
				}
				n++
				out = append(out, command.RuleAction{
					Title: fmt.Sprintf("Use %s (%s:%d) as the example — matches %d of %d key terms", c.Symbol, c.File, c.Line, c.MatchedTerms, c.KeyTerms),
					Kind:  "command",
					Command: &protocol.Command{Title: "Use as the example", Command: string(command.MemoryUseExample.Name()), Arguments: []any{command.UseExampleArgs{
						ID: r.ID, URI: f.fileURI(c.File), Symbol: c.Symbol, Line: c.Line,
					}}},
				})
			}
		}
	}
	reanchor := "Find the best example again"
	if p.Status == memory.AnchorLost {
		reanchor = "Re-anchor: its example is gone"
	}
	out = append(out,
		command.RuleAction{Title: reanchor, Kind: "command", Command: &protocol.Command{Title: reanchor, Command: string(command.MemoryReanchor.Name()), Arguments: []any{command.IDArgs{ID: r.ID}}}},
		command.RuleAction{Title: fmt.Sprintf("Delete rule %d", r.ID), Kind: "command", Command: &protocol.Command{Title: "Delete rule", Command: string(command.MemoryDeleteRule.Name()), Arguments: []any{command.IDArgs{ID: r.ID}}}},
	)
	return out
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

// maxExampleActions caps the "Use F as the example of rule N" actions of
// one definition.
const maxExampleActions = 5

// exampleActions are the "Use F as the example of rule N" actions of the
// definition whose name line holds the start of the requested range: for
// the rules that apply to the document and are not anchored on it, those
// without an example first.
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
	line := int(p.Range.Start.Line)
	var def *analysis.SymbolInfo
	for i := range syms {
		sym := &syms[i]
		if sym.Kind == analysis.KindModule || sym.NameRange.Start.Line != line {
			continue
		}
		if def == nil || sym.Range.Start.Offset > def.Range.Start.Offset {
			def = sym
		}
	}
	if def == nil {
		return nil
	}
	rules, err := st.RulesFor(ctx, memory.LanguageOfFile(rel), s.projectOf(f))
	if err != nil {
		return nil
	}
	// Unanchored rules first, then the others, each by importance.
	slices.SortStableFunc(rules, func(a, b memory.Rule) int {
		switch {
		case (a.Anchor == nil) == (b.Anchor == nil):
			return 0
		case a.Anchor == nil:
			return -1
		}
		return 1
	})
	var out []protocol.CodeAction
	for _, r := range rules {
		if len(out) == maxExampleActions {
			break
		}
		if r.Anchor != nil && r.Anchor.File == rel && r.Anchor.Symbol == def.QualifiedName {
			continue
		}
		title := fmt.Sprintf("Use %s as the example of rule %d: %s", def.Name, r.ID, shorten(r.Content, 60))
		out = append(out, protocol.CodeAction{
			Title: title, Kind: protocol.Refactor,
			Command: &protocol.Command{Title: title, Command: string(command.MemoryUseExample.Name()), Arguments: []any{command.UseExampleArgs{
				ID: r.ID, URI: p.TextDocument.URI, Symbol: def.QualifiedName, Line: def.Range.Start.Line + 1,
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
