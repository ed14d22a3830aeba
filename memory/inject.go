package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/cespare/xxhash/v2"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/budget"
)

// This file injects rules into an assistant's context: the rules that
// apply to a file or a question, most relevant first, each followed by
// the current source of its anchored example, in Markdown that fits a
// token budget.

// Injection defaults and limits.
const (
	// DefaultInjectBudget is the token budget of an injection when the
	// request gives none.
	DefaultInjectBudget = 1500
	// InjectRulesPercent is the share of the budget, in percent, for the
	// rules' text; the rest is for their examples (600 and 900 tokens of
	// 1500, as in the reference design).
	InjectRulesPercent = 40
	// MaxExampleLines is the most lines of code an example shows, the
	// line saying how many more there are included.
	MaxExampleLines = 30
	// maxInjectQueryBytes caps the query text that ranking reads.
	maxInjectQueryBytes = 64 << 10
)

// ErrSecretFile reports a file whose name says it may hold credentials
// (see analysis.IsSecret): injection never reads it.
var ErrSecretFile = errors.New("file may hold credentials and is never read")

// Example statuses: what became of an injected rule's example.
const (
	// ExampleShown: the example is shown whole (up to MaxExampleLines).
	ExampleShown = "shown"
	// ExampleCut: the example is shown cut to fit the budget.
	ExampleCut = "truncated"
	// ExampleOverBudget: the example was found but did not fit.
	ExampleOverBudget = "over_budget"
	// ExampleLost: the anchor's file or symbol no longer exists; the rule
	// is marked "(example not found)" and needs re-anchoring.
	ExampleLost = "lost"
	// ExampleSecret: the anchor names a file that may hold credentials;
	// it is not read, and the rule is marked "(example withheld)".
	ExampleSecret = "withheld"
	// ExampleNone: the rule has no anchor.
	ExampleNone = "none"
)

// Markers on a rule's line.
const (
	lostMarker     = "(example not found)"
	withheldMarker = "(example withheld)"
	injectHeading  = "## Coding rules\n"
)

// InjectRequest asks for the rules that apply to a file or a question.
type InjectRequest struct {
	// File is the file being worked on, relative to the workspace root
	// (forward slashes), or "". Its language selects language rules, and
	// its path and text rank the rules; rules anchored in it come first.
	File string `json:"file,omitempty"`
	// Language selects language:<lang> rules; "" means the language of
	// File.
	Language string `json:"language,omitempty"`
	// Project selects project:<name> rules; "" means the Store's project
	// (WithProject), else ProjectName of the workspace root.
	Project string `json:"project,omitempty"`
	// Query, if set, ranks the rules by their overlap with it, ahead of
	// the file's text.
	Query string `json:"query,omitempty"`
	// Budget is the most tokens the Markdown may take; 0 means
	// DefaultInjectBudget. InjectRulesPercent of it is for the rules'
	// text, the rest for the examples.
	Budget int `json:"budget,omitempty"`
}

// InjectDeps are what Inject reads besides the request.
type InjectDeps struct {
	// Store holds the rules; nil means no rules (no memory database yet).
	Store *Store
	// Index is the workspace's index, whose root File and anchors are
	// relative to: anchors are resolved by symbol through it. nil
	// resolves them by parsing the anchored files under Root.
	Index *analysis.Index
	// Root is the workspace root when Index is nil.
	Root string
	// Overlay gives the text of documents open in an editor by
	// root-relative path; nil reads every file from disk.
	Overlay func(path string) ([]byte, bool)
	// Counter counts tokens; nil estimates them (budget.Estimator).
	Counter budget.Counter
	// Recall, when set, returns the ids of the rules a localized memory
	// search (package memory/recall) finds for text (the query, else the
	// file), most relevant first: they rank ahead of the others, after
	// the rules anchored in the file. An error or no id leaves the
	// ranking as it is.
	Recall func(ctx context.Context, text string) ([]int64, error)
}

// Injection is the Markdown to put into an assistant's context, and what
// it holds.
type Injection struct {
	// Markdown is the rules, most relevant first, each followed by its
	// example. It never counts more than Tokens.Budget tokens.
	Markdown string `json:"markdown"`
	// Rules are the injected rules, in order.
	Rules []InjectedRule `json:"rules"`
	// Tokens are the budget and what was used of it.
	Tokens InjectTokens `json:"tokens"`
	// File, Language and Project are what selected and ranked the rules.
	File     string `json:"file,omitempty"`
	Language string `json:"language,omitempty"`
	Project  string `json:"project,omitempty"`
	// Scopes are the scopes whose rules applied.
	Scopes []string `json:"scopes"`
	// Considered counts the rules that applied; Dropped those left out
	// for the budget.
	Considered int `json:"considered"`
	Dropped    int `json:"dropped"`
	// RulesTruncated reports that a rule was cut or left out for the
	// budget, ExamplesTruncated that an example was; Truncated either.
	RulesTruncated    bool `json:"rules_truncated"`
	ExamplesTruncated bool `json:"examples_truncated"`
	Truncated         bool `json:"truncated"`
}

// InjectTokens are an injection's token counts. Rules and Examples sum
// the parts of each share; Total counts the whole Markdown (a count of
// pieces joined can differ by a token from the sum of their counts).
type InjectTokens struct {
	Budget         int `json:"budget"`
	RulesBudget    int `json:"rules_budget"`
	ExamplesBudget int `json:"examples_budget"`
	Rules          int `json:"rules"`
	Examples       int `json:"examples"`
	Total          int `json:"total"`
}

// InjectedRule is one rule of an injection.
type InjectedRule struct {
	ID       int64  `json:"id"`
	Scope    string `json:"scope"`
	Category string `json:"category"`
	Content  string `json:"content"`
	// Relevance is the rule's BM25 score against the query and the
	// file (0 without either).
	Relevance float64 `json:"relevance"`
	// InFile reports a rule anchored in the request's file.
	InFile bool `json:"in_file"`
	// Tokens counts the rule's line; Truncated reports it was cut.
	Tokens    int  `json:"tokens"`
	Truncated bool `json:"truncated"`
	// ExampleStatus is one of the Example* statuses; Example is set when
	// the example is shown (whole or cut).
	ExampleStatus string           `json:"example_status"`
	Example       *InjectedExample `json:"example"`
}

// InjectedExample is the example shown after a rule: where its symbol is
// now.
type InjectedExample struct {
	// File is relative to Root (forward slashes).
	File string `json:"file"`
	// Symbol is the qualified name, "" for a file's first lines.
	Symbol string `json:"symbol,omitempty"`
	// Root is the workspace the example is in, when not the request's.
	Root string `json:"root,omitempty"`
	// Language names the code block's language.
	Language string `json:"language"`
	// Line and EndLine are the symbol's lines now, 1-based.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Lines counts the lines of code shown.
	Lines int `json:"lines"`
	// Moved reports a symbol found in another file than the anchor's
	// (the file was renamed, or the symbol moved).
	Moved bool `json:"moved"`
	// Tokens counts the example's Markdown; Truncated reports it was cut
	// to MaxExampleLines or to the budget.
	Tokens    int  `json:"tokens"`
	Truncated bool `json:"truncated"`
}

// Inject returns the rules that apply to req.File (universal rules, the
// file's language's, the project's) as Markdown for an assistant's
// context, each followed by the current source of its example.
//
// Rules anchored in req.File come first, then the others by relevance:
// BM25 of the rule's words (content, rationale, anchor) against the query
// and the file's path and text; ties keep the store's order (priority,
// confidence). Rules are kept in that order while their lines fit
// InjectRulesPercent of the budget; the first that does not is cut with
// the truncation marker when enough room remains, and the rest are
// dropped. Then each kept rule's example is added while it fits the rest
// of the budget, the first that does not being cut likewise when there is
// room; an example that does not fit is left out and later, smaller ones
// may still be shown.
//
// An example is the anchored symbol's source as it is now, found by its
// qualified name (not its line): through the index when it is up to date
// with the file (read from the editor's overlay or the disk), else by
// parsing the file; a symbol gone from its file is looked up elsewhere in
// the workspace. It shows at most MaxExampleLines lines. A rule whose
// symbol is gone is marked "(example not found)". Files whose names say
// they may hold credentials (analysis.IsSecret) are never read: a request
// for one is ErrSecretFile.
func Inject(ctx context.Context, req InjectRequest, deps InjectDeps) (*Injection, error) {
	if req.Budget < 0 {
		return nil, fmt.Errorf("inject rules: budget %d is negative", req.Budget)
	}
	if req.Budget == 0 {
		req.Budget = DefaultInjectBudget
	}
	in, err := newInjector(deps)
	if err != nil {
		return nil, fmt.Errorf("inject rules: %w", err)
	}
	defer in.close()
	if req.File, err = in.requestFile(req.File); err != nil {
		return nil, fmt.Errorf("inject rules: %w", err)
	}
	lang := LanguageOfFile(req.File)
	if strings.TrimSpace(req.Language) != "" {
		if lang = NormalizeLanguage(req.Language); lang == "" {
			return nil, fmt.Errorf("inject rules: %q is not a language name", req.Language)
		}
	}
	project := strings.TrimSpace(req.Project)
	if project == "" && deps.Store != nil {
		project = deps.Store.Project()
	}
	if project == "" && in.root != "" {
		project = ProjectName(in.root)
	}
	in.project = project
	rulesBudget := req.Budget * InjectRulesPercent / 100
	out := &Injection{
		Rules: []InjectedRule{}, File: req.File, Language: lang, Project: project, Scopes: injectScopes(deps.Store, lang, project),
		Tokens: InjectTokens{Budget: req.Budget, RulesBudget: rulesBudget, ExamplesBudget: req.Budget - rulesBudget},
	}
	var rules []Rule
	if deps.Store != nil {
		if rules, err = deps.Store.RulesFor(ctx, lang, project); err != nil {
			return nil, fmt.Errorf("inject rules: %w", err)
		}
	}
	out.Considered = len(rules)
	if len(rules) == 0 {
		msg := fmt.Sprintf("No coding rules apply here yet (%s).\n", strings.Join(out.Scopes, ", "))
		out.Markdown, _ = budget.Truncate(msg, req.Budget, in.counter)
		out.Tokens.Total = in.counter.Count(out.Markdown)
		return out, nil
	}
	terms, err := in.contextTerms(ctx, req.File, req.Query)
	if err != nil {
		return nil, fmt.Errorf("inject rules: %w", err)
	}
	ranked := rankForInjection(rules, terms, func(r Rule) bool { return req.File != "" && in.anchoredIn(r, req.File) })
	if deps.Recall != nil {
		ranked = recallFirst(ctx, deps.Recall, ranked, req)
	}
	blocks, err := in.fitRules(ctx, ranked, rulesBudget)
	if err != nil {
		return nil, fmt.Errorf("inject rules: %w", err)
	}
	in.fitExamples(blocks, out.Tokens.ExamplesBudget)
	in.assemble(out, blocks, len(ranked))
	return out, nil
}

// injector is one call of Inject.
type injector struct {
	deps    InjectDeps
	counter budget.Counter
	// root is the workspace root, absolute, or "" when there is none;
	// project is the request's project.
	root    string
	project string
	langs   *analysis.Languages
	parser  *analysis.Parser
	// syms and files cache the symbols and texts of files during the
	// call, by root and relative path.
	syms  map[string][]injectSymbol
	files map[string]injectFile
}

// injectFile is a file read during a call.
type injectFile struct {
	text []byte
	ok   bool
}

func newInjector(deps InjectDeps) (*injector, error) {
	in := &injector{deps: deps, counter: deps.Counter, syms: map[string][]injectSymbol{}, files: map[string]injectFile{}}
	if in.counter == nil {
		in.counter = budget.Estimator{}
	}
	switch {
	case deps.Index != nil:
		in.root = deps.Index.Root()
		in.langs = deps.Index.Languages()
	case deps.Root != "":
		root, err := filepath.Abs(deps.Root)
		if err != nil {
			return nil, err
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		in.root = root
	}
	if in.langs == nil {
		in.langs = analysis.NewLanguages()
	}
	return in, nil
}

func (in *injector) close() {
	if in.parser != nil {
		in.parser.Close()
	}
}

// requestFile checks the request's file and returns it relative to the
// root with forward slashes.
func (in *injector) requestFile(file string) (string, error) {
	file = strings.TrimSpace(file)
	if file == "" {
		return "", nil
	}
	if filepath.IsAbs(file) {
		if in.root == "" {
			return "", fmt.Errorf("file %s: no workspace root to resolve it in", file)
		}
		rel, err := analysis.RelPath(in.root, file)
		if err != nil {
			return "", err
		}
		file = rel
	}
	file = path.Clean(filepath.ToSlash(file))
	if !filepath.IsLocal(filepath.FromSlash(file)) {
		return "", fmt.Errorf("file %s: %w", file, analysis.ErrOutsideRoot)
	}
	if analysis.IsSecret(path.Base(file)) {
		return "", fmt.Errorf("file %s: %w", file, ErrSecretFile)
	}
	return file, nil
}

// readFile returns the text of a file relative to root: the editor's
// when the file is open (only in the workspace), else the disk's. ok is
// false when there is no such regular, readable text file.
func (in *injector) readFile(root, rel string, workspace bool) ([]byte, bool, error) {
	if analysis.IsSecret(path.Base(rel)) {
		return nil, false, ErrSecretFile
	}
	key := root + "\x00" + rel
	if f, ok := in.files[key]; ok {
		return f.text, f.ok, nil
	}
	text, ok, err := in.readFileOnce(root, rel, workspace)
	if err == nil {
		in.files[key] = injectFile{text, ok}
	}
	return text, ok, err
}

// readFileOnce reads a file for readFile.
func (in *injector) readFileOnce(root, rel string, workspace bool) (text []byte, ok bool, err error) {
	if workspace && in.deps.Overlay != nil {
		if t, ok := in.deps.Overlay(rel); ok {
			return t, true, nil
		}
	}
	if root == "" {
		return nil, false, nil
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	// Links are not followed: the index never holds them, and one could
	// lead to a secret under an innocent name.
	info, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", rel, err)
	case !info.Mode().IsRegular() || info.Size() > analysis.DefaultMaxFileSize:
		return nil, false, nil
	}
	text, err = os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", rel, err)
	}
	if bytes.IndexByte(text[:min(len(text), 8000)], 0) >= 0 {
		return nil, false, nil // binary
	}
	return text, true, nil
}

// contextTerms returns the weighted search terms of the query and the
// file: the query's words weigh most, then the file's path, then its
// text.
func (in *injector) contextTerms(ctx context.Context, file, query string) (map[string]float64, error) {
	terms := map[string]float64{}
	add := func(text string, weight float64) {
		counts := map[string]int{}
		for _, t := range strings.Fields(string(analysis.AppendTerms(nil, text))) {
			counts[t]++
		}
		for t, n := range counts {
			terms[t] += weight * (1 + math.Log(float64(n)))
		}
	}
	if len(query) > maxInjectQueryBytes {
		query = query[:maxInjectQueryBytes]
	}
	add(query, 2)
	if file == "" {
		return terms, nil
	}
	add(strings.TrimSuffix(file, path.Ext(file)), 1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text, ok, err := in.readFile(in.root, file, true)
	if err != nil {
		return nil, err
	}
	if ok {
		add(string(text), 0.25)
	}
	return terms, nil
}

// anchorRoot returns the root r's anchor file is relative to, and
// whether it is this workspace's: the anchor's root when it names one,
// else this workspace's when the anchor's project is unknown or this
// workspace's, else "" (a workspace whose root is not known).
func (in *injector) anchorRoot(r Rule) (string, bool) {
	m := ReadAnchorMeta(r)
	switch {
	case m.Root != "":
		if in.root != "" && filepath.Clean(m.Root) == in.root {
			return in.root, true
		}
		return filepath.Clean(m.Root), false
	case m.Project == "" || in.project == "" || m.Project == in.project:
		return in.root, true
	}
	return "", false
}

// anchoredIn reports whether r is anchored in file of this workspace.
func (in *injector) anchoredIn(r Rule, file string) bool {
	if r.Anchor == nil || path.Clean(r.Anchor.File) != file {
		return false
	}
	_, here := in.anchorRoot(r)
	return here
}

// injectRanked is a rule with its rank.
type injectRanked struct {
	rule   Rule
	score  float64
	inFile bool
}

// BM25 parameters of rule ranking.
const (
	injectK1 = 1.2
	injectB  = 0.75
)

// rankForInjection orders rules for injection: those inFile selects
// first, then by BM25 of each rule's words against the weighted terms;
// ties keep the given order.
func rankForInjection(rules []Rule, terms map[string]float64, inFile func(Rule) bool) []injectRanked {
	docs := make([]map[string]int, len(rules))
	lens := make([]int, len(rules))
	df := map[string]int{}
	total := 0
	for i, r := range rules {
		text := r.Content + " " + r.Rationale
		if r.Anchor != nil {
			text += " " + r.Anchor.Symbol + " " + strings.TrimSuffix(r.Anchor.File, path.Ext(r.Anchor.File))
		}
		docs[i] = map[string]int{}
		for _, t := range strings.Fields(string(analysis.AppendTerms(nil, text))) {
			if docs[i][t] == 0 {
				df[t]++
			}
			docs[i][t]++
			lens[i]++
		}
		total += lens[i]
	}
	n := float64(len(rules))
	avg := math.Max(float64(total)/math.Max(n, 1), 1)
	out := make([]injectRanked, len(rules))
	for i, r := range rules {
		score := 0.0
		for t, w := range terms {
			tf := float64(docs[i][t])
			if tf == 0 {
				continue
			}
			d := float64(df[t])
			idf := math.Log(1 + (n-d+0.5)/(d+0.5))
			score += w * idf * tf * (injectK1 + 1) / (tf + injectK1*(1-injectB+injectB*float64(lens[i])/avg))
		}
		out[i] = injectRanked{rule: r, score: math.Round(score*1000) / 1000, inFile: inFile(r)}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].inFile != out[j].inFile {
			return out[i].inFile
		}
		return out[i].score > out[j].score
	})
	return out
}

// recallFirst moves the rules that recall names for the request ahead of
// the others, in its order, after those anchored in the file.
func recallFirst(ctx context.Context, recall func(context.Context, string) ([]int64, error), ranked []injectRanked, req InjectRequest) []injectRanked {
	text := strings.TrimSpace(req.Query)
	if text == "" {
		text = req.File
	}
	if text == "" {
		return ranked
	}
	ids, err := recall(ctx, text)
	if err != nil || len(ids) == 0 {
		return ranked
	}
	pos := make(map[int64]int, len(ids))
	for i, id := range ids {
		if _, ok := pos[id]; !ok {
			pos[id] = i
		}
	}
	at := func(r injectRanked) int {
		if p, ok := pos[r.rule.ID]; ok {
			return p
		}
		return len(ids)
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].inFile != ranked[j].inFile {
			return ranked[i].inFile
		}
		return at(ranked[i]) < at(ranked[j])
	})
	return ranked
}

// injectBlock is one kept rule: its line and, once found, its example.
type injectBlock struct {
	rule    InjectedRule
	line    string // the rule's Markdown line(s), ending in a newline
	example *injectExample
	exText  string // the example's Markdown, once it fits
}

// injectExample is a resolved example before it is fitted.
type injectExample struct {
	info  InjectedExample
	fence string // the code block's info string
	code  string
}

// fitRules keeps rules in rank order while their lines fit limit tokens
// (the heading included), resolving each kept rule's example on the way
// since a lost one marks the rule's line.
func (in *injector) fitRules(ctx context.Context, ranked []injectRanked, limit int) ([]*injectBlock, error) {
	used := 0
	if h := in.counter.Count(injectHeading); h+budget.MinTruncated <= limit {
		used = h
	}
	var blocks []*injectBlock
	for _, rk := range ranked {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := rk.rule
		b := &injectBlock{rule: InjectedRule{
			ID: r.ID, Scope: r.Scope, Category: r.Category, Content: r.Content,
			Relevance: rk.score, InFile: rk.inFile, ExampleStatus: ExampleNone,
		}}
		line := "- " + strings.Join(strings.Fields(r.Content), " ")
		if r.Anchor != nil {
			ex, status, err := in.resolve(ctx, r)
			if err != nil {
				return nil, err
			}
			b.rule.ExampleStatus, b.example = status, ex
			switch status {
			case ExampleLost:
				line += " " + lostMarker
			case ExampleSecret:
				line += " " + withheldMarker
			}
		}
		b.line = line + "\n"
		n := in.counter.Count(b.line)
		if used+n <= limit {
			b.rule.Tokens, used = n, used+n
			blocks = append(blocks, b)
			continue
		}
		if rest := limit - used; rest >= budget.MinTruncated || len(blocks) == 0 {
			if cut := in.cutToFit(func(s string) string { return s + "\n" }, line, rest); cut != "" {
				b.line, b.rule.Truncated = cut, true
				b.rule.Tokens = in.counter.Count(cut)
				blocks = append(blocks, b)
			}
		}
		break
	}
	return blocks, nil
}

// cutToFit cuts text with the truncation marker so that wrap(cut) counts
// at most limit tokens, and returns wrap(cut), or "" when nothing fits.
func (in *injector) cutToFit(wrap func(string) string, text string, limit int) string {
	room := limit - (in.counter.Count(wrap("")) - in.counter.Count(""))
	for tries := 0; room > 0 && tries < 8; tries++ {
		cut, _ := budget.Truncate(text, room, in.counter)
		if cut == "" {
			return ""
		}
		out := wrap(cut)
		over := in.counter.Count(out) - limit
		if over <= 0 {
			return out
		}
		room -= over
	}
	return ""
}

// fitExamples adds the examples of the kept rules, in order, while they
// fit limit tokens; the first that does not is cut when enough room
// remains, and one that cannot be is left out.
func (in *injector) fitExamples(blocks []*injectBlock, limit int) {
	remaining := limit
	for _, b := range blocks {
		ex := b.example
		if ex == nil {
			continue
		}
		text := renderExample(ex, ex.code)
		if n := in.counter.Count(text); n <= remaining {
			b.exText, remaining = text, remaining-n
			b.rule.ExampleStatus = ExampleShown
			in.showExample(b, n)
			continue
		}
		b.rule.ExampleStatus = ExampleOverBudget
		overhead := in.counter.Count(renderExample(ex, ""))
		if remaining-overhead < budget.MinTruncated {
			continue
		}
		cut := in.cutToFit(func(code string) string { return renderExample(ex, code) }, ex.code, remaining)
		if cut == "" {
			continue
		}
		n := in.counter.Count(cut)
		b.exText, remaining = cut, remaining-n
		b.rule.ExampleStatus = ExampleCut
		ex.info.Truncated = true
		in.showExample(b, n)
	}
}

// showExample records the example shown in b's text, of n tokens.
func (in *injector) showExample(b *injectBlock, n int) {
	info := b.example.info
	info.Tokens = n
	// Code lines are those between the fences, the example line aside.
	info.Lines = max(strings.Count(b.exText, "\n")-3, 0)
	b.rule.Example = &info
}

// assemble joins the blocks into out's Markdown, dropping examples and
// then rules from the end while the whole counts more than the budget
// (tokens of joined pieces can differ from the sum of their counts).
func (in *injector) assemble(out *Injection, blocks []*injectBlock, considered int) {
	var md string
	for {
		var b strings.Builder
		if len(blocks) > 0 && out.Tokens.RulesBudget >= in.counter.Count(injectHeading)+budget.MinTruncated {
			b.WriteString(injectHeading)
		}
		for _, bl := range blocks {
			b.WriteString(bl.line)
			b.WriteString(bl.exText)
		}
		md = b.String()
		if in.counter.Count(md) <= out.Tokens.Budget || len(blocks) == 0 {
			break
		}
		last := blocks[len(blocks)-1]
		if last.exText != "" {
			last.exText, last.rule.Example, last.rule.ExampleStatus = "", nil, ExampleOverBudget
			continue
		}
		blocks = blocks[:len(blocks)-1]
	}
	out.Markdown = md
	out.Tokens.Total = in.counter.Count(md)
	if strings.HasPrefix(md, injectHeading) {
		out.Tokens.Rules = in.counter.Count(injectHeading)
	}
	for _, b := range blocks {
		out.Rules = append(out.Rules, b.rule)
		out.Tokens.Rules += b.rule.Tokens
		if b.rule.Truncated {
			out.RulesTruncated = true
		}
		if b.rule.Example != nil {
			out.Tokens.Examples += b.rule.Example.Tokens
		}
		switch b.rule.ExampleStatus {
		case ExampleCut, ExampleOverBudget:
			out.ExamplesTruncated = true
		}
	}
	out.Dropped = considered - len(blocks)
	if out.Dropped > 0 {
		out.RulesTruncated = true
	}
	out.Truncated = out.RulesTruncated || out.ExamplesTruncated
}

// renderExample returns an example's Markdown: its location, then its
// code in a fenced block, indented under the rule's list item.
func renderExample(ex *injectExample, code string) string {
	var b strings.Builder
	b.WriteString("  Example: ")
	if ex.info.Root != "" {
		b.WriteString(ProjectName(ex.info.Root) + "/")
	}
	fmt.Fprintf(&b, "%s:%d", ex.info.File, ex.info.Line)
	if ex.info.Symbol != "" {
		fmt.Fprintf(&b, " (%s)", ex.info.Symbol)
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	b.WriteString("\n  " + fence + ex.fence + "\n")
	if code != "" {
		for _, l := range strings.Split(code, "\n") {
			if l != "" {
				b.WriteString("  ")
			}
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("  " + fence + "\n")
	return b.String()
}

// resolve finds an anchor's example as the code is now. It returns the
// status ExampleLost when the symbol is gone and ExampleSecret for a file
// that may hold credentials.
func (in *injector) resolve(ctx context.Context, r Rule) (*injectExample, string, error) {
	a := r.Anchor
	rel := path.Clean(filepath.ToSlash(strings.TrimSpace(a.File)))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, ExampleLost, nil
	}
	if analysis.IsSecret(path.Base(rel)) {
		return nil, ExampleSecret, nil
	}
	root, here := in.anchorRoot(r)
	if root == "" && !here {
		return nil, ExampleLost, nil // another workspace, whose root is not known
	}
	line0 := max(ReadAnchorMeta(r).Line-1, 0)
	text, ok, err := in.readFile(root, rel, here)
	if err != nil {
		return nil, "", err
	}
	if ok && a.Symbol == "" {
		return newInjectExample(rel, "", root, here, text, analysis.Range{}, false, ""), ExampleShown, nil
	}
	if ok {
		sr, found, err := in.locate(ctx, root, rel, text, a.Symbol, line0, here)
		if err != nil {
			return nil, "", err
		}
		if found {
			return newInjectExample(rel, a.Symbol, root, here, text, sr, false, r.Content), ExampleShown, nil
		}
		// Renamed: the same code under another name.
		if h := ReadAnchorMeta(r).Hash; h != "" && a.Symbol != "" {
			syms, err := in.symbols(ctx, root, rel, text, here)
			if err != nil {
				return nil, "", err
			}
			lines := strings.Split(strings.ToValidUTF8(string(text), "\uFFFD"), "\n")
			for _, s := range syms {
				from, to := s.r.Start.Line, min(s.r.End.Line+1, len(lines))
				if from < 0 || from >= to {
					continue
				}
				if anchorFingerprint(lastPart(s.name), strings.Join(lines[from:to], "\n")) == h {
					return newInjectExample(rel, s.name, root, here, text, s.r, true, r.Content), ExampleShown, nil
				}
			}
		}
	}
	if a.Symbol == "" || !here {
		return nil, ExampleLost, nil
	}
	return in.findMoved(ctx, rel, a.Symbol, root, r.Content)
}

// locate finds the symbol named qname in a file's text, the one starting
// nearest to line0 (0-based) when there are several.
func (in *injector) locate(ctx context.Context, root, rel string, text []byte, qname string, line0 int, here bool) (analysis.Range, bool, error) {
	syms, err := in.symbols(ctx, root, rel, text, here)
	if err != nil {
		return analysis.Range{}, false, err
	}
	var best *injectSymbol
	for i := range syms {
		s := &syms[i]
		if s.name == qname && (best == nil || injectDistance(s.r.Start.Line, line0) < injectDistance(best.r.Start.Line, line0)) {
			best = s
		}
	}
	if best == nil {
		return analysis.Range{}, false, nil
	}
	return best.r, true, nil
}

// injectSymbol is a symbol of a file: its qualified name and range.
type injectSymbol struct {
	name string
	r    analysis.Range
}

// symbols returns the symbols of a file's text, once per file and call:
// from the index when it holds this very text, else by parsing it.
func (in *injector) symbols(ctx context.Context, root, rel string, text []byte, here bool) ([]injectSymbol, error) {
	key := root + "\x00" + rel
	if syms, ok := in.syms[key]; ok {
		return syms, nil
	}
	var syms []injectSymbol
	fresh := false
	if ix := in.deps.Index; ix != nil && here {
		h, indexed, err := ix.FileHash(ctx, rel)
		if err != nil {
			return nil, fmt.Errorf("symbols of %s: %w", rel, err)
		}
		if fresh = indexed && h == xxhash.Sum64(text); fresh {
			infos, err := ix.SymbolsInFile(ctx, rel)
			if err != nil {
				return nil, err
			}
			for _, s := range infos {
				syms = append(syms, injectSymbol{s.QualifiedName, s.Range})
			}
		}
	}
	if !fresh {
		lang, err := in.langs.ForPath(rel)
		if err != nil {
			return nil, err
		}
		if lang != nil {
			if in.parser == nil {
				in.parser = analysis.NewParser()
				in.parser.NoChunks = true
			}
			g, err := in.parser.Extract(ctx, lang, rel, text)
			if err != nil {
				return nil, err
			}
			for _, s := range g.Symbols {
				syms = append(syms, injectSymbol{s.QualifiedName, s.Range})
			}
		}
	}
	in.syms[key] = syms
	return syms, nil
}

// findMoved looks for a symbol gone from its anchored file elsewhere in
// the workspace: when exactly one other file of the same language defines
// it, the example is there.
func (in *injector) findMoved(ctx context.Context, rel, qname, root, rule string) (*injectExample, string, error) {
	ix := in.deps.Index
	if ix == nil {
		return nil, ExampleLost, nil
	}
	defs, err := ix.Lookup(ctx, qname)
	if err != nil {
		return nil, "", err
	}
	var found []analysis.SymbolInfo
	for _, d := range defs {
		if d.QualifiedName == qname && d.Path != rel && LanguageOfFile(d.Path) == LanguageOfFile(rel) &&
			!analysis.IsSecret(path.Base(d.Path)) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return nil, ExampleLost, nil
	}
	d := found[0]
	text, ok, err := in.readFile(root, d.Path, true)
	if err != nil || !ok {
		return nil, ExampleLost, err
	}
	r, ok, err := in.locate(ctx, root, d.Path, text, qname, d.Range.Start.Line, true)
	if err != nil || !ok {
		return nil, ExampleLost, err
	}
	return newInjectExample(d.Path, qname, root, true, text, r, true, rule), ExampleShown, nil
}

// newInjectExample cuts the lines of r (the whole file when symbol is
// "") out of text, dedented, at most MaxExampleLines of them. A longer
// symbol shows its first line and the lines that show rule (see
// ExcerptLines), with comments saying how many lines are left out; a
// file, or a symbol without a rule, its first lines, the last then saying
// how many more there are.
func newInjectExample(rel, symbol, root string, here bool, text []byte, r analysis.Range, moved bool, rule string) *injectExample {
	lines := strings.Split(strings.ToValidUTF8(string(text), "\uFFFD"), "\n")
	from, to := r.Start.Line, r.End.Line
	switch {
	case symbol == "":
		from, to = 0, len(lines)-1
	case r.End.Column == 0 && to > from:
		to-- // a range that ends where the next line starts
	}
	from = min(max(from, 0), len(lines)-1)
	to = min(max(to, from), len(lines)-1)
	sel := make([]string, 0, to-from+1)
	for _, l := range lines[from : to+1] {
		sel = append(sel, strings.TrimRight(l, " \t\r"))
	}
	for len(sel) > 1 && sel[len(sel)-1] == "" {
		sel = sel[:len(sel)-1]
	}
	fence := fenceLanguage(rel)
	ex := &injectExample{fence: fence, info: InjectedExample{
		File: rel, Symbol: symbol, Language: fence, Line: from + 1, EndLine: from + len(sel), Moved: moved,
	}}
	if !here {
		ex.info.Root = root
	}
	if len(sel) > MaxExampleLines && symbol != "" && rule != "" {
		// The signature, then the relevant span.
		body := sel[1:]
		lo, hi := ExcerptLines(rule, body, MaxExampleLines-3)
		out := []string{sel[0]}
		if lo > 0 {
			out = append(out, fmt.Sprintf("%s … %d lines", commentPrefix(fence), lo))
		}
		out = append(out, body[lo:hi+1]...)
		if after := len(body) - 1 - hi; after > 0 {
			out = append(out, fmt.Sprintf("%s … %d more lines", commentPrefix(fence), after))
		}
		sel = dedent(out)
		ex.info.Truncated = true
	} else if len(sel) > MaxExampleLines {
		more := len(sel) - (MaxExampleLines - 1)
		sel = append(dedent(sel[:MaxExampleLines-1]), fmt.Sprintf("%s … %d more lines", commentPrefix(fence), more))
		ex.info.Truncated = true
	} else {
		sel = dedent(sel)
	}
	ex.code = strings.Join(sel, "\n")
	return ex
}

// dedent removes the leading white space all non-blank lines share.
func dedent(lines []string) []string {
	prefix, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeftFunc(l, unicode.IsSpace))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if prefix == "" {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
	}
	return out
}

// fenceLanguage names a file's language for a Markdown code block.
func fenceLanguage(file string) string {
	switch ext := strings.ToLower(path.Ext(file)); ext {
	case ".tsx", ".jsx":
		return ext[1:]
	case "":
		return ""
	default:
		if l := LanguageOfFile(file); l != "" {
			return l
		}
		return ext[1:]
	}
}

// commentPrefix is how a line comment starts in a fence language.
func commentPrefix(fence string) string {
	switch fence {
	case "python", "ruby", "sh", "bash", "yaml", "toml":
		return "#"
	}
	return "//"
}

// injectDistance is how many lines apart a and b are.
func injectDistance(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}

// injectScopes are the scopes an injection for a file considers: those
// of st (with the team's for a member), or ScopesFor without a store.
func injectScopes(st *Store, lang, project string) []string {
	if st == nil {
		return ScopesFor(lang, project)
	}
	return st.ScopesFor(lang, project)
}
