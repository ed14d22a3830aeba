package lsp

import (
	"strconv"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
)

// appendOutlineJSON appends the outline of a file's symbols (as
// analysis.FileSymbols returns them) to dst as the JSON of a
// []protocol.DocumentSymbol, the bytes json.Marshal makes of
// documentSymbols(analysis.Outline(syms)), without making either: the
// outline is asked for after every keystroke, and building the nested
// values and encoding them by reflection cost a keystroke more time and
// garbage than the parse (the garbage is the indexer's GC's work too).
func appendOutlineJSON(dst []byte, syms []analysis.SymbolInfo) []byte {
	n := len(syms)
	// The symbols as Outline nests them: each symbol's first child and
	// next sibling, in the order of syms; -1 for none. Symbols numbered
	// 1 to n in order (an open document's) are found by their number,
	// others (the index's) through a map.
	links := make([]int32, 3*n)
	first, next, last := links[:n], links[n:2*n], links[2*n:]
	for i := range links {
		links[i] = -1
	}
	byNumber := true
	for i := range syms {
		if syms[i].ID != int64(i+1) {
			byNumber = false
			break
		}
	}
	var index map[int64]int
	if !byNumber {
		index = make(map[int64]int, n)
		for i := range syms {
			index[syms[i].ID] = i
		}
	}
	find := func(id int64) int {
		if byNumber {
			if id >= 1 && id <= int64(n) {
				return int(id - 1)
			}
			return -1
		}
		if i, ok := index[id]; ok {
			return i
		}
		return -1
	}
	rootFirst, rootLast := -1, -1
	for i := range syms {
		if syms[i].Kind == analysis.KindModule {
			continue
		}
		p := find(syms[i].Parent)
		if p >= 0 && syms[p].Kind == analysis.KindModule {
			p = -1
		}
		if p < 0 {
			if rootLast < 0 {
				rootFirst = i
			} else {
				next[rootLast] = int32(i)
			}
			rootLast = i
			continue
		}
		if last[p] < 0 {
			first[p] = int32(i)
		} else {
			next[last[p]] = int32(i)
		}
		last[p] = int32(i)
	}
	var appendList func(dst []byte, i int, depth int) []byte
	appendList = func(dst []byte, i int, depth int) []byte {
		dst = append(dst, '[')
		for k := i; k >= 0; k = int(next[k]) {
			if k != i {
				dst = append(dst, ',')
			}
			s := &syms[k]
			dst = append(dst, `{"name":`...)
			dst = appendJSONString(dst, s.Name)
			if s.Signature != "" {
				dst = append(dst, `,"detail":`...)
				dst = appendJSONString(dst, s.Signature)
			}
			dst = append(dst, `,"kind":`...)
			dst = strconv.AppendUint(dst, uint64(symbolKind(s.Kind)), 10)
			r := toRange(s.Range)
			dst = append(dst, `,"range":`...)
			dst = appendJSONRange(dst, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
			sel := selectionRange(*s)
			dst = append(dst, `,"selectionRange":`...)
			dst = appendJSONRange(dst, sel.Start.Line, sel.Start.Character, sel.End.Line, sel.End.Character)
			// A cycle of parents (not made by the graph, but not to hang
			// on) is cut where it would nest deeper than there are symbols.
			if c := first[k]; c >= 0 && depth < n {
				dst = append(dst, `,"children":`...)
				dst = appendList(dst, int(c), depth+1)
			}
			dst = append(dst, '}')
		}
		return append(dst, ']')
	}
	if rootFirst < 0 {
		return append(dst, "[]"...)
	}
	return appendList(dst, rootFirst, 0)
}

// appendJSONRange appends a protocol.Range's JSON.
func appendJSONRange(dst []byte, l0, c0, l1, c1 uint32) []byte {
	dst = append(dst, `{"start":{"line":`...)
	dst = strconv.AppendUint(dst, uint64(l0), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendUint(dst, uint64(c0), 10)
	dst = append(dst, `},"end":{"line":`...)
	dst = strconv.AppendUint(dst, uint64(l1), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendUint(dst, uint64(c1), 10)
	return append(dst, "}}"...)
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it (HTML characters, invalid UTF-8 as U+FFFD, U+2028 and
// U+2029), so that the bytes are json.Marshal's.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
