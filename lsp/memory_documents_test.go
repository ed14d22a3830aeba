package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestMemoryDocumentPositions(t *testing.T) {
	text := "a\nü😀x\n\nend"
	tests := []struct {
		offset int
		pos    protocol.Position
	}{
		{0, pos(0, 0)},
		{1, pos(0, 1)},
		{2, pos(1, 0)},
		{4, pos(1, 1)},  // after ü (2 bytes, 1 unit)
		{8, pos(1, 3)},  // after 😀 (4 bytes, 2 units)
		{9, pos(1, 4)},  // after x
		{11, pos(3, 0)}, // "end"
		{len(text), pos(3, 3)},
	}
	li := newTextLines(text)
	for _, tt := range tests {
		if got := li.position(tt.offset); got != tt.pos {
			t.Errorf("position(%d) = %+v, want %+v", tt.offset, got, tt.pos)
		}
		if got := offsetOf(text, tt.pos); got != tt.offset {
			t.Errorf("offsetOf(%+v) = %d, want %d", tt.pos, got, tt.offset)
		}
	}
	for _, tt := range []struct {
		pos  protocol.Position
		want int
	}{
		{pos(0, 99), 1},         // past the end of a line: its end
		{pos(99, 0), len(text)}, // past the last line: the end
		{pos(1, 2), 4},          // inside a surrogate pair: the character's start
		{pos(-0, 0), 0},
	} {
		if got := offsetOf(text, tt.pos); got != tt.want {
			t.Errorf("offsetOf(%+v) = %d, want %d", tt.pos, got, tt.want)
		}
	}
	if got := newTextLines(text).position(-5); got != pos(0, 0) {
		t.Errorf("position(-5) = %+v", got)
	}
}
