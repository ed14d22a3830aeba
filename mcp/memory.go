package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory"
)

// approvalNote tells the agent that rules are a person's decision.
const approvalNote = `Proposals become rules only when the user approves them, in the editor (a code action on the proposal's hint) or with "anchorage memory approve ID"; this server cannot approve, reject, edit or delete rules.`

// RecordCorrectionArgs are the record_correction tool's arguments.
type RecordCorrectionArgs struct {
	Text   string `json:"text" jsonschema:"the correction as the user said it, e.g. 'never use panic in production Go code'"`
	File   string `json:"file,omitempty" jsonschema:"the file the correction was about, relative to the workspace root"`
	Symbol string `json:"symbol,omitempty" jsonschema:"the function, method or type it was about (a name or qualified name); with file, looked up in that file"`
}

// CorrectionView is a recorded correction.
type CorrectionView struct {
	ID       int64  `json:"id"`
	Text     string `json:"text"`
	File     string `json:"file,omitempty"`
	Symbol   string `json:"symbol,omitempty"`
	Line     int    `json:"line,omitempty"`
	Language string `json:"language,omitempty"`
	Project  string `json:"project,omitempty"`
	// CreatedAt is RFC 3339.
	CreatedAt string `json:"created_at"`
}

// RecordCorrectionOutput answers record_correction.
type RecordCorrectionOutput struct {
	Correction CorrectionView `json:"correction"`
	// OpenCorrections counts the corrections not yet in a proposal.
	OpenCorrections int    `json:"open_corrections"`
	Next            string `json:"next"`
}

func (s *Service) recordCorrectionTool() tool {
	return newTool(s, toolSpec{
		name: ToolRecordCorrection, title: "Record a user's correction",
		description: `Records a correction the user made to your work ("don't use panic here, return an error", "we always wrap errors with context") in the user's memory, with the file and symbol it was about when known, so that repeated corrections can become coding rules. Call it when the user corrects how you wrote code, not for one-off bugs; it stores the correction only, never a rule. Later, propose turns the open corrections into rule proposals that the user approves or rejects.`,
		schema: func(p map[string]*jsonschema.Schema) {
			minLen(p, "text", 1)
			maxLen(p, "text", MaxTextBytes)
			maxLen(p, "file", MaxPathBytes)
			maxLen(p, "symbol", MaxSymbolBytes)
		},
	}, s.recordCorrection)
}

func (s *Service) recordCorrection(ctx context.Context, a RecordCorrectionArgs) (RecordCorrectionOutput, error) {
	var out RecordCorrectionOutput
	if err := errors.Join(checkLen("text", a.Text, MaxTextBytes), checkLen("file", a.File, MaxPathBytes),
		checkLen("symbol", a.Symbol, MaxSymbolBytes)); err != nil {
		return out, err
	}
	if strings.TrimSpace(a.Text) == "" {
		return out, memory.ErrEmptyCorrection
	}
	c := memory.Correction{Text: a.Text}
	if a.File != "" {
		rel, err := ResolveFile(s.root, a.File)
		if err != nil {
			return out, fmt.Errorf("file: %w", err)
		}
		c.File = rel
	}
	var sym *analysis.SymbolInfo
	if strings.TrimSpace(a.Symbol) != "" {
		found, err := s.findSymbol(ctx, c.File, strings.TrimSpace(a.Symbol))
		if err != nil {
			return out, fmt.Errorf("symbol: %w", err)
		}
		sym = &found
		c.File = found.Path
		c.Range = &memory.Range{
			Start: memory.Position{Line: found.Range.Start.Line, Character: found.Range.Start.Column},
			End:   memory.Position{Line: found.Range.End.Line, Character: found.Range.End.Column},
		}
	}
	st, err := s.memoryStore(ctx, true)
	if err != nil {
		return out, err
	}
	rec, err := st.RecordCorrection(ctx, c)
	if err != nil {
		return out, err
	}
	open, err := st.OpenCorrections(ctx)
	if err != nil {
		return out, err
	}
	out.Correction = CorrectionView{
		ID: rec.ID, Text: rec.Text, File: rec.File, Language: rec.Language, Project: rec.Project,
		CreatedAt: rec.CreatedAt.UTC().Format(time.RFC3339),
	}
	if sym != nil {
		out.Correction.Symbol, out.Correction.Line = sym.QualifiedName, sym.Range.Start.Line+1
	}
	out.OpenCorrections = len(open)
	out.Next = "Call propose when the user has corrected the same thing more than once, to turn the open corrections into rule proposals for the user to approve."
	return out, nil
}

// findSymbol finds the definition a symbol argument names: in file when
// it is given, else anywhere in the workspace (the first definition).
func (s *Service) findSymbol(ctx context.Context, file, name string) (analysis.SymbolInfo, error) {
	if file != "" {
		syms, err := s.ix.SymbolsInFile(ctx, file)
		if err != nil {
			return analysis.SymbolInfo{}, err
		}
		for _, exact := range []bool{true, false} {
			for _, sym := range syms {
				if sym.Kind == analysis.KindModule {
					continue
				}
				if exact && sym.QualifiedName == name || !exact && sym.Name == name {
					return sym, nil
				}
			}
		}
		return analysis.SymbolInfo{}, s.notIndexedYet(fmt.Errorf("no symbol named %q in %s", name, file))
	}
	defs, err := s.ix.Lookup(ctx, name)
	if err != nil {
		return analysis.SymbolInfo{}, err
	}
	if len(defs) == 0 {
		return analysis.SymbolInfo{}, s.notIndexedYet(fmt.Errorf("no symbol named %q in the workspace", name))
	}
	return defs[0], nil
}

// notIndexedYet adds to a "not found" error that the workspace is still
// being indexed, when it is.
func (s *Service) notIndexedYet(err error) error {
	if p, why := s.partial(); p {
		return fmt.Errorf("%w (the workspace is still being indexed, %s: try again shortly)", err, why)
	}
	return err
}

// ProposeArgs are the propose tool's arguments: none to propose from
// the open corrections; a text or a pending proposal to propose a rule
// to the user's team.
type ProposeArgs struct {
	TeamRule      string `json:"team_rule,omitempty" jsonschema:"a rule's text to propose to the user's team (when a team database is configured) instead of proposing from corrections; an approver of the team decides"`
	TeamProposal  int64  `json:"team_proposal,omitempty" jsonschema:"the id of one of the user's pending proposals to propose to the team instead"`
	TeamScope     string `json:"team_scope,omitempty" jsonschema:"the team rule's scope: team (default), team language:<lang> or team project:<name>"`
	TeamRationale string `json:"team_rationale,omitempty" jsonschema:"why the team should keep the rule"`
}

// TeamProposalView is a rule proposed to the team.
type TeamProposalView struct {
	// ID is the team rule's id.
	ID      string `json:"id"`
	Scope   string `json:"scope"`
	Content string `json:"content"`
	// Queued is true when the team database could not be reached: the
	// proposal is sent when it can be.
	Queued bool `json:"queued"`
	// Conflict names the rule it repeats or contradicts, if any.
	Conflict string `json:"conflict,omitempty"`
}

// ProposalView is a pending rule proposal.
type ProposalView struct {
	ID        int64    `json:"id"`
	Status    string   `json:"status"`
	Category  string   `json:"category"`
	Scope     string   `json:"scope"`
	Content   string   `json:"content"`
	Rationale string   `json:"rationale,omitempty"`
	Variants  []string `json:"source_variants"`
	// Frequency is how many corrections it came from.
	Frequency  int     `json:"frequency"`
	Confidence float64 `json:"confidence"`
	// Origin is llm or fallback, Note why.
	Origin string `json:"origin"`
	Note   string `json:"note,omitempty"`
	File   string `json:"file,omitempty"`
	// ExampleFile and ExampleSymbol are the candidate code example.
	ExampleFile   string `json:"example_file,omitempty"`
	ExampleSymbol string `json:"example_symbol,omitempty"`
	// Conflict says when it repeats or contradicts an existing rule.
	Conflict string `json:"conflict,omitempty"`
}

// ProposeOutput answers propose.
type ProposeOutput struct {
	Proposals []ProposalView `json:"proposals"`
	// Team is the rule proposed to the team, for team_rule and
	// team_proposal.
	Team     *TeamProposalView `json:"team,omitempty"`
	Approval string            `json:"approval"`
}

func (s *Service) proposeTool() tool {
	return newTool(s, toolSpec{
		name: ToolPropose, title: "Propose rules from corrections",
		description: `Turns the user's open corrections into at most five coding rule proposals (similar corrections clustered, strongest first), each with a scope (universal, language:<lang> or project:<name>), a confidence and a candidate code example from this workspace, and returns the pending proposals. It never stores a rule: the user approves or rejects each proposal in the editor or on the command line. Call it after recording several corrections, then tell the user which proposals are waiting for them. When the user has a team (a shared rules database) and asks to share a rule with it, give team_rule (a text) or team_proposal (one of their pending proposals): the rule is proposed to the team for one of its approvers to decide; you can never approve it.`,
	}, s.propose)
}

func (s *Service) propose(ctx context.Context, a ProposeArgs) (ProposeOutput, error) {
	out := ProposeOutput{Proposals: []ProposalView{}, Approval: approvalNote}
	if a.TeamRule != "" || a.TeamProposal != 0 {
		return s.proposeToTeam(ctx, a, out)
	}
	st, err := s.memoryStore(ctx, false)
	if err != nil || st == nil {
		return out, err // no memory yet: no corrections to propose from
	}
	ps, err := st.Propose(ctx)
	if err != nil {
		return out, err
	}
	anchorer := &memory.Anchorer{Searcher: s.searcher, Project: s.project}
	for i, p := range ps {
		if p.ExampleFile == "" {
			origins, err := st.ProposalOrigins(ctx, p)
			if err != nil {
				s.log.Printf("proposal %d: where its corrections were made: %v", p.ID, err)
			}
			if res, err := anchorer.FindAnchor(ctx, p.Content, memory.AnchorOptions{Scope: p.Scope, Origins: origins}); err == nil && res.Anchor != nil {
				if err := st.SetProposalExample(ctx, p.ID, res.Anchor.File, res.Anchor.Symbol); err != nil {
					s.log.Printf("proposal %d: example not stored: %v", p.ID, err)
				} else {
					ps[i].ExampleFile, ps[i].ExampleSymbol = res.Anchor.File, res.Anchor.Symbol
				}
			}
		}
		p = ps[i]
		out.Proposals = append(out.Proposals, ProposalView{
			ID: p.ID, Status: p.Status, Category: p.Category, Scope: p.Scope, Content: p.Content, Rationale: p.Rationale,
			Variants: nonNil(p.Variants), Frequency: p.Frequency, Confidence: p.Confidence, Origin: p.Origin, Note: p.Note,
			File: p.File, ExampleFile: p.ExampleFile, ExampleSymbol: p.ExampleSymbol, Conflict: p.Conflict,
		})
	}
	return out, nil
}

// ListRulesArgs are the list_rules tool's arguments.
type ListRulesArgs struct {
	Scope string `json:"scope,omitempty" jsonschema:"keep one scope (universal, language:go, project:app, team language:go) or one kind of scope (language, project, team)"`
	File  string `json:"file,omitempty" jsonschema:"keep the rules whose example is in this file, relative to the workspace root"`
}

// RuleView is an active rule.
type RuleView struct {
	ID          int64    `json:"id"`
	Category    string   `json:"category"`
	Scope       string   `json:"scope"`
	Content     string   `json:"content"`
	Rationale   string   `json:"rationale,omitempty"`
	Variants    []string `json:"source_variants"`
	Confidence  float64  `json:"confidence"`
	Priority    int      `json:"priority"`
	Corrections int      `json:"corrections"`
	// Anchor is the rule's code example, or nil.
	Anchor *AnchorView `json:"anchor,omitempty"`
	// UpdatedAt is RFC 3339.
	UpdatedAt string `json:"updated_at"`
	// Team is the team rule's id for a rule of the user's team (read
	// from the local cache of the team's rules), "" for a personal one.
	Team string `json:"team,omitempty"`
}

// AnchorView is a rule's example, resolved through the code graph.
type AnchorView struct {
	File   string  `json:"file"`
	Symbol string  `json:"symbol,omitempty"`
	Score  float64 `json:"score"`
	// Status is anchored (Line is where the symbol is now), lost (the
	// file or symbol is gone), pending (not indexed yet) or elsewhere (in
	// another workspace).
	Status  string `json:"status"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
}

// ListRulesOutput answers list_rules.
type ListRulesOutput struct {
	Rules    []RuleView `json:"rules"`
	Project  string     `json:"project"`
	Approval string     `json:"approval"`
}

func (s *Service) listRulesTool() tool {
	return newTool(s, toolSpec{
		name: ToolListRules, title: "List the user's coding rules", readOnly: true,
		description: `Lists the user's approved coding rules, most important first: each rule's text, scope (universal, language:<lang>, project:<name>), rationale, confidence and its code example in this workspace (file and symbol, with the symbol's current line, or lost when the example is gone). Filter by scope or by the file holding the example. Use it to see every rule; to get the rules that matter for a task, with their example code, inject_context is better. Rules cannot be changed here.`,
		schema: func(p map[string]*jsonschema.Schema) {
			maxLen(p, "scope", MaxScopeBytes)
			maxLen(p, "file", MaxPathBytes)
		},
	}, s.listRules)
}

func (s *Service) listRules(ctx context.Context, a ListRulesArgs) (ListRulesOutput, error) {
	out := ListRulesOutput{Rules: []RuleView{}, Project: s.project, Approval: approvalNote}
	if err := errors.Join(checkLen("scope", a.Scope, MaxScopeBytes), checkLen("file", a.File, MaxPathBytes)); err != nil {
		return out, err
	}
	var filter memory.RuleFilter
	if scope := strings.TrimSpace(a.Scope); scope != "" {
		kind := strings.ToLower(scope)
		if kind != memory.KindLanguage && kind != memory.KindProject && kind != memory.ScopeTeam {
			if _, err := memory.NormalizeScope(scope); err != nil {
				return out, fmt.Errorf("scope: %w", err)
			}
		}
		filter.Scopes = []string{scope}
	}
	if a.File != "" {
		rel, err := ResolveFile(s.root, a.File)
		if err != nil {
			return out, fmt.Errorf("file: %w", err)
		}
		filter.AnchorFile = rel
	}
	st, err := s.memoryStore(ctx, false)
	if err != nil || st == nil {
		return out, err // no memory yet: no rules
	}
	rules, err := st.Rules(ctx, filter)
	if err != nil {
		return out, err
	}
	for _, r := range rules {
		v := RuleView{
			ID: r.ID, Category: r.Category, Scope: r.Scope, Content: r.Content, Rationale: r.Rationale,
			Variants: nonNil(r.Variants), Confidence: r.Confidence, Priority: r.Priority, Corrections: r.Corrections,
			UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339), Team: r.Team,
		}
		if r.Anchor != nil {
			v.Anchor = s.locateAnchor(ctx, r.Anchor)
		}
		out.Rules = append(out.Rules, v)
	}
	return out, nil
}

// locateAnchor resolves a rule's anchor through the code graph: the
// symbol by its qualified name, nearest the line it was anchored at.
func (s *Service) locateAnchor(ctx context.Context, a *memory.RuleAnchor) *AnchorView {
	v := &AnchorView{File: a.File, Symbol: a.Symbol, Score: a.Score}
	var meta struct {
		Root    string `json:"root"`
		Project string `json:"project"`
		Line    int    `json:"line"`
	}
	if len(a.Metadata) > 0 {
		_ = json.Unmarshal(a.Metadata, &meta) // unknown metadata: resolve by file alone
	}
	if meta.Root != "" && filepath.Clean(meta.Root) != s.root || meta.Root == "" && meta.Project != "" && meta.Project != s.project {
		v.Status = "elsewhere"
		return v
	}
	if _, err := os.Stat(filepath.Join(s.root, filepath.FromSlash(a.File))); err != nil {
		v.Status = "lost"
		return v
	}
	if a.Symbol == "" {
		v.Status, v.Line = "anchored", 1
		return v
	}
	sym, ok, err := s.ix.FindSymbol(ctx, a.File, a.Symbol, meta.Line-1)
	switch {
	case err == nil && ok:
		v.Status, v.Line, v.EndLine = "anchored", sym.Range.Start.Line+1, sym.Range.End.Line+1
	case s.indexing.Load() || err != nil:
		v.Status = "pending"
	default:
		v.Status = "lost"
	}
	return v
}

// InjectContextArgs are the inject_context tool's arguments.
type InjectContextArgs struct {
	File     string `json:"file,omitempty" jsonschema:"the file being worked on, relative to the workspace root: its language and project select the rules, rules anchored in it come first"`
	Query    string `json:"query,omitempty" jsonschema:"the task or question: ranks the rules by their overlap with it"`
	Budget   int    `json:"budget,omitempty" jsonschema:"the most tokens of Markdown to return (default 1500)"`
	Language string `json:"language,omitempty" jsonschema:"select this language's rules without a file, or instead of the file's"`
}

// InjectContextOutput answers inject_context: the injection (Markdown,
// rules, tokens) and how complete the index was.
type InjectContextOutput struct {
	memory.Injection
	IndexState
}

func (s *Service) injectContextTool() tool {
	return newTool(s, toolSpec{
		name: ToolInjectContext, title: "Rules and examples for a task", readOnly: true,
		description: `Returns, as Markdown ready to follow, the user's coding rules that apply to a file or task (universal rules, the file's language's, this project's), the rules anchored in the file first and the rest by relevance to the query, each followed by its code example as it is now in the workspace, all within a token budget (default 1500; 40% for rules, the rest for examples). Call it before writing or changing code in a file, and follow the rules it returns. Files that may hold credentials are never read.`,
		schema: func(p map[string]*jsonschema.Schema) {
			maxLen(p, "file", MaxPathBytes)
			maxLen(p, "query", MaxQueryBytes)
			maxLen(p, "language", 64)
			between(p, "budget", 1, MaxBudget)
		},
	}, s.injectContext)
}

func (s *Service) injectContext(ctx context.Context, a InjectContextArgs) (InjectContextOutput, error) {
	var out InjectContextOutput
	if err := errors.Join(checkLen("file", a.File, MaxPathBytes), checkLen("query", a.Query, MaxQueryBytes),
		checkLen("language", a.Language, 64), checkRange("budget", a.Budget, 0, MaxBudget)); err != nil {
		return out, err
	}
	if a.Language != "" && memory.NormalizeLanguage(a.Language) == "" {
		return out, fmt.Errorf("%q is not a language name", a.Language)
	}
	req := memory.InjectRequest{Query: a.Query, Budget: a.Budget, Language: a.Language, Project: s.project}
	if a.File != "" {
		rel, err := ResolveFile(s.root, a.File)
		if err != nil {
			return out, fmt.Errorf("file: %w", err)
		}
		req.File = rel
	}
	st, err := s.memoryStore(ctx, false)
	if err != nil {
		return out, err
	}
	deps := memory.InjectDeps{Store: st, Index: s.ix}
	if st != nil {
		// The rules near the working memory's slots come first, as in the
		// editor.
		g, err := s.recallGraph(ctx)
		if err != nil {
			return out, err
		}
		deps.Recall = g.RuleIDs
	}
	inj, err := memory.Inject(ctx, req, deps)
	if err != nil {
		return out, err
	}
	out.Injection = *inj
	if out.Rules == nil {
		out.Rules = []memory.InjectedRule{}
	}
	if out.Scopes == nil {
		out.Scopes = []string{}
	}
	out.IndexState = s.indexState()
	return out, nil
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
