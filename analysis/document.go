package analysis

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

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
	snap   *docSnapshot // the graph of text
	chunks []chunk      // what the query found in each top-level node, and its piece
	// spare is an array of chunks no longer used, which the next
	// extraction may make its chunks in.
	spare []chunk
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
	cuts    []span
	// keptText and keptTree are the last effText and effTree, kept once
	// the text parsed without errors again: typing a definition damages
	// and completes the text by turns (an opening brace, a closing one,
	// a keyword half typed), and each time the text without the
	// definition is the same, whose parse is then copied, not made again
	// (see parseBase.keptTree).
	keptText []byte
	keptTree *sitter.Tree
	// keptCopies counts the trial parses answered by a copy of keptTree
	// (for tests).
	keptCopies int
	// edited is where the last edit started, or -1.
	edited int
	// unchanged is how many bytes at the start of the text of snap the
	// edits being parsed leave as they are (see link), 0 when unknown.
	unchanged int
	// linkReused counts the pieces link took from the snapshot before
	// (for tests).
	linkReused int
}

// docSnapshot is the graph of one version of a document's text, published
// by the parse that made it and never changed after. A keystroke links
// only the symbols (which the outline, hovers and lenses read): the
// references are linked from the pieces, which the snapshot keeps, when
// first asked for (refs), and the search chunks, which only the index
// needs, are cut when the index first asks for them (withChunks). Its
// methods are safe for concurrent use.
type docSnapshot struct {
	graph    *FileGraph // the symbols, without references and chunks
	text     []byte
	lines    *lineIndex
	comments []span // the text's comments, sorted
	// pieces are what graph was linked from, and types the first type of
	// each name link found (nil when it looked for none).
	pieces []placedPiece
	types  map[string]int
	// bare says graph is complete as it is: a document kept as text only,
	// or whose parse failed, has an empty graph and no chunks.
	bare bool

	refsOnce sync.Once
	linked   *FileGraph // graph with its references

	symsOnce sync.Once
	syms     []SymbolInfo

	once    sync.Once
	indexed *FileGraph // linked with its chunks
}

// bareSnapshot returns the snapshot of a graph that is complete as it is.
func bareSnapshot(g *FileGraph) *docSnapshot {
	return &docSnapshot{graph: g, bare: true}
}

// full returns the graph with its references, linked on first use.
func (s *docSnapshot) full() *FileGraph {
	s.refsOnce.Do(func() {
		if s.bare {
			s.linked = s.graph
			return
		}
		g := *s.graph
		g.Refs = linkRefs(s.pieces, g.Symbols, s.types)
		s.linked = &g
	})
	return s.linked
}

// symbols returns the graph's symbols as FileSymbols answers them, made on
// first use: every reader of one version shares them.
func (s *docSnapshot) symbols() []SymbolInfo {
	s.symsOnce.Do(func() { s.syms = graphSymbols(s.graph) })
	return s.syms
}

// withChunks returns the graph with its references and its search chunks,
// cut on first use.
func (s *docSnapshot) withChunks() *FileGraph {
	s.once.Do(func() {
		if s.bare {
			s.indexed = s.graph
			return
		}
		g := *s.full()
		g.Chunks = chunkFile(&g, s.text, s.lines, s.comments)
		s.indexed = &g
	})
	return s.indexed
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
	d := &Document{Path: path, Language: lang, Version: version, edited: -1}
	if err := d.reparse(ctx, p, text, newLineIndex(text), nil); err != nil {
		return nil, err
	}
	return d, nil
}

// Text returns the document's current text. The caller must not modify it.
func (d *Document) Text() []byte { return d.text }

// Graph returns the document's graph for its current text, without
// search chunks (see GraphWithChunks). Its references are linked on the
// first call for a version. The caller must not modify it.
func (d *Document) Graph() *FileGraph { return d.snap.full() }

// GraphWithChunks returns the document's graph for its current text with
// the search chunks the index stores, cut the first time they are asked
// for. The caller must not modify it.
func (d *Document) GraphWithChunks() *FileGraph { return d.snap.withChunks() }

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
	d.keep(nil, nil)
}

// Apply applies edits in order (each in the coordinates of the text the
// previous one left), then reparses incrementally and extracts the graph.
// Positions out of range are clamped to the document, as editors expect.
func (d *Document) Apply(ctx context.Context, p *Parser, version int32, edits []TextEdit) error {
	return d.apply(ctx, p, version, edits, nil)
}

// apply is Apply; final, when not nil, is the text the edits make, which
// the caller will not modify: the document keeps it rather than a copy of
// its own when the last edit's size says it is that text.
func (d *Document) apply(ctx context.Context, p *Parser, version int32, edits []TextEdit, final []byte) error {
	text := d.text
	tree := d.tree
	lines := d.lines
	// While every edit stays inside a damaged region, the rest of the text
	// and its parse stay as they are (see reparseInCuts).
	cuts := slices.Clone(d.cuts)
	d.edited = -1
	d.unchanged = 0
	if d.snap != nil && sameBytes(d.snap.text, text) {
		d.unchanged = len(text)
	}
	replaced := false
	closing := false // an edit deleted text or typed a closer
	for i, e := range edits {
		if e.Range == nil {
			replaced = true
			cuts = nil
			d.edited = -1
			d.unchanged = 0
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
		cuts = editInCuts(cuts, start, end, len(e.Text))
		d.unchanged = min(d.unchanged, start)
		closing = closing || end > start || strings.ContainsAny(e.Text, closers)
		d.edited = start
		var next []byte
		if n := len(text) - (end - start) + len(e.Text); i == len(edits)-1 && final != nil && sameEdit(final, text, start, end, e.Text) {
			next = final
		} else {
			next = make([]byte, 0, n)
			next = append(append(append(next, text[:start]...), e.Text...), text[end:]...)
		}
		nextLines := lines.edited(next, start, end, len(e.Text))
		if tree != nil {
			newEnd := start + len(e.Text)
			editTree(tree, sitter.EditInput{
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
	ctx = context.WithoutCancel(ctx)
	if cuts != nil {
		ok, err := d.reparseInCuts(ctx, p, text, lines, cuts, closing)
		if err != nil {
			return err
		}
		if ok {
			if tree != nil {
				// The text's own tree is not kept up to date while typing
				// in a damaged region: the next full parse starts afresh.
				tree.Close()
				d.tree = nil
			}
			d.Version = version
			return nil
		}
	}
	if tree == nil && d.tree == nil && d.effTree != nil && !replaced {
		// The text's own tree was let go while typing in a damaged region:
		// the tree of the text without it, edited, is as good a start.
		tree = d.effTree.Copy()
		editTo(tree, d.effText, text)
	}
	if err := d.reparse(ctx, p, text, lines, tree); err != nil {
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
			base = &parseBase{tree: d.effTree, text: d.effText, keptTree: d.keptTree, keptText: d.keptText}
		case old != nil && d.clean:
			base = &parseBase{tree: old, text: text, edited: true, keptTree: d.keptTree, keptText: d.keptText}
		}
		rec, err = p.recoverText(ctx, d.Language, text, tree, base, d.edited)
		if base != nil {
			d.keptCopies += base.copies
		}
		if err != nil {
			tree.Close()
			return fmt.Errorf("parse %s: %w", d.Path, err)
		}
		if rec != nil {
			effTree, effText = rec.tree, rec.text
			reusable = reusable || d.effTree != nil
		} else if old != nil && countErrors(root) > 0 {
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
		if rec == nil {
			d.keep(d.effTree, d.effText)
		} else {
			d.effTree.Close()
		}
	}
	effRoot := effTree.RootNode()
	var (
		chunks []chunk
		whole  *rawGraph
	)
	if reusable && d.chunks != nil && !effRoot.HasError() {
		// The chunks before the last are made again in their array: no
		// snapshot reads chunks.
		spare := d.spare
		d.spare = nil
		chunks, d.queried = p.queryChanged(d.Language, effText, effRoot, d.chunks, spare)
		d.spare = d.chunks
	} else {
		raw := p.query(d.Language, effText, effRoot, nil)
		d.queried = -1
		if !effRoot.HasError() {
			// What a query finds in a tree with errors is not kept: error
			// recovery decides which nodes exist (a comment under an ERROR
			// node is not captured as a comment).
			chunks = splitChunks(effText, raw, topLevel(effRoot))
		}
		if chunks == nil {
			whole = &raw
		}
	}
	d.text, d.tree, d.lines = text, tree, lines
	d.clean = !root.HasError()
	d.effTree, d.effText, d.cuts = nil, nil, nil
	d.chunks = chunks
	var (
		cutRaws []rawGraph
		errors  int
	)
	if rec != nil {
		d.effTree, d.effText, d.cuts = rec.tree, rec.text, rec.cuts
		if whole != nil {
			toRealRaw(whole, rec.cuts)
		}
		var counts []int
		if cutRaws, counts, err = p.queryCutRaws(ctx, d.Language, text, rec.cuts); err != nil {
			return fmt.Errorf("parse %s: %w", d.Path, err)
		}
		for _, n := range counts {
			errors += max(1, n)
		}
	}
	snap := d.assemble(text, lines, whole, cutRaws)
	switch {
	case rec != nil:
		snap.graph.ParseErrors = errors
	case root.HasError():
		snap.graph.ParseErrors = countErrors(root)
	}
	d.snap = snap
	return nil
}

// assemble makes the graph of text from what the query found in the
// top-level nodes of the text without its damaged regions (d.chunks, in
// that text's offsets; or whole, in text's offsets, when there are no
// chunks) and in each damaged region (d.cuts, cutRaws in text's offsets).
// A top-level node that is not new and holds no damaged region reuses the
// piece assembled for it before; the others are assembled, and the
// pieces linked. It returns the snapshot of the graph.
func (d *Document) assemble(text []byte, lines *lineIndex, whole *rawGraph, cutRaws []rawGraph) *docSnapshot {
	cuts, chunks := d.cuts, d.chunks
	module := ""
	if whole != nil {
		module = whole.module
	}
	for i := 0; module == "" && i < len(chunks); i++ {
		module = chunks[i].raw.module
	}
	for i := 0; module == "" && i < len(cutRaws); i++ {
		module = cutRaws[i].module
	}
	if module == "" {
		module = strings.ToValidUTF8(moduleFromPath(d.Path), "\uFFFD")
	}
	fresh := func(raw *rawGraph, start int) placedPiece {
		slices.SortFunc(raw.comments, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		pc := buildPiece(raw.defs, raw.refs, raw.comments, module, text, lines, start)
		return placedPiece{pc: pc, start: pc.start, line: pc.line, col: pc.col}
	}
	var pieces []placedPiece
	if whole != nil {
		for i := range cutRaws {
			whole.addShifted(&cutRaws[i], 0)
		}
		pieces = append(pieces, fresh(whole, 0))
	} else {
		pieces = make([]placedPiece, 0, len(chunks)+len(cuts))
		j := 0        // the next damaged region
		lastLine := 0 // the line of the last chunk placed: chunks are in order
		for i := range chunks {
			c := &chunks[i]
			rs, re := toReal(cuts, int(c.start), false), toReal(cuts, int(c.end), true)
			for ; j < len(cuts) && int(cuts[j].start) < rs; j++ {
				pieces = append(pieces, fresh(&cutRaws[j], int(cuts[j].start)))
			}
			k := j
			for k < len(cuts) && int(cuts[k].start) < re {
				k++
			}
			if k > j {
				// Damaged regions inside the node: it is assembled with them.
				var raw rawGraph
				raw.addShifted(&c.raw, int64(c.start))
				toRealRaw(&raw, cuts)
				for ; j < k; j++ {
					raw.addShifted(&cutRaws[j], 0)
				}
				pieces = append(pieces, fresh(&raw, rs))
				continue
			}
			if c.pc == nil || c.pc.module != module {
				var raw rawGraph
				raw.addShifted(&c.raw, int64(rs))
				c.pc = fresh(&raw, rs).pc
			}
			pos := lines.positionFrom(lastLine, rs)
			lastLine = pos.Line
			pieces = append(pieces, placedPiece{pc: c.pc, start: rs, line: pos.Line, col: pos.Column})
		}
		for ; j < len(cuts); j++ {
			pieces = append(pieces, fresh(&cutRaws[j], int(cuts[j].start)))
		}
	}
	var prev *docSnapshot
	if d.unchanged > 0 {
		prev = d.snap
	}
	g, comments, types, reused := link(d.Language, d.Path, module, text, lines, pieces, prev, d.unchanged)
	d.unchanged = 0
	d.linkReused += reused
	return &docSnapshot{graph: g, text: text, lines: lines, comments: comments, pieces: pieces, types: types}
}

// keep keeps tree, the parse of text without errors, as the kept tree
// (see Document.keptTree), closing the one kept before; nil keeps none.
func (d *Document) keep(tree *sitter.Tree, text []byte) {
	if d.keptTree != nil && d.keptTree != tree {
		d.keptTree.Close()
	}
	d.keptTree, d.keptText = tree, text
}

// sameBytes reports whether a and b are the same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameEdit reports whether next is text with the bytes from start to end
// replaced by ins. It compares without copying.
func sameEdit(next, text []byte, start, end int, ins string) bool {
	n := start + len(ins)
	return len(next) == len(text)-(end-start)+len(ins) &&
		bytes.Equal(next[:start], text[:start]) &&
		string(next[start:n]) == ins &&
		bytes.Equal(next[n:], text[end:])
}

// editInCuts returns the damaged regions after an edit replacing the
// bytes from start to end by size bytes, or nil unless the edit lies
// inside one of them (before its last character, the line break that ends
// it).
func editInCuts(cuts []span, start, end, size int) []span {
	delta := size - (end - start)
	inside := false
	for i := range cuts {
		c := &cuts[i]
		switch {
		case int(c.end) <= start:
		case int(c.start) <= start && end < int(c.end):
			c.end = uint32(int(c.end) + delta)
			inside = true
		case inside && int(c.start) > end:
			c.start, c.end = uint32(int(c.start)+delta), uint32(int(c.end)+delta)
		default:
			return nil
		}
	}
	if !inside {
		return nil
	}
	return cuts
}

// reparseInCuts updates the graph after edits inside damaged regions
// (cuts, in text's offsets): the text without them is the same, so its
// parse and what the query found in it are reused, and only the regions
// are parsed again. It reports false, changing nothing, when a region has
// no errors of its own any more, or the text with the regions has none
// (see completeInContext; closing says the edits may have completed
// something): the code being typed is complete, and the whole text is
// parsed again.
func (d *Document) reparseInCuts(ctx context.Context, p *Parser, text []byte, lines *lineIndex, cuts []span, closing bool) (bool, error) {
	if d.effTree == nil || d.chunks == nil || !equalCutOut(text, cuts, d.effText) {
		return false, nil
	}
	for _, c := range cuts {
		if opensComment(text[c.start:c.end]) {
			// What follows the region may now be inside a comment: the
			// rest of the text is not the same.
			return false, nil
		}
	}
	raws, counts, err := p.queryCutRaws(ctx, d.Language, text, cuts)
	if err != nil {
		return false, err
	}
	errors := 0
	for i, n := range counts {
		// A region without errors of its own, or that defines more than
		// one thing (cut wide, around code that is not being typed, which
		// a new search may narrow), calls for a new search.
		if n == 0 || len(raws[i].defs) > 1 {
			return false, nil
		}
		errors += n
	}
	// A region's errors of its own may be those of its place only: a
	// class member alone, a line continuing the one above it (.then() at
	// the start of a line), several regions that are one damaged stretch
	// of the text (a Go import block's head, then the rest of the block).
	// The text may then be complete again.
	if complete, err := d.completeInContext(ctx, p, text, cuts, closing); err != nil || complete {
		return false, err
	}
	d.text, d.lines, d.cuts, d.clean = text, lines, cuts, false
	d.queried = 0
	d.snap = d.assemble(text, lines, nil, raws)
	d.snap.graph.ParseErrors = errors
	return true, nil
}

// completeInContext reports whether text, whose damaged regions (cuts)
// each have errors alone, has no errors. Its parse costs about as much as
// the part of the text a region's errors reach (a function's body, or the
// rest of the text after an open bracket), so it is only tried when the
// edit may have completed something (closing is set: it deleted text or
// typed a closing bracket, a terminator or a line break), when the
// regions' brackets balance, and when their place may be what their
// errors are made of: several regions (a Go import block's head, then the
// rest of the block), a region inside a container (a class member), one
// that continues the line above it (.then() at the start of a line).
func (d *Document) completeInContext(ctx context.Context, p *Parser, text []byte, cuts []span, closing bool) (bool, error) {
	if !closing {
		return false, nil
	}
	placed := len(cuts) > 1
	for _, c := range cuts {
		region := text[c.start:c.end]
		if n := indentOf(region); n > 0 || n < len(region) && strings.IndexByte(continuing, region[n]) >= 0 {
			placed = true
		}
	}
	if !placed {
		return false, nil
	}
	var depth [3]int // (, [, {
	for _, c := range cuts {
		if err := bracketDepth(ctx, p, d.Language, text[c.start:c.end], &depth); err != nil {
			return false, err
		}
	}
	if depth != [3]int{} {
		return false, nil
	}
	old := d.effTree.Copy()
	defer old.Close()
	editTo(old, d.effText, text)
	tree, err := p.Parse(ctx, d.Language, text, old)
	if err != nil {
		return false, fmt.Errorf("parse %s: %w", d.Path, err)
	}
	defer tree.Close()
	return !tree.RootNode().HasError(), nil
}

// opensComment reports whether region opens a block comment that it does
// not close, which runs over the text after it to the next comment's end.
// Unlike an unclosed string (whose end, if any, leaves the text after it
// damaged), that often makes a text without errors: a declaration
// commented out by "/*" typed above it. It reads the text alone, and may
// say so of a region whose "/*" is inside a string: the caller then parses
// the whole text, which is right in any case.
func opensComment(region []byte) bool {
	open := bytes.LastIndex(region, []byte("/*"))
	return open >= 0 && !bytes.Contains(region[open+2:], []byte("*/"))
}

// closers are the characters whose typing may complete code.
const closers = ")]};,\n"

// continuing holds the characters that start a line continuing the one
// above it: a method call, an operator, a closing bracket.
const continuing = ".,?:+-*%&|^=)]}"

// bracketDepth adds to depth the brackets a region opens and closes: the
// bracket tokens of its parse, not those in strings and comments, nor
// those error recovery made up.
func bracketDepth(ctx context.Context, p *Parser, lang *Language, region []byte, depth *[3]int) error {
	tree, err := p.Parse(ctx, lang, region, nil)
	if err != nil {
		return fmt.Errorf("parse damaged region: %w", err)
	}
	defer tree.Close()
	c := sitter.NewTreeCursor(tree.RootNode())
	defer c.Close()
	for {
		n := c.CurrentNode()
		if c.GoToFirstChild() {
			continue
		}
		if !n.IsNamed() && !n.IsMissing() {
			switch n.Type() {
			case "(":
				depth[0]++
			case ")":
				depth[0]--
			case "[":
				depth[1]++
			case "]":
				depth[1]--
			case "{", "${", "#{":
				depth[2]++
			case "}":
				depth[2]--
			}
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return nil
			}
		}
	}
}

// equalCutOut reports whether text without the cuts is eff, without
// making that text.
func equalCutOut(text []byte, cuts []span, eff []byte) bool {
	prev := 0
	for _, c := range cuts {
		part := text[prev:c.start]
		if len(eff) < len(part) || !bytes.Equal(eff[:len(part)], part) {
			return false
		}
		eff = eff[len(part):]
		prev = int(c.end)
	}
	return bytes.Equal(eff, text[prev:])
}

// chunk is what the query found in one top-level node of a document,
// kept to be reused while the node's text stays the same. Offsets in raw
// are relative to start, so a chunk that moves is reused as it is.
type chunk struct {
	start, end uint32
	hash       uint64
	raw        rawGraph
	// pc is the piece assembled from raw, once it was (see assemble).
	pc *piece
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
// that of a chunk of the previous extraction reuse its findings and its
// piece; the others are queried. It returns the new chunks, made in buf's
// array when it has room, and how many nodes were queried.
//
// An edit changes a few nodes in a row: the nodes before them and after
// them are matched with the old chunks in order, and only the nodes in
// between are looked up among the old chunks in between (a node moved by
// the edit, or a copy of another).
func (p *Parser) queryChanged(lang *Language, text []byte, root *sitter.Node, old, buf []chunk) ([]chunk, int) {
	spans := topLevelSpans(root, len(old))
	chunks := buf[:0]
	if cap(chunks) < len(spans) {
		chunks = make([]chunk, 0, len(spans)+len(spans)/8)
	}
	for _, sp := range spans {
		chunks = append(chunks, chunk{start: sp.start, end: sp.end, hash: xxhash.Sum64(text[sp.start:sp.end])})
	}
	same := func(c *chunk, o *chunk) bool {
		return c.hash == o.hash && c.end-c.start == o.end-o.start
	}
	head := 0
	for head < len(chunks) && head < len(old) && same(&chunks[head], &old[head]) {
		head++
	}
	tail := 0
	for tail < len(chunks)-head && tail < len(old)-head && same(&chunks[len(chunks)-1-tail], &old[len(old)-1-tail]) {
		tail++
	}
	reuse := func(c, o *chunk) { c.raw, c.pc = o.raw, o.pc }
	for i := range head {
		reuse(&chunks[i], &old[i])
	}
	for i := range tail {
		reuse(&chunks[len(chunks)-1-i], &old[len(old)-1-i])
	}
	type key struct {
		hash uint64
		size uint32
	}
	var reusable map[key]*chunk
	if mid := old[head : len(old)-tail]; len(mid) > 0 && len(chunks)-tail > head {
		reusable = make(map[key]*chunk, len(mid))
		for i := range mid {
			reusable[key{mid[i].hash, mid[i].end - mid[i].start}] = &mid[i]
		}
	}
	queried := 0
	for i := head; i < len(chunks)-tail; i++ {
		ch := &chunks[i]
		if prev := reusable[key{ch.hash, ch.end - ch.start}]; prev != nil {
			reuse(ch, prev)
			continue
		}
		found := p.query(lang, text, root, root.Child(i))
		ch.raw.addShifted(&found, -int64(ch.start))
		queried++
	}
	return chunks, queried
}

// point returns tree-sitter's point (row, byte column) of an offset.
func point(lines *lineIndex, offset int) sitter.Point {
	row := lines.position(offset).Line
	return sitter.Point{Row: uint32(row), Column: uint32(offset - lines.starts[row])}
}
