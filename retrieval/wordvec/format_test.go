package wordvec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"testing"
)

// tinyRows is a model of four words in three dimensions.
func tinyRows() []Row {
	return []Row{
		{Word: "the", Rank: 1, Vector: []float32{0.1, 0.1, 0.1}},
		{Word: "database", Rank: 50, Vector: []float32{1, 0.2, -0.3}},
		{Word: "sqlite", Rank: 900, Vector: []float32{0.9, 0.3, -0.2}},
		{Word: "flags", Rank: 300, Vector: []float32{-0.5, 1, 0.4}},
	}
}

func encodeTiny(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, "tiny-3d", 1000, tinyRows()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tableSlot returns the offset of the hash table slot that holds word in
// a model file.
func tableSlot(b []byte, word string) int {
	le := binary.LittleEndian
	table, slots := int(le.Uint32(b[44:])), int(le.Uint32(b[60:]))
	j := int(fnv1a(word)) & (slots - 1)
	for {
		row := int(le.Uint32(b[table+4*j:])) - 1
		offs := int(le.Uint32(b[40:]))
		blob := int(le.Uint32(b[48:]))
		a, z := int(le.Uint32(b[offs+4*row:])), int(le.Uint32(b[offs+4*row+4:]))
		if string(b[blob+a:blob+z]) == word {
			return table + 4*j
		}
		j = (j + 1) & (slots - 1)
	}
}

// fixChecksum rewrites the header's checksum after a test corrupts a file.
func fixChecksum(b []byte) {
	if len(b) >= headerSize {
		binary.LittleEndian.PutUint32(b[20:], crc32.Checksum(b[headerSize:], crc32.MakeTable(crc32.Castagnoli)))
	}
}

func TestEncodeParse(t *testing.T) {
	m, err := Parse(encodeTiny(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "tiny-3d" || m.Dims() != 3 || m.Len() != 4 || m.Stamp() != "wordvec:tiny-3d" {
		t.Errorf("got name %q, %d dims, %d words", m.Name(), m.Dims(), m.Len())
	}
	for i, r := range tinyRows() {
		if m.Word(i) != r.Word || m.Rank(i) != int(r.Rank) || m.Row(r.Word) != i {
			t.Errorf("row %d = %q rank %d (Row → %d), want %q rank %d", i, m.Word(i), m.Rank(i), m.Row(r.Word), r.Word, r.Rank)
		}
		v, ok := m.Vector(r.Word)
		if !ok {
			t.Fatalf("Vector(%q) not found", r.Word)
		}
		bound := maxAbs(r.Vector) / 254 * (1 + 1e-5)
		for j := range v {
			if math.Abs(float64(v[j]-r.Vector[j])) > bound {
				t.Errorf("%s[%d] = %v, want %v ± %g", r.Word, j, v[j], r.Vector[j], bound)
			}
		}
	}
	got := m.Neighbors("database", 1)
	if len(got) != 1 || got[0].Word != "sqlite" {
		t.Errorf("Neighbors(database, 1) = %v, want sqlite", got)
	}
	if v := m.Embed("the"); slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Errorf("Embed(the) = %v, want zero (stop word)", v)
	}
}

// TestBuiltinValid checks all of the embedded file, which Load trusts.
func TestBuiltinValid(t *testing.T) {
	for name, data := range map[string]string{"glove": builtin, "code": builtinCode} {
		if _, err := parse(data, true); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	rows := tinyRows()
	slices.Reverse(rows)
	var a, b bytes.Buffer
	if err := Encode(&a, "x", 1000, rows); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&b, "x", 1000, rows); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two encodings of the same rows differ")
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func([]Row) []Row
		want string
	}{
		{"no rows", func([]Row) []Row { return nil }, "no rows"},
		{"no dimensions", func(r []Row) []Row {
			for i := range r {
				r[i].Vector = nil
			}
			return r
		}, "0 dimensions"},
		{"ragged", func(r []Row) []Row { r[2].Vector = r[2].Vector[:2]; return r }, "2 dimensions, want 3"},
		{"duplicate", func(r []Row) []Row { r[3].Word = "the"; return r }, "duplicate word"},
		{"empty word", func(r []Row) []Row { r[1].Word = ""; return r }, "length 0"},
		{"long word", func(r []Row) []Row { r[1].Word = strings.Repeat("x", 65); return r }, "length 65"},
		{"rank 0", func(r []Row) []Row { r[1].Rank = 0; return r }, "rank 0"},
		{"rank past zipfN", func(r []Row) []Row { r[1].Rank = 1001; return r }, "rank 1001"},
		{"NaN", func(r []Row) []Row { r[1].Vector[0] = float32(math.NaN()); return r }, "non-finite"},
		{"Inf", func(r []Row) []Row { r[1].Vector[2] = float32(math.Inf(-1)); return r }, "non-finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Encode(&bytes.Buffer{}, "x", 1000, tt.edit(tinyRows()))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Encode error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEncodeWriteError(t *testing.T) {
	if err := Encode(failWriter{}, "x", 1000, tinyRows()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Encode error = %v, want the writer's", err)
	}
}

func TestParseErrors(t *testing.T) {
	put := func(at int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[at:], v); fixChecksum(b); return b }
	}
	le := binary.LittleEndian
	tests := []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"empty", func([]byte) []byte { return nil }, "shorter than its header"},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, "bad magic"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, "header says"},
		{"flipped bit", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "checksum"},
		{"zero dims", put(8, 0), "0 dimensions"},
		{"huge dims", put(8, 1<<20), "dimensions"},
		{"zero rows", put(12, 0), "0 rows"},
		{"too many rows", put(12, 1<<30), "too many"},
		{"small zipf", put(16, 2), "Zipf vocabulary"},
		{"misplaced section", func(b []byte) []byte { return put(36, le.Uint32(b[36:])+4)(b) }, "ranks section starts"},
		{"long name", func(b []byte) []byte { return put(28, le.Uint32(b[28:])+1)(b) }, "section starts"},
		{"word offset order", func(b []byte) []byte {
			off := int(le.Uint32(b[40:]))
			return put(off+4, 0)(b)
		}, "word offset 1"},
		{"blob overrun", func(b []byte) []byte {
			off := int(le.Uint32(b[40:]))
			return put(off+4*4, 1<<20)(b)
		}, "blob section overruns"},
		{"NaN scale", func(b []byte) []byte {
			return put(int(le.Uint32(b[32:])), math.Float32bits(float32(math.NaN())))(b)
		}, "scale NaN"},
		{"negative scale", func(b []byte) []byte {
			return put(int(le.Uint32(b[32:]))+4, math.Float32bits(-1))(b)
		}, "scale -1"},
		{"rank 0", func(b []byte) []byte { return put(int(le.Uint32(b[36:])), 0)(b) }, "rank 0"},
		{"table names a missing row", func(b []byte) []byte {
			return put(tableSlot(b, "flags"), 9)(b)
		}, "names row 8"},
		{"table slot emptied", func(b []byte) []byte {
			return put(tableSlot(b, "flags"), 0)(b)
		}, "holds 3 rows, want 4"},
		{"table row twice", func(b []byte) []byte {
			return put(tableSlot(b, "flags"), 1)(b)
		}, "finds row -1 for word 3"},
		{"table slot moved", func(b []byte) []byte {
			// Once its slot is emptied, probing for the word stops there:
			// in any other empty slot, the row is never found.
			off := tableSlot(b, "flags")
			le.PutUint32(b[off:], 0)
			for j := int(le.Uint32(b[44:])); ; j += 4 {
				if j != off && le.Uint32(b[j:]) == 0 {
					return put(j, 4)(b)
				}
			}
		}, "finds row -1 for word 3"},
		{"table size", func(b []byte) []byte { return put(60, 16)(b) }, "hash table has 16 slots"},
		{"trailing bytes", func(b []byte) []byte {
			b = append(b, 0)
			return put(56, uint32(len(b)))(b)
		}, "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.edit(encodeTiny(t)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, %v; want an error containing %q", m, err, tt.want)
			}
		})
	}
}

func TestModelName(t *testing.T) {
	rows := []Row{{Word: "open", Rank: 1, Vector: []float32{1, 0}}, {Word: "file", Rank: 2, Vector: []float32{0, 1}}}
	name := ModelName("src", 2, rows)
	if !strings.HasPrefix(name, "src-2d-0k-") || len(name) != len("src-2d-0k-")+8 {
		t.Fatalf("ModelName = %q, want src-2d-0k- and 8 hex digits", name)
	}
	if again := ModelName("src", 2, rows); again != name {
		t.Fatalf("ModelName is not stable: %q, then %q", name, again)
	}
	changed := []Row{rows[0], {Word: "file", Rank: 2, Vector: []float32{0, 0.5}}}
	for _, tc := range []struct {
		what string
		rows []Row
	}{
		{"a vector", changed},
		{"a rank", []Row{rows[0], {Word: "file", Rank: 3, Vector: rows[1].Vector}}},
		{"a word", []Row{rows[0], {Word: "files", Rank: 2, Vector: rows[1].Vector}}},
	} {
		if got := ModelName("src", 2, tc.rows); got == name {
			t.Errorf("changing %s left the name %q", tc.what, got)
		}
	}
}
