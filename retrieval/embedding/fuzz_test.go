package embedding

import (
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkDecoded fails unless vecs is what a decoder may return for n
// texts: n vectors of one non-zero length, finite values.
func checkDecoded(t *testing.T, vecs [][]float32, n int) {
	t.Helper()
	if len(vecs) != n {
		t.Fatalf("decoded %d vectors for %d texts", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			t.Fatalf("vector %d has %d dimensions, vector 0 %d", i, len(v), len(vecs[0]))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("vector %d has %v", i, x)
			}
		}
	}
}

func addSeeds(f *testing.F, fixture string, extra ...string) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, 2)
	f.Add(data, 3)
	for _, s := range extra {
		f.Add([]byte(s), 1)
	}
}

func FuzzDecodeOllama(f *testing.F) {
	addSeeds(f, "testdata/ollama-embed.json", `{"embeddings":[[1e38]]}`, `{"embeddings":[[]]}`, `{"embeddings":null}`, `[]`)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = n & 0xff
		if vecs, err := decodeOllama(data, n); err == nil {
			checkDecoded(t, vecs, n)
		}
	})
}

func FuzzDecodeOpenAI(f *testing.F) {
	addSeeds(f, "testdata/openai-embeddings.json", `{"data":[{"index":0,"embedding":[1]}]}`, `{"data":[{"index":0}]}`, `{"data":[{"index":-1,"embedding":[1]}]}`)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = n & 0xff
		if vecs, err := decodeOpenAI(data, n); err == nil {
			checkDecoded(t, vecs, n)
		}
	})
}

func FuzzCleanExcerpt(f *testing.F) {
	f.Add([]byte("  line one\n\tline two  "))
	f.Add([]byte(strings.Repeat("é", 600)))
	f.Add([]byte("\xff\xfe bad"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := cleanExcerpt(body)
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\t") || len(s) > maxErrorBody+len("…") {
			t.Fatalf("cleanExcerpt(%q) = %q", body, s)
		}
	})
}
