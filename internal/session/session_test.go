package session

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/state"
)

// newSession returns a session over fresh state directories, closed at
// the end of the test.
func newSession(t *testing.T, opts Options) (*Session, state.Dirs) {
	t.Helper()
	dir := t.TempDir()
	dirs := state.Dirs{Data: filepath.Join(dir, "data"), Cache: filepath.Join(dir, "cache")}
	s, err := New(context.Background(), dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dirs
}

// TestOnePool checks that every store of the user database shares one
// *state.DB, opened once however many callers ask at once.
func TestOnePool(t *testing.T) {
	ctx := context.Background()
	s, dirs := newSession(t, Options{})
	if s.MemoryExists() {
		t.Fatal("MemoryExists before anything was opened")
	}
	var wg sync.WaitGroup
	dbs := make([]*state.DB, 8)
	for i := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := s.Database(ctx)
			if err != nil {
				t.Error(err)
			}
			dbs[i] = db
		}()
	}
	wg.Wait()
	for i, db := range dbs {
		if db == nil || db != dbs[0] {
			t.Fatalf("Database call %d returned %p; want the one pool %p", i, db, dbs[0])
		}
	}
	if got, want := dbs[0].Path(), dirs.MemoryPath(); got != want {
		t.Errorf("pool path = %s; want %s", got, want)
	}
	if got := dbs[0].Profile(); got != state.User {
		t.Errorf("pool profile = %v; want %v", got, state.User)
	}
	m1, err := s.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := s.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m1 != m2 {
		t.Error("two Memory calls returned two stores")
	}
	d1, _ := s.Documents(ctx)
	d2, _ := s.Documents(ctx)
	g1, err := s.Recall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := s.Recall(ctx)
	if d1 == nil || d1 != d2 || g1 != g2 {
		t.Error("Documents or Recall opened twice")
	}
	if !s.MemoryExists() {
		t.Error("MemoryExists false after the pool was opened")
	}
	f1, err := s.Feedback(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f2, _ := s.Feedback(ctx); f1 != f2 {
		t.Error("two Feedback calls returned two stores")
	}
	if s.Router() == nil || s.Router() != s.Router() {
		t.Error("Router is not the one router of the process")
	}
}

// TestCloseFlushesSlots moves a slot with deferred writes, closes the
// session, and checks that a new session sees the move; a second Close is
// harmless and the closed session refuses work.
func TestCloseFlushesSlots(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	s, dirs := newSession(t, Options{DocumentRoots: func() []string { return []string{root} }, DeferSlotWrites: true, SlotsPending: func() { pending++ }})
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Sync(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	g, err := s.Recall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := g.Focus(ctx, "retrying network requests with exponential backoff")
	if err != nil || f.Slot == "" {
		t.Fatalf("Focus = %+v, %v; want a slot", f, err)
	}
	if pending == 0 || !g.Pending() {
		t.Fatalf("the focus is not pending (callbacks %d)", pending)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Memory(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Memory after Close = %v; want ErrClosed", err)
	}
	if _, err := s.Index(ctx, root); !errors.Is(err, ErrClosed) {
		t.Errorf("Index after Close = %v; want ErrClosed", err)
	}

	again, err := New(ctx, dirs, Options{DocumentRoots: func() []string { return []string{root} }})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	g2, err := again.Recall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := g2.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !focused(st, f.Slot) {
		t.Errorf("after Close, slot %s is not saved: %+v", f.Slot, st)
	}
}

func focused(st recall.Status, slot string) bool {
	for _, sl := range st.Slots {
		if sl.Slot == slot && sl.Summary != "" {
			return true
		}
	}
	return false
}

// TestIndexOnePerRoot opens the index of a root from several goroutines,
// and through a path that names the same root differently, and checks
// there is one index; another root has its own.
func TestIndexOnePerRoot(t *testing.T) {
	ctx := context.Background()
	s, _ := newSession(t, Options{})
	root, err := filepath.Abs("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	paths := []string{root, root + "/", filepath.Join(root, ".anchorage", ".."), root}
	got := make([]any, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := s.Index(ctx, p)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = ix
		}()
	}
	wg.Wait()
	for i := range paths {
		if got[i] == nil || got[i] != got[0] {
			t.Fatalf("Index(%q) is not the one index of the root", paths[i])
		}
	}
	ix, err := s.Index(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if any(ix) == got[0] {
		t.Error("two roots share one index")
	}
	if _, err := s.Index(ctx, filepath.Join(root, "missing")); err == nil {
		t.Error("Index of a missing directory: no error")
	}
}

// TestNewRefusesMissingDirs checks that New says what is missing.
func TestNewRefusesMissingDirs(t *testing.T) {
	if _, err := New(context.Background(), state.Dirs{}, Options{}); err == nil {
		t.Error("New with no directories: no error")
	}
}

// TestReleaseIndex checks that an index is closed when the last of its
// holders releases it, not before, and that the root's next Index opens
// it afresh.
func TestReleaseIndex(t *testing.T) {
	ctx := context.Background()
	s, _ := newSession(t, Options{})
	root, err := filepath.Abs("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.OpenIndex(ctx, analysis.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Index(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("OpenIndex and Index of one root returned two indexes")
	}
	if _, err := a.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseIndex(a); err != nil {
		t.Fatal(err)
	}
	paths, err := b.FilePaths(ctx)
	if err != nil || len(paths) == 0 {
		t.Fatalf("after one of two holders released it, FilePaths = %v, %v; want the indexed files", paths, err)
	}
	if err := s.ReleaseIndex(b); err != nil {
		t.Fatal(err)
	}
	if _, err := b.FilePaths(ctx); err == nil {
		t.Error("the index is open after its last holder released it")
	}
	if err := s.ReleaseIndex(b); err != nil {
		t.Errorf("a second release: %v", err)
	}
	c, err := s.Index(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if c == b {
		t.Fatal("Index after the last release returned the closed index")
	}
	if paths, err := c.FilePaths(ctx); err != nil || len(paths) == 0 {
		t.Errorf("reopened index: FilePaths = %v, %v; want the files indexed before", paths, err)
	}
}

// TestRebuildIndex replaces an index with one built afresh: the old one
// stays readable for its holders until they release it, later callers get
// the new one, and a second rebuild of the same damage removes nothing.
func TestRebuildIndex(t *testing.T) {
	ctx := context.Background()
	s, _ := newSession(t, Options{})
	root, err := filepath.Abs("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	old, err := s.Index(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	holder, err := s.Index(ctx, root) // a second folder of the same root
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.RebuildIndex(ctx, old, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh == old {
		t.Fatal("RebuildIndex returned the damaged index")
	}
	if paths, err := fresh.FilePaths(ctx); err != nil || len(paths) != 0 {
		t.Fatalf("rebuilt index holds %v, %v; want nothing before its update", paths, err)
	}
	if got, err := s.Index(ctx, root); err != nil || got != fresh {
		t.Fatalf("Index after the rebuild = %p, %v; want the rebuilt %p", got, err, fresh)
	}
	if _, err := fresh.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	again, err := s.RebuildIndex(ctx, holder, analysis.Options{})
	if err != nil || again != fresh {
		t.Fatalf("second RebuildIndex of the same damage = %p, %v; want the current %p", again, err, fresh)
	}
	if paths, err := fresh.FilePaths(ctx); err != nil || len(paths) == 0 {
		t.Fatalf("the second rebuild emptied the current index: %v, %v", paths, err)
	}
	if _, err := old.FilePaths(ctx); err != nil {
		t.Errorf("the replaced index closed while held: %v", err)
	}
	if err := s.ReleaseIndex(old); err != nil {
		t.Fatal(err)
	}
	if _, err := old.FilePaths(ctx); err != nil {
		t.Errorf("the replaced index closed while a second holder has it: %v", err)
	}
	if err := s.ReleaseIndex(holder); err != nil {
		t.Fatal(err)
	}
	if _, err := old.FilePaths(ctx); err == nil {
		t.Error("the replaced index is open after its holders released it")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.FilePaths(ctx); err == nil {
		t.Error("Close left the current index open")
	}
}
