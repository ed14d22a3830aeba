package wordvec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Quantize encodes v for storage in 4+len(v) bytes: a little-endian
// float32 scale followed by one int8 per component, component i decoding
// as int8 × scale. Each component is off by at most max|v|/254. Non-finite
// components encode as 0.
func Quantize(v []float32) []byte {
	var maxAbs float32
	for _, x := range v {
		if isFinite(x) {
			maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
		}
	}
	out := make([]byte, 4+len(v))
	scale := maxAbs / 127
	if scale == 0 || !isFinite(scale) {
		return out // scale 0: all zeros
	}
	binary.LittleEndian.PutUint32(out, math.Float32bits(scale))
	for i, x := range v {
		if !isFinite(x) {
			continue
		}
		r := math.Round(float64(x / scale))
		out[4+i] = byte(int8(max(-127, min(127, r))))
	}
	return out
}

func isFinite(x float32) bool {
	return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
}

// quantScale returns the scale of an encoding made by Quantize.
func quantScale(q []byte) (float32, error) {
	if len(q) < 4 {
		return 0, errors.New("wordvec: quantised vector shorter than its 4-byte scale")
	}
	s := math.Float32frombits(binary.LittleEndian.Uint32(q))
	if !isFinite(s) || s < 0 {
		return 0, fmt.Errorf("wordvec: quantised vector has scale %v", s)
	}
	return s, nil
}

// Dequantize decodes a vector encoded by Quantize.
func Dequantize(q []byte) ([]float32, error) {
	s, err := quantScale(q)
	if err != nil {
		return nil, err
	}
	v := make([]float32, len(q)-4)
	for i, b := range q[4:] {
		// In float64 and clamped: 127 × scale may round past MaxFloat32.
		x := float64(int8(b)) * float64(s)
		v[i] = float32(max(-math.MaxFloat32, min(math.MaxFloat32, x)))
	}
	return v, nil
}

// DotQuantized returns the dot product of two vectors encoded by
// Quantize, computed on the int8 values; for the unit vectors Embed
// returns it approximates their cosine similarity. It fails when the
// encodings differ in length or are malformed.
func DotQuantized(a, b []byte) (float32, error) {
	sa, err := quantScale(a)
	if err != nil {
		return 0, err
	}
	sb, err := quantScale(b)
	if err != nil {
		return 0, err
	}
	if len(a) != len(b) {
		return 0, fmt.Errorf("wordvec: quantised vectors of %d and %d components", len(a)-4, len(b)-4)
	}
	a, b = a[4:], b[4:]
	var s0, s1, s2, s3 int64
	for len(a) >= 4 && len(b) >= 4 { // shaped so that no index is bounds-checked
		s0 += int64(int8(a[0])) * int64(int8(b[0]))
		s1 += int64(int8(a[1])) * int64(int8(b[1]))
		s2 += int64(int8(a[2])) * int64(int8(b[2]))
		s3 += int64(int8(a[3])) * int64(int8(b[3]))
		a, b = a[4:], b[4:]
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		s0 += int64(int8(a[i])) * int64(int8(b[i]))
	}
	return float32(float64(s0+s1+s2+s3) * float64(sa) * float64(sb)), nil
}
