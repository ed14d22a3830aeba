package analysis

import (
	"context"
	"fmt"
	"maps"
	"testing"
)

func TestCallerList(t *testing.T) {
	tests := []struct {
		name  string
		calls []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"p.F"}, "Called by p.F."},
		{"repeated", []string{"p.F", "p.F", "p.F"}, "Called by p.F."},
		{"sorted", []string{"p.C", "p.A", "p.B"}, "Called by p.A, p.B, p.C."},
		{"first three", []string{"p.E", "p.D", "p.C", "p.B", "p.A", "p.B"}, "Called by p.A, p.B, p.C."},
		{"byte order", []string{"b.x", "B.x", "é.x", "a.x"}, "Called by B.x, a.x, b.x."},
		{"full then smaller", []string{"p.X", "p.Y", "p.Z", "p.A", "p.Z", "p.Y"}, "Called by p.A, p.X, p.Y."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab callerTable
			for _, q := range tt.calls {
				tab.add("target", q)
			}
			if got := tab.byName["target"].text(); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			// Merging halves gives the same.
			var a, b, merged callerTable
			for i, q := range tt.calls {
				if i%2 == 0 {
					a.add("target", q)
				} else {
					b.add("target", q)
				}
			}
			merged.merge(&a)
			merged.merge(&b)
			if got := merged.byName["target"].text(); got != tt.want {
				t.Errorf("merged text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBulkCallersMatchEdges builds a first index large enough to be a bulk
// load, whose chunk callers come from the callers gathered while storing,
// and checks they are what the edges say (bulkChunkIndex).
func TestBulkCallersMatchEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes more than 2000 files")
	}
	files := map[string]string{
		"lib/target.go": "package lib\n\nfunc Target() {}\n\nfunc Other() {}\n\ntype T struct{}\n\nfunc (T) M() { Target() }\n",
	}
	for i := 0; len(files) <= bulkThreshold; i++ {
		// Many callers per name, repeated calls, methods and module-level
		// calls, names that sort in byte order.
		files[fmt.Sprintf("p%04d/f.go", i)] = fmt.Sprintf(`package p%d

var v = lib.Target()

func Func%d() {
	lib.Target()
	lib.Target()
	Ünicode%d()
}

type S%d struct{}

func (S%d) M() { lib.Other(); x.M() }

func Ünicode%d() { lib.Other() }
`, i%37, i, i%5, i, i, i%5)
	}
	root := t.TempDir()
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	ctx := context.Background()
	read := func() map[int64]string {
		rows, err := ix.store.db.QueryContext(ctx, `SELECT c.id, `+chunkCallers+` FROM chunks c`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int64]string{}
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				t.Fatal(err)
			}
			out[id] = c
		}
		return out
	}
	gathered := read()
	named := 0
	for _, c := range gathered {
		if c != "" {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no chunk names callers")
	}
	if _, err := ix.store.db.ExecContext(ctx, bulkChunkIndex); err != nil {
		t.Fatal(err)
	}
	fromEdges := read()
	if !maps.Equal(gathered, fromEdges) {
		for id, c := range fromEdges {
			if gathered[id] != c {
				t.Errorf("chunk %d: gathered callers %q, edges say %q", id, gathered[id], c)
			}
		}
	}
}

// TestBulkEmbedsWithCallers builds a first index large enough to be a bulk
// load with an embedder: chunks are embedded while the indexes are built,
// each once, from their text with the callers named at the end of the load.
func TestBulkEmbedsWithCallers(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes more than 2000 files")
	}
	files := map[string]string{
		"lib/target.go": "package lib\n\n// Target is called from many places.\nfunc Target() {}\n",
	}
	for i := 0; len(files) <= bulkThreshold; i++ {
		files[fmt.Sprintf("p%04d/f.go", i)] = fmt.Sprintf("package p%d\n\nfunc Func%d() { lib.Target() }\n", i, i)
	}
	root := t.TempDir()
	writeWorkspace(t, root, files)
	e := newCountingEmbedder("model-1")
	ix := openTestIndex(t, root, func(o *Options) { o.Embedder = e; o.Workers = 2 })
	sum := mustUpdate(t, ix)
	if len(sum.Problems) > 0 {
		t.Fatalf("problems: %+v", sum.Problems)
	}
	chunks := map[int64]ChunkInfo{}
	for p := range files {
		for _, c := range storedChunks(t, ix.store, p) {
			chunks[c.ID] = c
		}
	}
	vectors := storedVectors(t, ix.store)
	if len(chunks) != len(files) || len(vectors) != len(chunks) {
		t.Fatalf("%d vectors for %d chunks of %d files", len(vectors), len(chunks), len(files))
	}
	calls := e.take()
	withCallers := 0
	for id, c := range chunks {
		text := ChunkEmbeddingText(c.Context, c.Callers, c.Text)
		if c.Callers != "" {
			withCallers++
		}
		if calls[text] != 1 {
			t.Errorf("chunk %d (%s) embedded %d times, want once", id, c.Name, calls[text])
		}
		if want := fakeVector("model-1", text); string(vectors[id]) != string(want) {
			t.Errorf("chunk %d (%s) has vector %x, want %x", id, c.Name, vectors[id], want)
		}
	}
	if withCallers != 1 {
		t.Errorf("%d chunks name callers, want 1 (lib.Target)", withCallers)
	}
}
