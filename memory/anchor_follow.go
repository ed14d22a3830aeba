package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Errors reported by Anchorer.Choose; test for them with errors.Is.
var (
	// ErrNoSuchSymbol reports a symbol name that the workspace does not
	// define.
	ErrNoSuchSymbol = errors.New("no such symbol")
	// ErrAmbiguousSymbol reports a symbol name that names several
	// definitions.
	ErrAmbiguousSymbol = errors.New("the name is ambiguous")
)

// Choose makes the definition named symbol (a name, a qualified name, or
// a module-qualified one) the example of rule, as the user chose it: the
// result's Anchor is that definition, scored for the rule, and its
// RuleAnchor is marked manual, so that re-anchoring keeps it. file, when
// not "", is the file (relative to the root) that defines it, and line
// (1-based, 0 for any) picks among several definitions in it. A name the
// workspace does not define is ErrNoSuchSymbol, with the names nearest to
// it; one that names several definitions is ErrAmbiguousSymbol, listing
// them.
func (a *Anchorer) Choose(ctx context.Context, rule, symbol, file string, line int) (*AnchorResult, error) {
	rule, err := checkAnchorRule(rule)
	if err != nil {
		return nil, fmt.Errorf("choose an example: %w", err)
	}
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return nil, fmt.Errorf("choose an example: %w: the symbol name is empty", ErrNoSuchSymbol)
	}
	if a == nil || a.Searcher == nil || a.Searcher.Index == nil {
		return nil, errors.New("choose an example: no index to search")
	}
	ix := a.Searcher.Index
	file = strings.TrimSpace(file)
	if file != "" {
		file = path.Clean(filepath.ToSlash(file))
	}
	defs, err := anchorLookup(ctx, ix, symbol)
	if err != nil {
		return nil, fmt.Errorf("choose an example: %w", err)
	}
	var found []analysis.SymbolInfo
	for _, d := range defs {
		if d.Kind != analysis.KindModule && (file == "" || d.Path == file) {
			found = append(found, d)
		}
	}
	if line > 0 && len(found) > 1 {
		if sym, ok := analysis.NearestSymbol(found, found[0].QualifiedName, line-1); ok && allNamed(found, sym.QualifiedName) {
			found = []analysis.SymbolInfo{sym}
		}
	}
	switch {
	case len(found) == 0:
		where := "the workspace"
		if file != "" {
			where = file
		}
		msg := fmt.Sprintf("%s defines nothing named %q", where, symbol)
		// Names like it: those that match it, else its longest prefix
		// that matches some (a typo near the end).
		q := lastPart(symbol)
		for n := len(q); n >= 3; n-- {
			near, err := ix.Symbols(ctx, q[:n], 5)
			if err != nil || len(near) == 0 {
				continue
			}
			var names []string
			for _, n := range near {
				names = append(names, fmt.Sprintf("%s (%s:%d)", n.QualifiedName, n.Path, n.Range.Start.Line+1))
			}
			msg += "; names like it: " + strings.Join(names, ", ")
			break
		}
		return nil, fmt.Errorf("choose an example: %w: %s", ErrNoSuchSymbol, msg)
	case len(found) > 1:
		var names []string
		for i, d := range found {
			if i == 8 {
				names = append(names, "…")
				break
			}
			names = append(names, fmt.Sprintf("%s (%s:%d)", d.QualifiedName, d.Path, d.Range.Start.Line+1))
		}
		return nil, fmt.Errorf("choose an example: %w: %q names %d definitions: %s; give the file too",
			ErrAmbiguousSymbol, symbol, len(found), strings.Join(names, ", "))
	}
	sym := found[0]
	files := newAnchorFiles(ix.Root(), a.Searcher)
	text, mtime, ok, err := files.symbolText(sym)
	if err != nil {
		return nil, fmt.Errorf("choose an example: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("choose an example: %w: %s is no longer on disk", ErrNoSuchSymbol, sym.Path)
	}
	times, err := newAnchorMtimes(ctx, ix)
	if err != nil {
		return nil, fmt.Errorf("choose an example: %w", err)
	}
	rq := analyzeAnchorRule(rule)
	if err := a.weighTerms(ctx, &rq); err != nil {
		return nil, fmt.Errorf("choose an example: %w", err)
	}
	c := &anchorCand{sym: sym, rank: -1}
	f := rq.features(c, text, anchorStems(text))
	code := anchorStems(anchorCodeOnly(text, sym.Language))
	f.Code, f.codeTerms = rq.codeShare(sym.Name, code, true)
	f.File, _ = rq.codeShare("", code, false) // its file's only candidate
	f.Score = anchorScore(f)
	lines := sym.Range.End.Line - sym.Range.Start.Line + 1
	from, to := 0, lines-1
	if lines > anchorExcerptLines {
		from, to = rq.relevantSpan(strings.Split(text, "\n"), anchorExcerptLines)
	}
	cand := AnchorCandidate{
		File: sym.Path, Symbol: sym.QualifiedName, Kind: string(sym.Kind),
		Line: sym.Range.Start.Line + 1, EndLine: sym.Range.End.Line + 1,
		Relevance: anchorRound3(anchorRelevance(f)), Size: anchorRound3(anchorSizeScore(to - from + 1)),
		Recency:      anchorRound3(times.recency(mtime)),
		MatchedTerms: f.matched, KeyTerms: f.keyTerms,
		fingerprint: anchorFingerprint(sym.Name, text), manual: true,
	}
	if lines > anchorExcerptLines {
		cand.Excerpt = &LineSpan{From: cand.Line + from, To: cand.Line + to}
	}
	cand.Quality = anchorRound3(anchorWeightRelevance*cand.Relevance + anchorWeightSize*cand.Size + anchorWeightRecency*cand.Recency)
	return &AnchorResult{Rule: rule, Anchor: &cand, Candidates: []AnchorCandidate{cand}, Threshold: DefaultAnchorThreshold, Scope: ScopeUniversal}, nil
}

func allNamed(syms []analysis.SymbolInfo, qname string) bool {
	for _, s := range syms {
		if s.QualifiedName != qname {
			return false
		}
	}
	return true
}

func lastPart(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// FollowKind says how an anchor was found again.
type FollowKind string

// How anchors are found.
const (
	// FollowSame is an anchor whose symbol is where it was.
	FollowSame FollowKind = ""
	// FollowRenamed is a symbol renamed in its file: the same code
	// under another name.
	FollowRenamed FollowKind = "renamed"
	// FollowMoved is a symbol moved to another file: the same code, or
	// the only definition of its name once its file is gone.
	FollowMoved FollowKind = "moved"
)

// Follow finds rule r's anchor in the index as the code is now: its
// symbol where it was, else the same code renamed in its file (by the
// anchor's fingerprint), else the same code (or, when its file is gone,
// the only definition of its name) in another file. It reports false
// when the anchor is lost.
func (a *Anchorer) Follow(ctx context.Context, r Rule) (AnchorLocation, FollowKind, bool, error) {
	if r.Anchor == nil || r.Anchor.Symbol == "" {
		return AnchorLocation{}, FollowSame, false, nil
	}
	m := ReadAnchorMeta(r)
	file := path.Clean(filepath.ToSlash(r.Anchor.File))
	loc, ok, err := a.Locate(ctx, file, r.Anchor.Symbol, m.Line)
	if err != nil || ok {
		return loc, FollowSame, ok, err
	}
	ix := a.Searcher.Index
	files := newAnchorFiles(ix.Root(), a.Searcher)
	_, statErr := os.Stat(filepath.Join(ix.Root(), filepath.FromSlash(file)))
	fileGone := errors.Is(statErr, os.ErrNotExist)
	if m.Hash != "" && !fileGone {
		syms, err := ix.SymbolsInFile(ctx, file)
		if err != nil {
			return AnchorLocation{}, FollowSame, false, err
		}
		if sym, ok, err := sameCode(files, syms, m.Hash, m.Line); err != nil || ok {
			return symbolLocation(sym), FollowRenamed, ok, err
		}
	}
	defs, err := ix.Lookup(ctx, r.Anchor.Symbol)
	if err != nil {
		return AnchorLocation{}, FollowSame, false, err
	}
	var elsewhere []analysis.SymbolInfo
	for _, d := range defs {
		if d.Path != file && d.Kind != analysis.KindModule && !retrieval.IsTestPath(d.Path) {
			elsewhere = append(elsewhere, d)
		}
	}
	if m.Hash != "" {
		if sym, ok, err := sameCode(files, elsewhere, m.Hash, 0); err != nil || ok {
			return symbolLocation(sym), FollowMoved, ok, err
		}
	}
	if fileGone && len(elsewhere) == 1 {
		return symbolLocation(elsewhere[0]), FollowMoved, true, nil
	}
	return AnchorLocation{}, FollowSame, false, nil
}

// sameCode returns the symbol of syms whose code has the fingerprint
// hash, nearest to line (1-based) when several have it.
func sameCode(files *anchorFiles, syms []analysis.SymbolInfo, hash string, line int) (analysis.SymbolInfo, bool, error) {
	var best analysis.SymbolInfo
	found := false
	for _, s := range syms {
		if s.Kind == analysis.KindModule {
			continue
		}
		text, _, ok, err := files.symbolText(s)
		if err != nil {
			return analysis.SymbolInfo{}, false, err
		}
		if !ok || anchorFingerprint(s.Name, text) != hash {
			continue
		}
		if !found || absInt(s.Range.Start.Line+1-line) < absInt(best.Range.Start.Line+1-line) {
			best, found = s, true
		}
	}
	return best, found, nil
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func symbolLocation(sym analysis.SymbolInfo) AnchorLocation {
	return AnchorLocation{File: sym.Path, Symbol: sym.QualifiedName, Kind: string(sym.Kind),
		Line: sym.Range.Start.Line + 1, EndLine: sym.Range.End.Line + 1}
}

// FollowedAnchor returns rule r's anchor moved to the symbol sym (found
// again after a rename or a move; text is its code), keeping the rest of
// what the anchor says: whether the user chose it, its workspace, its
// threshold.
func FollowedAnchor(r Rule, sym analysis.SymbolInfo, text string) RuleAnchor {
	out := RuleAnchor{File: sym.Path, Symbol: sym.QualifiedName}
	var meta anchorMeta
	if r.Anchor != nil {
		out.Score = r.Anchor.Score
		if len(r.Anchor.Metadata) > 0 {
			_ = json.Unmarshal(r.Anchor.Metadata, &meta) // unreadable: start afresh
		}
	}
	meta.Line = sym.Range.Start.Line + 1
	meta.Hash = anchorFingerprint(sym.Name, text)
	meta.Excerpt = nil // the excerpt's lines may have moved
	if b, err := json.Marshal(meta); err == nil {
		out.Metadata = b
	}
	return out
}

// SymbolText returns the source of sym in the workspace's files (the
// searcher's overlay first), and false when its file is gone.
func (a *Anchorer) SymbolText(sym analysis.SymbolInfo) (string, bool, error) {
	text, _, ok, err := newAnchorFiles(a.Searcher.Index.Root(), a.Searcher).symbolText(sym)
	return text, ok, err
}

// SymbolFingerprint returns the fingerprint of a symbol's code (see
// AnchorMeta.Hash), given its name and its source.
func SymbolFingerprint(name, text string) string { return anchorFingerprint(name, text) }
