package analysis

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Parser parses files and extracts their graphs. It holds a tree-sitter
// parser and query cursor, so it is not safe for concurrent use: make one per
// goroutine.
type Parser struct {
	// NoChunks leaves FileGraph.Chunks empty (see Options.NoChunks).
	NoChunks bool

	parser  *sitter.Parser
	cursor  *sitter.QueryCursor
	current *Language
	// col holds the matches of the last query.
	col collector
	// noCollect makes queries read matches through go-tree-sitter alone
	// (for tests).
	noCollect bool
	// noRooted makes queries run on the whole tree rather than on the
	// patterns' root nodes (for tests).
	noRooted bool
	// spent adds up where Extract's time went, for Summary.Timings.
	spent Timings
	// pause, when set, is called between the stages of an extraction
	// (parse, recovery, query, assembly, chunks): the indexer waits there
	// for a keystroke (foreground.pause).
	pause func()
}

// yield calls p.pause, if set.
func (p *Parser) yield() {
	if p.pause != nil {
		p.pause()
	}
}

// NewParser returns a parser ready for any language.
func NewParser() *Parser {
	return &Parser{parser: sitter.NewParser(), cursor: sitter.NewQueryCursor()}
}

// Close releases the parser's C memory.
func (p *Parser) Close() {
	p.cursor.Close()
	p.parser.Close()
}

// Parse parses src, reusing old (which must already carry the edits made
// since it was parsed, see sitter.Tree.Edit) when it is not nil.
func (p *Parser) Parse(ctx context.Context, lang *Language, src []byte, old *sitter.Tree) (*sitter.Tree, error) {
	if p.current != lang {
		if err := lang.compile(); err != nil {
			return nil, err
		}
		p.parser.SetLanguage(lang.grammar)
		p.current = lang
	}
	tree, err := p.parser.ParseCtx(ctx, old, src)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return tree, nil
}

// Extract parses src and returns its graph. path is the file's path relative
// to the workspace root, with forward slashes. A file with syntax errors is
// read without its damaged regions, so that they hide nothing else (see
// recoverText).
func (p *Parser) Extract(ctx context.Context, lang *Language, path string, src []byte) (*FileGraph, error) {
	start := time.Now()
	tree, err := p.Parse(ctx, lang, src, nil)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", path, err)
	}
	p.spent.Parse += time.Since(start).Seconds()
	defer func() {
		start := time.Now()
		tree.Close()
		p.spent.Parse += time.Since(start).Seconds()
	}()
	p.yield()
	if tree.RootNode().HasError() {
		start := time.Now()
		rec, err := p.recoverText(ctx, lang, src, tree, nil, -1)
		if err != nil {
			return nil, fmt.Errorf("extract %s: %w", path, err)
		}
		p.spent.Parse += time.Since(start).Seconds()
		p.yield()
		if rec != nil {
			defer rec.tree.Close()
			return p.extractRecovered(ctx, lang, path, src, tree, rec)
		}
	}
	return p.ExtractTree(lang, path, src, tree), nil
}

// extractRecovered returns the graph of a file with syntax errors from
// its recovery.
func (p *Parser) extractRecovered(ctx context.Context, lang *Language, filePath string, src []byte, tree *sitter.Tree, rec *recovery) (*FileGraph, error) {
	start := time.Now()
	raw := p.query(lang, rec.text, rec.tree.RootNode(), nil)
	toRealRaw(&raw, rec.cuts)
	errors, err := p.queryCuts(ctx, lang, src, rec.cuts, &raw)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", filePath, err)
	}
	p.yield()
	queried := time.Now()
	p.spent.Queries += queried.Sub(start).Seconds()
	lines := newLineIndex(src)
	g := assemble(lang, filePath, src, lines, tree.RootNode(), raw, false)
	g.ParseErrors = errors
	assembled := time.Now()
	p.spent.Assemble += assembled.Sub(queried).Seconds()
	p.yield()
	if !p.NoChunks {
		g.Chunks = chunkFile(g, src, lines, raw.comments)
		p.spent.Chunks += time.Since(assembled).Seconds()
	}
	return g, nil
}

// definition is a definition match before parents are assigned. Offsets
// are absolute byte offsets in the file.
type definition struct {
	kind       Kind
	start, end uint32
	name       string
	nameStart  uint32
	nameEnd    uint32
	owner      string
	doc        string
	signature  string
}

// pendingRef is a reference before its source symbol is known.
type pendingRef struct {
	at         uint32 // where the referring node starts
	start, end uint32 // the span reported for the reference
	ref        Ref    // without Source and Range
}

// rawGraph is what the query finds in (part of) a file, before symbols are
// numbered and nested: everything in it is positioned by byte offsets, so
// the part of an unchanged piece of text can be reused after an edit
// elsewhere, shifted (see Document.Apply).
type rawGraph struct {
	module   string
	moduleAt uint32 // where the node naming the module starts
	defs     []definition
	refs     []pendingRef
	comments []span
}

// addShifted appends o to r with every offset of o moved by delta.
func (r *rawGraph) addShifted(o *rawGraph, delta int64) {
	d := func(x uint32) uint32 { return uint32(int64(x) + delta) }
	if r.module == "" && o.module != "" {
		r.module, r.moduleAt = o.module, d(o.moduleAt)
	}
	for _, x := range o.defs {
		x.start, x.end, x.nameStart, x.nameEnd = d(x.start), d(x.end), d(x.nameStart), d(x.nameEnd)
		r.defs = append(r.defs, x)
	}
	for _, x := range o.refs {
		x.at, x.start, x.end = d(x.at), d(x.start), d(x.end)
		r.refs = append(r.refs, x)
	}
	for _, x := range o.comments {
		r.comments = append(r.comments, span{d(x.start), d(x.end)})
	}
}

// ExtractTree returns the graph of a file from its syntax tree.
func (p *Parser) ExtractTree(lang *Language, filePath string, src []byte, tree *sitter.Tree) *FileGraph {
	start := time.Now()
	root := tree.RootNode()
	raw := p.query(lang, src, root, nil)
	p.yield()
	queried := time.Now()
	p.spent.Queries += queried.Sub(start).Seconds()
	lines := newLineIndex(src)
	g := assemble(lang, filePath, src, lines, root, raw, false)
	p.yield()
	assembled := time.Now()
	p.spent.Assemble += assembled.Sub(queried).Seconds()
	if !p.NoChunks {
		// assemble sorted the comments in place.
		g.Chunks = chunkFile(g, src, lines, raw.comments)
		p.spent.Chunks += time.Since(assembled).Seconds()
	}
	return g
}

// query runs the language's tags query over root, or only over the part of
// it that within spans (a top-level node), and returns what it found.
func (p *Parser) query(lang *Language, src []byte, root, within *sitter.Node) rawGraph {
	text := spanText(src)
	var raw rawGraph
	if lang.compile() != nil {
		return raw // root was not parsed by p.Parse, which reports the error
	}
	lo, hi := uint32(0), uint32(len(src))
	col := &p.col
	collected := false
	if lang.roots != nil && !p.noCollect && !p.noRooted {
		switch {
		case within == nil:
			collected = col.collectRooted(p.cursor, lang, root, nil)
		default:
			// Matches in the node start in its subtree, or at the root
			// when a pattern starts there ((source_file (comment))).
			var outer *sitter.Node
			if sym := root.Symbol(); int(sym) < len(lang.roots) && lang.roots[sym] != 0 {
				// Only when one of them names the node's type: running them
				// walks every child of the root up to the node.
				if t := lang.inner[sym]; t == nil || t.has(within.Symbol()) {
					outer = root
				}
			}
			lo, hi = within.StartByte(), within.EndByte()
			collected = col.collectRooted(p.cursor, lang, within, outer)
		}
	}
	if !collected && within != nil {
		lo, hi = within.StartByte(), within.EndByte()
		p.cursor.SetPointRange(within.StartPoint(), within.EndPoint())
		defer p.cursor.SetPointRange(sitter.Point{}, sitter.Point{Row: ^uint32(0), Column: ^uint32(0)})
	}
	if !collected && !p.noCollect && canCollect {
		p.cursor.Exec(lang.tags, root)
		collected = col.collect(p.cursor, lang.keepNodes)
	}
	if !collected {
		p.cursor.Exec(lang.tags, root)
		col.collectSlow(p.cursor, lang.keepNodes)
	}
	tree := treeOf(root)
	for _, m := range col.matches {
		captures := col.captures[m.start:m.end]
		var (
			main                            *captured
			role                            string
			name, owner, qual, subject, doc string
			qualRaw                         string
			nameSpan                        *captured
		)
		for i := range captures {
			c := &captures[i]
			capture := lang.captureNames[c.index]
			switch capture {
			case "comment":
				if c.start >= lo && c.start < hi {
					raw.comments = append(raw.comments, span{c.start, c.end})
				}
			case "name":
				name, nameSpan = text(c.start, c.end), c
			case "owner":
				owner = lastIdentifier(text(c.start, c.end))
			case "qualifier":
				qualRaw = text(c.start, c.end)
				qual = lastIdentifier(qualRaw)
			case "subject":
				subject = lastIdentifier(text(c.start, c.end))
			case "doc":
				doc = text(c.start, c.end)
			default:
				if strings.HasPrefix(capture, "definition.") || strings.HasPrefix(capture, "reference.") {
					main, role = c, capture
				}
			}
		}
		if main == nil || name == "" || !lang.accepts(m.pattern, captures, text) {
			continue
		}
		if st := main.start; within != nil && (st < lo || st >= hi) {
			continue // belongs to another top-level node
		}
		switch {
		case role == "definition.module":
			if raw.module == "" {
				raw.module, raw.moduleAt = name, main.start
			}
		case strings.HasPrefix(role, "definition."):
			raw.defs = append(raw.defs, definition{
				kind:  Kind(strings.TrimPrefix(role, "definition.")),
				start: main.start, end: main.end,
				name: name, nameStart: nameSpan.start, nameEnd: nameSpan.end,
				owner: owner, doc: doc, signature: signature(col.node(main.node, tree), src),
			})
		default:
			kind := referenceKind(role)
			if kind == "" {
				continue
			}
			at := main
			if nameSpan != nil && kind == EdgeCalls {
				at = nameSpan
			}
			if kind == EdgeImports {
				name, qual = cleanImport(name), ""
				if qualRaw != "" {
					// Python's "from . import jobs" or "from a.b
					// import c": jobs or c may be a submodule, .jobs
					// or a.b.c, qualified by the module it is
					// imported from (Ref.Qualifier).
					qual = cleanImport(qualRaw)
					if strings.Trim(qual, ".") == "" {
						name = qual + name
					} else {
						name = qual + "." + name
					}
				}
			}
			raw.refs = append(raw.refs, pendingRef{
				at: main.start, start: at.start, end: at.end,
				ref: Ref{Kind: kind, Name: name, Qualifier: qual, Subject: subject},
			})
		}
	}
	return raw
}

// assemble numbers, nests and positions what the query found in a file.
func assemble(lang *Language, filePath string, src []byte, lines *lineIndex, root *sitter.Node, raw rawGraph, chunks bool) *FileGraph {
	module := raw.module
	if module == "" {
		module = strings.ToValidUTF8(moduleFromPath(filePath), "\uFFFD")
	}
	g := &FileGraph{Path: filePath, Language: lang.Name}
	if root.HasError() {
		g.ParseErrors = countErrors(root)
	}
	g.Symbols = append(g.Symbols, Symbol{
		Index: 0, Parent: -1, Kind: KindModule,
		Name: module, QualifiedName: module, Module: module,
		Range: lines.rangeOf(0, uint32(len(src))), NameRange: lines.rangeOf(0, 0),
	})
	comments := raw.comments
	sort.Slice(comments, func(i, j int) bool { return comments[i].start < comments[j].start })
	g.Symbols = append(g.Symbols, buildSymbols(raw.defs, module, src, lines, comments)...)
	g.Refs = attachRefs(g.Symbols, raw.refs, lines)
	if chunks {
		g.Chunks = chunkFile(g, src, lines, comments)
	}
	return g
}

// accepts reports whether a match of a pattern satisfies the pattern's
// predicates.
func (l *Language) accepts(pattern uint16, captures []captured, text func(start, end uint32) string) bool {
	for _, p := range l.predicates[pattern] {
		for _, c := range captures {
			if c.index == p.capture && !p.holds(text(c.start, c.end)) {
				return false
			}
		}
	}
	return true
}

// buildSymbols orders definitions, drops duplicates found by several
// patterns, and assigns parents, kinds and qualified names. The returned
// symbols are numbered from 1 (0 is the module).
func buildSymbols(defs []definition, module string, src []byte, lines *lineIndex, comments []span) []Symbol {
	out := nestSymbols(defs, module, lines, func(d definition, s *Symbol) {
		if s.Doc == "" {
			s.Doc = cleanDoc(docComment(src, comments, int(d.start)))
		}
		// A method declared apart from its type (Go receivers, Rust impl
		// blocks): its parent is the type when this file defines it,
		// before or after the method.
		if d.owner != "" {
			if j := ownerIndex(defs, d.owner); j >= 0 {
				s.Parent = -2 - j // resolved below, once every symbol exists
			}
		}
	})
	for i := range out {
		if out[i].Parent <= -2 {
			owner := defs[-2-out[i].Parent]
			out[i].Parent = 0
			for j := range out {
				if out[j].Range.Start.Offset == int(owner.start) && out[j].Range.End.Offset == int(owner.end) && out[j].Name == owner.name {
					out[i].Parent = out[j].Index
					break
				}
			}
		}
	}
	return out
}

// nestSymbols sorts defs by position (an enclosing definition before
// those inside it), drops duplicates found by several patterns, and makes
// their symbols, numbered from 1: a definition inside another is its child
// (a function inside a type is a method); one declared apart from its type
// (d.owner: a Go receiver, a Rust impl) is a method qualified by the type,
// with no parent. visit, called with each kept definition and its symbol
// before the next one, fills in what the caller knows: the doc comment
// when the definition had none, a parent across files or pieces.
func nestSymbols(defs []definition, module string, lines *lineIndex, visit func(d definition, s *Symbol)) []Symbol {
	sort.SliceStable(defs, func(i, j int) bool {
		if defs[i].start != defs[j].start {
			return defs[i].start < defs[j].start
		}
		return defs[i].end > defs[j].end
	})
	out := make([]Symbol, 0, len(defs))
	local := make([]string, 0, len(defs)) // qualified names without the module
	var stack []int                       // indexes into out of open definitions
	for i, d := range defs {
		if i > 0 && d.start == defs[i-1].start && d.end == defs[i-1].end && d.name == defs[i-1].name {
			continue
		}
		for len(stack) > 0 && out[stack[len(stack)-1]].Range.End.Offset <= int(d.start) {
			stack = stack[:len(stack)-1]
		}
		s := Symbol{
			Index:     len(out) + 1,
			Parent:    0,
			Kind:      d.kind,
			Name:      d.name,
			Module:    module,
			Range:     lines.rangeOf(d.start, d.end),
			NameRange: lines.rangeOf(d.nameStart, d.nameEnd),
			Signature: d.signature,
			Doc:       cleanDoc(d.doc),
		}
		parentLocal := ""
		if d.owner != "" {
			s.Kind = KindMethod
			parentLocal = d.owner
		} else if len(stack) > 0 {
			top := stack[len(stack)-1]
			s.Parent = out[top].Index
			parentLocal = local[top]
			if s.Kind == KindFunction && out[top].Kind.IsType() {
				s.Kind = KindMethod
			}
		}
		if parentLocal == "" {
			local = append(local, s.Name)
			s.QualifiedName = qualify(module, s.Name)
		} else {
			local = append(local, parentLocal+"."+s.Name)
			s.QualifiedName = parentLocal + "." + s.Name
		}
		visit(d, &s)
		out = append(out, s)
		stack = append(stack, len(out)-1)
	}
	return out
}

// ownerIndex returns the index in defs of the type named owner, or -1.
func ownerIndex(defs []definition, owner string) int {
	for j, d := range defs {
		if d.name == owner && d.kind.IsType() {
			return j
		}
	}
	return -1
}

// attachRefs gives each reference the innermost symbol that contains it and,
// for references with a subject (impl Trait for Type), the subject's symbol
// when the file defines it. Symbols are sorted by start, outer before inner.
func attachRefs(symbols []Symbol, refs []pendingRef, lines *lineIndex) []Ref {
	// In source order, whatever order the query found them in: a call
	// nested in another's receiver (f().g()) starts where it does, and
	// comes first by its name.
	slices.SortFunc(refs, comparePendingRefs)
	out := make([]Ref, 0, len(refs))
	var stack []int // open symbols, innermost last
	next := 1
	for _, pr := range refs {
		at := int(pr.at)
		for next < len(symbols) && symbols[next].Range.Start.Offset <= at {
			for len(stack) > 0 && symbols[stack[len(stack)-1]].Range.End.Offset <= symbols[next].Range.Start.Offset {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, next)
			next++
		}
		for len(stack) > 0 && symbols[stack[len(stack)-1]].Range.End.Offset <= at {
			stack = stack[:len(stack)-1]
		}
		r := pr.ref
		r.Range = lines.rangeOf(pr.start, pr.end)
		r.Source = 0
		if len(stack) > 0 {
			r.Source = stack[len(stack)-1]
		}
		if r.Subject != "" {
			for _, s := range symbols[1:] {
				if s.Name == r.Subject && s.Kind.IsType() {
					r.Source, r.Subject = s.Index, ""
					break
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// comparePendingRefs orders references by where they start, then by
// what they are.
func comparePendingRefs(a, b pendingRef) int {
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end),
		cmp.Compare(a.ref.Kind, b.ref.Kind), cmp.Compare(a.ref.Name, b.ref.Name),
		cmp.Compare(a.ref.Qualifier, b.ref.Qualifier), cmp.Compare(a.ref.Subject, b.ref.Subject))
}

func referenceKind(capture string) EdgeKind {
	switch capture {
	case "reference.call":
		return EdgeCalls
	case "reference.inherits":
		return EdgeInherits
	case "reference.implements":
		return EdgeImplements
	case "reference.embeds":
		return EdgeEmbeds
	case "reference.import":
		return EdgeImports
	}
	return ""
}

func qualify(module, name string) string {
	if module == "" {
		return name
	}
	return module + "." + name
}

// moduleFromPath names a module after its file, or after its directory for
// files that stand for their directory (index.js, __init__.py, mod.rs).
func moduleFromPath(p string) string {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch stem {
	case "index", "__init__", "mod", "lib", "main", "__main__":
		dir := path.Dir(p)
		if path.Base(dir) == "src" {
			dir = path.Dir(dir) // a crate or package: tools/userctl/src/main.rs
		}
		if base := path.Base(dir); base != "." && base != "/" {
			return base
		}
	}
	return stem
}

// spanText returns a function giving the source text of a byte span,
// made valid UTF-8 when the file is not.
func spanText(src []byte) func(start, end uint32) string {
	valid := utf8.Valid(src)
	return func(s, e uint32) string {
		if e > uint32(len(src)) || s > e {
			return ""
		}
		if valid {
			return string(src[s:e])
		}
		return strings.ToValidUTF8(string(src[s:e]), "\uFFFD")
	}
}

// lastIdentifier returns the last identifier of a dotted or scoped
// expression, dropping trailing call arguments, indexes and type arguments:
// "s.repo" → "repo", "std::fmt::Display" → "Display", "Repo[T]" → "Repo",
// "a.b().c()" → "c", "foo!" → "foo", "new URL(x)" → "URL".
func lastIdentifier(s string) string {
	s = strings.TrimSpace(s)
	for {
		s = strings.TrimRight(s, "!?.: \t\r\n")
		if s == "" {
			return ""
		}
		closeCh := s[len(s)-1]
		var openCh byte
		switch closeCh {
		case ')':
			openCh = '('
		case ']':
			openCh = '['
		case '>':
			openCh = '<'
		default:
			openCh = 0
		}
		if openCh == 0 {
			break
		}
		depth, i := 0, len(s)-1
		for ; i >= 0; i-- {
			if s[i] == closeCh {
				depth++
			} else if s[i] == openCh {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if i <= 0 {
			// Unbalanced, or the whole text is one group: (a as B).
			return ""
		}
		s = s[:i]
	}
	if i := strings.LastIndexFunc(s, func(r rune) bool {
		return r == '.' || r == ':' || r == ' ' || r == '\t' || r == '\n' || r == '(' || r == '['
	}); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimLeft(s, "*&$")
	if !isIdentifier(s) {
		return ""
	}
	return s
}

// isIdentifier reports whether s is a plain identifier (letters, digits,
// underscores, $), as opposed to a literal or an expression.
func isIdentifier(s string) bool {
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || r == '$' || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// cleanImport strips quotes from an import path and joins it on one line.
func cleanImport(s string) string {
	return strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(s), "\"'`")), " ")
}

// countErrors counts ERROR and MISSING nodes under n. A node with an
// error that none of its visible children has holds a hidden one (a
// MISSING _newline in Python, which a tree cursor does not visit): it
// counts as one, so that a tree with an error never counts none.
func countErrors(n *sitter.Node) int {
	if count, ok := countErrorsC(n); ok {
		return count
	}
	return countErrorsGo(n)
}

// childHasError tells whether a child of n that a tree cursor visits has
// an error.
func childHasError(n *sitter.Node) bool {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if c.CurrentNode().HasError() {
			return true
		}
	}
	return false
}

// countErrorsGo is countErrors through the binding, a cgo call a node.
func countErrorsGo(n *sitter.Node) int {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	count := 0
	for {
		node := c.CurrentNode()
		switch {
		case node.IsError() || node.IsMissing():
			count++
		case node.HasError() && !childHasError(node):
			count++
		}
		if node.HasError() && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return count
			}
		}
	}
}
