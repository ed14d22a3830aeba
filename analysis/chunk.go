package analysis

import (
	"bytes"
	"fmt"
	pathpkg "path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk is a piece of a file for semantic search, cut along the syntax
// tree: one function, method or type (with its doc comment), a part of a
// long one, or a run of module-level code between them. Text is the source
// as it is; Context is the contextual prefix from the graph that is
// indexed and embedded with it ("From users/repository.go, method
// UserRepository.FindByID: …").
type Chunk struct {
	// Symbol is the index of the chunk's symbol in FileGraph.Symbols, or 0
	// (the module) for module-level code.
	Symbol int
	Kind   Kind
	// Name is the symbol's qualified name; for module-level code, the
	// enclosing type's or the module's.
	Name string
	// Part and Parts number the pieces of a symbol split for size, from 1.
	Part, Parts int
	// Range spans whole lines.
	Range Range
	Text  string
	// Context says where the chunk is and what it does: path, kind,
	// qualified name, first sentence of the doc comment, and what it
	// calls. The index adds the callers it knows when it stores the chunk.
	Context string
	// Vector is the chunk's embedding, quantised, when the index has an
	// embedder.
	Vector []byte
	// terms are what the text index holds for the chunk (see AppendTerms).
	terms chunkTerms
}

// chunkTerms are the search terms of a chunk's name, context and text,
// computed where the file is parsed, in parallel, rather than by SQLite's
// single writer.
type chunkTerms struct{ name, context, body string }

// setTerms computes the chunk's search terms.
func (c *Chunk) setTerms(buf []byte, path string) []byte {
	var terms [3]string
	terms, buf = appendChunkTerms(buf, path, c.Name, c.Context, c.Text)
	c.terms = chunkTerms{name: terms[0], context: terms[1], body: terms[2]}
	return buf
}

// appendChunkTerms returns the search terms of a chunk of the file at path
// with the given name, context and text, as the text index holds them in
// its name, context and body columns: the path in the context is indexed
// without its extension (".go" in every chunk's context would only slow
// the index down), and the module's part of the context without its mark
// (see moduleMark). The name's terms also hold the parts of its compound
// words (see compoundParts). buf is scratch space, returned for reuse.
func appendChunkTerms(buf []byte, path, name, context, text string) ([3]string, []byte) {
	bare := strings.TrimSuffix(path, pathpkg.Ext(path))
	var out [3]string
	buf = AppendNameTerms(buf[:0], name)
	out[0] = string(buf)
	context, module, _ := strings.Cut(context, moduleMark)
	buf = AppendTerms(buf[:0], strings.Replace(context, path, bare, 1))
	buf = AppendTerms(buf, module)
	out[1] = string(buf)
	buf = AppendTerms(buf[:0], text)
	out[2] = string(buf)
	return out, buf
}

// AppendNameTerms appends to dst the search terms of a definition's name,
// as the name column of the text index holds them: its terms (see
// AppendTerms), then the parts of its compound words (updatecache: update,
// cache; see compoundParts), stemmed, without stop words.
func AppendNameTerms(dst []byte, name string) []byte {
	dst = AppendTerms(dst, name)
	CodeWords(name, func(w string, _, _ int, whole bool) error {
		if whole {
			return nil
		}
		for _, p := range compoundParts(w) {
			if isStopWord(p) {
				continue
			}
			if len(dst) > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, Stem(p)...)
		}
		return nil
	})
	return dst
}

// moduleMark starts the module's part of a chunk's context, on a line of
// its own (the context's other parts hold no newline): the first sentence
// of its module's doc (see moduleDoc), which says what every definition
// of the file is about ("Package syntax implements a parser for Go
// source files", "A powerful, extensible, and easy-to-use option
// parser"), in words a definition's own doc does not repeat.
const moduleMark = "\nModule: "

// Chunking limits, in lines and bytes.
const (
	chunkMaxLines  = 80   // a symbol longer than this is split
	chunkPartLines = 60   // lines in each part of a split symbol
	chunkMaxBytes  = 6000 // a part is also cut at this size
	gapChunkLines  = 40   // lines in a chunk of module-level code
	gapMinWordByte = 24   // module-level code with fewer word bytes is skipped
	maxCallees     = 3
)

// chunkFile cuts a file into chunks. comments are the file's comment spans,
// sorted, used to start each symbol's chunk at its doc comment.
func chunkFile(g *FileGraph, src []byte, lines *lineIndex, comments []span) []Chunk {
	chosen := chunkSymbols(g.Symbols)
	type piece struct {
		sym        int
		start, end int
	}
	var pieces []piece
	for _, i := range chosen {
		s := g.Symbols[i]
		pieces = append(pieces, piece{i, docStart(src, comments, decoratorStart(src, lines, s.Range.Start.Offset)), s.Range.End.Offset})
	}
	sort.SliceStable(pieces, func(a, b int) bool { return pieces[a].start < pieces[b].start })
	// A type that contains chosen members (a class and its methods) keeps
	// only the text before its first member: its header and fields.
	for k := range pieces {
		for j := k + 1; j < len(pieces) && pieces[j].start < pieces[k].end; j++ {
			if pieces[j].end <= pieces[k].end {
				pieces[k].end = lines.lineStart(pieces[j].start)
				break
			}
		}
	}
	calls := callsByOffset(g.Refs)
	types := newEnclosingTypes(g.Symbols)
	// The module's doc sentence goes to the context of the file's top-level
	// definitions (functions, classes and types, not methods; see
	// symbolContext): a module describes its entry points; given to every
	// method too, it lifts a file's helpers over the answers of other
	// files (see "Module docs" in retrieval/testdata/eval/README.md).
	module := firstSentence(moduleDoc(g.Language, src, comments))
	var out []Chunk
	covered := 0 // offset up to which the file is chunked
	for _, p := range pieces {
		start, end := lines.lineStart(p.start), lines.lineEnd(p.end)
		if start < covered {
			start = covered
		}
		if end <= start {
			continue
		}
		if gap := lines.lineStart(start); covered < gap {
			out = appendGapChunks(out, g, types, src, lines, covered, gap)
		}
		out = appendSymbolChunks(out, g, calls, module, p.sym, src, lines, start, end)
		covered = end
	}
	if covered < len(src) {
		out = appendGapChunks(out, g, types, src, lines, covered, len(src))
	}
	var buf []byte
	for i := range out {
		buf = out[i].setTerms(buf, g.Path)
	}
	return out
}

// chunkSymbols returns the symbols that get chunks of their own: every
// symbol but the module and those nested in a function or method (a
// closure is part of its function's chunk).
func chunkSymbols(symbols []Symbol) []int {
	var out []int
	for i := 1; i < len(symbols); i++ {
		inCallable := false
		for p, n := symbols[i].Parent, 0; p > 0 && p < len(symbols) && n < len(symbols); p, n = symbols[p].Parent, n+1 {
			if k := symbols[p].Kind; k == KindFunction || k == KindMethod {
				inCallable = true
				break
			}
		}
		if !inCallable {
			out = append(out, i)
		}
	}
	return out
}

// appendSymbolChunks appends the chunks of one symbol spanning
// src[start:end], split into parts when it is long.
func appendSymbolChunks(out []Chunk, g *FileGraph, calls []int, module string, sym int, src []byte, lines *lineIndex, start, end int) []Chunk {
	s := g.Symbols[sym]
	spans := splitSpan(src, start, end, chunkMaxLines, chunkPartLines)
	context := symbolContext(g, calls, module, s, start, end)
	for k, sp := range spans {
		c := Chunk{
			Symbol: sym, Kind: s.Kind, Name: s.QualifiedName,
			Part: k + 1, Parts: len(spans),
			Range: chunkRange(src, lines, sp[0], sp[1]),
			Text:  validText(src[sp[0]:sp[1]]),
		}
		c.Context = context
		if len(spans) > 1 {
			c.Context = fmt.Sprintf("%s (part %d of %d)", context, k+1, len(spans))
		}
		out = append(out, c)
	}
	return out
}

// appendGapChunks appends chunks for the code in src[start:end] that no
// symbol covers (imports, constants, variables, top-level statements),
// in runs of lines, skipping runs with next to no code in them.
func appendGapChunks(out []Chunk, g *FileGraph, types *enclosingTypes, src []byte, lines *lineIndex, start, end int) []Chunk {
	owner := types.around(start, end)
	o := g.Symbols[owner]
	for _, sp := range splitSpan(src, start, end, gapChunkLines, gapChunkLines) {
		text := src[sp[0]:sp[1]]
		if wordBytes(text) < gapMinWordByte {
			continue
		}
		kind := KindModule
		what := "module-level code of " + g.Path
		if owner != 0 {
			kind = o.Kind
			what = fmt.Sprintf("members of %s %s", o.Kind, o.QualifiedName)
		}
		out = append(out, Chunk{
			Symbol: owner, Kind: kind, Name: o.QualifiedName, Part: 1, Parts: 1,
			Range:   chunkRange(src, lines, sp[0], sp[1]),
			Text:    validText(text),
			Context: fmt.Sprintf("From %s, %s.", g.Path, what),
		})
	}
	return out
}

// enclosingTypes finds the innermost type around each gap of a file, for
// gaps visited in order of their start: one pass over the types for the
// whole file.
type enclosingTypes struct {
	symbols []Symbol
	types   []int // the types, by start offset
	next    int   // the next of types to consider
	open    []int // types that start before the current gap
}

func newEnclosingTypes(symbols []Symbol) *enclosingTypes {
	e := &enclosingTypes{symbols: symbols}
	for i := 1; i < len(symbols); i++ {
		if symbols[i].Kind.IsType() {
			e.types = append(e.types, i)
		}
	}
	sort.SliceStable(e.types, func(a, b int) bool {
		return symbols[e.types[a]].Range.Start.Offset < symbols[e.types[b]].Range.Start.Offset
	})
	return e
}

// around returns the index of the innermost type (the last in the
// symbols' order) that contains start..end, or 0 (the module). Calls must
// come with start never decreasing.
func (e *enclosingTypes) around(start, end int) int {
	for ; e.next < len(e.types) && e.symbols[e.types[e.next]].Range.Start.Offset <= start; e.next++ {
		e.open = append(e.open, e.types[e.next])
	}
	// Types that end before the gap starts cannot hold this gap or any
	// later one.
	kept := e.open[:0]
	for _, i := range e.open {
		if e.symbols[i].Range.End.Offset >= start {
			kept = append(kept, i)
		}
	}
	e.open = kept
	owner := 0
	for _, i := range e.open {
		if end <= e.symbols[i].Range.End.Offset {
			owner = max(owner, i)
		}
	}
	return owner
}

// callsByOffset returns the indexes of the call references among refs,
// ordered by where they start (a stable sort: refs at the same offset keep
// their order).
func callsByOffset(refs []Ref) []int {
	var out []int
	for i, r := range refs {
		if r.Kind == EdgeCalls {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return refs[out[a]].Range.Start.Offset < refs[out[b]].Range.Start.Offset })
	return out
}

// symbolContext is the contextual prefix of a symbol's chunks. calls are
// the file's call references, by offset (callsByOffset); module is the
// first sentence of the module's doc (see moduleDoc and moduleMark), or
// "", which a top-level definition's context ends with.
func symbolContext(g *FileGraph, calls []int, module string, s Symbol, start, end int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From %s, %s %s", g.Path, s.Kind, s.QualifiedName)
	if d := firstSentence(s.Doc); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	} else {
		b.WriteString(".")
	}
	var callees []string
	seen := map[string]bool{}
	// The calls in start..end, in the order of g.Refs.
	first := sort.Search(len(calls), func(i int) bool { return g.Refs[calls[i]].Range.Start.Offset >= start })
	last := first + sort.Search(len(calls)-first, func(i int) bool { return g.Refs[calls[first+i]].Range.Start.Offset >= end })
	within := slices.Clone(calls[first:last])
	slices.Sort(within)
	for _, ci := range within {
		r := g.Refs[ci]
		name := r.Name
		if r.Qualifier != "" {
			name = r.Qualifier + "." + r.Name
		}
		if !seen[name] {
			seen[name] = true
			callees = append(callees, name)
			if len(callees) == maxCallees {
				break
			}
		}
	}
	if len(callees) > 0 {
		b.WriteString(" Calls ")
		b.WriteString(strings.Join(callees, ", "))
		b.WriteString(".")
	}
	if module != "" && s.Parent == 0 && s.Kind != KindMethod {
		b.WriteString(moduleMark)
		b.WriteString(module)
	}
	return b.String()
}

// firstSentence returns the first sentence of a doc comment, at most 200
// bytes.
func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && doc[i+1] == ' ' {
			doc = doc[:i+1]
			break
		}
	}
	if len(doc) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(doc[cut]) {
			cut--
		}
		doc = doc[:cut] + "…"
	}
	if doc != "" && !strings.HasSuffix(doc, ".") && !strings.HasSuffix(doc, "…") {
		doc += "."
	}
	return doc
}

// splitSpan cuts src[start:end] into spans of whole lines: one span when
// it has at most maxLines lines and chunkMaxBytes bytes, otherwise spans of
// partLines lines, each also cut at chunkMaxBytes (at a line end when there
// is one, else at a rune boundary).
func splitSpan(src []byte, start, end, maxLines, partLines int) [][2]int {
	content := bytes.TrimSuffix(src[start:end], []byte("\n")) // the last line's break is not a line
	if len(content) <= chunkMaxBytes && bytes.Count(content, []byte("\n")) < maxLines {
		return [][2]int{{start, end}}
	}
	var out [][2]int
	for start < end {
		stop, n := start, 0
		// A line break further than chunkMaxBytes from start is not looked
		// for: the part is cut before it anyway. This keeps a long line
		// from being scanned again for each of its parts.
		limit := min(end, start+chunkMaxBytes+1)
		for stop < end && n < partLines {
			nl := indexByteFrom(src, '\n', stop, limit)
			switch {
			case nl >= 0:
				stop = nl + 1
			case limit == end:
				stop = end
			default:
				// The line runs past limit: the part is over
				// chunkMaxBytes, as the line's end would make it.
				stop = max(limit, stop+1)
			}
			n++
			if lineBytes(src, start, stop) > chunkMaxBytes {
				break
			}
		}
		if lineBytes(src, start, stop) > chunkMaxBytes {
			// Keep whole lines if any fit; else cut a long line.
			cut := start + chunkMaxBytes
			if nl := lastIndexByteIn(src, '\n', start, cut); nl >= 0 {
				cut = nl + 1
			} else {
				for cut > start && !utf8.RuneStart(src[cut]) {
					cut--
				}
			}
			stop = cut
		}
		if stop <= start {
			stop = end
		}
		out = append(out, [2]int{start, stop})
		start = stop
	}
	return out
}

// lineBytes is the size of src[start:stop] without its final line break.
func lineBytes(src []byte, start, stop int) int {
	if stop > start && src[stop-1] == '\n' {
		stop--
	}
	return stop - start
}

// decoratorStart returns where the decorators and attributes on the lines
// above a definition starting at def begin (@cache, #[derive(…)],
// @Override), or def when it has none.
func decoratorStart(src []byte, lines *lineIndex, def int) int {
	if !onlyBlanksBefore(src, def) {
		return def // something else precedes the definition on its line
	}
	start := lines.lineStart(def)
	out := def
	for start > 0 {
		prev := lines.lineStart(start - 1)
		l := bytes.TrimSpace(src[prev : start-1])
		if !bytes.HasPrefix(l, []byte("@")) && !bytes.HasPrefix(l, []byte("#[")) {
			break
		}
		out, start = prev, prev
	}
	return out
}

// onlyBlanksBefore reports whether only white space precedes offset on its
// line. It stops at the first other character.
func onlyBlanksBefore(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; {
		if src[i] < utf8.RuneSelf {
			if !isASCIISpace(src[i]) {
				return false
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRune(src[:i+1])
		if !unicode.IsSpace(r) {
			return false
		}
		i -= size
	}
	return true
}

// isASCIISpace reports whether c is ASCII white space, as bytes.TrimSpace
// sees it.
func isASCIISpace(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ':
		return true
	}
	return false
}

// docStart returns where the doc comment of a definition starting at def
// begins, or def when it has none.
func docStart(src []byte, comments []span, def int) int {
	first, _, ok := docCommentRun(src, comments, def)
	if !ok {
		return def
	}
	return int(comments[first].start)
}

// chunkRange is the range of src[start:end] without its final line break,
// so that it ends on the chunk's last line.
func chunkRange(src []byte, lines *lineIndex, start, end int) Range {
	if end > start && src[end-1] == '\n' {
		end--
		if end > start && src[end-1] == '\r' {
			end--
		}
	}
	return lines.rangeOf(uint32(start), uint32(end))
}

// lineStart returns the offset of the start of the line holding offset.
func lineStart(src []byte, offset int) int {
	for offset > 0 && src[offset-1] != '\n' {
		offset--
	}
	return offset
}

// lineEnd returns the offset just after the newline ending the line that
// holds offset-1 (the end of a span), or len(src).
func lineEnd(src []byte, offset int) int {
	if offset > 0 && src[offset-1] == '\n' {
		return offset
	}
	if i := indexByteFrom(src, '\n', offset, len(src)); i >= 0 {
		return i + 1
	}
	return len(src)
}

func indexByteFrom(src []byte, c byte, from, to int) int {
	if from >= to {
		return -1
	}
	if i := bytes.IndexByte(src[from:to], c); i >= 0 {
		return from + i
	}
	return -1
}

func lastIndexByteIn(src []byte, c byte, from, to int) int {
	for i := to - 1; i >= from; i-- {
		if src[i] == c {
			return i
		}
	}
	return -1
}

// wordBytes counts the letters and digits of text.
func wordBytes(text []byte) int {
	n := 0
	for _, c := range text {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf {
			n++
		}
	}
	return n
}

// validText returns b as a string with invalid UTF-8 replaced and the
// final newline dropped.
func validText(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	s = strings.TrimSuffix(s, "\r")
	return strings.ToValidUTF8(s, "\uFFFD")
}
