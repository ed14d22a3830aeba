package analysis

import (
	"context"
	"fmt"

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

	text  []byte
	lines *lineIndex
	tree  *sitter.Tree
	graph *FileGraph
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
	if err := d.reparse(ctx, p, text, nil); err != nil {
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
	if err := d.reparse(context.WithoutCancel(ctx), p, text, tree); err != nil {
		return err
	}
	d.Version = version
	return nil
}

// reparse parses text, reusing old when it carries the edits made since it
// was parsed, and extracts the graph.
func (d *Document) reparse(ctx context.Context, p *Parser, text []byte, old *sitter.Tree) error {
	tree, err := p.Parse(ctx, d.Language, text, old)
	if err != nil {
		return fmt.Errorf("parse %s: %w", d.Path, err)
	}
	if old != nil && tree.RootNode().HasError() {
		// Error recovery can come out differently when parts of the old
		// tree are reused; a text with syntax errors is parsed afresh so
		// that the graph always equals that of a fresh parse.
		tree.Close()
		if tree, err = p.Parse(ctx, d.Language, text, nil); err != nil {
			return fmt.Errorf("parse %s: %w", d.Path, err)
		}
	}
	if old != nil && old != tree {
		old.Close()
	}
	if d.tree != nil && d.tree != old && d.tree != tree {
		d.tree.Close()
	}
	d.text, d.tree, d.lines = text, tree, newLineIndex(text)
	d.graph = p.ExtractTree(d.Language, d.Path, text, tree)
	return nil
}

// point returns tree-sitter's point (row, byte column) of an offset.
func point(lines *lineIndex, offset int) sitter.Point {
	row := lines.position(offset).Line
	return sitter.Point{Row: uint32(row), Column: uint32(offset - lines.starts[row])}
}
