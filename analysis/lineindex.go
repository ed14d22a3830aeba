package analysis

import (
	"sort"
	"unicode/utf8"
)

// lineIndex maps byte offsets of a file to lines and columns and back.
// Positions are derived from byte offsets rather than tree-sitter's points,
// which can be stale after an incremental edit. Columns count UTF-16 code
// units, as the Language Server Protocol does by default.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of the start of each line
}

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, len(src)/32+1)
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{src: src, starts: starts}
}

// position returns the 0-based line and UTF-16 column of offset.
func (li *lineIndex) position(offset int) Position {
	offset = max(0, min(offset, len(li.src)))
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset }) - 1
	return Position{Line: line, Column: utf16Len(li.src[li.starts[line]:offset]), Offset: offset}
}

func (li *lineIndex) rangeOf(start, end uint32) Range {
	return Range{Start: li.position(int(start)), End: li.position(int(end))}
}

// offset returns the byte offset of a 0-based line and UTF-16 column,
// clamped to the document: a line past the end is the end of the file, a
// column past the end of a line is the end of that line (before its line
// break, \n or \r\n), and a column inside a surrogate pair or a multi-byte
// character is rounded to the character's start.
func (li *lineIndex) offset(line, col int) int {
	if line < 0 {
		return 0
	}
	if line >= len(li.starts) {
		return len(li.src)
	}
	start := li.starts[line]
	end := len(li.src)
	if line+1 < len(li.starts) {
		end = li.starts[line+1] - 1 // the \n
		if end > start && li.src[end-1] == '\r' {
			end--
		}
	}
	units := 0
	for i := start; i < end; {
		if units >= col {
			return i
		}
		r, size := utf8.DecodeRune(li.src[i:end])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > col {
			return i
		}
		units += n
		i += size
	}
	return end
}

// utf16Len returns the length of b in UTF-16 code units. Invalid bytes
// count one unit each, as they decode to U+FFFD.
func utf16Len(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}
