// Package feedback records how searches were routed and which of their
// results were used, so that routing can be judged and tuned: per
// strategy, how many searches, how confident the router was, and how
// often a result was opened. The front ends keep it in a small database
// of its own (state.Dirs.FeedbackPath, opened by OpenStats with the
// state.Stats profile), so that a search, a read, never writes to the
// user's rules nor waits for the disk; versions before kept it in the
// user's database, whence OpenStats imports it once.
//
// The database may be shared with other components, so this package
// versions only its own tables, in the row "feedback" of the table
// schema_versions(component, version), and leaves PRAGMA user_version
// alone. Its tables are routing_feedback (one row per search) and
// routing_feedback_used (one row per distinct result marked used).
//
// A Store is safe for concurrent use, and several processes (the
// language server and the command line) may write the same database: it
// runs in WAL mode, waits for locks, and commits every write before
// returning.
package feedback

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anchorage-dev/anchorage/state"
)

// Component is this package's row in schema_versions.
const Component = "feedback"

// MaxQuery is the most characters of a query that are stored; the rest is
// cut.
const MaxQuery = 2000

// migrations returns this component's schema versions, applied in order;
// schema_versions records how many have run.
func migrations() []string {
	return []string{schemaV1}
}

// schemaV1 creates the tables.
const schemaV1 = `CREATE TABLE routing_feedback(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		created_at INTEGER NOT NULL, -- Unix milliseconds
		query TEXT NOT NULL,
		strategy TEXT NOT NULL,
		confidence REAL NOT NULL,
		result_count INTEGER NOT NULL,
		results_used INTEGER NOT NULL DEFAULT 0,
		root TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX routing_feedback_strategy ON routing_feedback(strategy);
	CREATE TABLE routing_feedback_used(
		search_id INTEGER NOT NULL REFERENCES routing_feedback(id) ON DELETE CASCADE,
		file TEXT NOT NULL,
		line INTEGER NOT NULL,
		used_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY(search_id, file, line)
	) WITHOUT ROWID;`

// ErrCorrupt reports a database file that SQLite cannot read. The file
// holds the user's memories too: it is never removed or rewritten. It is
// the storage layer's state.ErrCorrupt.
var ErrCorrupt = state.ErrCorrupt

// ErrUnknownSearch reports a search id that was never recorded.
var ErrUnknownSearch = errors.New("no such search")

// Store is the routing feedback in one database file.
type Store struct {
	db   *state.DB
	path string
	// owned is set when Open opened db, for Close to close it.
	owned bool
}

// Open opens the database at path, creating it and its directory if
// needed, and brings this component's tables up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := state.Open(ctx, path, state.User, state.Options{})
	if err != nil {
		return nil, fmt.Errorf("open routing feedback: %w", err)
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// OpenStats opens the routing statistics at path with the state.Stats
// profile (no fsync), creating the file if needed. A file that is corrupt
// is recreated: it holds statistics only. When the file is new and legacy
// (the user database, where versions before kept the statistics) holds
// routing feedback, it is copied in; legacy is only read.
func OpenStats(ctx context.Context, path, legacy string) (*Store, error) {
	_, statErr := os.Stat(path)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	db, err := state.Open(ctx, path, state.Stats, state.Options{})
	if err == nil {
		if err = db.Migrate(ctx, Component, migrations()); err != nil {
			db.Close()
		}
	}
	if state.IsCorrupt(err) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if rerr := os.Remove(path + suffix); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return nil, fmt.Errorf("open routing feedback: remove the corrupt %s: %w", path, rerr)
			}
		}
		fresh = true
		db, err = state.Open(ctx, path, state.Stats, state.Options{})
		if err == nil {
			if err = db.Migrate(ctx, Component, migrations()); err != nil {
				db.Close()
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open routing feedback: %w", err)
	}
	s := &Store{db: db, path: path, owned: true}
	if fresh && legacy != "" {
		if err := s.importLegacy(ctx, legacy); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// importLegacy copies the routing feedback of the database at legacy, if
// it has any of this version's schema.
func (s *Store) importLegacy(ctx context.Context, legacy string) error {
	info, err := os.Stat(legacy)
	if err != nil || info.Size() == 0 {
		return nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("import routing feedback from %s: %w", legacy, err)
	}
	defer conn.Close()
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(legacy), RawQuery: "mode=ro"}
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS legacy`, u.String()); err != nil {
		return nil // unreadable: the user database reports it itself
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE legacy`)
	var v int
	err = conn.QueryRowContext(ctx, `SELECT version FROM legacy.schema_versions WHERE component = ?`, Component).Scan(&v)
	if err != nil || v != len(migrations()) {
		return nil // none, or of another version
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("import routing feedback from %s: %w", legacy, err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`INSERT OR IGNORE INTO main.routing_feedback SELECT * FROM legacy.routing_feedback`,
		`INSERT OR IGNORE INTO main.routing_feedback_used SELECT * FROM legacy.routing_feedback_used`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("import routing feedback from %s: %w", legacy, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("import routing feedback from %s: %w", legacy, err)
	}
	return nil
}

// New returns the routing feedback in db, a user database that other
// components share (see state.Open), and brings its tables up to date.
// Close leaves db open: its owner closes it.
func New(ctx context.Context, db *state.DB) (*Store, error) {
	if err := db.Migrate(ctx, Component, migrations()); err != nil {
		return nil, fmt.Errorf("open routing feedback: %w", err)
	}
	return &Store{db: db, path: db.Path()}, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database if Open opened it; a Store of New leaves it
// to its owner.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// Entry is one routed search.
type Entry struct {
	// Query is the query as typed; only its first MaxQuery characters
	// are kept.
	Query string
	// Strategy is the strategy the search used (semantic, structural,
	// keyword, hybrid).
	Strategy string
	// Confidence is the router's confidence, from 0 to 1.
	Confidence float64
	// Results is how many results the search returned.
	Results int
	// Root is the workspace searched, if known.
	Root string
}

// Record stores a search and returns its id, for Used. The search is
// committed when Record returns.
func (s *Store) Record(ctx context.Context, e Entry) (int64, error) {
	switch {
	case e.Strategy == "":
		return 0, errors.New("record search: no strategy")
	case math.IsNaN(e.Confidence) || e.Confidence < 0 || e.Confidence > 1:
		return 0, fmt.Errorf("record search: confidence %v is not between 0 and 1", e.Confidence)
	case e.Results < 0:
		return 0, fmt.Errorf("record search: %d results", e.Results)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO routing_feedback(created_at, query, strategy, confidence, result_count, root)
		VALUES(?, ?, ?, ?, ?, ?)`,
		time.Now().UnixMilli(), capQuery(e.Query), e.Strategy, e.Confidence, e.Results, strings.ToValidUTF8(e.Root, "\uFFFD"))
	if err != nil {
		return 0, fmt.Errorf("record search: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record search: %w", err)
	}
	return id, nil
}

// capQuery returns the first MaxQuery characters of q, as valid UTF-8.
func capQuery(q string) string {
	q = strings.ToValidUTF8(q, "\uFFFD")
	n := 0
	for i := range q {
		if n == MaxQuery {
			return q[:i]
		}
		n++
	}
	return q
}

// Used records that the result at file:line of search id was used
// (opened, followed). Each distinct result counts once, however often it
// is reported. An id that Record did not return is ErrUnknownSearch.
func (s *Store) Used(ctx context.Context, id int64, file string, line int) error {
	if file == "" || line < 0 {
		return fmt.Errorf("mark result %q:%d of search %d used: no such place", file, line, id)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
	}
	defer tx.Rollback()
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM routing_feedback WHERE id = ?)`, id).Scan(&exists); err != nil {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
	}
	if !exists {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, ErrUnknownSearch)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO routing_feedback_used(search_id, file, line, used_at) VALUES(?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, id, strings.ToValidUTF8(file, "\uFFFD"), line, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
	} else if n > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE routing_feedback SET results_used = results_used + 1 WHERE id = ?`, id); err != nil {
			return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mark result %s:%d of search %d used: %w", file, line, id, err)
	}
	return nil
}

// StrategyStats sums up the searches that used one strategy.
type StrategyStats struct {
	Strategy string `json:"strategy"`
	// Queries is the number of searches.
	Queries int `json:"queries"`
	// AvgConfidence is the router's mean confidence.
	AvgConfidence float64 `json:"avg_confidence"`
	// AvgResults is the mean number of results returned.
	AvgResults float64 `json:"avg_results"`
	// Used is the number of distinct results marked used, over all
	// the searches.
	Used int `json:"used"`
	// SearchesUsed is the number of searches with at least one result
	// marked used.
	SearchesUsed int `json:"searches_used"`
	// Utilisation is SearchesUsed / Queries: the share of searches that
	// led somewhere. (Not Used / results returned: a search that answers
	// with one good result among ten did its job.)
	Utilisation float64 `json:"utilisation"`
}

// Stats returns the statistics of each strategy that has searches, most
// searched first.
func (s *Store) Stats(ctx context.Context) ([]StrategyStats, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT strategy, COUNT(*), AVG(confidence), AVG(result_count),
			SUM(results_used), SUM(results_used > 0)
		FROM routing_feedback GROUP BY strategy ORDER BY COUNT(*) DESC, strategy`)
	if err != nil {
		return nil, fmt.Errorf("read routing statistics: %w", err)
	}
	defer rows.Close()
	out := []StrategyStats{}
	for rows.Next() {
		var st StrategyStats
		if err := rows.Scan(&st.Strategy, &st.Queries, &st.AvgConfidence, &st.AvgResults, &st.Used, &st.SearchesUsed); err != nil {
			return nil, fmt.Errorf("read routing statistics: %w", err)
		}
		st.Utilisation = float64(st.SearchesUsed) / float64(st.Queries)
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read routing statistics: %w", err)
	}
	return out, nil
}
