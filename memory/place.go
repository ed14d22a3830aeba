package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// AnchorStatus says where a rule's anchor stands among the open
// workspaces.
type AnchorStatus string

// Anchor statuses.
const (
	// AnchorLive is an anchor whose symbol is found in an open
	// workspace, where it is now.
	AnchorLive AnchorStatus = "anchored"
	// AnchorLost is an anchor whose file or symbol is gone from its
	// workspace: the rule needs re-anchoring.
	AnchorLost AnchorStatus = "lost"
	// AnchorElsewhere is an anchor in a workspace that is not open.
	AnchorElsewhere AnchorStatus = "elsewhere"
	// AnchorPending is an anchor whose symbol cannot be told present or
	// gone yet: its workspace is being indexed.
	AnchorPending AnchorStatus = "pending"
	// AnchorNone is a rule without an anchor.
	AnchorNone AnchorStatus = "none"
)

// Workspace is an open workspace as anchors see it (a folder of the
// language server): where the anchor engine searches, and where anchors
// are resolved through the live graph. The caller fills it in with what
// it knows of the workspace; anchors ask the caller nothing more.
type Workspace struct {
	// Root is the workspace's root directory, as its index has it.
	Root string
	// Project names the workspace for project:<name> scopes.
	Project string
	// Live is the workspace's live graph: the editor's open documents
	// over its index.
	Live *analysis.Workspace
	// Searcher searches the index of Live for the anchor engine (with
	// the open documents' text as its overlay).
	Searcher *retrieval.Searcher
	// Indexing is set when the index is being updated, when a symbol
	// missing from it may only be not indexed yet.
	Indexing bool
	// Nested are the roots of other open workspaces inside this one,
	// relative to Root with forward slashes: their files are not this
	// workspace's.
	Nested []string
}

// HasFile reports whether the workspace holds a file, named relative to
// its root with forward slashes: open in the editor, or on disk and not
// in a nested workspace.
func (w *Workspace) HasFile(rel string) bool {
	if w.Live.IsOpen(rel) {
		return true
	}
	for _, n := range w.Nested {
		if rel == n || strings.HasPrefix(rel, n+"/") {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(w.Root, filepath.FromSlash(rel)))
	return err == nil
}

// IsOpen reports whether the file is open in the editor.
func (w *Workspace) IsOpen(rel string) bool { return w.Live.IsOpen(rel) }

// FileSymbols returns the symbols of a file as the live graph has them:
// the editor's text of an open file, else the index.
func (w *Workspace) FileSymbols(ctx context.Context, rel string) ([]analysis.SymbolInfo, error) {
	return w.Live.FileSymbols(ctx, rel)
}

// FileText returns a file's text as the editor has it when it is open,
// else from disk; false when it is gone.
func (w *Workspace) FileText(rel string) ([]byte, bool) {
	if text, _, ok := w.Live.Text(rel); ok { // the text, without waiting for a parse
		return text, true
	}
	text, err := os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false
	}
	return text, true
}

// Anchorer returns the anchor engine over the workspace's index, brought
// up to date with the editor's changes first.
func (w *Workspace) Anchorer(ctx context.Context) (*Anchorer, error) {
	if err := w.Live.Flush(ctx); err != nil {
		return nil, err
	}
	return &Anchorer{Searcher: w.Searcher, Project: w.Project}, nil
}

// Placement is where a rule's anchor is among the open workspaces.
type Placement struct {
	Status AnchorStatus
	// Workspace is the workspace the anchor's file is relative to, for
	// every status but AnchorElsewhere and AnchorNone.
	Workspace *Workspace
	// File is the anchor's file, relative to Workspace's root with
	// forward slashes.
	File string
	// Symbol is the anchor's symbol as the live graph has it now, for
	// AnchorLive anchors that name a symbol (nil for a whole file).
	Symbol *analysis.SymbolInfo
	// Followed says how a live anchor was found when its symbol was
	// renamed or moved (FollowSame when it is where it was): the stored
	// anchor is out of date until Anchors.Keep stores it.
	Followed FollowKind
	// text is the code of Symbol when it was followed.
	text string
}

// Anchors anchors rules in the open workspaces and resolves their anchors
// there: it decides which workspace an anchor belongs to, whether it is
// live, lost, elsewhere or pending, and finds and stores the best example
// of a rule across the workspaces. The language server uses it for its
// folders.
type Anchors struct {
	// Store holds the rules.
	Store *Store
	// Workspaces are the open workspaces, in a stable order (the first
	// one wins ties).
	Workspaces []*Workspace
	// Threshold is the quality an example needs; 0 means
	// DefaultAnchorThreshold.
	Threshold float64
	// Warn, if set, is told of failures that do not fail the call (a
	// workspace that could not be searched, an anchor that could not
	// be stored after an approval).
	Warn func(err error)
}

func (x *Anchors) warn(err error) {
	if x.Warn != nil && err != nil {
		x.Warn(err)
	}
}

// WorkspaceOf returns the open workspace r's anchor file is relative to
// (see ReadAnchorMeta): the one of the anchor's root, else of its
// project, else, for an anchor that names neither, the first that holds
// the file. It returns nil for a rule without an anchor or anchored in a
// workspace that is not open.
func (x *Anchors) WorkspaceOf(r Rule) *Workspace {
	if r.Anchor == nil {
		return nil
	}
	return x.WorkspaceOfMeta(r, ReadAnchorMeta(r))
}

// WorkspaceOfMeta is WorkspaceOf for a rule whose anchor metadata m the
// caller has read already.
func (x *Anchors) WorkspaceOfMeta(r Rule, m AnchorMeta) *Workspace {
	if r.Anchor == nil {
		return nil
	}
	if m.Root != "" {
		root := filepath.Clean(m.Root)
		for _, w := range x.Workspaces {
			if w.Root == root {
				return w
			}
		}
	}
	if m.Project != "" {
		for _, w := range x.Workspaces {
			if w.Project == m.Project {
				return w
			}
		}
		return nil
	}
	if m.Root != "" {
		return nil
	}
	return x.holding(filepath.ToSlash(filepath.Clean(r.Anchor.File)))
}

// holding returns the first workspace that holds a file named relative
// to a workspace root, or absolutely, and its relative name.
func (x *Anchors) holding(file string) *Workspace {
	w, _ := x.holdingRel(file)
	return w
}

func (x *Anchors) holdingRel(file string) (*Workspace, string) {
	if file == "" {
		return nil, ""
	}
	for _, w := range x.Workspaces {
		rel := file
		if filepath.IsAbs(file) {
			r, err := analysis.RelPath(w.Root, file)
			if err != nil {
				continue
			}
			rel = r
		}
		if w.HasFile(rel) {
			return w, rel
		}
	}
	return nil, ""
}

// Locate resolves r's anchor through the live graph of its workspace. A
// file whose symbols cannot be read is reported to Warn and pending.
func (x *Anchors) Locate(ctx context.Context, r Rule) Placement {
	if r.Anchor == nil {
		return Placement{Status: AnchorNone}
	}
	w := x.WorkspaceOf(r)
	if w == nil {
		return Placement{Status: AnchorElsewhere}
	}
	rel := filepath.ToSlash(filepath.Clean(r.Anchor.File))
	if !w.HasFile(rel) {
		return x.Keep(ctx, r, x.followMoved(ctx, w, r, Placement{Status: AnchorLost, Workspace: w, File: rel}))
	}
	syms, err := w.FileSymbols(ctx, rel)
	if err != nil {
		x.warn(fmt.Errorf("locate the anchor of rule %d in %s: %w", r.ID, rel, err))
		return Placement{Status: AnchorPending, Workspace: w, File: rel}
	}
	p := ResolveAnchor(w, r, syms)
	if p.Status == AnchorLost {
		p = x.followMoved(ctx, w, r, p)
	}
	return x.Keep(ctx, r, p)
}

// followMoved looks for a lost anchor's symbol in the rest of w's index:
// moved to another file (see Anchorer.Follow). It returns p when it is
// not found.
func (x *Anchors) followMoved(ctx context.Context, w *Workspace, r Rule, p Placement) Placement {
	if r.Anchor == nil || r.Anchor.Symbol == "" || w.Indexing {
		return p
	}
	a, err := w.Anchorer(ctx)
	if err != nil {
		x.warn(err)
		return p
	}
	loc, how, ok, err := a.Follow(ctx, r)
	if err != nil {
		x.warn(fmt.Errorf("follow the anchor of rule %d: %w", r.ID, err))
		return p
	}
	if !ok || how == FollowSame || !w.HasFile(loc.File) {
		return p
	}
	syms, err := w.FileSymbols(ctx, loc.File)
	if err != nil {
		return p
	}
	sym, found := analysis.NearestSymbol(syms, loc.Symbol, loc.Line-1)
	if !found {
		return p
	}
	text, _, err := a.SymbolText(sym)
	if err != nil {
		return p
	}
	return Placement{Status: AnchorLive, Workspace: w, File: loc.File, Symbol: &sym, Followed: how, text: text}
}

// Keep stores where a followed anchor is now (a symbol renamed or moved,
// see Placement.Followed), keeping what else the anchor says, and returns
// p. A failure goes to Warn: the placement is still right for now.
func (x *Anchors) Keep(ctx context.Context, r Rule, p Placement) Placement {
	if p.Followed == FollowSame || p.Symbol == nil || r.Anchor == nil {
		return p
	}
	moved := FollowedAnchor(r, *p.Symbol, p.text)
	moved.File = p.File
	if err := x.Store.SetAnchor(ctx, r.ID, moved); err != nil {
		x.warn(fmt.Errorf("rule %d: store its followed anchor: %w", r.ID, err))
	}
	return p
}

// ResolveAnchor finds r's anchor among syms, the symbols of its file in
// w as the live graph has them now: the symbol of the anchor's name
// nearest to where it was anchored. A missing symbol is lost, or pending
// while w is being indexed and the file is not open (its symbols may not
// be indexed yet).
func ResolveAnchor(w *Workspace, r Rule, syms []analysis.SymbolInfo) Placement {
	if r.Anchor == nil || r.Anchor.Symbol == "" {
		return ResolveAnchorMeta(w, r, AnchorMeta{}, syms)
	}
	return ResolveAnchorMeta(w, r, ReadAnchorMeta(r), syms)
}

// ResolveAnchorMeta is ResolveAnchor for a rule whose anchor metadata m
// the caller has read already.
func ResolveAnchorMeta(w *Workspace, r Rule, m AnchorMeta, syms []analysis.SymbolInfo) Placement {
	if r.Anchor == nil {
		return Placement{Status: AnchorNone}
	}
	rel := filepath.ToSlash(filepath.Clean(r.Anchor.File))
	p := Placement{Status: AnchorLive, Workspace: w, File: rel}
	if r.Anchor.Symbol == "" {
		return p
	}
	sym, ok := analysis.NearestSymbol(syms, r.Anchor.Symbol, m.Line-1)
	switch {
	case ok:
		p.Symbol = &sym
	case m.Hash != "" && renamedIn(w, rel, syms, m, &p):
		// The same code under another name.
	case w.Indexing && !w.IsOpen(rel):
		p.Status = AnchorPending
	default:
		p.Status = AnchorLost
	}
	return p
}

// Best runs the anchor engine on a rule (of scope) in every workspace,
// the one holding hint (a file relative to a workspace, or absolute)
// first, and returns the workspace of the best anchor and its result.
// Without an anchor it returns a nil workspace and the first result,
// whose Reason says why (nil when no workspace could be searched).
// Workspaces that cannot be searched are reported to Warn.
func (x *Anchors) Best(ctx context.Context, rule, scope, hint string) (*Workspace, *AnchorResult) {
	return x.BestFrom(ctx, rule, scope, hint, nil)
}

// BestFrom is Best for a rule whose corrections were made at origins
// (see AnchorOptions.Origins).
func (x *Anchors) BestFrom(ctx context.Context, rule, scope, hint string, origins []AnchorOrigin) (*Workspace, *AnchorResult) {
	order := x.Workspaces
	if h := x.holding(hint); h != nil {
		order = append([]*Workspace{h}, without(x.Workspaces, h)...)
	}
	var (
		best              *Workspace
		bestRes, firstRes *AnchorResult
	)
	for _, w := range order {
		a, err := w.Anchorer(ctx)
		var res *AnchorResult
		if err == nil {
			res, err = a.FindAnchor(ctx, rule, AnchorOptions{Scope: scope, Threshold: x.Threshold, Origins: origins})
		}
		if err != nil {
			x.warn(fmt.Errorf("anchoring in %s: %w", w.Root, err))
			if firstRes == nil {
				firstRes = &AnchorResult{Reason: err.Error()}
			}
			continue
		}
		if firstRes == nil {
			firstRes = res
		}
		if res.Anchor != nil && w.HasFile(res.Anchor.File) && (bestRes == nil || res.Anchor.Quality > bestRes.Anchor.Quality) {
			best, bestRes = w, res
		}
	}
	if best == nil {
		return nil, firstRes
	}
	return best, bestRes
}

// without returns ws without w.
func without(ws []*Workspace, w *Workspace) []*Workspace {
	out := make([]*Workspace, 0, len(ws))
	for _, o := range ws {
		if o != w {
			out = append(out, o)
		}
	}
	return out
}

// Anchor finds the best example of rule r in the workspaces (first the
// one holding the file hint) and stores it as r's anchor. It returns the
// rule as stored, or r and a note saying why it has no new anchor.
func (x *Anchors) Anchor(ctx context.Context, r Rule, hint string) (Rule, string) {
	origins, err := x.Store.RuleOrigins(ctx, r.ID)
	if err != nil {
		x.warn(err) // anchor without them
	}
	if hint == "" && len(origins) > 0 {
		hint = origins[0].File
	}
	w, res := x.BestFrom(ctx, r.Content, r.Scope, hint, origins)
	if w == nil {
		if res != nil && res.Reason != "" {
			return r, "no example found: " + res.Reason
		}
		return r, "no example found: no workspace could be searched"
	}
	ra := res.RuleAnchor(w.Root, w.Project)
	if err := x.Store.SetAnchor(ctx, r.ID, *ra); err != nil {
		x.warn(fmt.Errorf("rule %d was not anchored: %w", r.ID, err))
		return r, fmt.Sprintf("anchoring failed: %v", err)
	}
	stored, err := x.Store.Rule(ctx, r.ID)
	if err != nil {
		x.warn(err)
		return r, fmt.Sprintf("anchored, but the rule could not be read again: %v", err)
	}
	return stored, ""
}

// AnchoredApproval is an approval with its rule anchored.
type AnchoredApproval struct {
	Approval
	// Placement is where the rule's anchor is now.
	Placement Placement `json:"-"`
	// Note says why the rule has no anchor, when it has none.
	Note string `json:"-"`
}

// AnchorApproval anchors the rule of an approval at once, unless it has
// an anchor already (a merge into an anchored rule), at the best example
// in the workspaces, first the one holding the proposal's candidate
// example or the file its corrections were made in. The approval is
// committed already: a failure here leaves the rule unanchored and says
// so in Note.
func (x *Anchors) AnchorApproval(ctx context.Context, ap Approval) AnchoredApproval {
	out := AnchoredApproval{Approval: ap}
	if ap.Rule.Anchor == nil {
		hint := ap.Proposal.ExampleFile
		if hint == "" {
			hint = ap.Proposal.File
		}
		out.Rule, out.Note = x.Anchor(ctx, ap.Rule, hint)
	}
	out.Placement = x.Locate(ctx, out.Rule)
	return out
}

// Reanchoring is what Reanchor did.
type Reanchoring struct {
	// Rule is the rule as stored now.
	Rule Rule
	// Placement is where its anchor is now.
	Placement Placement
	// Reanchored is true when a new example replaced the anchor.
	Reanchored bool
	// Note says why there is no new example.
	Note string
}

// Reanchor looks for the best example of rule id again, first in the
// workspace of its current anchor. A new example replaces the anchor;
// without one, a lost anchor is cleared and a live one kept. An unknown
// id is ErrUnknownRule.
func (x *Anchors) Reanchor(ctx context.Context, id int64) (Reanchoring, error) {
	r, err := x.Store.Rule(ctx, id)
	if err != nil {
		return Reanchoring{}, err
	}
	hint := ""
	if r.Anchor != nil {
		hint = r.Anchor.File
		if w := x.WorkspaceOf(r); w != nil {
			hint = filepath.Join(w.Root, filepath.FromSlash(r.Anchor.File))
		}
	}
	before := x.Locate(ctx, r)
	out := Reanchoring{}
	out.Rule, out.Note = x.Anchor(ctx, r, hint)
	out.Reanchored = out.Note == ""
	if !out.Reanchored && before.Status == AnchorLost {
		if err := x.Store.ClearAnchor(ctx, id); err != nil {
			return Reanchoring{}, err
		}
		if out.Rule, err = x.Store.Rule(ctx, id); err != nil {
			return Reanchoring{}, err
		}
	}
	out.Placement = x.Locate(ctx, out.Rule)
	return out, nil
}

// SetExamples gives each proposal of ps without a candidate example the
// best example of its rule in the workspaces, first the one holding the
// file its corrections were made in, and stores it (see
// SetProposalExample), so that the editor shows the proposal there. ps is
// updated in place; a proposal whose example cannot be stored keeps
// none, and the failure goes to Warn.
func (x *Anchors) SetExamples(ctx context.Context, ps []Proposal) {
	for i, p := range ps {
		if p.ExampleFile != "" || p.Status != StatusPending {
			continue
		}
		origins, err := x.Store.ProposalOrigins(ctx, p)
		if err != nil {
			x.warn(err)
		}
		w, res := x.BestFrom(ctx, p.Content, p.Scope, p.File, origins)
		if w == nil || res.Anchor == nil {
			continue
		}
		if err := x.Store.SetProposalExample(ctx, p.ID, res.Anchor.File, res.Anchor.Symbol); err != nil {
			x.warn(fmt.Errorf("proposal %d: %w", p.ID, err))
			continue
		}
		ps[i].ExampleFile, ps[i].ExampleSymbol = res.Anchor.File, res.Anchor.Symbol
	}
}

// renamedIn looks among syms, the symbols of file rel of w, for one whose
// code has the anchor's fingerprint (the anchored symbol, renamed), and
// sets it in p. It needs w's text of the file (Workspace.FileText).
func renamedIn(w *Workspace, rel string, syms []analysis.SymbolInfo, m AnchorMeta, p *Placement) bool {
	text, ok := w.FileText(rel)
	if !ok {
		return false
	}
	lines := strings.Split(strings.ToValidUTF8(string(text), "\uFFFD"), "\n")
	var best *analysis.SymbolInfo
	var bestText string
	for i := range syms {
		s := &syms[i]
		if s.Kind == analysis.KindModule || s.Range.Start.Line < 0 || s.Range.Start.Line >= len(lines) {
			continue
		}
		code := strings.Join(lines[s.Range.Start.Line:min(s.Range.End.Line+1, len(lines))], "\n")
		if anchorFingerprint(s.Name, code) != m.Hash {
			continue
		}
		if best == nil || absInt(s.Range.Start.Line+1-m.Line) < absInt(best.Range.Start.Line+1-m.Line) {
			best, bestText = s, code
		}
	}
	if best == nil {
		return false
	}
	sym := *best
	p.Symbol, p.Followed, p.text = &sym, FollowRenamed, bestText
	return true
}
