package recall

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// A topic vector has two parts, each of unit length (or zero):
//
//   - Dense, the word-vector embedding of the text (wordvec.Model.Embed):
//     it knows that "exception" is near "error" and "transaction" near
//     "commit", but it blurs: two rules about different things share
//     much of their English.
//   - Terms, the text's stemmed content words (analysis.AppendTerms),
//     hashed, weighted 1+ln(tf): exact, identifiers included ("errors.Is",
//     "WAL"), but blind to synonyms.
//
// Similarity blends them (DenseWeight·dense cosine + (1−DenseWeight)·term
// cosine). On short rules the blend separates topics better than either
// part alone: in this package's session replay the term part alone misses
// paraphrased queries and the dense part alone links unrelated rules
// sharing generic words. The terms are sparse, so comparing a query with
// ten thousand memories costs a hundred multiplications and a short merge
// each.

// DenseWeight is the share of the dense part in Similarity.
const DenseWeight = 0.6

// maxTopicTerms caps the terms a slot's topic vector keeps as it drifts.
const maxTopicTerms = 64

// Vec is a topic vector.
type Vec struct {
	// Dense has length wordvec Dims (or 0 for no dense part) and unit
	// length or all zeros.
	Dense []float32
	// Terms are hashed term ids, ascending, with their weights in
	// Weights; the weights have unit length.
	Terms   []uint32
	Weights []float32
}

// IsZero reports a vector with nothing in it: a text without a known
// word.
func (v Vec) IsZero() bool {
	if len(v.Terms) > 0 {
		return false
	}
	for _, x := range v.Dense {
		if x != 0 {
			return false
		}
	}
	return true
}

// Similarity returns the blended cosine of a and b, from −1 to 1 (in
// practice 0 to 1).
func Similarity(a, b Vec) float64 {
	return DenseWeight*denseDot(a.Dense, b.Dense) + (1-DenseWeight)*sparseDot(a, b)
}

func denseDot(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

func sparseDot(a, b Vec) float64 {
	var s float32
	i, j := 0, 0
	for i < len(a.Terms) && j < len(b.Terms) {
		switch {
		case a.Terms[i] < b.Terms[j]:
			i++
		case a.Terms[i] > b.Terms[j]:
			j++
		default:
			s += a.Weights[i] * b.Weights[j]
			i++
			j++
		}
	}
	return float64(s)
}

// directiveWords are words that every rule uses to say what to do; they
// say nothing of the topic.
var directiveWords = map[string]bool{
	"us": true, "use": true, "never": true, "alway": true, "always": true, "avoid": true, "prefer": true,
	"instead": true, "make": true, "sure": true, "keep": true, "dont": true, "don": true, "must": true,
	"rather": true, "than": true, "add": true, "put": true, "only": true, "each": true, "every": true,
	"one": true, "new": true, "good": true, "bad": true, "rule": true, "need": true, "want": true,
}

// Embedder turns text into topic vectors.
type Embedder struct {
	model *wordvec.Model
}

// NewEmbedder returns an Embedder using the built-in word vectors.
func NewEmbedder() (*Embedder, error) {
	m, err := wordvec.Load()
	if err != nil {
		return nil, fmt.Errorf("topic vectors: %w", err)
	}
	return &Embedder{model: m}, nil
}

// Stamp names what builds the vectors; stored vectors of another stamp
// are rebuilt.
func (e *Embedder) Stamp() string { return "recall-v1+" + e.model.Stamp() }

// Embed returns the topic vector of text.
func (e *Embedder) Embed(text string) Vec {
	v := Vec{Dense: e.model.Embed(text)}
	tf := map[uint32]float32{}
	for _, t := range strings.Fields(string(analysis.AppendTerms(nil, text))) {
		if directiveWords[t] {
			continue
		}
		tf[termID(t)]++
	}
	v.Terms = make([]uint32, 0, len(tf))
	for id := range tf {
		v.Terms = append(v.Terms, id)
	}
	slices.Sort(v.Terms)
	v.Weights = make([]float32, len(v.Terms))
	for i, id := range v.Terms {
		v.Weights[i] = 1 + float32(math.Log(float64(tf[id])))
	}
	wordvec.Normalize(v.Weights)
	return v
}

// termID hashes a term.
func termID(t string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(t))
	return h.Sum32()
}

// Blend moves a toward b by rate (0 keeps a, 1 gives b): the exponential
// moving average by which a slot's topic follows its inputs. The result
// keeps at most maxTopicTerms terms, the heaviest.
func Blend(a, b Vec, rate float64) Vec {
	if a.IsZero() {
		return b
	}
	if b.IsZero() {
		return a
	}
	r := float32(rate)
	n := max(len(a.Dense), len(b.Dense))
	out := Vec{Dense: make([]float32, n)}
	for i := range out.Dense {
		var x, y float32
		if i < len(a.Dense) {
			x = a.Dense[i]
		}
		if i < len(b.Dense) {
			y = b.Dense[i]
		}
		out.Dense[i] = (1-r)*x + r*y
	}
	wordvec.Normalize(out.Dense)
	w := map[uint32]float32{}
	for i, t := range a.Terms {
		w[t] += (1 - r) * a.Weights[i]
	}
	for i, t := range b.Terms {
		w[t] += r * b.Weights[i]
	}
	type tw struct {
		t uint32
		w float32
	}
	all := make([]tw, 0, len(w))
	for t, x := range w {
		all = append(all, tw{t, x})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].t < all[j].t
	})
	if len(all) > maxTopicTerms {
		all = all[:maxTopicTerms]
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t < all[j].t })
	for _, x := range all {
		out.Terms = append(out.Terms, x.t)
		out.Weights = append(out.Weights, x.w)
	}
	wordvec.Normalize(out.Weights)
	return out
}

// vecVersion is the first byte of an encoded Vec.
const vecVersion = 1

// MarshalBinary encodes v: a version byte, the dense length and the term
// count (uvarints), then little-endian float32s and uint32s.
func (v Vec) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen32+4*len(v.Dense)+8*len(v.Terms))
	b = append(b, vecVersion)
	b = binary.AppendUvarint(b, uint64(len(v.Dense)))
	b = binary.AppendUvarint(b, uint64(len(v.Terms)))
	for _, x := range v.Dense {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	for i, t := range v.Terms {
		b = binary.LittleEndian.AppendUint32(b, t)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v.Weights[i]))
	}
	return b, nil
}

// maxVecLen bounds the lengths an encoded Vec may claim.
const maxVecLen = 1 << 16

var errBadVec = errors.New("malformed topic vector")

// UnmarshalBinary decodes what MarshalBinary encoded. Anything else (a
// truncated or corrupt value) is an error wrapping errBadVec; values that
// are not finite, or terms out of order, are refused too.
func (v *Vec) UnmarshalBinary(b []byte) error {
	if len(b) == 0 || b[0] != vecVersion {
		return fmt.Errorf("%w: unknown version", errBadVec)
	}
	b = b[1:]
	nd, k := binary.Uvarint(b)
	if k <= 0 || nd > maxVecLen || k != uvarintLen(nd) {
		return fmt.Errorf("%w: dense length", errBadVec)
	}
	b = b[k:]
	nt, k := binary.Uvarint(b)
	if k <= 0 || nt > maxVecLen || k != uvarintLen(nt) {
		return fmt.Errorf("%w: term count", errBadVec)
	}
	b = b[k:]
	if uint64(len(b)) != 4*nd+8*nt {
		return fmt.Errorf("%w: %d bytes for %d dimensions and %d terms", errBadVec, len(b), nd, nt)
	}
	out := Vec{Dense: make([]float32, nd), Terms: make([]uint32, nt), Weights: make([]float32, nt)}
	for i := range out.Dense {
		out.Dense[i] = math.Float32frombits(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if !finite(out.Dense[i]) {
			return fmt.Errorf("%w: value not finite", errBadVec)
		}
	}
	for i := range out.Terms {
		out.Terms[i] = binary.LittleEndian.Uint32(b)
		out.Weights[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
		b = b[8:]
		if !finite(out.Weights[i]) {
			return fmt.Errorf("%w: value not finite", errBadVec)
		}
		if i > 0 && out.Terms[i] <= out.Terms[i-1] {
			return fmt.Errorf("%w: terms out of order", errBadVec)
		}
	}
	*v = out
	return nil
}

// uvarintLen is the length of x's shortest encoding: a longer one is
// refused, so that a value has one encoding.
func uvarintLen(x uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], x)
}

func finite(x float32) bool {
	return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
}
