package analysis

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Workspace is the code graph of a workspace as an editor sees it: the
// index of the files on disk, overlaid with the documents open in the
// editor, which are the source of truth while they are open. Every change
// to an open document updates its graph in memory at once; graphs are
// written to the index in batches, shortly after typing stops or before
// any query that reads the index (Flush). A Workspace is safe for
// concurrent use.
type Workspace struct {
	ix *Index

	mu      sync.Mutex
	parser  *Parser
	docs    map[string]*Document
	pending map[string]bool // open documents whose graph is not in the index yet
	timer   *time.Timer
	closed  bool

	// flushMu orders index writes of documents.
	flushMu sync.Mutex
}

// FlushDelay is how long after the last change an open document's graph
// is written to the index when nothing asks for it sooner.
const FlushDelay = 200 * time.Millisecond

// Errors of document operations, for the editor to report.
var (
	ErrNotOpen      = errors.New("document is not open")
	ErrStaleVersion = errors.New("document version is not newer than the current one")
	ErrOutsideRoot  = errors.New("file is outside the workspace")
	ErrUnsupported  = errors.New("file is in no supported language")
)

// NewWorkspace returns a workspace over an opened index.
func NewWorkspace(ix *Index) *Workspace {
	return &Workspace{ix: ix, parser: NewParser(), docs: map[string]*Document{}, pending: map[string]bool{}}
}

// Index returns the workspace's index.
func (w *Workspace) Index() *Index { return w.ix }

// Rel returns the path of an absolute file name relative to the root, with
// forward slashes, or ErrOutsideRoot.
func (w *Workspace) Rel(abs string) (string, error) {
	return RelPath(w.ix.root, abs)
}

// RelPath returns the path of file relative to root, with forward
// slashes, or ErrOutsideRoot when file is not inside root.
func RelPath(root, file string) (string, error) {
	rel, err := filepath.Rel(root, filepath.Clean(file))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s: %w", file, ErrOutsideRoot)
	}
	return filepath.ToSlash(rel), nil
}

// IsOpen reports whether a file (relative path) is open in the editor.
func (w *Workspace) IsOpen(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.docs[rel] != nil
}

// Open starts tracking a document with the editor's text.
func (w *Workspace) Open(ctx context.Context, rel string, version int32, text []byte) error {
	lang, err := w.ix.langs.ForPath(rel)
	if err != nil {
		return err
	}
	if lang == nil {
		return fmt.Errorf("open %s: %w", rel, ErrUnsupported)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("open %s: workspace is shut down", rel)
	}
	doc, err := w.parser.OpenDocument(ctx, lang, rel, version, text)
	if err != nil {
		return fmt.Errorf("open %s: %w", rel, err)
	}
	if old := w.docs[rel]; old != nil {
		old.Close()
	}
	w.docs[rel] = doc
	w.markPending(rel)
	return nil
}

// Change applies an editor's edits to an open document. Versions must
// increase; a change with a version not newer than the document's is
// refused and changes nothing.
func (w *Workspace) Change(ctx context.Context, rel string, version int32, edits []TextEdit) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	doc := w.docs[rel]
	if doc == nil {
		return fmt.Errorf("change %s: %w", rel, ErrNotOpen)
	}
	if version <= doc.Version {
		return fmt.Errorf("change %s to version %d (at %d): %w", rel, version, doc.Version, ErrStaleVersion)
	}
	if err := doc.Apply(ctx, w.parser, version, edits); err != nil {
		return fmt.Errorf("change %s: %w", rel, err)
	}
	w.markPending(rel)
	return nil
}

// Close stops tracking a document. The file returns to its content on
// disk with the next Refresh, which the caller runs when it suits it.
func (w *Workspace) Close(rel string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	doc := w.docs[rel]
	if doc == nil {
		return fmt.Errorf("close %s: %w", rel, ErrNotOpen)
	}
	doc.Close()
	delete(w.docs, rel)
	delete(w.pending, rel)
	return nil
}

// Refresh brings the index up to date with the files on disk, leaving the
// open documents as the editor has them. It is what a changed, created or
// deleted file on disk calls for.
func (w *Workspace) Refresh(ctx context.Context, progress func(Progress)) (*Summary, error) {
	return w.ix.UpdateExcept(ctx, w.IsOpen, progress)
}

// Snapshot returns an open document's text and graph, or false when the
// file is not open. The results must not be modified.
func (w *Workspace) Snapshot(rel string) (text []byte, g *FileGraph, version int32, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	doc := w.docs[rel]
	if doc == nil {
		return nil, nil, 0, false
	}
	return doc.Text(), doc.Graph(), doc.Version, true
}

// markPending schedules the document's graph to be written. w.mu is held.
func (w *Workspace) markPending(rel string) {
	w.pending[rel] = true
	if w.timer == nil && !w.closed {
		w.timer = time.AfterFunc(FlushDelay, func() { w.Flush(context.Background()) })
	}
}

// Flush writes the graphs of changed open documents to the index, in one
// transaction. Queries that read the index call it first, so they see
// every edit made before them.
func (w *Workspace) Flush(ctx context.Context) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	type item struct {
		g  *FileGraph
		st FileState
	}
	var items []item
	for rel := range w.pending {
		doc := w.docs[rel]
		if doc == nil {
			continue
		}
		text := doc.Text()
		// Mtime -1 never matches a file on disk: when the document closes,
		// the next refresh reads the file (and skips parsing it if its
		// content hashes the same).
		items = append(items, item{doc.Graph(), FileState{Size: int64(len(text)), Mtime: -1, Hash: xxhash.Sum64(text)}})
	}
	clear(w.pending)
	w.mu.Unlock()
	if len(items) == 0 {
		return nil
	}
	err := w.ix.Store.Write(ctx, func(wr *Writer) error {
		for _, it := range items {
			if !w.IsOpen(it.g.Path) {
				continue // closed meanwhile: the disk's version wins
			}
			if err := wr.ReplaceFile(it.st, it.g); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// Nothing is lost: the documents are still in memory; try again.
		w.mu.Lock()
		for _, it := range items {
			if w.docs[it.g.Path] != nil {
				w.markPending(it.g.Path)
			}
		}
		w.mu.Unlock()
		return fmt.Errorf("write open documents: %w", err)
	}
	w.ix.dirty.Store(true)
	if err := w.ix.EmbedChunks(ctx); err != nil {
		return fmt.Errorf("write open documents: %w", err)
	}
	return nil
}

// Shutdown writes pending graphs and releases the documents; the index
// stays open for its owner to close.
func (w *Workspace) Shutdown(ctx context.Context) error {
	err := w.Flush(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, d := range w.docs {
		d.Close()
	}
	w.docs = map[string]*Document{}
	w.parser.Close()
	return err
}

// FileSymbols returns the symbols of a file as the editor sees it: from the
// open document when it is open, else from the index; in source order, the
// module first. For an open document, IDs and parents number the symbols
// of this answer only.
func (w *Workspace) FileSymbols(ctx context.Context, rel string) ([]SymbolInfo, error) {
	if _, g, _, ok := w.Snapshot(rel); ok {
		out := make([]SymbolInfo, len(g.Symbols))
		for i, s := range g.Symbols {
			out[i] = SymbolInfo{
				ID: int64(i + 1), Parent: int64(s.Parent + 1), Kind: s.Kind, Name: s.Name,
				QualifiedName: s.QualifiedName, Module: s.Module, Path: g.Path, Language: g.Language,
				Range: s.Range, NameRange: s.NameRange, Signature: s.Signature, Doc: s.Doc,
			}
		}
		return out, nil
	}
	return w.ix.SymbolsInFile(ctx, rel)
}

// OutlineNode is a symbol with the symbols it contains.
type OutlineNode struct {
	Symbol   SymbolInfo
	Children []*OutlineNode
}

// Outline nests a file's symbols (as FileSymbols returns them) under their
// parents; the module's children are the roots.
func Outline(syms []SymbolInfo) []*OutlineNode {
	nodes := make(map[int64]*OutlineNode, len(syms))
	for _, s := range syms {
		nodes[s.ID] = &OutlineNode{Symbol: s}
	}
	var roots []*OutlineNode
	for _, s := range syms {
		if s.Kind == KindModule {
			continue
		}
		n := nodes[s.ID]
		if p := nodes[s.Parent]; p != nil && p.Symbol.Kind != KindModule {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// SymbolAt returns the innermost symbol of a file containing a position
// (0-based line, UTF-16 column), other than the module, or false.
func SymbolAt(syms []SymbolInfo, line, col int) (SymbolInfo, bool) {
	var best SymbolInfo
	found := false
	for _, s := range syms {
		if s.Kind == KindModule || !contains(s.Range, line, col) {
			continue
		}
		if !found || s.Range.Start.Offset >= best.Range.Start.Offset && s.Range.End.Offset <= best.Range.End.Offset {
			best, found = s, true
		}
	}
	return best, found
}

func contains(r Range, line, col int) bool {
	after := line > r.Start.Line || line == r.Start.Line && col >= r.Start.Column
	before := line < r.End.Line || line == r.End.Line && col <= r.End.Column
	return after && before
}
