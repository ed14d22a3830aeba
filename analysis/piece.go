package analysis

import (
	"slices"
	"sort"
	"strings"
)

// An open document's graph is assembled from pieces, one per top-level
// node, so that a keystroke re-assembles only the node it changed: the
// others reuse what was assembled for them, shifted to where they are now.
// Joining the pieces (link) renumbers their symbols, resolves what crosses
// pieces (a Go method's receiver type, a Rust impl's subject, a doc comment
// above a top-level definition) and costs a copy of the symbols and
// references, not their assembly. The result equals assemble's on the same
// findings.

// piece is what assembly made of the findings of one top-level node (or
// of a run of them, or of the whole file): symbols and references with
// positions in the text the piece was assembled in.
type piece struct {
	// start is where the piece starts in the text it was assembled in,
	// and line and col its position there: a piece is moved by the
	// difference with where it starts now.
	start     int
	line, col int
	// module is the module name the qualified names were made with.
	module string
	// syms are numbered from 1 within the piece (0 stands for the file's
	// module); Parent is a piece index, or 0.
	syms []Symbol
	// owners names, for each symbol, the type a method was declared
	// apart from (a Go receiver, a Rust impl), resolved across pieces.
	owners []string
	// outside lists the symbols whose doc comment, if any, is above the
	// piece, and docs the raw doc comment each had when assembled.
	outside []int
	docs    []string
	// refs have Source as a piece index, or 0; a Subject is resolved
	// across pieces.
	refs     []Ref
	subjects bool
	comments []span
	// owned says a symbol has an owner.
	owned bool
}

// buildPiece assembles findings of one part of a file (offsets in src)
// that starts at start. comments are the part's own, sorted.
func buildPiece(defs []definition, refs []pendingRef, comments []span, module string, src []byte, lines *lineIndex, start int) *piece {
	pos := lines.position(start)
	pc := &piece{start: start, line: pos.Line, col: pos.Column, module: module, comments: comments}
	owners := make([]string, 0, len(defs))
	out := nestSymbols(defs, module, lines, func(d definition, s *Symbol) {
		if s.Doc == "" {
			// A doc comment inside the piece is the piece's; when no
			// comment of the piece ends before the definition, the comment
			// above it (if any) is another piece's, read when linking.
			if k := sort.Search(len(comments), func(k int) bool { return comments[k].end > d.start }); k > 0 {
				s.Doc = cleanDoc(docComment(src, comments, int(d.start)))
			} else {
				pc.outside = append(pc.outside, s.Index-1)
			}
		}
		owners = append(owners, d.owner)
	})
	pc.syms, pc.owners = out, owners
	pc.owned = slices.ContainsFunc(owners, func(o string) bool { return o != "" })
	// References: as attachRefs, with the subject left for link.
	slices.SortFunc(refs, comparePendingRefs)
	pc.refs = make([]Ref, 0, len(refs))
	var stack []int // indexes into out of open definitions
	next := 0
	for _, pr := range refs {
		at := int(pr.at)
		for next < len(out) && out[next].Range.Start.Offset <= at {
			for len(stack) > 0 && out[stack[len(stack)-1]].Range.End.Offset <= out[next].Range.Start.Offset {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, next)
			next++
		}
		for len(stack) > 0 && out[stack[len(stack)-1]].Range.End.Offset <= at {
			stack = stack[:len(stack)-1]
		}
		r := pr.ref
		r.Range = lines.rangeOf(pr.start, pr.end)
		r.Source = 0
		if len(stack) > 0 {
			r.Source = out[stack[len(stack)-1]].Index
		}
		pc.subjects = pc.subjects || r.Subject != ""
		pc.refs = append(pc.refs, r)
	}
	pc.docs = make([]string, len(pc.outside))
	return pc
}

// placedPiece is a piece and where it starts in the current text.
type placedPiece struct {
	pc               *piece
	start, line, col int
}

// link joins pieces, in text order, into the graph of src without its
// references: the module symbol, then each piece's symbols renumbered and
// moved. It returns the graph, the file's comments, sorted, and the first
// type of each name when a piece needed it (a method's parent), for
// linkRefs. The references, which only some readers need, are linked by
// linkRefs when first asked for: a keystroke does not copy them.
//
// prev, when not nil, is the snapshot of the text before the edits that
// made src, whose first unchanged bytes the edits left as they were: the
// leading pieces that are prev's, placed where they were, and whose
// definitions start in those bytes are linked as they were in prev
// (their symbols copied, their docs not read again). Their symbols are
// what linking them again would make: the pieces before them are the
// same, and a doc comment above a definition is read from the text
// before it. reused counts those pieces.
func link(lang *Language, filePath, module string, src []byte, lines *lineIndex, pieces []placedPiece, prev *docSnapshot, unchanged int) (g *FileGraph, comments []span, types map[string]int, reused int) {
	nsyms, ncomments := 1, 0
	for _, p := range pieces {
		nsyms += len(p.pc.syms)
		ncomments += len(p.pc.comments)
	}
	same, sameSyms, sameComments := 0, 0, 0
	owned := false
	if prev != nil && !prev.bare && unchanged > 0 {
		for same < len(pieces) && same < len(prev.pieces) && pieces[same] == prev.pieces[same] && pieces[same].before(unchanged) {
			pc := pieces[same].pc
			sameSyms += len(pc.syms)
			sameComments += len(pc.comments)
			owned = owned || pc.owned
			same++
		}
	}
	g = &FileGraph{Path: filePath, Language: lang.Name}
	g.Symbols = make([]Symbol, 1, nsyms)
	g.Symbols[0] = Symbol{
		Index: 0, Parent: -1, Kind: KindModule,
		Name: module, QualifiedName: module, Module: module,
		Range: lines.rangeOf(0, uint32(len(src))), NameRange: lines.rangeOf(0, 0),
	}
	comments = make([]span, 0, ncomments)
	if same > 0 {
		g.Symbols = append(g.Symbols, prev.graph.Symbols[1:1+sameSyms]...)
		comments = append(comments, prev.comments[:sameComments]...)
	}
	for _, p := range pieces[same:] {
		pc := p.pc
		dOff, dLine, dCol := p.start-pc.start, p.line-pc.line, p.col-pc.col
		moved := dOff != 0 || dLine != 0 || dCol != 0
		base := len(g.Symbols) - 1
		for i, s := range pc.syms {
			s.Index += base
			if s.Parent > 0 {
				s.Parent += base
			}
			if moved {
				s.Range = Range{p.move(s.Range.Start), p.move(s.Range.End)}
				s.NameRange = Range{p.move(s.NameRange.Start), p.move(s.NameRange.End)}
			}
			owned = owned || pc.owners[i] != ""
			g.Symbols = append(g.Symbols, s)
		}
		// A doc comment above a definition of the piece ends before the
		// piece: it is among the comments of the pieces before.
		for k, i := range pc.outside {
			s := &g.Symbols[base+i+1]
			s.Doc = pc.docAbove(k, src, comments, s.Range.Start.Offset)
		}
		for _, c := range pc.comments {
			comments = append(comments, span{uint32(int(c.start) + dOff), uint32(int(c.end) + dOff)})
		}
	}
	if !owned {
		return g, comments, nil, same
	}
	types = firstTypes(g.Symbols)
	i := 1
	for _, p := range pieces {
		for _, owner := range p.pc.owners {
			if owner != "" {
				g.Symbols[i].Parent = types[owner] // 0 when the file does not define it
			}
			i++
		}
	}
	return g, comments, types, same
}

// firstTypes returns the index of the first type of each name among
// syms: a method's parent, a relation's source.
func firstTypes(syms []Symbol) map[string]int {
	types := map[string]int{}
	for i := len(syms) - 1; i > 0; i-- {
		if s := &syms[i]; s.Kind.IsType() {
			types[s.Name] = i
		}
	}
	return types
}

// linkRefs returns the references of the pieces link joined into the
// graph whose symbols are syms, renumbered and moved; a reference whose
// subject is a type of the file gets it as its source. types is link's,
// or nil when it made none. It only reads the pieces, which stay as they
// are: it is safe for concurrent use.
func linkRefs(pieces []placedPiece, syms []Symbol, types map[string]int) []Ref {
	nrefs := 0
	subjects := false
	for _, p := range pieces {
		nrefs += len(p.pc.refs)
		subjects = subjects || p.pc.subjects
	}
	refs := make([]Ref, 0, nrefs)
	base := 0
	for _, p := range pieces {
		pc := p.pc
		moved := p.start != pc.start || p.line != pc.line || p.col != pc.col
		for _, r := range pc.refs {
			if r.Source > 0 {
				r.Source += base
			}
			if moved {
				r.Range = Range{p.move(r.Range.Start), p.move(r.Range.End)}
			}
			refs = append(refs, r)
		}
		base += len(pc.syms)
	}
	if !subjects {
		return refs
	}
	if types == nil {
		types = firstTypes(syms)
	}
	for i := range refs {
		r := &refs[i]
		if r.Subject == "" {
			continue
		}
		if t, ok := types[r.Subject]; ok {
			r.Source, r.Subject = t, ""
		}
	}
	return refs
}

// before reports whether the definitions of the piece whose doc comment
// is above it start at or before offset end.
func (p *placedPiece) before(end int) bool {
	pc := p.pc
	if len(pc.outside) == 0 {
		return true
	}
	return pc.syms[pc.outside[len(pc.outside)-1]].Range.Start.Offset+p.start-pc.start <= end
}

// move returns a position of the piece, in the text it was assembled in,
// where it is now.
func (p *placedPiece) move(x Position) Position {
	if x.Line == p.pc.line {
		x.Column += p.col - p.pc.col
	}
	x.Line += p.line - p.pc.line
	x.Offset += p.start - p.pc.start
	return x
}

// docAbove returns the doc of the piece's k-th symbol whose doc comment
// is above the piece, now at offset def. The comment read last is kept
// with the piece: while it stays the same, its cleaned text is reused.
func (pc *piece) docAbove(k int, src []byte, comments []span, def int) string {
	first, last, ok := docCommentRun(src, comments, def)
	if !ok {
		return ""
	}
	if raw := pc.docs[k]; raw != "" && sameJoined(src, comments[first:last+1], raw) {
		return pc.syms[pc.outside[k]].Doc
	}
	parts := make([]string, 0, last-first+1)
	for _, c := range comments[first : last+1] {
		parts = append(parts, string(src[c.start:c.end]))
	}
	raw := strings.Join(parts, "\n")
	doc := cleanDoc(raw)
	pc.docs[k], pc.syms[pc.outside[k]].Doc = raw, doc
	return doc
}

// sameJoined reports whether the comments' texts joined by line breaks
// are raw.
func sameJoined(src []byte, comments []span, raw string) bool {
	for i, c := range comments {
		if i > 0 {
			if raw == "" || raw[0] != '\n' {
				return false
			}
			raw = raw[1:]
		}
		text := src[c.start:c.end]
		if len(raw) < len(text) || raw[:len(text)] != string(text) {
			return false
		}
		raw = raw[len(text):]
	}
	return raw == ""
}
