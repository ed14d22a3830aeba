package feedback

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3/driver"

	"github.com/anchorage-dev/anchorage/state"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func record(t *testing.T, s *Store, e Entry) int64 {
	t.Helper()
	id, err := s.Record(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// rawDB opens path without this package, as another component would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := driver.Open("file:" + filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	// Another component got there first, with its own version and
	// PRAGMA user_version.
	other := rawDB(t, path)
	for _, q := range []string{
		`CREATE TABLE schema_versions(component TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
		`INSERT INTO schema_versions VALUES('memory', 3)`,
		`CREATE TABLE memory_store(id INTEGER PRIMARY KEY, content TEXT NOT NULL)`,
		`INSERT INTO memory_store(content) VALUES('prefer table-driven tests')`,
		`PRAGMA user_version=7`,
	} {
		if _, err := other.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	s := open(t, path)
	id := record(t, s, Entry{Query: "who calls Open", Strategy: "structural", Confidence: 0.9, Results: 3})
	s.Close()
	// Opening again migrates nothing and keeps the data.
	s = open(t, path)
	if err := s.Used(t.Context(), id, "a.go", 1); err != nil {
		t.Fatalf("after reopening, Used: %v", err)
	}

	checks := []struct {
		name  string
		query string
		want  int
	}{
		{"feedback version", `SELECT version FROM schema_versions WHERE component = 'feedback'`, len(migrations())},
		{"other component's version", `SELECT version FROM schema_versions WHERE component = 'memory'`, 3},
		{"user_version untouched", `PRAGMA user_version`, 7},
		{"other component's rows", `SELECT COUNT(*) FROM memory_store`, 1},
		{"one routing_feedback table", `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'routing_feedback'`, 1},
		{"searches kept", `SELECT COUNT(*) FROM routing_feedback`, 1},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := queryInt(t, other, c.query); got != c.want {
				t.Errorf("%s = %d, want %d", c.query, got, c.want)
			}
		})
	}
}

func TestNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	open(t, path).Close()
	if _, err := rawDB(t, path).ExecContext(t.Context(), `UPDATE schema_versions SET version = 99 WHERE component = 'feedback'`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path)
	if !errors.Is(err, state.ErrNewer) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "feedback schema is version 99") {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

func TestStats(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memory.db"))
	ctx := t.Context()

	stats, err := s.Stats(ctx)
	if err != nil || stats == nil || len(stats) != 0 {
		t.Fatalf("Stats of an empty database = %#v, %v; want an empty list", stats, err)
	}

	sem1 := record(t, s, Entry{Query: "how are users loaded", Strategy: "semantic", Confidence: 0.6, Results: 10})
	sem2 := record(t, s, Entry{Query: "auth flow", Strategy: "semantic", Confidence: 0.8, Results: 5})
	record(t, s, Entry{Query: "caching", Strategy: "semantic", Confidence: 0.7, Results: 0})
	str1 := record(t, s, Entry{Query: "what calls FindByID", Strategy: "structural", Confidence: 0.9, Results: 2, Root: "/w"})
	record(t, s, Entry{Query: "grep:TODO", Strategy: "keyword", Confidence: 1, Results: 7})

	for _, u := range []struct {
		id   int64
		file string
		line int
	}{
		{sem1, "users/repo.go", 12},
		{sem1, "users/repo.go", 12}, // the same result again: counted once
		{sem1, "users/service.go", 30},
		{sem2, "auth/login.go", 5},
		{str1, "users/service.go", 40},
	} {
		if err := s.Used(ctx, u.id, u.file, u.line); err != nil {
			t.Fatal(err)
		}
	}

	stats, err = s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []StrategyStats{
		{Strategy: "semantic", Queries: 3, AvgConfidence: 0.7, AvgResults: 5, Used: 3, SearchesUsed: 2, Utilisation: 2.0 / 3},
		{Strategy: "keyword", Queries: 1, AvgConfidence: 1, AvgResults: 7, Used: 0, SearchesUsed: 0, Utilisation: 0},
		{Strategy: "structural", Queries: 1, AvgConfidence: 0.9, AvgResults: 2, Used: 1, SearchesUsed: 1, Utilisation: 1},
	}
	if len(stats) != len(want) {
		t.Fatalf("Stats = %+v, want %+v", stats, want)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for i, w := range want {
		g := stats[i]
		if g.Strategy != w.Strategy || g.Queries != w.Queries || g.Used != w.Used || g.SearchesUsed != w.SearchesUsed ||
			!near(g.AvgConfidence, w.AvgConfidence) || !near(g.AvgResults, w.AvgResults) || !near(g.Utilisation, w.Utilisation) {
			t.Errorf("Stats[%d] = %+v, want %+v", i, g, w)
		}
	}
}

func TestUsedErrors(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memory.db"))
	id := record(t, s, Entry{Query: "q", Strategy: "semantic", Confidence: 0.5, Results: 1})
	tests := []struct {
		name    string
		id      int64
		file    string
		line    int
		unknown bool
	}{
		{"unknown id", id + 100, "a.go", 1, true},
		{"zero id", 0, "a.go", 1, true},
		{"no file", id, "", 1, false},
		{"negative line", id, "a.go", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Used(t.Context(), tt.id, tt.file, tt.line)
			if err == nil {
				t.Fatal("Used succeeded")
			}
			if errors.Is(err, ErrUnknownSearch) != tt.unknown {
				t.Errorf("Used error %q: ErrUnknownSearch %v, want %v", err, !tt.unknown, tt.unknown)
			}
			if tt.unknown && !strings.Contains(err.Error(), fmt.Sprintf("search %d", tt.id)) {
				t.Errorf("Used error %q does not name the search", err)
			}
		})
	}
	if n := queryInt(t, s.db.DB, `SELECT COUNT(*) FROM routing_feedback_used`); n != 0 {
		t.Errorf("%d results marked used after errors", n)
	}
}

func TestRecordValidation(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memory.db"))
	tests := []struct {
		name string
		e    Entry
	}{
		{"no strategy", Entry{Query: "q", Confidence: 0.5}},
		{"NaN confidence", Entry{Query: "q", Strategy: "semantic", Confidence: math.NaN()}},
		{"confidence over 1", Entry{Query: "q", Strategy: "semantic", Confidence: 1.5}},
		{"negative results", Entry{Query: "q", Strategy: "semantic", Confidence: 0.5, Results: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if id, err := s.Record(t.Context(), tt.e); err == nil {
				t.Errorf("Record(%+v) = %d, want an error", tt.e, id)
			}
		})
	}
	if n := queryInt(t, s.db.DB, `SELECT COUNT(*) FROM routing_feedback`); n != 0 {
		t.Errorf("%d searches recorded from invalid entries", n)
	}
}

func TestQueryCapped(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memory.db"))
	tests := []struct {
		name, query string
		wantRunes   int
	}{
		{"short", "where is the cache", 18},
		{"exactly the cap", strings.Repeat("x", MaxQuery), MaxQuery},
		{"long multibyte", strings.Repeat("日本", MaxQuery), MaxQuery},
		{"invalid UTF-8", "a\xffb", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := record(t, s, Entry{Query: tt.query, Strategy: "semantic", Confidence: 0.5})
			var q string
			if err := s.db.QueryRowContext(t.Context(), `SELECT query FROM routing_feedback WHERE id = ?`, id).Scan(&q); err != nil {
				t.Fatal(err)
			}
			if !utf8.ValidString(q) || utf8.RuneCountInString(q) != tt.wantRunes {
				t.Errorf("stored %d characters (valid UTF-8: %v), want %d", utf8.RuneCountInString(q), utf8.ValidString(q), tt.wantRunes)
			}
			if utf8.ValidString(tt.query) && !strings.HasPrefix(tt.query, q) {
				t.Errorf("stored query is not a prefix of the query")
			}
		})
	}
}

func TestCommittedBeforeReturn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "with space?#x", "memory.db")
	writer, reader := open(t, path), open(t, path)
	id := record(t, writer, Entry{Query: "q", Strategy: "hybrid", Confidence: 0.75, Results: 4})
	if err := writer.Used(t.Context(), id, "x.go", 3); err != nil {
		t.Fatal(err)
	}
	stats, err := reader.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 || stats[0].Queries != 1 || stats[0].Used != 1 {
		t.Errorf("another connection sees %+v, want one hybrid search with one result used", stats)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at its path: %v", err)
	}
}

func TestConcurrentRecord(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memory.db"))
	const workers, each = 8, 25
	var wg sync.WaitGroup
	ids := make(chan int64, workers*each)
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id, err := s.Record(t.Context(), Entry{Query: fmt.Sprint("q", w, i), Strategy: "semantic", Confidence: 0.5, Results: 2})
				if err != nil {
					errs <- err
					continue
				}
				ids <- id
				if err := s.Used(t.Context(), id, "f.go", w); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(ids)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %d returned twice", id)
		}
		seen[id] = true
	}
	stats, err := s.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != workers*each || len(stats) != 1 || stats[0].Queries != workers*each || stats[0].Used != workers*each {
		t.Errorf("%d ids, stats %+v; want %d searches each with one result used", len(seen), stats, workers*each)
	}
}

// helperEnv names the database a helper process writes to.
const helperEnv = "ANCHORAGE_FEEDBACK_HELPER_DB"

// TestHelperProcess is not a test: TestTwoProcesses runs the test binary
// with it to write from another process.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv(helperEnv + "_N"))
	writeMany(t, path, "helper", n)
}

// writeMany records n searches of strategy in the database at path, each
// with one result used.
func writeMany(t *testing.T, path, strategy string, n int) {
	s := open(t, path)
	for i := range n {
		id, err := s.Record(t.Context(), Entry{Query: fmt.Sprint("q", i), Strategy: strategy, Confidence: 0.5, Results: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Used(t.Context(), id, "f.go", i); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "memory.db")
	const n = 40
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_N="+strconv.Itoa(n))
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
			errs[i] = cmd.Run()
		})
	}
	writeMany(t, path, "parent", n)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, outs[i].String())
		}
	}
	stats, err := open(t, path).Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]StrategyStats{}
	for _, st := range stats {
		got[st.Strategy] = st
	}
	if got["helper"].Queries != 2*n || got["helper"].Used != 2*n || got["parent"].Queries != n || got["parent"].Used != n {
		t.Errorf("stats %+v, want %d helper and %d parent searches, each with a result used", stats, 2*n, n)
	}
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.db")
	s := open(t, valid)
	record(t, s, Entry{Query: "q", Strategy: "semantic", Confidence: 0.5})
	s.Close()
	page, err := os.ReadFile(valid)
	if err != nil {
		t.Fatal(err)
	}
	// The schema page after the 100-byte header, overwritten.
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
