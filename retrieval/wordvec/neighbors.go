package wordvec

import (
	"math"
	"slices"
)

// Neighbor is a word near another in vector space.
type Neighbor struct {
	// Word is the neighbouring word.
	Word string `json:"word"`
	// Cos is its cosine similarity to the query, in [-1, 1].
	Cos float32 `json:"cos"`
}

// Neighbors returns the k words nearest to word by cosine similarity,
// nearest first, for query expansion. word is matched lower-cased; an
// identifier the model does not know whole (parseURL) stands for the
// sentence vector of its words, which are then left out of the result.
// Stop words and code noise (see Embed) are never neighbours. The result
// is nil when k ≤ 0 or nothing of word is known.
//
// The search is exhaustive over the vocabulary; the first call also
// computes the length of every row, once per Model.
func (m *Model) Neighbors(word string, k int) []Neighbor {
	if k <= 0 {
		return nil
	}
	if row := m.Row(lower(word)); row >= 0 {
		v := make([]float32, m.dims)
		m.addRow(v, row, 1)
		return m.nearest(v, k, func(i int) bool { return i == row })
	}
	v := m.Embed(word)
	exclude := SplitWords(word)
	return m.nearest(v, k, func(i int) bool { return slices.Contains(exclude, m.Word(i)) })
}

// Nearest returns the k words nearest to v (of length Dims) by cosine
// similarity, nearest first, leaving out stop words and code noise as
// Neighbors does. It returns nil when k ≤ 0, v is zero or of the wrong
// length.
func (m *Model) Nearest(v []float32, k int) []Neighbor {
	if k <= 0 {
		return nil
	}
	return m.nearest(v, k, nil)
}

func (m *Model) nearest(v []float32, k int, skip func(int) bool) []Neighbor {
	if len(v) != m.dims {
		return nil
	}
	var maxAbs float64
	var ss float64
	for _, x := range v {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
		ss += float64(x) * float64(x)
	}
	if maxAbs == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return nil
	}
	// The query is quantised to integers so that each row costs one
	// integer dot product: as finely as int32 sums of dims products with
	// int8 rows allow (±32767 for 100 dimensions), which changes a cosine
	// by less than 1e-4.
	queryScale := float64(min(32767, math.MaxInt32/(127*m.dims)))
	q := make([]int32, m.dims)
	var qss float64
	for i, x := range v {
		q[i] = int32(math.Round(float64(x) / maxAbs * queryScale))
		qss += float64(q[i]) * float64(q[i])
	}
	qInv := float32(1 / math.Sqrt(qss))
	inv := m.rowInvNorms()

	// The k best so far, in a min-heap on cos: top[0] is the worst kept.
	k = min(k, m.n)
	top := make([]cand, 0, k)
	for r := 0; r < m.n; r++ {
		if inv[r] == 0 {
			continue
		}
		cos := float32(dotInt8(q, m.rowBytes(r))) * inv[r] * qInv
		if len(top) == k && cos <= top[0].cos {
			continue
		}
		if skip != nil && skip(r) {
			continue
		}
		if len(top) < k {
			top = append(top, cand{r, cos})
			siftUp(top, len(top)-1)
		} else {
			top[0] = cand{r, cos}
			siftDown(top, 0)
		}
	}
	slices.SortFunc(top, func(a, b cand) int {
		switch {
		case a.cos > b.cos:
			return -1
		case a.cos < b.cos:
			return 1
		}
		return a.row - b.row
	})
	out := make([]Neighbor, len(top))
	for i, c := range top {
		out[i] = Neighbor{Word: m.Word(c.row), Cos: min(1, max(-1, c.cos))}
	}
	return out
}

// cand is a row and its cosine similarity to a query.
type cand struct {
	row int
	cos float32
}

// less orders the heap of nearest: by cos, a later row counting as
// smaller on ties so that the earlier (more frequent) row is kept.
func less(a, b cand) bool { return a.cos < b.cos || a.cos == b.cos && a.row > b.row }

// siftUp restores the heap after h[i] was added.
func siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// siftDown restores the heap after h[i] was replaced.
func siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			c = r
		}
		if !less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// dotInt8 returns the dot product of q and the int8 row r (over the
// shorter of the two).
func dotInt8(q []int32, r string) int32 {
	var s0, s1, s2, s3 int32
	for len(q) >= 4 && len(r) >= 4 { // shaped so that no index is bounds-checked
		s0 += q[0] * int32(int8(r[0]))
		s1 += q[1] * int32(int8(r[1]))
		s2 += q[2] * int32(int8(r[2]))
		s3 += q[3] * int32(int8(r[3]))
		q, r = q[4:], r[4:]
	}
	for i := 0; i < len(q) && i < len(r); i++ {
		s0 += q[i] * int32(int8(r[i]))
	}
	return s0 + s1 + s2 + s3
}

// rowInvNorms returns 1/‖row‖ of every int8 row, computed once per Model,
// with 0 for rows that Neighbors never returns (zero vectors, stop words
// and code noise).
func (m *Model) rowInvNorms() []float32 {
	m.normsOnce.Do(func() {
		inv := make([]float32, m.n)
		for r := range inv {
			if noiseWeight(m.Word(r)) < 1 {
				continue
			}
			var ss int64
			row := m.rowBytes(r)
			for j := 0; j < len(row); j++ {
				x := int64(int8(row[j]))
				ss += x * x
			}
			if ss > 0 {
				inv[r] = float32(1 / math.Sqrt(float64(ss)))
			}
		}
		m.invNorms = inv
	})
	return m.invNorms
}
