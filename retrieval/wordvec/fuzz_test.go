package wordvec

import (
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzEmbed(f *testing.F) {
	m := load(f)
	fn, err := os.ReadFile("testdata/func40.go.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"", "open a database connection", "HTTPServer parseURL snake_case", string(fn),
		"\xff\xfe invalid utf8 \xc3", "ÜberCafé İstanbul ǅungla", "sha256sum md5 utf8 x86_64",
		strings.Repeat("A", 200), "a1B2c3D4", "ABCs IDs URLs",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v := m.Embed(text)
		if len(v) != m.Dims() {
			t.Fatalf("Embed returned %d values, want %d", len(v), m.Dims())
		}
		var ss float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("Embed(%q) has a non-finite value", text)
			}
			ss += float64(x) * float64(x)
		}
		if ss != 0 && math.Abs(math.Sqrt(ss)-1) > 1e-4 {
			t.Fatalf("Embed(%q) has norm %v, want 0 or 1", text, math.Sqrt(ss))
		}
		// EachRow gives the sum Embed normalises (scripts/codevec trains
		// on it).
		sum := make([]float32, m.Dims())
		m.EachRow(text, func(row int, w float32) {
			if row < 0 || row >= m.Len() || !(w > 0) {
				t.Fatalf("EachRow(%q) gives row %d weight %v", text, row, w)
			}
			m.addRow(sum, row, w)
		})
		Normalize(sum)
		for j := range sum {
			if math.Abs(float64(sum[j]-v[j])) > 1e-4 {
				t.Fatalf("EachRow(%q)'s sum differs from Embed at %d: %v, %v", text, j, sum[j], v[j])
			}
		}
		for _, w := range SplitWords(text) {
			if w == "" || w != strings.ToLower(w) {
				t.Fatalf("SplitWords(%q) yields %q", text, w)
			}
			if utf8.ValidString(text) && !utf8.ValidString(w) {
				t.Fatalf("SplitWords(%q) yields invalid UTF-8 %q", text, w)
			}
		}
		// Neighbors' input-dependent part (its search is not): the word
		// looked up lower-cased.
		if v, ok := m.Vector(lower(text)); ok && len(v) != m.Dims() {
			t.Fatalf("Vector(%q) has %d values", text, len(v))
		}
	})
}

// FuzzParse feeds Parse corrupted model files; the checksum is fixed up
// first so that the structural checks behind it are reached.
func FuzzParse(f *testing.F) {
	f.Add(encodeTiny(f))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		fixChecksum(data)
		m, err := Parse(data)
		if err != nil {
			return
		}
		for i := 0; i < m.Len(); i++ {
			w := m.Word(i)
			if m.Row(w) != i {
				t.Fatalf("Row(Word(%d) = %q) = %d", i, w, m.Row(w))
			}
			m.Vector(w)
			m.Rank(i)
		}
		v := m.Embed("the database sqlite flags")
		if len(v) != m.Dims() {
			t.Fatalf("Embed returned %d values", len(v))
		}
		m.Nearest(v, 2)
		if m.Len() > 0 {
			m.Neighbors(m.Word(0), 2)
		}
	})
}
