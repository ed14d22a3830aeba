package recall

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
)

// TestDeferredWrites follows the user with WithDeferredWrites: focus and
// search change the slots and counters this Store reports, the database
// does not change until Flush, and a Store opened after Flush (or after
// Close, which flushes) sees them.
func TestDeferredWrites(t *testing.T) {
	ctx := context.Background()
	ms, _ := synthMemories(loadTopics(t), 60, 7)
	path := filepath.Join(t.TempDir(), "memory.db")
	pending := 0
	s := openStoreAt(t, path, ms, WithDeferredWrites(func() { pending++ }))

	other, err := driver.Open("file:" + filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// data_version changes when another connection commits to the file.
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	version := func() int64 {
		t.Helper()
		var v int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()

	f, err := s.Focus(ctx, ms[0].Title)
	if err != nil || f.Slot == "" {
		t.Fatalf("Focus = %+v, %v; want a slot", f, err)
	}
	if _, err := s.Search(ctx, Query{Text: ms[1].Title}); err != nil {
		t.Fatal(err)
	}
	if got := version(); got != before {
		t.Errorf("focus and search changed the database (data_version %d → %d) before Flush", before, got)
	}
	if pending == 0 || !s.Pending() {
		t.Errorf("nothing pending after focus and search (callbacks %d)", pending)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSummary(st) {
		t.Errorf("Status does not show the focused slot before Flush: %+v", st)
	}
	m, err := s.Metrics(ctx)
	if err != nil || m.Searches == 0 {
		t.Errorf("Metrics before Flush = %+v, %v; want the search counted", m, err)
	}

	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := version(); got == before {
		t.Error("Flush wrote nothing")
	}
	if s.Pending() {
		t.Error("still pending after Flush")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again := openStoreAt(t, path, ms)
	defer again.Close()
	st2, err := again.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSummary(st2) {
		t.Errorf("a new Store does not see the flushed slot: %+v", st2)
	}
	m2, err := again.Metrics(ctx)
	if err != nil || m2.Searches != m.Searches {
		t.Errorf("a new Store counts %d searches, %v; want %d", m2.Searches, err, m.Searches)
	}
}

func hasSummary(st Status) bool {
	for _, sl := range st.Slots {
		if sl.Summary != "" {
			return true
		}
	}
	return false
}

// BenchmarkFocus moves the slots as a hover does, on 300 memories:
// written at once (the command line) or kept for Flush (the language
// server, WithDeferredWrites).
func BenchmarkFocus(b *testing.B) {
	ms, _ := synthMemories(loadTopics(b), 300, 11)
	for _, bc := range []struct {
		name string
		opts []Option
	}{{"immediate", nil}, {"deferred", []Option{WithDeferredWrites(nil)}}} {
		b.Run(bc.name, func(b *testing.B) {
			s := openStore(b, ms, bc.opts...)
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Focus(ctx, ms[i%len(ms)].Title); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
