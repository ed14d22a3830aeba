package retrieval

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestWordVectorsEmbedRemembers checks that the vectors of long texts,
// kept for the next search, are those a fresh embedding gives, for
// texts embedded concurrently and again after the memory fills.
func TestWordVectorsEmbedRemembers(t *testing.T) {
	w, err := NewWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = fmt.Sprintf("func parse%d(s string) error { // parse the %d config file header and retry the request\n", i, i) +
			strings.Repeat("read the file and decode the json document into a struct ", 4+i%5)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, text := range texts {
				if got, want := w.Embed(text), w.embed(text); !bytes.Equal(got, want) {
					t.Errorf("Embed(%.30q…) differs from a fresh embedding", text)
				}
			}
		})
	}
	wg.Wait()
	if n := len(w.embedded); n != len(texts) {
		t.Errorf("%d texts remembered, want %d", n, len(texts))
	}
	if w.Embed("short query") == nil || len(w.embedded) != len(texts) {
		t.Errorf("a short text was remembered (%d texts)", len(w.embedded))
	}
}
