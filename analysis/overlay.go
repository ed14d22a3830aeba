package analysis

import (
	"context"
	"slices"
	"strings"
)

// Symbols searches symbol names as indexStore.Symbols does (exact matches, then
// prefixes, initials and substrings), in the workspace as the editor sees
// it: the index, with each open document's symbols in place of its file's
// rows. It never waits for the open documents to be written to the index,
// nor for the index writer: at most for one parse of each open document
// (see Workspace). IDs and parents of open documents' symbols number the
// symbols of their file in this answer only.
func (w *Workspace) Symbols(ctx context.Context, query string, limit int) ([]SymbolMatch, error) {
	query = strings.TrimSpace(query)
	q := foldName(query)
	if q == "" || len(query) > MaxNameQuery {
		return nil, nil
	}
	if limit <= 0 {
		limit = 200
	}
	open := w.openSymbols(ctx)
	// The open documents' rows in the index are dropped from the stored
	// answer: ask for more so that the answer stays full.
	stored, err := w.ix.Symbols(ctx, query, 2*limit)
	if err != nil {
		return nil, err
	}
	var tiers [MatchSubstring + 1][]SymbolMatch
	for _, m := range stored {
		if _, ok := open[m.Path]; ok {
			continue
		}
		tiers[m.Match] = append(tiers[m.Match], m)
	}
	word := isWord(q)
	for _, syms := range open {
		for _, sym := range syms {
			if kind, ok := matchName(q, word, sym); ok {
				tiers[kind] = append(tiers[kind], SymbolMatch{sym, kind})
			}
		}
	}
	var out []SymbolMatch
	for _, tier := range tiers {
		sortTier(tier, query)
		out = append(out, tier[:min(len(tier), limit-len(out))]...)
	}
	return out, nil
}

// matchName says how a symbol matches a folded query, as the queries of
// indexStore.Symbols decide it. word says whether q is a word that initials may
// match.
func matchName(q string, word bool, sym SymbolInfo) (MatchKind, bool) {
	if sym.Kind == KindModule {
		return 0, false
	}
	lname := foldName(sym.Name)
	switch {
	case lname == q:
		return MatchExact, true
	case strings.HasPrefix(lname, q):
		return MatchPrefix, true
	case word && strings.HasPrefix(initials(sym.Name), q):
		return MatchInitials, true
	case strings.Index(lname, q) > 0:
		return MatchSubstring, true
	}
	return 0, false
}

// openSymbols returns the symbols of the open documents by path, as
// FileSymbols does: of each one's newest parse, shared by its readers (not
// to be modified), without the references a full graph links; none for a
// document kept as text only.
func (w *Workspace) openSymbols(ctx context.Context) map[string][]SymbolInfo {
	w.mu.Lock()
	rels := make([]string, 0, len(w.docs))
	for rel := range w.docs {
		rels = append(rels, rel)
	}
	w.mu.Unlock()
	slices.Sort(rels)
	out := make(map[string][]SymbolInfo, len(rels))
	for _, rel := range rels {
		if _, snap, _, ok := w.parsedSnapshot(ctx, rel, false); ok {
			out[rel] = snap.symbols()
		}
	}
	return out
}

// graphSymbols returns a file graph's symbols as the index would list
// them, numbered from 1 in source order.
func graphSymbols(g *FileGraph) []SymbolInfo {
	out := make([]SymbolInfo, len(g.Symbols))
	for i, s := range g.Symbols {
		out[i] = SymbolInfo{
			ID: int64(i + 1), Parent: int64(s.Parent + 1), Kind: s.Kind, Name: s.Name,
			QualifiedName: s.QualifiedName, Module: s.Module, Path: g.Path, Language: g.Language,
			Range: s.Range, NameRange: s.NameRange, Signature: s.Signature, Doc: s.Doc,
		}
	}
	return out
}

// OpenDocument is a document open in the editor: its path relative to the
// root, version and text.
type OpenDocument struct {
	Path    string
	Version int32
	Text    []byte
}

// OpenDocuments returns the documents open in the workspace, by path, for
// a new workspace to take over. The texts must not be modified.
func (w *Workspace) OpenDocuments() []OpenDocument {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]OpenDocument, 0, len(w.docs))
	for rel, od := range w.docs {
		od.owned = false
		out = append(out, OpenDocument{Path: rel, Version: od.version, Text: od.text})
	}
	slices.SortFunc(out, func(a, b OpenDocument) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Version returns the version of an open document, and false when it is
// not open.
func (w *Workspace) Version(rel string) (int32, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	od := w.docs[rel]
	if od == nil {
		return 0, false
	}
	return od.version, true
}
