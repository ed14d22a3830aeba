package retrieval

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/embedding"
)

// fakeOllama speaks Ollama's /api/embed: each text gets a vector of
// hashed words, so texts sharing words are close. fail makes it answer 500.
func fakeOllama(t *testing.T, fail *atomic.Bool, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/embed" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		if fail.Load() {
			http.Error(w, "model not loaded", http.StatusInternalServerError)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := struct {
			Model      string      `json:"model"`
			Embeddings [][]float32 `json:"embeddings"`
		}{Model: req.Model}
		for _, text := range req.Input {
			v := make([]float32, 16)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%16]++
			}
			out.Embeddings = append(out.Embeddings, v)
		}
		json.NewEncoder(w).Encode(out)
	}))
}

// TestProviderVectors indexes the sample app with an embedding server:
// every chunk gets a vector stamped with the server's model, searches
// use it, and a server that fails leaves the graph indexed and the
// vectors for the next update.
func TestProviderVectors(t *testing.T) {
	ctx := context.Background()
	var fail atomic.Bool
	var calls atomic.Int64
	srv := fakeOllama(t, &fail, &calls)
	defer srv.Close()
	vec, err := NewProviderVectors(embedding.Config{Kind: embedding.KindOllama, URL: srv.URL, Model: "test-embed"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vec.Model(), "ollama:test-embed"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	fail.Store(true)
	ix, err := analysis.Open(ctx, analysis.Options{
		Root: filepath.Join("..", "testdata", "sampleapp"), DBPath: filepath.Join(t.TempDir(), "index.db"), Embedder: vec,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sum, err := ix.Update(ctx, nil)
	if err != nil {
		t.Fatalf("Update with a failing server: %v", err)
	}
	found := false
	for _, p := range sum.Problems {
		found = found || p.Reason == "embedding" && strings.Contains(p.Detail, "500")
	}
	if !found || sum.Symbols == 0 {
		t.Fatalf("a failing server: problems %+v, %d symbols; want an embedding problem and the graph indexed", sum.Problems, sum.Symbols)
	}
	if vs, err := ix.ChunkVectors(ctx); err != nil || len(vs.IDs) != 0 {
		t.Fatalf("vectors after a failed embedding: %v, %v", vs, err)
	}

	fail.Store(false)
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	n, err := ix.ChunkCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := ix.ChunkVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.IDs) != n || n == 0 {
		t.Fatalf("%d vectors for %d chunks", len(vs.IDs), n)
	}
	if stamp, err := ix.VectorModel(ctx); err != nil || stamp != "ollama:test-embed" {
		t.Errorf("vector stamp = %q, %v; want ollama:test-embed", stamp, err)
	}
	before := calls.Load()
	s := &Searcher{Index: ix, Vectors: vec}
	resp, err := s.Search(ctx, Request{Query: "retry failed jobs", Strategy: Semantic})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != before+1 {
		t.Errorf("the query was embedded %d times, want once", calls.Load()-before)
	}
	if len(resp.Results) == 0 || resp.Results[0].File != "worker/jobs.py" && resp.Results[0].File != "worker/runner.py" {
		t.Errorf("results %+v, want the worker first", resp.Results)
	}
}
