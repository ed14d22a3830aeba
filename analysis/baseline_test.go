package analysis

import (
	"context"
	"testing"
)

func TestParseBaseline(t *testing.T) {
	ix := indexSample(t)
	st, err := ix.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{0, 1, 3} {
		files, bytes, _, err := ParseBaseline(context.Background(), sampleRoot, workers)
		if err != nil {
			t.Fatalf("ParseBaseline(%d workers): %v", workers, err)
		}
		if files != st.Files || bytes <= 0 {
			t.Errorf("ParseBaseline(%d workers) parsed %d files (%d bytes), want the %d an index parses", workers, files, bytes, st.Files)
		}
	}
}
