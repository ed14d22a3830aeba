package analysis

import (
	"context"
	"fmt"
	"sort"

	"github.com/cespare/xxhash/v2"

	sitter "github.com/smacker/go-tree-sitter"
)

// Document is a file open in an editor: the editor owns its text, which
// may differ from the file on disk. Edits are applied to the syntax tree
// and reparsed incrementally; the graph is extracted again after each
// batch of edits. A Document is not safe for concurrent use.
type Document struct {
	// Path is the file's path relative to the workspace root, with
	// forward slashes.
	Path     string
	Language *Language
	// Version is the editor's version of the text.
	Version int32

	text   []byte
	lines  *lineIndex
	tree   *sitter.Tree
	graph  *FileGraph
	chunks []chunk // what the query found in each top-level node
	// queried counts the top-level nodes the last extraction queried (all
	// of them, -1, after a full extraction).
	queried int
	// clean says tree has no errors.
	clean bool
	// While the text has syntax errors, effText is the text without its
	// damaged regions and effTree its parse (see recoverText); chunks are
	// then effText's.
	effText []byte
	effTree *sitter.Tree
}

// TextEdit replaces the text between two positions (0-based lines, UTF-16
// columns) by Text. A nil Range replaces the whole document.
type TextEdit struct {
	Range *EditRange
	Text  string
}

// EditRange is the span of an edit in editor coordinates.
type EditRange struct {
	StartLine, StartColumn int
	EndLine, EndColumn     int
}

// OpenDocument parses text as the content of an open document.
func (p *Parser) OpenDocument(ctx context.Context, lang *Language, path string, version int32, text []byte) (*Document, error) {
	d := &Document{Path: path, Language: lang, Version: version}
	if err := d.reparse(ctx, p, text, newLineIndex(text), nil); err != nil {
		return nil, err
	}
	return d, nil
}

// Text returns the document's current text. The caller must not modify it.
func (d *Document) Text() []byte { return d.text }

// Graph returns the document's graph for its current text.
func (d *Document) Graph() *FileGraph { return d.graph }

// Close releases the document's syntax tree.
func (d *Document) Close() {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
	if d.effTree != nil {
		d.effTree.Close()
		d.effTree = nil
	}
}

// Apply applies edits in order (each in the coordinates of the text the
// previous one left), then reparses incrementally and extracts the graph.
// Positions out of range are clamped to the document, as editors expect.
func (d *Document) Apply(ctx context.Context, p *Parser, version int32, edits []TextEdit) error {
	text := d.text
	tree := d.tree
	lines := d.lines
	for _, e := range edits {
		if e.Range == nil {
			text = []byte(e.Text)
			if tree != nil {
				tree.Close()
			}
			tree = nil
			lines = newLineIndex(text)
			continue
		}
		start := lines.offset(e.Range.StartLine, e.Range.StartColumn)
		end := lines.offset(e.Range.EndLine, e.Range.EndColumn)
		if end < start {
			start, end = end, start
		}
		next := make([]byte, 0, len(text)-(end-start)+len(e.Text))
		next = append(append(append(next, text[:start]...), e.Text...), text[end:]...)
		nextLines := newLineIndex(next)
		if tree != nil {
			newEnd := start + len(e.Text)
			tree.Edit(sitter.EditInput{
				StartIndex:  uint32(start),
				OldEndIndex: uint32(end),
				NewEndIndex: uint32(newEnd),
				StartPoint:  point(lines, start),
				OldEndPoint: point(lines, end),
				NewEndPoint: point(nextLines, newEnd),
			})
		}
		text, lines = next, nextLines
	}
	// Edits are never dropped half-way: the parse runs to the end even if
	// the request that brought them is cancelled.
	if err := d.reparse(context.WithoutCancel(ctx), p, text, lines, tree); err != nil {
		return err
	}
	d.Version = version
	return nil
}

// reparse parses text, reusing old when it carries the edits made since it
// was parsed, and extracts the graph: after an incremental parse, only the
// top-level nodes whose text changed are queried again. A text with syntax
// errors is read without its damaged regions (see recoverText), parsed
// incrementally from the last text without errors.
func (d *Document) reparse(ctx context.Context, p *Parser, text []byte, lines *lineIndex, old *sitter.Tree) error {
	tree, err := p.Parse(ctx, d.Language, text, old)
	if err != nil {
		return fmt.Errorf("parse %s: %w", d.Path, err)
	}
	root := tree.RootNode()
	var (
		rec      *recovery
		effTree  = tree
		effText  = text
		reusable = old != nil // d.chunks may be reused
	)
	if root.HasError() {
		// Trials start from the last tree without errors: the previous
		// recovery's, or the previous text's (old, edited to this text).
		var base *parseBase
		switch {
		case d.effTree != nil:
			base = &parseBase{d.effTree, d.effText}
		case old != nil && d.clean:
			base = &parseBase{old, text}
		}
		if rec, err = p.recoverText(ctx, d.Language, text, tree, base); err != nil {
			tree.Close()
			return fmt.Errorf("parse %s: %w", d.Path, err)
		}
		if rec != nil {
			effTree, effText = rec.tree, rec.text
			reusable = reusable || d.effTree != nil
		} else if old != nil {
			// No small region accounts for the errors: the graph is what
			// error recovery makes of the whole text, parsed afresh so that
			// it equals that of a fresh parse.
			tree.Close()
			if tree, err = p.Parse(ctx, d.Language, text, nil); err != nil {
				return fmt.Errorf("parse %s: %w", d.Path, err)
			}
			effTree, root = tree, tree.RootNode()
			reusable = false
		}
	}
	if old != nil && old != tree {
		old.Close()
	}
	if d.tree != nil && d.tree != old && d.tree != tree {
		d.tree.Close()
	}
	if d.effTree != nil && d.effTree != effTree {
		d.effTree.Close()
	}
	effRoot := effTree.RootNode()
	var raw rawGraph
	if reusable && d.chunks != nil && !effRoot.HasError() {
		raw, d.chunks, d.queried = p.queryChanged(d.Language, effText, effRoot, d.chunks)
	} else {
		raw, d.queried = p.query(d.Language, effText, effRoot, nil), -1
		d.chunks = nil
		if !effRoot.HasError() {
			// What a query finds in a tree with errors is not kept: error
			// recovery decides which nodes exist (a comment under an ERROR
			// node is not captured as a comment).
			d.chunks = splitChunks(effText, raw, topLevel(effRoot))
		}
	}
	d.text, d.tree, d.lines = text, tree, lines
	d.clean = !root.HasError()
	d.effTree, d.effText = nil, nil
	errors := 0
	if rec != nil {
		d.effTree, d.effText = rec.tree, rec.text
		toRealRaw(&raw, rec.cuts)
		if errors, err = p.queryCuts(ctx, d.Language, text, rec.cuts, &raw); err != nil {
			return fmt.Errorf("parse %s: %w", d.Path, err)
		}
	}
	d.graph = assemble(d.Language, d.Path, text, lines, root, raw, true)
	if rec != nil {
		d.graph.ParseErrors = errors
	}
	return nil
}

// chunk is what the query found in one top-level node of a document,
// kept to be reused while the node's text stays the same. Offsets in raw
// are relative to start, so a chunk that moves is reused as it is.
type chunk struct {
	start, end uint32
	hash       uint64
	raw        rawGraph
}

// topLevel returns the spans of the root's children.
func topLevel(root *sitter.Node) []span {
	var out []span
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	if !c.GoToFirstChild() {
		return nil
	}
	for {
		n := c.CurrentNode()
		out = append(out, span{n.StartByte(), n.EndByte()})
		if !c.GoToNextSibling() {
			return out
		}
	}
}

// splitChunks distributes what a query of the whole file found among its
// top-level nodes. It returns nil, so that the next edit queries the whole
// file again, when something lies outside every top-level node.
func splitChunks(text []byte, raw rawGraph, spans []span) []chunk {
	parts := make([]rawGraph, len(spans))
	find := func(off uint32) *rawGraph {
		i := sort.Search(len(spans), func(i int) bool { return spans[i].end > off })
		if i < len(spans) && spans[i].start <= off {
			return &parts[i]
		}
		return nil
	}
	for _, x := range raw.defs {
		r := find(x.start)
		if r == nil {
			return nil
		}
		r.defs = append(r.defs, x)
	}
	for _, x := range raw.refs {
		r := find(x.at)
		if r == nil {
			return nil
		}
		r.refs = append(r.refs, x)
	}
	for _, x := range raw.comments {
		r := find(x.start)
		if r == nil {
			return nil
		}
		r.comments = append(r.comments, x)
	}
	if raw.module != "" {
		r := find(raw.moduleAt)
		if r == nil {
			return nil
		}
		r.module, r.moduleAt = raw.module, raw.moduleAt
	}
	chunks := make([]chunk, len(spans))
	for i, sp := range spans {
		chunks[i] = chunk{start: sp.start, end: sp.end, hash: xxhash.Sum64(text[sp.start:sp.end])}
		chunks[i].raw.addShifted(&parts[i], -int64(sp.start))
	}
	return chunks
}

// queryChanged extracts a reparsed document: top-level nodes whose text is
// that of a chunk of the previous extraction reuse its findings; the
// others are queried. It returns the findings, the new chunks and how many
// nodes were queried.
func (p *Parser) queryChanged(lang *Language, text []byte, root *sitter.Node, old []chunk) (rawGraph, []chunk, int) {
	type key struct {
		hash uint64
		size uint32
	}
	reusable := make(map[key]*chunk, len(old))
	for i := range old {
		reusable[key{old[i].hash, old[i].end - old[i].start}] = &old[i]
	}
	var raw rawGraph
	queried := 0
	chunks := make([]chunk, 0, len(old)+1)
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	if c.GoToFirstChild() {
		for {
			n := c.CurrentNode()
			st, en := n.StartByte(), n.EndByte()
			ch := chunk{start: st, end: en, hash: xxhash.Sum64(text[st:en])}
			if prev := reusable[key{ch.hash, en - st}]; prev != nil {
				ch.raw = prev.raw
			} else {
				found := p.query(lang, text, root, n)
				ch.raw.addShifted(&found, -int64(st))
				queried++
			}
			chunks = append(chunks, ch)
			raw.addShifted(&ch.raw, int64(st))
			if !c.GoToNextSibling() {
				break
			}
		}
	}
	return raw, chunks, queried
}

// point returns tree-sitter's point (row, byte column) of an offset.
func point(lines *lineIndex, offset int) sitter.Point {
	row := lines.position(offset).Line
	return sitter.Point{Row: uint32(row), Column: uint32(offset - lines.starts[row])}
}
