package main

import (
	"math"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// abtt post-processes the vectors of rows in place as in "All-but-the-Top"
// (Mu and Viswanath, ICLR 2018): it subtracts the mean vector and removes
// the projections on the d top principal components, which encode mostly
// word frequency and make unrelated words look alike.
func abtt(rows []wordvec.Row, d int) {
	dims := len(rows[0].Vector)
	mean := make([]float64, dims)
	for _, r := range rows {
		for j, x := range r.Vector {
			mean[j] += float64(x)
		}
	}
	for j := range mean {
		mean[j] /= float64(len(rows))
	}
	cov := make([][]float64, dims)
	for i := range cov {
		cov[i] = make([]float64, dims)
	}
	c := make([]float64, dims)
	for _, r := range rows {
		for j, x := range r.Vector {
			c[j] = float64(x) - mean[j]
		}
		for i := range c {
			ci := c[i]
			row := cov[i]
			for j := i; j < dims; j++ {
				row[j] += ci * c[j]
			}
		}
	}
	for i := range cov {
		for j := 0; j < i; j++ {
			cov[i][j] = cov[j][i]
		}
	}
	pcs := topEigenvectors(cov, d)
	for _, r := range rows {
		for j, x := range r.Vector {
			c[j] = float64(x) - mean[j]
		}
		for _, u := range pcs {
			p := dot(u, c)
			for j := range c {
				c[j] -= p * u[j]
			}
		}
		for j := range c {
			r.Vector[j] = float32(c[j])
		}
	}
}

// topEigenvectors returns the d eigenvectors of the symmetric matrix a
// with the largest eigenvalues, by power iteration with deflation from a
// fixed start, so that the result is deterministic.
func topEigenvectors(a [][]float64, d int) [][]float64 {
	n := len(a)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append([]float64(nil), a[i]...)
	}
	var out [][]float64
	for k := 0; k < d; k++ {
		u := make([]float64, n)
		for i := range u {
			u[i] = 1 / math.Sqrt(float64(n)) * (1 + float64(i%7)/10)
		}
		var lambda float64
		next := make([]float64, n)
		for it := 0; it < 10000; it++ {
			for i := range next {
				next[i] = dot(m[i], u)
			}
			l := math.Sqrt(dot(next, next))
			if l == 0 {
				break
			}
			for i := range next {
				next[i] /= l
			}
			delta := 0.0
			for i := range u {
				delta = math.Max(delta, math.Abs(next[i]-u[i]))
			}
			copy(u, next)
			lambda = l
			if delta < 1e-12 {
				break
			}
		}
		out = append(out, u)
		for i := range m {
			for j := range m[i] {
				m[i][j] -= lambda * u[i] * u[j]
			}
		}
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
