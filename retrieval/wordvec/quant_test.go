package wordvec

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func randomVector(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

func maxAbs(v []float32) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	return m
}

func TestQuantizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		v    []float32
	}{
		{"empty", []float32{}},
		{"zero", make([]float32, 100)},
		{"one", []float32{-3.5}},
		{"unit", func() []float32 { v := randomVector(r, 100, 1); Normalize(v); return v }()},
		{"large", randomVector(r, 384, 1e6)},
		{"tiny", randomVector(r, 768, 1e-30)},
		{"extremes", []float32{math.MaxFloat32, -math.MaxFloat32, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Quantize(tt.v)
			if len(q) != 4+len(tt.v) {
				t.Fatalf("len = %d, want %d", len(q), 4+len(tt.v))
			}
			got, err := Dequantize(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.v) {
				t.Fatalf("decoded %d values, want %d", len(got), len(tt.v))
			}
			// Each component is off by at most half a step, max|v|/254,
			// give or take float32 rounding.
			bound := maxAbs(tt.v) / 254 * (1 + 1e-5)
			for i := range got {
				if d := math.Abs(float64(got[i]) - float64(tt.v[i])); d > bound {
					t.Errorf("component %d: %v decoded as %v (error %g > %g)", i, tt.v[i], got[i], d, bound)
				}
			}
		})
	}
}

func TestQuantizeNonFinite(t *testing.T) {
	v := []float32{1, float32(math.NaN()), float32(math.Inf(1)), -0.5, float32(math.Inf(-1))}
	got, err := Dequantize(Quantize(v))
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 0, 0, -0.5, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1.0/254 {
			t.Errorf("component %d = %v, want %v", i, got[i], want[i])
		}
	}
	allBad := Quantize([]float32{float32(math.NaN()), float32(math.Inf(1))})
	if got, _ := Dequantize(allBad); got[0] != 0 || got[1] != 0 {
		t.Errorf("all non-finite decoded as %v, want zeros", got)
	}
}

func TestDotQuantized(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		n := 1 + r.IntN(800)
		a, b := randomVector(r, n, 1), randomVector(r, n, 0.1)
		if i%2 == 0 {
			Normalize(a)
			Normalize(b)
		}
		var exact, bound float64
		ea, eb := maxAbs(a)/254, maxAbs(b)/254
		for j := range a {
			exact += float64(a[j]) * float64(b[j])
			// |a'b' − ab| ≤ |a|·eb + |b|·ea + ea·eb per component.
			bound += math.Abs(float64(a[j]))*eb + math.Abs(float64(b[j]))*ea + ea*eb
		}
		got, err := DotQuantized(Quantize(a), Quantize(b))
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(float64(got) - exact); d > bound*(1+1e-4)+1e-6 {
			t.Fatalf("n=%d: dot %v, exact %v: error %g > bound %g", n, got, exact, d, bound)
		}
	}
}

func TestDotQuantizedOfEmbeddings(t *testing.T) {
	m := load(t)
	a := m.Embed("open a database connection")
	b := m.Embed("connect to sqlite")
	got, err := DotQuantized(Quantize(a), Quantize(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := Cosine(a, b); math.Abs(float64(got-want)) > 0.01 {
		t.Errorf("DotQuantized = %v, cosine %v: want within 0.01", got, want)
	}
}

func TestQuantizedErrors(t *testing.T) {
	good := Quantize([]float32{1, 2, 3})
	withScale := func(s float32) []byte {
		q := Quantize([]float32{1, 2, 3})
		binary.LittleEndian.PutUint32(q, math.Float32bits(s))
		return q
	}
	tests := []struct {
		name string
		a, b []byte
		want string
	}{
		{"nil", nil, good, "shorter than"},
		{"short", good, []byte{1, 2, 3}, "shorter than"},
		{"lengths", good, Quantize([]float32{1, 2}), "3 and 2 components"},
		{"NaN scale", withScale(float32(math.NaN())), good, "scale NaN"},
		{"Inf scale", good, withScale(float32(math.Inf(1))), "scale +Inf"},
		{"negative scale", withScale(-1), good, "scale -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DotQuantized(tt.a, tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DotQuantized error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, withScale(float32(math.NaN())), withScale(-1)} {
		if v, err := Dequantize(bad); err == nil {
			t.Errorf("Dequantize(%v) = %v, want an error", bad, v)
		}
	}
}
