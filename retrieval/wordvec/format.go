package wordvec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"
)

// The model file format, all integers little-endian:
//
//	header (headerSize bytes):
//	  0  magic "ANCWVEC1"
//	  8  uint32 dims
//	 12  uint32 rows (n)
//	 16  uint32 zipfN: size of the source vocabulary, for the Zipf estimate
//	 20  uint32 CRC-32C (Castagnoli) of every byte after the header
//	 24  uint32 offset and 28 uint32 length of the model name
//	 32  uint32 offset of scales:  n float32, one per row
//	 36  uint32 offset of ranks:   n uint32, the word's frequency rank (1 = most frequent)
//	 40  uint32 offset of offsets: n+1 uint32, row i's word is blob[off[i]:off[i+1]]
//	 44  uint32 offset of table:   t uint32 slots of a hash table of the words:
//	                               0 for an empty slot, else row+1; a word
//	                               is looked up from slot fnv1a(word) mod t
//	                               on, by linear probing
//	 48  uint32 offset of blob:    the words, concatenated
//	 52  uint32 offset of vectors: n rows of dims int8; component j of row i is
//	                               int8 × scales[i]
//	 56  uint32 total file size
//	 60  uint32 t: slots of the hash table, a power of two ≥ 2n
//
// Sections follow the header in the order listed. Rows are in the order the
// writer gave them (for the built-in file, by frequency).
const (
	magic      = "ANCWVEC1"
	headerSize = 64
	// maxWordLen is the longest word a file may hold; longer ones are
	// never looked up.
	maxWordLen = 64
	maxDims    = 4096
)

// Row is one word of a model written by Encode.
type Row struct {
	// Word is the word as looked up: lower-case, as SplitWords yields it.
	Word string
	// Rank is the word's frequency rank in the source corpus, 1 for the
	// most frequent word; it gives the word's weight in Embed.
	Rank uint32
	// Vector is the word's vector; every row has the same length.
	Vector []float32
}

// ModelName names a model written by Encode from rows: its source, its
// dimensions, its size in thousands of words and a hash of the words,
// ranks and vectors ("glove-6b-100d-62k-1a2b3c4d"), so that any change to
// the data changes the name and the vectors built with it are rebuilt.
func ModelName(source string, dims int, rows []Row) string {
	h := sha256.New()
	var b [4]byte
	for _, r := range rows {
		io.WriteString(h, r.Word)
		h.Write([]byte{0})
		binary.LittleEndian.PutUint32(b[:], r.Rank)
		h.Write(b[:])
		for _, x := range r.Vector {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%s-%dd-%dk-%x", source, dims, (len(rows)+500)/1000, h.Sum(nil)[:4])
}

// Encode writes a model file holding rows, in the order given, under the
// given name (the stamp's model part). zipfN is the size of the vocabulary
// the ranks count in (at least the largest rank). Each vector is
// quantised to int8 with one float32 scale per row. Words must be unique,
// non-empty and at most 64 bytes long; vectors finite and of one length.
func Encode(w io.Writer, name string, zipfN uint32, rows []Row) error {
	if len(rows) == 0 {
		return errors.New("wordvec: encode: no rows")
	}
	dims := len(rows[0].Vector)
	if dims == 0 || dims > maxDims {
		return fmt.Errorf("wordvec: encode: %d dimensions, want 1..%d", dims, maxDims)
	}
	n := len(rows)
	seen := make(map[string]bool, n)
	blobLen := 0
	for i, r := range rows {
		switch {
		case r.Word == "" || len(r.Word) > maxWordLen:
			return fmt.Errorf("wordvec: encode: row %d: word %q: length %d, want 1..%d", i, r.Word, len(r.Word), maxWordLen)
		case seen[r.Word]:
			return fmt.Errorf("wordvec: encode: row %d: duplicate word %q", i, r.Word)
		case len(r.Vector) != dims:
			return fmt.Errorf("wordvec: encode: row %d (%q): %d dimensions, want %d", i, r.Word, len(r.Vector), dims)
		case r.Rank == 0 || r.Rank > zipfN:
			return fmt.Errorf("wordvec: encode: row %d (%q): rank %d, want 1..%d", i, r.Word, r.Rank, zipfN)
		}
		for _, x := range r.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("wordvec: encode: row %d (%q): non-finite component", i, r.Word)
			}
		}
		seen[r.Word] = true
		blobLen += len(r.Word)
	}

	var hdr [headerSize]byte
	copy(hdr[:], magic)
	le := binary.LittleEndian
	off := headerSize
	put := func(at int, size int) {
		le.PutUint32(hdr[at:], uint32(off))
		off += size
	}
	le.PutUint32(hdr[8:], uint32(dims))
	le.PutUint32(hdr[12:], uint32(n))
	le.PutUint32(hdr[16:], zipfN)
	put(24, len(name))
	le.PutUint32(hdr[28:], uint32(len(name)))
	put(32, 4*n)
	put(36, 4*n)
	put(40, 4*(n+1))
	slots := tableSize(n)
	le.PutUint32(hdr[60:], uint32(slots))
	put(44, 4*slots)
	put(48, blobLen)
	put(52, dims*n)
	if off > math.MaxUint32 {
		return fmt.Errorf("wordvec: encode: file of %d bytes is too large", off)
	}
	le.PutUint32(hdr[56:], uint32(off))

	var body bytes.Buffer
	body.Grow(off - headerSize)
	body.WriteString(name)
	u32 := func(v uint32) { body.Write(le.AppendUint32(nil, v)) }
	qs := make([][]int8, n)
	for i, r := range rows {
		var scale float32
		qs[i], scale = quantizeRow(r.Vector)
		u32(math.Float32bits(scale))
	}
	for _, r := range rows {
		u32(r.Rank)
	}
	o := 0
	for _, r := range rows {
		u32(uint32(o))
		o += len(r.Word)
	}
	u32(uint32(o))
	for _, slot := range hashTable(rows) {
		u32(slot)
	}
	for _, r := range rows {
		body.WriteString(r.Word)
	}
	for _, q := range qs {
		for _, x := range q {
			body.WriteByte(byte(x))
		}
	}
	if body.Len() != off-headerSize {
		return fmt.Errorf("wordvec: encode: internal error: body of %d bytes, want %d", body.Len(), off-headerSize)
	}
	le.PutUint32(hdr[20:], crc32.Checksum(body.Bytes(), crc32.MakeTable(crc32.Castagnoli)))
	if _, err := w.Write(hdr[:]); err != nil {
		return fmt.Errorf("wordvec: encode: %w", err)
	}
	if _, err := w.Write(body.Bytes()); err != nil {
		return fmt.Errorf("wordvec: encode: %w", err)
	}
	return nil
}

// tableSize returns the number of slots of the hash table for n words: the
// smallest power of two ≥ 2n, so that the table is at most half full.
func tableSize(n int) int {
	t := 1
	for t < 2*n {
		t <<= 1
	}
	return t
}

// fnv1a returns the 32-bit FNV-1a hash of w.
func fnv1a[S string | []byte](w S) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

// hashTable returns the slots of the words' hash table.
func hashTable(rows []Row) []uint32 {
	t := make([]uint32, tableSize(len(rows)))
	mask := uint32(len(t) - 1)
	for i, r := range rows {
		j := fnv1a(r.Word) & mask
		for t[j] != 0 {
			j = (j + 1) & mask
		}
		t[j] = uint32(i + 1)
	}
	return t
}

// quantizeRow returns v as int8 values and the scale that maps them back:
// v[i] ≈ q[i] × scale, with |error| ≤ scale/2.
func quantizeRow(v []float32) ([]int8, float32) {
	var maxAbs float32
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	q := make([]int8, len(v))
	if maxAbs == 0 {
		return q, 0
	}
	scale := maxAbs / 127
	for i, x := range v {
		r := math.Round(float64(x / scale))
		q[i] = int8(max(-127, min(127, r)))
	}
	return q, scale
}

// le32 reads a little-endian uint32 at off in s.
func le32(s string, off int) uint32 {
	_ = s[off+3]
	return uint32(s[off]) | uint32(s[off+1])<<8 | uint32(s[off+2])<<16 | uint32(s[off+3])<<24
}

// parse returns a Model that reads the model file held in data in place.
// With verify, it checks the whole file (checksum, every offset, rank,
// scale and table slot), so that no file can make a Model panic; without,
// only the header and the section layout, which takes microseconds: Load
// trusts the embedded file, which the package's tests verify in full.
func parse(data string, verify bool) (*Model, error) {
	if len(data) < headerSize {
		return nil, fmt.Errorf("wordvec: model file of %d bytes is shorter than its header", len(data))
	}
	if data[:len(magic)] != magic {
		return nil, errors.New("wordvec: not a model file (bad magic)")
	}
	if int(le32(data, 56)) != len(data) {
		return nil, fmt.Errorf("wordvec: model file is %d bytes, its header says %d", len(data), le32(data, 56))
	}
	if verify {
		// The checksum reads the bytes in place: data may be the 8 MB
		// embedded file, which a conversion to []byte would copy.
		body := unsafe.Slice(unsafe.StringData(data[headerSize:]), len(data)-headerSize)
		if got, want := crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), le32(data, 20); got != want {
			return nil, fmt.Errorf("wordvec: model file is corrupt: checksum %08x, want %08x", got, want)
		}
	}
	m := &Model{
		data:  data,
		dims:  int(le32(data, 8)),
		n:     int(le32(data, 12)),
		zipfN: le32(data, 16),
		slots: int(le32(data, 60)),
	}
	if m.dims == 0 || m.dims > maxDims {
		return nil, fmt.Errorf("wordvec: model file has %d dimensions, want 1..%d", m.dims, maxDims)
	}
	if m.n == 0 || m.n > len(data)/m.dims {
		return nil, fmt.Errorf("wordvec: model file has %d rows, too many for its size", m.n)
	}
	if m.zipfN < uint32(m.n) {
		return nil, fmt.Errorf("wordvec: model file's Zipf vocabulary (%d) is smaller than its rows (%d)", m.zipfN, m.n)
	}
	if m.slots != tableSize(m.n) {
		return nil, fmt.Errorf("wordvec: model file's hash table has %d slots, want %d", m.slots, tableSize(m.n))
	}
	// Each section must start where the previous one ends.
	nameLen := int(le32(data, 28))
	sections := []struct {
		name string
		at   int
		size int
	}{
		{"name", 24, nameLen},
		{"scales", 32, 4 * m.n},
		{"ranks", 36, 4 * m.n},
		{"offsets", 40, 4 * (m.n + 1)},
		{"table", 44, 4 * m.slots},
		{"blob", 48, -1},
		{"vectors", 52, m.dims * m.n},
	}
	pos := headerSize
	offs := make([]int, len(sections))
	for i, s := range sections {
		o := int(le32(data, s.at))
		if o != pos {
			return nil, fmt.Errorf("wordvec: model file's %s section starts at %d, want %d", s.name, o, pos)
		}
		offs[i] = o
		size := s.size
		if size < 0 { // the blob: its size is the last word offset
			size = int(le32(data, offs[3]+4*m.n))
		}
		if size > len(data)-pos {
			return nil, fmt.Errorf("wordvec: model file's %s section overruns the file", s.name)
		}
		pos += size
	}
	if pos != len(data) {
		return nil, fmt.Errorf("wordvec: model file has %d trailing bytes", len(data)-pos)
	}
	m.name = data[offs[0] : offs[0]+nameLen]
	m.scalesOff, m.ranksOff, m.offsOff, m.tableOff, m.blobOff, m.vecOff = offs[1], offs[2], offs[3], offs[4], offs[5], offs[6]
	m.zipfH = float32(math.Log(float64(m.zipfN)) + 0.5772156649)
	if verify {
		if err := m.verify(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// verify checks every row of m: word offsets, scales, ranks, and that the
// hash table holds each row exactly once where a lookup finds it.
func (m *Model) verify() error {
	prev := uint32(0)
	for i := 0; i <= m.n; i++ {
		o := le32(m.data, m.offsOff+4*i)
		if (i == 0 && o != 0) || (i > 0 && (o <= prev || o-prev > maxWordLen)) {
			return fmt.Errorf("wordvec: model file's word offset %d is out of order", i)
		}
		prev = o
	}
	for i := 0; i < m.n; i++ {
		s := math.Float32frombits(le32(m.data, m.scalesOff+4*i))
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || s < 0 {
			return fmt.Errorf("wordvec: model file's row %d has scale %v", i, s)
		}
		if r := le32(m.data, m.ranksOff+4*i); r == 0 || r > m.zipfN {
			return fmt.Errorf("wordvec: model file's row %d has rank %d, want 1..%d", i, r, m.zipfN)
		}
	}
	used := 0
	for j := 0; j < m.slots; j++ {
		v := le32(m.data, m.tableOff+4*j)
		if v > uint32(m.n) {
			return fmt.Errorf("wordvec: model file's hash table names row %d of %d", v-1, m.n)
		}
		if v != 0 {
			used++
		}
	}
	if used != m.n {
		return fmt.Errorf("wordvec: model file's hash table holds %d rows, want %d", used, m.n)
	}
	// n slots in use and every row found at its own slot: each row is in
	// the table exactly once, and the words are unique.
	for i := 0; i < m.n; i++ {
		if r := m.lookup([]byte(m.Word(i))); r != i {
			return fmt.Errorf("wordvec: model file's hash table finds row %d for word %d (%q)", r, i, m.Word(i))
		}
	}
	return nil
}
