package analysis

import "sort"

// lineIndex maps byte offsets of a file to lines and columns. Positions are
// derived from byte offsets rather than tree-sitter's points, which can be
// stale after an incremental edit.
type lineIndex struct {
	starts []int // byte offset of the start of each line
	size   int
}

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, len(src)/32+1)
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{starts: starts, size: len(src)}
}

// position returns the 0-based line and byte column of offset.
func (li *lineIndex) position(offset int) Position {
	if offset > li.size {
		offset = li.size
	}
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset }) - 1
	return Position{Line: line, Column: offset - li.starts[line], Offset: offset}
}

func (li *lineIndex) rangeOf(start, end uint32) Range {
	return Range{Start: li.position(int(start)), End: li.position(int(end))}
}
