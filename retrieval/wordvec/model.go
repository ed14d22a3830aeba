// Package wordvec gives offline word vectors for searching code by meaning:
// GloVe vectors (Wikipedia 2014 + Gigaword 5, 100 dimensions), cut to the
// words that English text and code use, quantised to int8 and embedded in
// the binary.
//
// A Model maps a word to its vector, a text to a sentence vector (Embed:
// SIF-weighted average over the text's words split as code identifiers),
// and a word to its nearest words (Neighbors, for query expansion).
// Sentence vectors can be stored compactly with Quantize and compared in
// that form with DotQuantized.
//
// Vectors built by a Model should be stored with its Stamp, which changes
// whenever the embedded data does. Word vectors ignore context and know
// code only as far as English text mentions it; they are a weak signal to
// add to keyword search, not a replacement for it (data/README.md has the
// measurements).
package wordvec

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sync"
)

// builtin is the model file embedded in the binary; see data/README.md.
//
//go:embed data/glove-6b-100d-int8.bin
var builtin string

// builtinCode is the code-search model embedded in the binary: the same
// words, ranks and weights as builtin, with vectors fine-tuned on (doc
// sentence, definition) pairs of code (scripts/codevec); see
// data/README.md.
//
//go:embed data/codevec-100d-int8.bin
var builtinCode string

// Model is a set of word vectors read in place from a model file. It is
// safe for concurrent use.
type Model struct {
	data  string
	dims  int
	n     int
	zipfN uint32
	zipfH float32
	name  string

	slots                                                   int // of the hash table
	scalesOff, ranksOff, offsOff, tableOff, blobOff, vecOff int

	normsOnce sync.Once
	invNorms  []float32 // 1/‖row‖ of each int8 row, 0 for a zero row
}

// Load returns the built-in model. It reads the embedded file in place,
// without copying or checking more than its header (the package's tests
// check the whole file), so it is cheap; each call returns a new Model.
func Load() (*Model, error) {
	m, err := parse(builtin, false)
	if err != nil {
		return nil, fmt.Errorf("wordvec: built-in model: %w", err)
	}
	return m, nil
}

// LoadCode returns the built-in code-search model: Load's words and
// weights with vectors trained so that a sentence describing what code
// does lies near the code's own words (a question's "dictionary" near a
// name's "dict", "turn … into" near "parse"). It reads the embedded file
// in place, like Load.
func LoadCode() (*Model, error) {
	m, err := parse(builtinCode, false)
	if err != nil {
		return nil, fmt.Errorf("wordvec: built-in code model: %w", err)
	}
	return m, nil
}

// Parse returns the model held in data, a file written by Encode, after
// checking all of it. It copies data.
func Parse(data []byte) (*Model, error) {
	return parse(string(data), true)
}

// Name names the model's vectors, for example "glove-6b-100d-62k-041a92ee":
// source, dimensions, vocabulary size and a hash of the words, ranks and
// vectors, so that any change to them changes the name.
func (m *Model) Name() string { return m.name }

// Stamp names the model that built a vector, for storing alongside it:
// "wordvec:" followed by Name.
func (m *Model) Stamp() string { return "wordvec:" + m.name }

// Dims returns the length of the model's vectors.
func (m *Model) Dims() int { return m.dims }

// Len returns the number of words the model knows.
func (m *Model) Len() int { return m.n }

// Word returns the word of row i, 0 ≤ i < Len; rows of the built-in model
// are in order of frequency.
func (m *Model) Word(i int) string {
	a := int(le32(m.data, m.offsOff+4*i))
	b := int(le32(m.data, m.offsOff+4*i+4))
	return m.data[m.blobOff+a : m.blobOff+b]
}

// lookup returns the row of word w, given as lower-case bytes, or -1.
func (m *Model) lookup(w []byte) int {
	if len(w) == 0 || len(w) > maxWordLen {
		return -1
	}
	mask := m.slots - 1
	j := int(fnv1a(w)) & mask
	for range m.slots {
		v := le32(m.data, m.tableOff+4*j)
		if v == 0 {
			return -1
		}
		if row := int(v) - 1; m.Word(row) == string(w) {
			return row
		}
		j = (j + 1) & mask
	}
	return -1
}

// Row returns the row of word (matched exactly, as SplitWords yields it),
// or -1 when the model does not know it.
func (m *Model) Row(word string) int {
	var buf [maxWordLen]byte
	if len(word) > maxWordLen {
		return -1
	}
	return m.lookup(append(buf[:0], word...))
}

// Vector returns the vector of word (lower-case, as SplitWords yields it)
// and whether the model knows the word. The vector is a new slice.
func (m *Model) Vector(word string) ([]float32, bool) {
	row := m.Row(word)
	if row < 0 {
		return nil, false
	}
	v := make([]float32, m.dims)
	m.addRow(v, row, 1)
	return v, true
}

// Rank returns the frequency rank of row i (1 for the most frequent word
// of the source corpus).
func (m *Model) Rank(i int) int { return int(le32(m.data, m.ranksOff+4*i)) }

// rowBytes returns row i's int8 components, as bytes.
func (m *Model) rowBytes(i int) string {
	return m.data[m.vecOff+i*m.dims : m.vecOff+(i+1)*m.dims]
}

// scale returns row i's quantisation scale.
func (m *Model) scale(i int) float32 {
	return math.Float32frombits(le32(m.data, m.scalesOff+4*i))
}

// addRow adds w × (row i's vector) to acc.
func (m *Model) addRow(acc []float32, i int, w float32) {
	w *= m.scale(i)
	q := m.rowBytes(i)
	acc = acc[:len(q)]
	for j := 0; j < len(q); j++ { // not range: q is bytes, not runes
		acc[j] += w * float32(int8(q[j]))
	}
}

// Cosine returns the cosine similarity of a and b, 0 when either is zero.
// It uses the shorter length of the two.
func Cosine(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// Subset returns a model of the words of texts (as SplitWords splits
// them) that m knows, with m's vectors and ranks: the same answers for
// those words at a fraction of the cost of a search over the whole
// vocabulary, for fixtures and fuzz targets. It fails when m knows none
// of the words.
func (m *Model) Subset(texts ...string) (*Model, error) {
	var rows []Row
	seen := map[string]bool{}
	for _, text := range texts {
		for _, w := range SplitWords(text) {
			if seen[w] {
				continue
			}
			seen[w] = true
			i := m.Row(w)
			if i < 0 {
				continue
			}
			v, _ := m.Vector(w)
			rows = append(rows, Row{Word: w, Rank: uint32(m.Rank(i)), Vector: v})
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, m.name+"-subset", m.zipfN, rows); err != nil {
		return nil, fmt.Errorf("wordvec: subset of %s: %w", m.name, err)
	}
	return Parse(buf.Bytes())
}
