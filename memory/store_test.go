package memory

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/driver"

	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

// memOpen opens a Store at path, closed when the test ends.
func memOpen(t *testing.T, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// memTemp opens a Store in a new temporary directory.
func memTemp(t *testing.T, opts ...Option) *Store {
	t.Helper()
	return memOpen(t, filepath.Join(t.TempDir(), "memory.db"), opts...)
}

// memRaw opens path without this package, as another component would.
func memRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := driver.Open("file:" + filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// memInt runs a query that returns one integer.
func memInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// memCorrect records corrections and fails the test on error.
func memCorrect(t *testing.T, s *Store, texts ...string) []Correction {
	t.Helper()
	var out []Correction
	for _, text := range texts {
		c, err := s.RecordCorrection(t.Context(), Correction{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestMemoryMigrateWithFeedback(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "memory.db")
	// Routing feedback got there first, with its own tables, and
	// someone set PRAGMA user_version.
	fb, err := feedback.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Record(ctx, feedback.Entry{Query: "who calls Open", Strategy: "structural", Confidence: 0.9, Results: 1}); err != nil {
		t.Fatal(err)
	}
	raw := memRaw(t, path)
	if _, err := raw.ExecContext(ctx, `PRAGMA user_version=7`); err != nil {
		t.Fatal(err)
	}

	s := memOpen(t, path)
	memCorrect(t, s, "never use panic in Go")
	if _, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: "universal", Content: "Keep functions short"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Opening again, in either order, migrates nothing and keeps the
	// data of both.
	s = memOpen(t, path)
	fb.Close()
	fb, err = feedback.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	if cs, err := s.OpenCorrections(ctx); err != nil || len(cs) != 1 {
		t.Fatalf("after reopening, open corrections %v, %v; want one", cs, err)
	}

	checks := []struct {
		name  string
		query string
		want  int
	}{
		{"memory version", `SELECT version FROM schema_versions WHERE component = 'memory'`, len(migrations())},
		{"feedback version", `SELECT version FROM schema_versions WHERE component = 'feedback'`, 1},
		{"two components", `SELECT COUNT(*) FROM schema_versions`, 2},
		{"user_version untouched", `PRAGMA user_version`, 7},
		{"searches kept", `SELECT COUNT(*) FROM routing_feedback`, 1},
		{"rules kept", `SELECT COUNT(*) FROM memory_store`, 1},
		{"one memory_store table", `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'memory_store'`, 1},
		{"anchor columns", `SELECT COUNT(*) FROM pragma_table_info('memory_store') WHERE name IN ('anchor_file', 'anchor_symbol', 'anchor_score', 'anchor_metadata')`, 4},
		{"journal in WAL mode", `SELECT journal_mode = 'wal' FROM pragma_journal_mode`, 1},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := memInt(t, raw, c.query); got != c.want {
				t.Errorf("%s = %d, want %d", c.query, got, c.want)
			}
		})
	}
}

func TestMemoryNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	memOpen(t, path).Close()
	if _, err := memRaw(t, path).ExecContext(t.Context(), `UPDATE schema_versions SET version = 99 WHERE component = 'memory'`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path)
	if !errors.Is(err, state.ErrNewer) || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

func TestMemoryCorrupt(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.db")
	s := memOpen(t, valid)
	memCorrect(t, s, "use tabs")
	s.Close()
	page, err := os.ReadFile(valid)
	if err != nil {
		t.Fatal(err)
	}
	// Everything after the 100-byte header, overwritten.
	broken := append(append([]byte(nil), page[:100]...), bytes.Repeat([]byte{0xa5}, len(page)-100)...)

	tests := []struct {
		name    string
		content []byte
	}{
		{"not a database", []byte(strings.Repeat("these are my notes, not SQLite\n", 200))},
		{"broken schema page", broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("Open: %v", err)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open error %q: want ErrCorrupt naming the file", err)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, tt.content) {
				t.Errorf("the file changed or went away (%v): user data must be left alone", err)
			}
		})
	}
}

func TestMemoryLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := memOpen(t, path, WithBusyTimeout(50*time.Millisecond))
	// Another process holds the write lock.
	other := memRaw(t, path)
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	_, err = s.RecordCorrection(t.Context(), Correction{Text: "use tabs"})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "record correction") {
		t.Errorf("RecordCorrection on a locked database: %v, want ErrLocked", err)
	}
	if _, err := conn.ExecContext(t.Context(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordCorrection(t.Context(), Correction{Text: "use tabs"}); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}

func TestMemoryCommittedBeforeReturn(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "with space?#x", "memory.db")
	writer, reader := memOpen(t, path), memOpen(t, path)
	memCorrect(t, writer, "never use panic in Go", "avoid panic()")
	ps, err := writer.Propose(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatalf("Propose = %v, %v", ps, err)
	}
	if _, err := writer.Approve(ctx, ps[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	rules, err := reader.Rules(ctx, RuleFilter{})
	if err != nil || len(rules) != 1 {
		t.Fatalf("another connection sees rules %v, %v; want one", rules, err)
	}
	st, err := reader.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Corrections != 2 || st.OpenCorrections != 0 || st.Proposals[StatusApproved] != 1 || st.Rules != 1 {
		t.Errorf("another connection sees %+v", st)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at its path: %v", err)
	}
}

func TestMemoryOpenBadProject(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), WithProject("bad\x00name"))
	if !errors.Is(err, ErrInvalidScope) {
		t.Errorf("Open with a bad project: %v, want ErrInvalidScope", err)
	}
}
