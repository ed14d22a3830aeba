package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Anchoring defaults.
const (
	// DefaultAnchorThreshold is the quality a candidate needs to become a
	// rule's anchor.
	DefaultAnchorThreshold = 0.7
	// DefaultAnchorCandidates is how many ranked candidates an
	// AnchorResult lists.
	DefaultAnchorCandidates = 10
	// MaxAnchorCandidates caps AnchorOptions.MaxCandidates.
	MaxAnchorCandidates = 100
)

// The weights of an anchor's quality, from the reference design:
// quality = 0.6·relevance + 0.2·size + 0.2·recency.
const (
	anchorWeightRelevance = 0.6
	anchorWeightSize      = 0.2
	anchorWeightRecency   = 0.2
)

// Errors reported by FindAnchor; test for them with errors.Is.
var (
	// ErrEmptyRule reports a rule without text.
	ErrEmptyRule = errors.New("rule text is empty")
	// ErrRuleTooLong reports a rule over MaxRuleBytes.
	ErrRuleTooLong = errors.New("rule text is too long")
	// ErrRuleNotText reports a rule with NUL bytes, control characters
	// or invalid UTF-8.
	ErrRuleNotText = errors.New("rule is not text")
)

// Anchorer finds the best concrete example of a coding rule in one
// workspace: a symbol (function, method, type) whose code shows the rule
// at work. It searches the workspace's index (BM25 over AST chunks with
// the vector signal, and the code graph for identifiers the rule names)
// and ranks candidates by quality = 0.6·relevance + 0.2·size +
// 0.2·recency (see FindAnchor).
//
// An Anchorer is safe for concurrent use. Between calls it keeps only
// what it read of the workspace's files (their lines and the words of
// their definitions, by each file's size and modification time), for the
// next rules; a changed file is read again.
type Anchorer struct {
	// Searcher searches the workspace's index; its Feedback, if any, is
	// not used: anchoring is not a user's search.
	Searcher *retrieval.Searcher
	// Project is the workspace's name for project:<name> scopes; ""
	// means ProjectName of the index's root.
	Project string

	// cache keeps the files and code stems read for one rule for the
	// next ones.
	cache anchorCache
}

// NewAnchorer returns an Anchorer over a workspace's searcher.
func NewAnchorer(s *retrieval.Searcher) *Anchorer {
	return &Anchorer{Searcher: s}
}

// AnchorOptions configure FindAnchor. The zero value anchors anywhere in
// the workspace with the default threshold.
type AnchorOptions struct {
	// Scope is the rule's scope: "universal" (or ""), "language:<lang>"
	// (candidates in that language only) or "project:<name>" (candidates
	// only when the workspace is that project).
	Scope string
	// Language, if set, restricts candidates to files of that language
	// ("go", "python", "typescript" also covering TSX, …). It must agree
	// with a language scope.
	Language string
	// Threshold is the quality the best candidate needs to be the anchor;
	// 0 means DefaultAnchorThreshold.
	Threshold float64
	// MaxCandidates is how many ranked candidates to return; 0 means
	// DefaultAnchorCandidates.
	MaxCandidates int
	// Origins are where the rule's corrections were made. A rule without
	// a language scope or Language anchors in the languages of their
	// files, and candidates in those files, their directories and their
	// neighbours in the code graph rank first.
	Origins []AnchorOrigin
}

// AnchorOrigin is a place a rule's correction was made.
type AnchorOrigin struct {
	// File is relative to the workspace root, with forward slashes.
	File string `json:"file"`
	// Line is the 1-based first line the correction was about, or 0
	// when only the file is known.
	Line int `json:"line,omitempty"`
}

// AnchorCandidate is a possible example of a rule, with its scores, all
// from 0 to 1.
type AnchorCandidate struct {
	// File is relative to the workspace root, with forward slashes.
	File string `json:"file"`
	// Symbol is the qualified name of the example
	// (UserRepository.FindByID).
	Symbol string `json:"symbol"`
	Kind   string `json:"kind"`
	// Line and EndLine are the symbol's first and last lines, 1-based.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Quality is 0.6·Relevance + 0.2·Size + 0.2·Recency.
	Quality float64 `json:"quality"`
	// Relevance is how well the symbol matches the rule (see
	// FindAnchor).
	Relevance float64 `json:"relevance"`
	// Size prefers examples of a readable length (5 to 40 lines).
	Size float64 `json:"size"`
	// Recency prefers recently changed files: the share of the
	// workspace's files changed before this one.
	Recency float64 `json:"recency"`
	// MatchedTerms of the rule's KeyTerms are found in the symbol's name,
	// doc comment, signature or code.
	MatchedTerms int `json:"matched_terms"`
	KeyTerms     int `json:"key_terms"`
	// Home says how the candidate relates to where the rule's
	// corrections were made: "symbol" (the one they were about), "file",
	// "neighbour" (calls or is called by it), "package" (the same
	// directory), or "" (elsewhere, or no corrections are known).
	Home string `json:"home,omitempty"`
	// Excerpt is the span of the symbol that shows the rule (1-based
	// lines, within Line and EndLine): what hover and injection show of
	// a long example.
	Excerpt *LineSpan `json:"excerpt,omitempty"`
	// fingerprint identifies the symbol's code without its name (see
	// anchorFingerprint); manual marks an example the user chose.
	fingerprint string
	manual      bool
}

// LineSpan is a span of lines, 1-based and inclusive.
type LineSpan struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// AnchorResult is what FindAnchor found for a rule.
type AnchorResult struct {
	Rule string `json:"rule"`
	// Anchor is the best candidate when its quality reaches the
	// threshold, else nil.
	Anchor *AnchorCandidate `json:"anchor"`
	// Candidates are the best candidates, best first, whether or not
	// they reach the threshold.
	Candidates []AnchorCandidate `json:"candidates"`
	Threshold  float64           `json:"threshold"`
	// Scope and Language are the restrictions that applied.
	Scope    string `json:"scope"`
	Language string `json:"language,omitempty"`
	// Reason says why there is no anchor.
	Reason    string  `json:"reason,omitempty"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// anchorMeta is the JSON kept in a rule's anchor_metadata column, kept
// short so that anchors grow the database little (see
// TestAnchorColumnsSize): single-letter keys, zero values left out, and
// nothing another column or the scope already says. The scores are not
// kept (anchor_score holds the quality), nor the time (updated_at).
type anchorMeta struct {
	// Line is the symbol's first line, 1-based, when it was anchored: it
	// chooses between symbols of the same name.
	Line int `json:"l,omitempty"`
	// Root is the root of the workspace the file is relative to, left
	// out when the rule's scope is that workspace's project (the rule
	// applies nowhere else, and the project finds the workspace).
	Root string `json:"r,omitempty"`
	// Project is the workspace's project, left out when the root's base
	// name or the rule's scope says it.
	Project string `json:"p,omitempty"`
	// Threshold is the anchoring threshold, left out when it is
	// DefaultAnchorThreshold.
	Threshold float64 `json:"t,omitempty"`
	// Manual marks an example the user chose: re-anchoring keeps it.
	Manual bool `json:"m,omitempty"`
	// Hash is the fingerprint of the symbol's code without its name, to
	// find it again after a rename or a move.
	Hash string `json:"h,omitempty"`
	// Excerpt is the span that shows the rule, as line offsets from the
	// symbol's first line, when it is shorter than the symbol.
	Excerpt []int `json:"x,omitempty"`
}

// legacyAnchorMeta is the metadata of anchors stored before it was
// trimmed, still read.
type legacyAnchorMeta struct {
	Line      int     `json:"line"`
	Project   string  `json:"project"`
	Root      string  `json:"root"`
	Threshold float64 `json:"threshold"`
}

// AnchorMeta is what a rule's anchor metadata says about where the anchor
// was made.
type AnchorMeta struct {
	// Line is the anchored symbol's first line (1-based) at anchoring
	// time, or 0.
	Line int
	// Root is the root of the workspace the anchor's file is relative
	// to, or "" when only its project is known.
	Root string
	// Project is the project of that workspace: the one stored, else the
	// base name of Root, else the project the rule's project scope
	// names, else "" (unknown: any workspace holding the file).
	Project string
	// Threshold is the threshold the anchor reached.
	Threshold float64
	// Manual is set for an example the user chose (see Anchorer.Choose):
	// re-anchoring keeps it until the user chooses another.
	Manual bool
	// Hash fingerprints the symbol's code without its name, or "".
	Hash string
	// Excerpt, when set, is the span of the symbol that shows the rule,
	// as 0-based line offsets from the symbol's first line, inclusive.
	Excerpt [2]int
	// HasExcerpt says whether Excerpt is set.
	HasExcerpt bool
}

// ReadAnchorMeta reads the metadata of rule r's anchor, in the current
// or the older format. Metadata that is missing or unreadable tells
// nothing more than the rule's scope.
func ReadAnchorMeta(r Rule) AnchorMeta {
	var m AnchorMeta
	if a := r.Anchor; a != nil && len(a.Metadata) > 0 {
		var cur anchorMeta
		var old legacyAnchorMeta
		// Both decode from either format; unknown keys are skipped.
		if json.Unmarshal(a.Metadata, &cur) == nil && json.Unmarshal(a.Metadata, &old) == nil {
			m = AnchorMeta{
				Line: cmp.Or(cur.Line, old.Line), Root: cmp.Or(cur.Root, old.Root),
				Project: cmp.Or(cur.Project, old.Project), Threshold: cmp.Or(cur.Threshold, old.Threshold),
				Manual: cur.Manual, Hash: cur.Hash,
			}
			if x := cur.Excerpt; len(x) == 2 && x[0] >= 0 && x[1] >= x[0] {
				m.Excerpt, m.HasExcerpt = [2]int{x[0], x[1]}, true
			}
		}
	}
	m.Threshold = cmp.Or(m.Threshold, DefaultAnchorThreshold)
	if m.Project == "" && m.Root != "" {
		m.Project = ProjectName(m.Root)
	}
	if m.Project == "" && scopeKind(r.Scope) == KindProject {
		m.Project = scopeName(r.Scope)
	}
	return m
}

// RuleAnchor returns the anchor columns of the result for Store.SetAnchor,
// or nil when there is no anchor. root and project say which workspace
// the anchor's file is relative to; the metadata keeps them unless the
// result's scope or the root says them.
func (r *AnchorResult) RuleAnchor(root, project string) *RuleAnchor {
	if r == nil || r.Anchor == nil {
		return nil
	}
	a := r.Anchor
	m := anchorMeta{Line: a.Line, Root: root, Project: project, Hash: a.fingerprint, Manual: a.manual}
	if x := a.Excerpt; x != nil && (x.From > a.Line || x.To < a.EndLine) {
		m.Excerpt = []int{x.From - a.Line, x.To - a.Line}
	}
	switch {
	case project != "" && r.Scope == KindProject+":"+project:
		m.Root, m.Project = "", ""
	case project == ProjectName(root):
		m.Project = ""
	}
	if r.Threshold != DefaultAnchorThreshold {
		m.Threshold = r.Threshold
	}
	meta, err := json.Marshal(m)
	if err != nil {
		meta = nil // cannot happen: plain numbers and strings
	}
	return &RuleAnchor{File: a.File, Symbol: a.Symbol, Score: a.Quality, Metadata: meta}
}

// AnchorRule finds the anchor of a rule with the default threshold and
// returns its columns for Store.SetAnchor, or nil when no example is
// good enough. scope is the rule's scope and language, if not "", the
// language its examples must be in.
func (a *Anchorer) AnchorRule(ctx context.Context, rule, scope, language string) (*RuleAnchor, error) {
	res, err := a.FindAnchor(ctx, rule, AnchorOptions{Scope: scope, Language: language})
	if err != nil {
		return nil, err
	}
	return res.RuleAnchor(a.Searcher.Index.Root(), a.project()), nil
}

// AnchorLocation is where an anchor's symbol is now.
type AnchorLocation struct {
	File    string `json:"file"`
	Symbol  string `json:"symbol"`
	Kind    string `json:"kind"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
}

// Locate resolves a stored anchor through the live graph: the symbol
// named symbol in file, nearest to line (1-based; 0 when unknown). It
// reports false when the file is gone from disk or the index, or no
// longer defines the symbol: the anchor is lost and the rule needs
// re-anchoring.
func (a *Anchorer) Locate(ctx context.Context, file, symbol string, line int) (AnchorLocation, bool, error) {
	ix := a.Searcher.Index
	if _, err := os.Stat(filepath.Join(ix.Root(), filepath.FromSlash(file))); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return AnchorLocation{}, false, nil
		}
		return AnchorLocation{}, false, fmt.Errorf("locate anchor %s in %s: %w", symbol, file, err)
	}
	sym, ok, err := ix.FindSymbol(ctx, file, symbol, max(line-1, 0))
	if err != nil || !ok {
		return AnchorLocation{}, false, err
	}
	return AnchorLocation{File: sym.Path, Symbol: sym.QualifiedName, Kind: string(sym.Kind),
		Line: sym.Range.Start.Line + 1, EndLine: sym.Range.End.Line + 1}, true, nil
}

// ProjectName returns the workspace's name for project:<name> scopes.
func (a *Anchorer) ProjectName() string { return a.project() }

func (a *Anchorer) project() string {
	if a.Project != "" {
		return a.Project
	}
	return ProjectName(a.Searcher.Index.Root())
}

// checkAnchorRule validates a rule's text and returns it trimmed.
func checkAnchorRule(rule string) (string, error) {
	if problem := retrieval.NotText(rule); problem != "" {
		return "", fmt.Errorf("%w: %s", ErrRuleNotText, problem)
	}
	rule = strings.TrimSpace(rule)
	switch {
	case rule == "":
		return "", ErrEmptyRule
	case len(rule) > MaxRuleBytes:
		return "", fmt.Errorf("%w: %d bytes, the limit is %d", ErrRuleTooLong, len(rule), MaxRuleBytes)
	}
	return rule, nil
}

// anchorScope resolves the scope and language options into the language
// candidates must have ("" for any) and, when the rule cannot anchor in
// this workspace, the reason.
func (a *Anchorer) anchorScope(opts AnchorOptions) (scope, lang, skip string, err error) {
	scope = ScopeUniversal
	if strings.TrimSpace(opts.Scope) != "" {
		if scope, err = NormalizeScope(opts.Scope); err != nil {
			return "", "", "", err
		}
	}
	if opts.Language != "" {
		if lang = NormalizeLanguage(opts.Language); lang == "" {
			return "", "", "", fmt.Errorf("%q is not a language name", opts.Language)
		}
	}
	switch scopeKind(scope) {
	case KindLanguage:
		if lang != "" && lang != scopeName(scope) {
			return "", "", "", fmt.Errorf("language %s contradicts scope %s", lang, scope)
		}
		lang = scopeName(scope)
	case KindProject:
		if p := a.project(); scopeName(scope) != p {
			skip = fmt.Sprintf("scope %s is another project than this workspace (project:%s)", scope, p)
		}
	}
	return scope, lang, skip, nil
}

// FindAnchor finds the best example of rule in the workspace.
//
// Candidates come from a semantic search of the rule's key words (BM25
// over identifier-split, stemmed terms of AST chunks, with code
// abbreviations and the vector signal) and from the code graph: the
// definitions of identifiers the rule names (sync.Once,
// UserRepository.FindByID, writeError) and their callers. Each candidate
// symbol is scored:
//
//   - relevance, within [0, 1]: a logistic function of the evidence that
//     the symbol shows the rule. A ranking score weighs the IDF-weighted
//     share of the rule's key terms (identifier-split, stemmed, with code
//     abbreviations) found in the symbol's name, doc comment, signature
//     and code, the same share in its name alone, its rank in the
//     semantic search, whether it defines (or calls) an identifier the
//     rule names or holds a fragment the rule quotes, and whether it is
//     test code; relevance adds the lead of the score over the other
//     candidates, the share of all the rule's words the symbol covers,
//     the share the workspace uses at all, and the size of the index.
//     Its parameters are calibrated on rule sets with known best examples
//     so that the default threshold separates right examples from wrong
//     ones (see anchorCalibration);
//   - size: 1 for 5 to 40 lines, less for shorter and longer symbols;
//   - recency: the share of the workspace's files last changed before the
//     candidate's (by the hour; 0.5 when they all changed together).
//
// quality = 0.6·relevance + 0.2·size + 0.2·recency; the best candidate
// is the anchor when its quality reaches the threshold. Candidates in
// files that no longer exist are skipped. A rule of another project, or
// whose words the workspace never uses, gets no anchor, with a reason.
func (a *Anchorer) FindAnchor(ctx context.Context, rule string, opts AnchorOptions) (*AnchorResult, error) {
	start := time.Now()
	rule, err := checkAnchorRule(rule)
	if err != nil {
		return nil, fmt.Errorf("anchor rule: %w", err)
	}
	if a == nil || a.Searcher == nil || a.Searcher.Index == nil {
		return nil, errors.New("anchor rule: no index to search")
	}
	threshold := opts.Threshold
	switch {
	case threshold == 0:
		threshold = DefaultAnchorThreshold
	case math.IsNaN(threshold) || threshold < 0 || threshold > 1:
		return nil, fmt.Errorf("anchor rule: threshold %v is not between 0 and 1", opts.Threshold)
	}
	maxCands := opts.MaxCandidates
	switch {
	case maxCands <= 0:
		maxCands = DefaultAnchorCandidates
	case maxCands > MaxAnchorCandidates:
		maxCands = MaxAnchorCandidates
	}
	scope, lang, skip, err := a.anchorScope(opts)
	if err != nil {
		return nil, fmt.Errorf("anchor rule: %w", err)
	}
	langs := anchorLanguages(lang, opts.Origins)
	res := &AnchorResult{Rule: rule, Candidates: []AnchorCandidate{}, Threshold: threshold, Scope: scope, Language: strings.Join(langs, ", ")}
	defer func() { res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000 }()
	if skip != "" {
		res.Reason = skip
		return res, nil
	}
	// A universal rule may anchor in any language, but outside its
	// corrections' languages only on a strong match.
	var required, preferred []string
	if lang != "" || scope != ScopeUniversal {
		required = langs
	} else {
		preferred = langs
	}
	scored, reason, err := a.rankIn(ctx, rule, required, preferred, opts.Origins)
	if err != nil {
		return nil, fmt.Errorf("anchor rule %q: %w", anchorShorten(rule, 60), err)
	}
	for i := range scored {
		if i == maxCands {
			break
		}
		res.Candidates = append(res.Candidates, scored[i].AnchorCandidate)
	}
	switch {
	case len(scored) > 0 && scored[0].Quality >= threshold && !strings.HasPrefix(reason, anchorVague):
		best := scored[0].AnchorCandidate
		res.Anchor = &best
	case reason != "":
		res.Reason = reason
	case len(scored) == 0:
		res.Reason = "no example yet: nothing in the workspace matches the rule"
		if len(langs) > 0 {
			res.Reason = "no example yet: nothing in the workspace's " + strings.Join(langs, " or ") + " code matches the rule"
		}
	default:
		b := scored[0]
		res.Reason = fmt.Sprintf("no example yet: best candidate %s (%s) matched %d of %d key terms; quality %.2f is under the threshold %.2f",
			b.Symbol, location1(b.File, b.Line), b.MatchedTerms, b.KeyTerms, b.Quality, threshold)
	}
	return res, nil
}

// location1 formats a file and a 1-based line.
func location1(file string, line int) string { return fmt.Sprintf("%s:%d", file, line) }

// anchorLanguages returns the languages a rule's examples must be in: lang
// when the scope or the caller says it, else the languages of the files
// its corrections were made in (none: any language).
func anchorLanguages(lang string, origins []AnchorOrigin) []string {
	if lang != "" {
		return []string{lang}
	}
	var out []string
	for _, o := range origins {
		if l := LanguageOfFile(o.File); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// anchorShorten cuts s to at most n bytes, at a rune boundary, with an
// ellipsis.
func anchorShorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// anchorScored is a candidate with what ranked it.
type anchorScored struct {
	AnchorCandidate
	features anchorFeatures
	// lines is the symbol's length.
	lines int
	// lang is the candidate's language; foreign marks one outside the
	// languages the rule prefers.
	lang    string
	foreign bool
	// relevance is Relevance before rounding, which orders the
	// candidates.
	relevance float64
	// code are the stems of the candidate's statements (see
	// anchorCodeOnly).
	code map[string]bool
}

// quotedLanguage returns the language of the candidates that hold code
// the rule quotes, when they are all of one language.
func quotedLanguage(cands []anchorScored) []string {
	var lang string
	for _, c := range cands {
		if c.features.Literal == 0 {
			continue
		}
		if lang != "" && c.lang != lang {
			return nil
		}
		lang = c.lang
	}
	if lang == "" {
		return nil
	}
	return []string{lang}
}

// Candidate pool sizes: how many semantic results are scored, how many
// definitions of a named identifier are taken (more means the name is
// too common to say which one the rule means), and how many of their
// callers.
const (
	anchorSemanticPool = 40
	anchorIdentDefs    = 6
	anchorIdentUses    = 12
)

// rank gathers and scores the candidates for a rule, best first: those
// in langs only (any language when empty), never test code unless the
// rule is about tests. origins are where the rule's corrections were
// made. reason is set when the rule cannot be anchored at all.
func (a *Anchorer) rank(ctx context.Context, rule string, langs []string, origins []AnchorOrigin) ([]anchorScored, string, error) {
	return a.rankIn(ctx, rule, langs, nil, origins)
}

// anchorStrongRelevance is the relevance a candidate needs in a language
// other than the one the rule prefers.
const anchorStrongRelevance = 0.9

// rankIn is rank with the candidates in langs only (any language when
// empty) and, outside preferred languages, only those whose relevance
// reaches anchorStrongRelevance. Without either, a rule that quotes code
// (%w, sync.Once, fmt::Display) prefers the language of the code that
// holds it, when that is one language.
func (a *Anchorer) rankIn(ctx context.Context, rule string, langs, preferred []string, origins []AnchorOrigin) ([]anchorScored, string, error) {
	ix := a.Searcher.Index
	rq := analyzeAnchorRule(rule)
	if len(rq.terms) == 0 && len(rq.idents) == 0 {
		return nil, "no example yet: the rule has no words to look for in code (only common words)", nil
	}
	if err := a.weighTerms(ctx, &rq); err != nil {
		return nil, "", err
	}
	pool := newAnchorPool()

	// The semantic search of the rule's own sentence, as a user asks
	// the search: ranks are the agreement signal. The whole sentence
	// ranked the sets' examples better than its key words alone.
	if rq.searchText() != "" {
		q := rule
		s := *a.Searcher
		s.Feedback = nil
		s.IgnoreVisibility = true // an example may be any function
		s.NoExpansion = true      // the features score every word of the rule
		resp, err := s.Search(ctx, retrieval.Request{Query: q, Strategy: retrieval.Semantic, TopK: anchorSemanticPool})
		var qe *retrieval.QueryError
		if err != nil && !errors.As(err, &qe) {
			return nil, "", err
		}
		if err == nil {
			rank := 0
			for _, r := range resp.Results {
				if r.Symbol == "" {
					continue // module-level code is not a symbol
				}
				sym, ok, err := ix.FindSymbol(ctx, r.File, r.Symbol, r.Line-1)
				if err != nil {
					return nil, "", err
				}
				if ok {
					pool.add(sym).rank = rank
					rank++
				}
			}
		}
	}

	// The graph: definitions of the identifiers the rule names, and the
	// code that calls them.
	for _, id := range rq.idents {
		if rq.topicWord(id) {
			continue // the workspace's subject (SQLite), not one definition
		}
		defs, err := anchorLookup(ctx, ix, id)
		if err != nil {
			return nil, "", err
		}
		defs = anchorPreferShipped(defs, rq.aboutTests)
		if len(defs) > anchorIdentDefs {
			continue // too common a name to mean one definition
		}
		for _, d := range defs {
			c := pool.add(d)
			c.defines = append(c.defines, strings.ToLower(id))
			// An error the rule names ("raise LimitOverrunError",
			// "return ErrFrameTooLarge") is shown by the code that
			// raises it, not by its definition.
			c.named = c.named || !anchorErrorName(d)
		}
		if len(defs) > 2 {
			continue
		}
		for _, d := range defs {
			calls, err := ix.Callers(ctx, d)
			if err != nil {
				return nil, "", err
			}
			seen := map[int64]bool{}
			for _, c := range calls {
				if seen[c.Caller.ID] || c.Caller.Kind == analysis.KindModule {
					continue
				}
				seen[c.Caller.ID] = true
				pool.add(c.Caller).uses = true
				if len(seen) == anchorIdentUses {
					break
				}
			}
		}
	}

	// Names that spell the rule (checkHeader for "check the header").
	spelled, err := a.addSpelled(ctx, &rq, pool)
	if err != nil {
		return nil, "", err
	}
	// Names built of the rule's weightiest terms (checkDeltaChainDepth).
	if err := a.addNamed(ctx, &rq, pool); err != nil {
		return nil, "", err
	}
	// Where the corrections were made, and around it.
	home, err := a.addHome(ctx, origins, pool)
	if err != nil {
		return nil, "", err
	}

	times, err := newAnchorMtimes(ctx, ix)
	if err != nil {
		return nil, "", err
	}
	files := a.files()
	// build scores one candidate; false when it cannot be one.
	build := func(c *anchorCand) (anchorScored, string, bool, error) {
		sym := c.sym
		if sym.Kind == analysis.KindModule || !anchorLanguageMatches(langs, sym.Language) {
			return anchorScored{}, "", false, nil
		}
		if !rq.aboutTests && (retrieval.IsTestPath(sym.Path) || retrieval.IsFixturePath(sym.Path)) {
			return anchorScored{}, "", false, nil // test code shows rules about tests only
		}
		text, mtime, ok, err := files.symbolText(sym)
		if err != nil {
			return anchorScored{}, "", false, err
		}
		if !ok {
			return anchorScored{}, "", false, nil // the file is gone: the index has not caught up yet
		}
		if files.buildIgnored(sym.Path) {
			return anchorScored{}, "", false, nil // a generator or a tool that is never built (//go:build ignore)
		}
		if !c.named && anchorStub(sym, text) {
			return anchorScored{}, "", false, nil // a signature without the code that shows the rule
		}
		body, code := files.cache.spanStems(files.stemKey(sym), text, sym.Language)
		f := rq.features(c, text, body)
		f.Code, f.codeTerms = rq.codeShare(sym.Name, code, true)
		f.Spell = math.Max(spelled.of(sym), rq.nameSpell(sym.Name))
		f.Vector = rq.vectorSimilarity(text)
		f.Home = home.of(sym)
		lines := sym.Range.End.Line - sym.Range.Start.Line + 1
		f.Long = anchorLong(lines)
		from, to := 0, lines-1
		if lines > anchorExcerptLines {
			from, to = rq.relevantSpan(strings.Split(text, "\n"), anchorExcerptLines)
		}
		cand := AnchorCandidate{
			File: sym.Path, Symbol: sym.QualifiedName, Kind: string(sym.Kind),
			Line: sym.Range.Start.Line + 1, EndLine: sym.Range.End.Line + 1,
			Size:         anchorSizeScore(to - from + 1),
			Recency:      times.recency(mtime),
			MatchedTerms: f.matched, KeyTerms: f.keyTerms,
			Home:        home.label(sym),
			fingerprint: anchorFingerprint(sym.Name, text),
		}
		if lines > anchorExcerptLines {
			cand.Excerpt = &LineSpan{From: cand.Line + from, To: cand.Line + to}
		}
		return anchorScored{AnchorCandidate: cand, features: f, lines: lines, lang: NormalizeLanguage(sym.Language), code: code}, text, true, nil
	}
	var out []anchorScored
	var syms []analysis.SymbolInfo
	var texts []string
	for _, c := range pool.list {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		sc, text, ok, err := build(c)
		if err != nil {
			return nil, "", err
		}
		if ok {
			out, syms, texts = append(out, sc), append(syms, c.sym), append(texts, text)
		}
	}
	// Helpers that do the best candidates' work.
	out, err = a.anchorDelegation(ctx, &rq, out, syms, texts, func(sym analysis.SymbolInfo) (anchorScored, bool, error) {
		sc, _, ok, err := build(pool.add(sym))
		return sc, ok, err
	})
	if err != nil {
		return nil, "", err
	}
	rq.anchorFileShares(out)
	if len(langs) == 0 && len(preferred) == 0 {
		preferred = quotedLanguage(out)
	}
	for i := range out {
		out[i].foreign = len(preferred) > 0 && !slices.Contains(preferred, out[i].lang)
	}
	anchorMargins(out)
	kept := out[:0]
	for i := range out {
		sc := out[i]
		sc.Relevance = anchorRelevance(sc.features)
		sc.relevance = sc.Relevance
		if sc.foreign && sc.Relevance < anchorStrongRelevance {
			continue
		}
		sc.Quality = anchorWeightRelevance*sc.Relevance + anchorWeightSize*sc.Size + anchorWeightRecency*sc.Recency
		sc.Relevance, sc.Size, sc.Recency, sc.Quality = anchorRound3(sc.Relevance), anchorRound3(sc.Size), anchorRound3(sc.Recency), anchorRound3(sc.Quality)
		kept = append(kept, sc)
	}
	out = kept
	// Relevance orders the candidates; size and recency only break its
	// ties: a long function that is the best example stays the example.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		switch {
		case a.relevance != b.relevance:
			// Unrounded: relevances near 1 differ past the third digit.
			return a.relevance > b.relevance
		case a.Size != b.Size:
			return a.Size > b.Size
		case a.lines != b.lines:
			return a.lines < b.lines
		}
		return a.Recency > b.Recency
	})
	reason := ""
	if rq.keyTerms() < 2 && len(rq.idents) == 0 && len(rq.literals) == 0 {
		// One word ("Logging") says too little to choose an example.
		reason = anchorVague + "; choose one with anchorage memory reanchor ID --symbol NAME"
	} else if rq.grounded < anchorMinGrounded && len(out) > 0 && out[0].features.Home == 0 {
		reason = fmt.Sprintf("no example yet: the workspace's code uses %d of the rule's %d key terms (%s)",
			rq.knownTerms(), rq.keyTerms(), rq.unknownList())
	}
	return out, reason, nil
}

// anchorVague begins the reason of a rule too vague to anchor.
const anchorVague = "no example yet: a rule of one key word says too little to choose an example"

// anchorMinGrounded is the share of a rule's weight below which the
// reason for a missing anchor is the rule's vocabulary rather than its examples.
const anchorMinGrounded = 0.35

func anchorRound3(x float64) float64 { return math.Round(x*1000) / 1000 }

// anchorLookup finds the definitions an identifier the rule names
// means: the name as written (UserRepository.FindByID, sync.Once), else
// its last part (rows.Close → Close).
func anchorLookup(ctx context.Context, ix *analysis.Index, id string) ([]analysis.SymbolInfo, error) {
	defs, err := ix.Lookup(ctx, id)
	if err != nil || len(defs) > 0 {
		return defs, err
	}
	if i := strings.LastIndexAny(id, ".:"); i >= 0 && i+1 < len(id) {
		return ix.Lookup(ctx, id[i+1:])
	}
	return nil, nil
}

// anchorErrorName reports whether a definition is an error type: a
// class, struct or type named …Error, …Exception or …Warning.
func anchorErrorName(d analysis.SymbolInfo) bool {
	if !d.Kind.IsType() {
		return false
	}
	for _, suffix := range []string{"Error", "Exception", "Warning"} {
		if strings.HasSuffix(d.Name, suffix) && len(d.Name) > len(suffix) {
			return true
		}
	}
	return false
}

// anchorPreferShipped drops definitions in test files when there are others,
// unless the rule is about tests.
func anchorPreferShipped(defs []analysis.SymbolInfo, aboutTests bool) []analysis.SymbolInfo {
	if aboutTests {
		return defs
	}
	var out []analysis.SymbolInfo
	for _, d := range defs {
		if !retrieval.IsTestPath(d.Path) && !retrieval.IsFixturePath(d.Path) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return defs
	}
	return out
}

// anchorLanguageMatches reports whether a file of language fileLang (as the
// index names it) may hold an example for a rule restricted to langs
// (none: any language).
func anchorLanguageMatches(langs []string, fileLang string) bool {
	return len(langs) == 0 || slices.Contains(langs, NormalizeLanguage(fileLang))
}

// candidate is a symbol gathered for scoring, with how it was found.
type anchorCand struct {
	sym analysis.SymbolInfo
	// rank is the 0-based rank in the semantic search, -1 if not found
	// there.
	rank int
	// named is set for a definition of an identifier the rule names;
	// uses for a symbol that calls one.
	named, uses bool
	// defines are the identifiers (lower-case, as the rule writes them)
	// that the symbol defines.
	defines []string
}

// anchorPool gathers candidates once each, in order of discovery.
type anchorPool struct {
	byID map[int64]*anchorCand
	list []*anchorCand
}

func newAnchorPool() *anchorPool { return &anchorPool{byID: map[int64]*anchorCand{}} }

// add returns the pool's candidate for sym, adding it if new.
func (p *anchorPool) add(sym analysis.SymbolInfo) *anchorCand {
	if c, ok := p.byID[sym.ID]; ok {
		return c
	}
	c := &anchorCand{sym: sym, rank: -1}
	p.byID[sym.ID] = c
	p.list = append(p.list, c)
	return c
}

// anchorFiles reads the files of candidates once per ranking.
type anchorFiles struct {
	root     string
	searcher *retrieval.Searcher
	files    map[string]anchorFile
	// cache, if not nil, keeps files read from disk across rankings.
	cache *anchorCache
}

type anchorFile struct {
	lines []string
	mtime time.Time
	// size is the file's size on disk, -1 for a document of the overlay.
	size int64
	ok   bool
}

func newAnchorFiles(root string, s *retrieval.Searcher) *anchorFiles {
	return &anchorFiles{root: root, searcher: s, files: map[string]anchorFile{}}
}

// files returns a reader of the workspace's files for one ranking that
// shares what it reads with the next ones.
func (a *Anchorer) files() *anchorFiles {
	fc := newAnchorFiles(a.Searcher.Index.Root(), a.Searcher)
	fc.cache = &a.cache
	return fc
}

// buildIgnored reports whether a Go file already read is excluded from
// every build by an "ignore" constraint (//go:build ignore, or the
// older // +build ignore) before its package clause: code generators
// and one-off tools kept beside a package, not code that shows how it
// works.
func (fc *anchorFiles) buildIgnored(path string) bool {
	f, ok := fc.files[path]
	if !ok || !f.ok || !strings.HasSuffix(path, ".go") {
		return false
	}
	for _, l := range f.lines {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "package "):
			return false
		case strings.HasPrefix(l, "//go:build "), strings.HasPrefix(l, "// +build "):
			expr := strings.TrimSpace(l[strings.Index(l, "build ")+len("build "):])
			if expr == "ignore" {
				return true
			}
		}
	}
	return false
}

// stemKey is the key of a symbol's code in the cache of stems, or the
// zero key when its file is not cached (an overlay's document).
func (fc *anchorFiles) stemKey(sym analysis.SymbolInfo) anchorStemKey {
	f, ok := fc.files[sym.Path]
	if !ok || !f.ok || f.size < 0 || fc.cache == nil || !anchorSettled(f.mtime) {
		return anchorStemKey{}
	}
	return anchorStemKey{path: sym.Path, size: f.size, mtime: f.mtime.UnixNano(), from: sym.Range.Start.Line, to: sym.Range.End.Line}
}

// symbolText returns the source of a symbol and its file's modification
// time; ok is false when the file no longer exists. Documents open in an
// editor (the searcher's overlay) count as changed now.
func (fc *anchorFiles) symbolText(sym analysis.SymbolInfo) (string, time.Time, bool, error) {
	f, seen := fc.files[sym.Path]
	if !seen {
		abs := filepath.Join(fc.root, filepath.FromSlash(sym.Path))
		var text []byte
		var err error
		cached := false
		if fc.searcher.Overlay != nil {
			if t, ok := fc.searcher.Overlay(sym.Path); ok {
				text, f.mtime, f.size, f.ok = t, time.Now(), -1, true
			}
		}
		if !f.ok {
			var info os.FileInfo
			info, err = os.Stat(abs)
			if err == nil {
				f.mtime, f.size = info.ModTime(), info.Size()
				if f.lines, cached = fc.cache.file(sym.Path, f.size, f.mtime); !cached {
					text, err = os.ReadFile(abs)
				}
			}
			switch {
			case errors.Is(err, os.ErrNotExist):
			case err != nil:
				return "", time.Time{}, false, fmt.Errorf("read %s: %w", sym.Path, err)
			default:
				f.ok = true
			}
		}
		if f.ok && !cached {
			f.lines = strings.Split(strings.ToValidUTF8(string(text), "\uFFFD"), "\n")
			if f.size >= 0 && int64(len(text)) == f.size && anchorSettled(f.mtime) {
				// Read whole as stat saw it: the next rules may reuse it.
				fc.cache.putFile(sym.Path, f.size, f.mtime, f.lines)
			}
		}
		fc.files[sym.Path] = f
	}
	if !f.ok {
		return "", time.Time{}, false, nil
	}
	from, to := sym.Range.Start.Line, sym.Range.End.Line+1
	if from < 0 || from >= len(f.lines) {
		return "", time.Time{}, false, nil // the file changed under the index
	}
	return strings.Join(f.lines[from:min(to, len(f.lines))], "\n"), f.mtime, true, nil
}

// anchorMtimes are the modification times of the workspace's files, by the
// hour, sorted: the recency of a file is the share of files changed
// before it.
type anchorMtimes struct{ hours []int64 }

// newAnchorMtimes reads the modification times of the indexed files.
func newAnchorMtimes(ctx context.Context, ix *analysis.Index) (*anchorMtimes, error) {
	mtimes, err := ix.FileModTimes(ctx)
	if err != nil {
		return nil, err
	}
	var m anchorMtimes
	for _, ns := range mtimes {
		m.hours = append(m.hours, ns/int64(time.Hour))
	}
	sort.Slice(m.hours, func(i, j int) bool { return m.hours[i] < m.hours[j] })
	return &m, nil
}

// recency returns the share of files changed in an earlier hour than t,
// counting those of the same hour half: 0.5 when every file changed in
// the same hour (a fresh checkout), near 1 for the newest of many.
func (m *anchorMtimes) recency(t time.Time) float64 {
	n := len(m.hours)
	if n == 0 {
		return 0.5
	}
	h := t.UnixNano() / int64(time.Hour)
	below := sort.Search(n, func(i int) bool { return m.hours[i] >= h })
	upto := sort.Search(n, func(i int) bool { return m.hours[i] > h })
	r := (float64(below) + 0.5*float64(upto-below)) / float64(n)
	if upto == below { // a time the index has not seen: newer or older
		r = float64(below) / float64(n)
	}
	return math.Max(0, math.Min(1, r))
}

// anchorExcerptLines is the longest excerpt of an example shown: a longer
// symbol is shown by its lines that match the rule (see relevantSpan), and
// its size is that excerpt's.
const anchorExcerptLines = 40

// anchorSizeScore prefers examples a reader takes in at a glance that
// still show something: 1 from 5 to 40 lines, 0.5 for one line rising by
// 0.125 a line below 5, and 40/lines above 40 (0.5 at 80 lines). A
// candidate is scored by the lines it is shown with (at most
// anchorExcerptLines), so that a long function that is the best example
// stays the example.
func anchorSizeScore(lines int) float64 {
	switch {
	case lines <= 1:
		return 0.5
	case lines < 5:
		return 0.5 + 0.125*float64(lines-1)
	case lines <= 40:
		return 1
	}
	return 40 / float64(lines)
}
