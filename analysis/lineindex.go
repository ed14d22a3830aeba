package analysis

import (
	"bytes"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"
)

// lineIndex maps byte offsets of a file to lines and columns and back.
// Positions are derived from byte offsets rather than tree-sitter's points,
// which can be stale after an incremental edit. Columns count UTF-16 code
// units, as the Language Server Protocol does by default.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of the start of each line

	// marks count UTF-16 units from the start of the file at rune
	// boundaries about every markEvery bytes, so that a column on a long
	// line (a minified file) costs no more than markEvery bytes of
	// decoding. They are computed on first use.
	marksOnce sync.Once
	marks     []unitMark
}

// unitMark is a rune boundary and the UTF-16 units before it.
type unitMark struct{ offset, units int }

// Columns on lines up to longLine bytes are measured directly; on longer
// lines, from the nearest UTF-16 mark, spaced markEvery bytes apart.
const (
	longLine  = 8 << 10
	markEvery = 256
)

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, len(src)/32+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &lineIndex{src: src, starts: starts}
}

// edited returns the line index of next, the text after an edit that
// replaced the bytes from start to end of li's text by size bytes: the
// line starts before the edit are kept, those after it moved, and only
// the inserted text is read.
func (li *lineIndex) edited(next []byte, start, end, size int) *lineIndex {
	delta := size - (end - start)
	// Line starts up to start stay; those in (start, end] followed a line
	// break that the edit removed; those after end move by delta.
	keep := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > start })
	after := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > end })
	inserted := next[start : start+size]
	starts := make([]int, keep, len(li.starts)-(after-keep)+bytes.Count(inserted, []byte{'\n'}))
	copy(starts, li.starts[:keep])
	for i := 0; ; {
		j := bytes.IndexByte(inserted[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, start+i)
	}
	for _, s := range li.starts[after:] {
		starts = append(starts, s+delta)
	}
	return &lineIndex{src: next, starts: starts}
}

// position returns the 0-based line and UTF-16 column of offset.
func (li *lineIndex) position(offset int) Position {
	return li.positionFrom(0, offset)
}

// positionFrom is position of an offset on line from or after it: a
// caller walking offsets in order searches only the lines after the last.
func (li *lineIndex) positionFrom(from, offset int) Position {
	offset = max(0, min(offset, len(li.src)))
	if from < 0 || from >= len(li.starts) || li.starts[from] > offset {
		from = 0
	}
	// The first line starting after offset, less one. The offsets a
	// caller walks are near one another: the search gallops from line
	// from (the lines of a large file's top-level nodes, one after the
	// other, cost a few steps each, not a search of the file).
	hi := from + 1
	for step := 1; hi < len(li.starts) && li.starts[hi] <= offset; step *= 2 {
		from = hi
		hi += step
	}
	hi = min(hi, len(li.starts))
	line, found := slices.BinarySearch(li.starts[from:hi], offset)
	line += from
	if !found {
		line--
	}
	start := li.starts[line]
	if offset-start <= longLine {
		return Position{Line: line, Column: utf16Len(li.src[start:offset]), Offset: offset}
	}
	return Position{Line: line, Column: li.unitsBefore(offset) - li.unitsBefore(start), Offset: offset}
}

// lineStart returns the offset of the start of the line holding offset.
func (li *lineIndex) lineStart(offset int) int {
	offset = max(0, min(offset, len(li.src)))
	return li.starts[sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset })-1]
}

// lineEnd returns the offset just after the newline ending the line that
// holds offset-1 (the end of a span), or the end of the file.
func (li *lineIndex) lineEnd(offset int) int {
	offset = max(0, min(offset, len(li.src)))
	if offset > 0 && li.src[offset-1] == '\n' {
		return offset
	}
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset }) - 1
	if line+1 < len(li.starts) {
		return li.starts[line+1]
	}
	return len(li.src)
}

// unitsBefore returns the UTF-16 units of src[:offset], where offset is a
// line start or a rune boundary as utf16Len decodes from the line's start
// (a line break is always a rune boundary).
func (li *lineIndex) unitsBefore(offset int) int {
	li.marksOnce.Do(li.mark)
	i := sort.Search(len(li.marks), func(i int) bool { return li.marks[i].offset > offset }) - 1
	m := li.marks[i]
	return m.units + utf16Len(li.src[m.offset:offset])
}

// mark computes the UTF-16 marks.
func (li *lineIndex) mark() {
	li.marks = make([]unitMark, 1, len(li.src)/markEvery+1)
	units, next := 0, markEvery
	for i := 0; i < len(li.src); {
		if i >= next {
			li.marks = append(li.marks, unitMark{i, units})
			next = i + markEvery
		}
		if li.src[i] < utf8.RuneSelf {
			units++
			i++
			continue
		}
		r, size := utf8.DecodeRune(li.src[i:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
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
	}
	return columnOffset(li.src, start, end, col)
}

// offsetOf is lineIndex.offset without an index: it scans text up to the
// line only, which suits one edit of a large text.
func offsetOf(text []byte, line, col int) int {
	if line < 0 {
		return 0
	}
	start := 0
	for ; line > 0; line-- {
		j := bytes.IndexByte(text[start:], '\n')
		if j < 0 {
			return len(text)
		}
		start += j + 1
	}
	end := len(text)
	if j := bytes.IndexByte(text[start:], '\n'); j >= 0 {
		end = start + j
	}
	return columnOffset(text, start, end, col)
}

// columnOffset returns the offset of a UTF-16 column in the line
// src[start:end] (end at its \n, or the end of the file), as
// lineIndex.offset describes.
func columnOffset(src []byte, start, end, col int) int {
	if end > start && end < len(src) && src[end-1] == '\r' {
		end--
	}
	units := 0
	for i := start; i < end; {
		if units >= col {
			return i
		}
		r, size := utf8.DecodeRune(src[i:end])
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
