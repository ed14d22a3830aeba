package wordvec

import (
	"math"
)

// sifA is the a of SIF weighting: a word of estimated probability p weighs
// a/(a+p). Words rarer than about 1 in 1000 keep most of their weight;
// "the" (p ≈ 0.07) keeps about 1 %.
const sifA = 1e-3

// Term is a piece of text with a weight, for EmbedTerms.
type Term struct {
	// Text is split into words as SplitWords does: a word, an identifier
	// or a phrase.
	Text string
	// Weight multiplies the weight of each of Text's words; terms of
	// weight ≤ 0 (or not finite) are left out.
	Weight float32
}

// Embed returns a sentence vector for text: the average of the vectors
// of its words (split as SplitWords does), each weighted by a/(a+p(w))
// (smooth inverse frequency, with p estimated from the word's frequency
// rank by Zipf's law) and by how little it is code noise (stop words and
// keywords such as "the", "func", "return" or "nil" weigh nothing, "err"
// or "string" little). A word unknown as a whole, such as "sha256", is
// looked up in its letter and digit parts.
//
// The result has length Dims and unit length, or is all zeros when text
// has no known word that carries weight.
func (m *Model) Embed(text string) []float32 {
	acc := make([]float32, m.dims)
	var buf [2 * maxWordLen]byte
	eachWord(text, func(w string, parts []int) {
		m.addWord(acc, buf[:0], w, parts, 1)
	})
	Normalize(acc)
	return acc
}

// EmbedTerms is Embed for text in weighted pieces, for example an
// identifier weighing more than the body it names: the words of each
// term count with the term's weight.
func (m *Model) EmbedTerms(terms []Term) []float32 {
	acc := make([]float32, m.dims)
	var buf [2 * maxWordLen]byte
	for _, t := range terms {
		if !(t.Weight > 0) || math.IsInf(float64(t.Weight), 0) {
			continue
		}
		eachWord(t.Text, func(w string, parts []int) {
			m.addWord(acc, buf[:0], w, parts, t.Weight)
		})
	}
	Normalize(acc)
	return acc
}

// addWord adds word w (as eachWord yields it, before lower-casing) to acc
// with weight scale × its own weight (see wordRows).
func (m *Model) addWord(acc []float32, buf []byte, w string, parts []int, scale float32) {
	m.wordRows(buf, w, parts, func(row int) { m.addKnown(acc, row, scale) })
}

// wordRows calls fn with the rows word w (as eachWord yields it, before
// lower-casing) counts as: the whole word's if the model knows it, else
// each of its letter and digit parts' (-1 for a part it does not know).
// buf is scratch space for the lower-cased word.
func (m *Model) wordRows(buf []byte, w string, parts []int, fn func(row int)) {
	low := appendLower(buf, w)
	if row := m.lookup(low); row >= 0 || len(parts) == 0 {
		fn(row)
		return
	}
	if len(low) != len(w) { // non-ASCII case folding moved the boundaries
		return
	}
	start := 0
	for i := 0; i <= len(parts); i++ {
		end := len(low)
		if i < len(parts) {
			end = parts[i]
		}
		fn(m.lookup(low[start:end]))
		start = end
	}
}

// addKnown adds row (if ≥ 0) to acc with its SIF and noise weights times
// scale.
func (m *Model) addKnown(acc []float32, row int, scale float32) {
	if row < 0 {
		return
	}
	if w := m.weight(row) * scale; w > 0 {
		m.addRow(acc, row, w)
	}
}

// weight returns the weight of row i in a sentence vector: SIF by
// frequency rank times the word's noise weight.
func (m *Model) weight(i int) float32 {
	nw := noiseWeight(m.Word(i))
	if nw == 0 {
		return 0
	}
	// p(rank) = 1/(rank·H), so a/(a+p) = a·rank·H / (a·rank·H + 1).
	x := sifA * float32(m.Rank(i)) * m.zipfH
	return nw * x / (x + 1)
}

// Normalize scales v to unit length in place; a zero vector (or one with
// a NaN or an infinity) becomes zero.
func Normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		clear(v)
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// Weight returns how much a word (matched lower-cased) counts in a
// sentence vector, in [0, 1): its SIF weight by frequency times its noise
// weight. Stop words and unknown words weigh 0; frequent words little.
func (m *Model) Weight(word string) float32 {
	row := m.Row(lower(word))
	if row < 0 {
		return 0
	}
	return m.weight(row)
}

// EachRow calls fn for each word of text that Embed counts, in order,
// with its row and its weight in the sum that Embed normalises: Embed(text)
// is the unit vector along the sum of weight × the row's vector. It is for
// training new vectors on the same words and weights (scripts/codevec).
func (m *Model) EachRow(text string, fn func(row int, weight float32)) {
	var buf [2 * maxWordLen]byte
	known := func(row int) {
		if row < 0 {
			return
		}
		if w := m.weight(row); w > 0 {
			fn(row, w)
		}
	}
	eachWord(text, func(w string, parts []int) {
		m.wordRows(buf[:0], w, parts, known)
	})
}

// SourceSize returns the size of the vocabulary the model's frequency
// ranks count in (for Encode's zipfN when writing vectors over the same
// words).
func (m *Model) SourceSize() uint32 { return m.zipfN }
