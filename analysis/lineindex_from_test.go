package analysis

import "testing"

// TestPositionFrom checks that a search from any line finds what a search
// from the start finds, for every offset, whatever line it starts from
// (before, at or after the offset's line).
func TestPositionFrom(t *testing.T) {
	for _, src := range []string{"", "x", "\n", "a\nb\n", "ab\r\ncd\r\n\r\n", "é\n😀x\n\nlast", "\n\n\nfunc f() {}\n"} {
		li := newLineIndex([]byte(src))
		for off := -1; off <= len(src)+1; off++ {
			want := li.position(off)
			for from := -1; from <= len(li.starts)+1; from++ {
				if got := li.positionFrom(from, off); got != want {
					t.Errorf("%q: positionFrom(%d, %d) = %+v, want %+v", src, from, off, got, want)
				}
			}
		}
	}
}
