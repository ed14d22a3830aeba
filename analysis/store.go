package analysis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/ncruces/go-sqlite3"

	"github.com/anchorage-dev/anchorage/state"
)

// migrations are the schema versions of the index database, applied in
// order by state.DB.Migrate (component "index").
var migrations = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
	CREATE TABLE files(
		id INTEGER PRIMARY KEY,
		path TEXT NOT NULL UNIQUE,
		language TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		hash INTEGER NOT NULL,
		parse_errors INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE nodes(
		id INTEGER PRIMARY KEY,
		file_id INTEGER NOT NULL,
		parent INTEGER,
		kind TEXT NOT NULL,
		name TEXT NOT NULL,
		lname TEXT NOT NULL,
		initials TEXT NOT NULL,
		qualified_name TEXT NOT NULL,
		module TEXT NOT NULL,
		start_line INTEGER NOT NULL, start_col INTEGER NOT NULL, start_byte INTEGER NOT NULL,
		end_line INTEGER NOT NULL, end_col INTEGER NOT NULL, end_byte INTEGER NOT NULL,
		signature TEXT NOT NULL,
		doc TEXT NOT NULL
	);
	CREATE TABLE edges(
		id INTEGER PRIMARY KEY,
		src INTEGER NOT NULL,
		kind TEXT NOT NULL,
		dst_name TEXT NOT NULL,
		qualifier TEXT NOT NULL,
		subject TEXT NOT NULL,
		line INTEGER NOT NULL, col INTEGER NOT NULL
	);
	CREATE VIRTUAL TABLE name_trigrams USING fts5(lname, content='', contentless_delete=1, tokenize='trigram');
	CREATE INDEX nodes_file ON nodes(file_id);
	CREATE INDEX nodes_lname ON nodes(lname);
	CREATE INDEX nodes_initials ON nodes(initials);
	CREATE INDEX edges_dst ON edges(dst_name, kind);
	CREATE INDEX edges_src ON edges(src);
	CREATE INDEX edges_subject ON edges(subject) WHERE subject != '';`,
	// The span of each symbol's name, for editors to select.
	`ALTER TABLE nodes ADD COLUMN name_line INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE nodes ADD COLUMN name_col INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE nodes ADD COLUMN name_end_line INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE nodes ADD COLUMN name_end_col INTEGER NOT NULL DEFAULT 0;`,
	// Chunks for semantic search. Files indexed before are forgotten so
	// that the next update indexes them again, with their chunks.
	`DELETE FROM edges; DELETE FROM nodes; DELETE FROM files;
	INSERT INTO name_trigrams(name_trigrams) VALUES('delete-all');
	CREATE TABLE chunks(
		id INTEGER PRIMARY KEY,
		file_id INTEGER NOT NULL,
		node_id INTEGER,
		kind TEXT NOT NULL,
		name TEXT NOT NULL,
		sym_name TEXT NOT NULL,
		part INTEGER NOT NULL, parts INTEGER NOT NULL,
		start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
		start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
		context TEXT NOT NULL,
		callers TEXT NOT NULL DEFAULT '',
		text TEXT NOT NULL,
		vector BLOB
	);
	CREATE INDEX chunks_file ON chunks(file_id);
	CREATE VIRTUAL TABLE chunk_fts USING fts5(name, context, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');`,
	// How many chunks hold each term, for queries to skip the commonest.
	`CREATE VIRTUAL TABLE chunk_vocab USING fts5vocab(chunk_fts, 'row');`,
	// The callers of each called name, for the context of the chunks of
	// symbols of that name (see chunkCallers): a first build fills it once
	// rather than rewriting every chunk. Rows of chunks written before
	// keep their own list in chunks.callers.
	`CREATE TABLE chunk_callers(name TEXT PRIMARY KEY, list TEXT NOT NULL) WITHOUT ROWID;`,
}

// secondaryIndexes are the indexes of the graph tables. A first build of
// an empty index drops them and creates them once at the end, which is
// cheaper than maintaining them row by row.
const secondaryIndexes = `
	CREATE INDEX IF NOT EXISTS nodes_file ON nodes(file_id);
	CREATE INDEX IF NOT EXISTS nodes_lname ON nodes(lname);
	CREATE INDEX IF NOT EXISTS nodes_initials ON nodes(initials);
	CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst_name, kind);
	CREATE INDEX IF NOT EXISTS edges_src ON edges(src);
	CREATE INDEX IF NOT EXISTS edges_subject ON edges(subject) WHERE subject != '';
	CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);`

// dropSecondaryIndexes drops the indexes whose keys arrive in random
// order. Those on file_id and src stay: a build inserts files, their nodes
// and their edges in increasing id order, so these indexes only grow at
// their end, which costs about as much as building them after and is done
// while the workers parse.
const dropSecondaryIndexes = `
	DROP INDEX IF EXISTS nodes_lname; DROP INDEX IF EXISTS nodes_initials;
	DROP INDEX IF EXISTS edges_dst; DROP INDEX IF EXISTS edges_subject;`

// indexStore is the SQLite database of one workspace's code graph. Many readers
// may query it while one writer indexes (WAL mode), from this process or
// others.
type indexStore struct {
	db   *state.DB
	path string
	// bulk is set between DropIndexes and CreateIndexes: name trigrams,
	// chunk callers and the chunk text index are then filled in a few
	// statements at the end.
	bulk atomic.Bool
	// vectors caches the chunk vectors for ChunkVectors.
	vectors vectorCache
	// terms caches the chunk counts of terms for TermStats.
	terms termCache
	// symbols caches symbol-name searches (see cachedSymbols).
	symbols symbolCache
	// mem is the in-memory copy of the chunks' terms, when kept (see
	// KeepTermsInMemory).
	mem memState
	// closing ends with Close: work the Store runs in the background
	// stops then.
	closing context.Context
	stop    context.CancelFunc
	// generation counts the write transactions committed through this
	// Store, so that caches see every change it makes.
	generation atomic.Int64
	// callers gathers the callers of chunks while bulk is set.
	callersMu sync.Mutex
	callers   *callerTable
}

// openStore opens (creating if needed) the index database at path and
// brings its schema up to date. A database that cannot be read as an index
// is reported; the caller may remove it and build the index again, since
// everything in it derives from the workspace.
func openStore(ctx context.Context, path string) (*indexStore, error) {
	db, err := state.Open(ctx, path, state.Index, state.Options{})
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	s := &indexStore{db: db, path: path}
	s.closing, s.stop = context.WithCancel(context.Background())
	if err := db.Migrate(ctx, "index", migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	if err := s.checkFormat(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return s, nil
}

// indexFormat versions what the index derives from files beyond its
// schema: how chunks are cut and their terms made, which edges are
// extracted (6: Python's "from . import jobs" imports jobs; 7: the parts
// of compound names, such as updatecache, in the name column; 8: the first
// sentence of the module's doc, a Go package comment or a Python module
// docstring, in the context of the file's top-level definitions; 9: Python's
// "from a.b import c" imports a.b.c too, a possible submodule). An index of
// another format forgets its files and its walk manifest, so that the
// next update indexes them again.
const indexFormat = "9"

func (s *indexStore) checkFormat(ctx context.Context) error {
	var format string
	err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'format'), '')`).Scan(&format)
	if isCorrupt(err) {
		return fmt.Errorf("%w: read index format: %v", ErrCorrupt, err)
	}
	if err != nil {
		return fmt.Errorf("read index format: %w", err)
	}
	if format == indexFormat {
		// The text index must open with this build's tokenizer (one
		// built during development used another).
		if _, err := s.db.ExecContext(ctx, `SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH 'anchorage' LIMIT 1`); err != nil {
			return fmt.Errorf("%w: chunk text index: %v", ErrCorrupt, err)
		}
		// An index emptied by a format reset that kept its walk
		// manifest (format 7 before the reset dropped it) has a
		// manifest and no file: the manifest goes, and the next
		// update walks.
		var stale bool
		err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key = '`+manifestKey+`') AND NOT EXISTS (SELECT 1 FROM files)`).Scan(&stale)
		if err != nil {
			return fmt.Errorf("read index manifest: %w", err)
		}
		if stale {
			if _, err := s.db.ExecContext(ctx, `DELETE FROM meta WHERE key = '`+manifestKey+`'`); err != nil {
				return fmt.Errorf("drop the manifest of an empty index: %w", err)
			}
		}
		return nil
	}
	_, err = s.db.ExecContext(ctx, `BEGIN IMMEDIATE;
		DELETE FROM edges; DELETE FROM nodes; DELETE FROM files; DELETE FROM chunks;
		INSERT INTO name_trigrams(name_trigrams) VALUES('delete-all');
		INSERT INTO chunk_fts(chunk_fts) VALUES('delete-all');
		DELETE FROM meta WHERE key = '`+manifestKey+`';
		INSERT OR REPLACE INTO meta(key, value) VALUES('format', '`+indexFormat+`');
		COMMIT;`)
	if err != nil {
		s.db.ExecContext(ctx, `ROLLBACK`)
		// The index is a cache: one that cannot be reset is rebuilt.
		return fmt.Errorf("%w: reset index to format %s: %v", ErrCorrupt, indexFormat, err)
	}
	return nil
}

// ErrCorrupt reports an index database that SQLite cannot read: the
// storage layer's state.ErrCorrupt. An index is a cache: Open rebuilds
// one that is corrupt.
var ErrCorrupt = state.ErrCorrupt

func isCorrupt(err error) bool { return state.IsCorrupt(err) }

// IsCorrupt reports whether err says that a database cannot be read:
// ErrCorrupt, or SQLite's SQLITE_CORRUPT or SQLITE_NOTADB. Whether the
// index is the database at fault is for Check to say.
func IsCorrupt(err error) bool {
	return state.IsCorrupt(err)
}

// MayBeDamaged reports whether a failed read of an open index may mean the
// file is damaged: SQLite's words for damage, or a table of the index's
// schema missing (damage to the schema page reads as "no such table"; the
// schema is complete once the index is open). An integrity check decides.
func MayBeDamaged(err error) bool {
	return err != nil && (IsCorrupt(err) || strings.Contains(err.Error(), "no such table"))
}

// Probe reads every row of the graph's tables (files, symbols, edges and
// chunks, not their indexes or the text index) and returns an error
// wrapping ErrCorrupt if one cannot be read: damage to most of a database
// is found in a fraction of Check's time (0.5 s for the Go standard
// library's index, against 10 s).
func (s *indexStore) Probe(ctx context.Context) error {
	for _, table := range []string{"files", "nodes", "edges", "chunks", "chunk_callers", "meta"} {
		var n int64
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` NOT INDEXED`).Scan(&n)
		if table == "chunk_callers" && err != nil && !isCorrupt(err) {
			continue // a WITHOUT ROWID table cannot be NOT INDEXED on every SQLite
		}
		if isCorrupt(err) {
			return fmt.Errorf("%w: read %s of %s: %v", ErrCorrupt, table, s.path, err)
		}
		if err != nil {
			return fmt.Errorf("read %s of %s: %w", table, s.path, err)
		}
	}
	return nil
}

// Check reads the whole database (PRAGMA quick_check: every page, table
// and index, in time proportional to its size) and returns an error
// wrapping ErrCorrupt if any of it cannot be read.
func (s *indexStore) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(5)`)
	if err != nil {
		if isCorrupt(err) {
			return fmt.Errorf("%w: check %s: %v", ErrCorrupt, s.path, err)
		}
		return fmt.Errorf("check index %s: %w", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return fmt.Errorf("%w: check %s: %v", ErrCorrupt, s.path, err)
		}
		if p != "ok" {
			problems = append(problems, p)
		}
	}
	if err := rows.Err(); err != nil {
		if isCorrupt(err) {
			return fmt.Errorf("%w: check %s: %v", ErrCorrupt, s.path, err)
		}
		return fmt.Errorf("check index %s: %w", s.path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, s.path, strings.Join(problems, "; "))
	}
	return nil
}

// Path returns the database file's path.
func (s *indexStore) Path() string { return s.path }

// Close closes the database.
func (s *indexStore) Close() error {
	s.stop()
	s.mem.mu.Lock()
	done := s.mem.done
	s.mem.mu.Unlock()
	if done != nil {
		<-done // a load in the background reads the database
	}
	return s.db.Close()
}

// FileState is what the index knows of a file, to tell whether it changed.
type FileState struct {
	Size  int64
	Mtime int64 // Unix nanoseconds
	Hash  uint64
}

// FileStates returns the state of every indexed file by path.
func (s *indexStore) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime, hash FROM files`)
	if err != nil {
		return nil, fmt.Errorf("read file states: %w", err)
	}
	defer rows.Close()
	out := make(map[string]FileState)
	for rows.Next() {
		var p string
		var st FileState
		var h int64
		if err := rows.Scan(&p, &st.Size, &st.Mtime, &h); err != nil {
			return nil, fmt.Errorf("read file states: %w", err)
		}
		st.Hash = uint64(h)
		out[p] = st
	}
	return out, rows.Err()
}

// DropIndexes removes the secondary indexes before a bulk load;
// CreateIndexes puts them back.
func (s *indexStore) DropIndexes(ctx context.Context) error {
	// Each batch of chunks is then flushed as one segment of the text
	// index, rather than one per MiB of terms, which FTS5 would merge
	// again and again.
	if _, err := s.db.ExecContext(ctx, dropSecondaryIndexes+`
		INSERT INTO chunk_fts(chunk_fts, rank) VALUES('hashsize', `+bulkHashSize+`);`); err != nil {
		return fmt.Errorf("drop indexes: %w", err)
	}
	// Callers are gathered from the edges written from now on: edges
	// already there make the table inexact.
	var edges bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM edges)`).Scan(&edges); err != nil {
		return fmt.Errorf("drop indexes: %w", err)
	}
	s.callersMu.Lock()
	s.callers = &callerTable{inexact: edges}
	s.callersMu.Unlock()
	s.bulk.Store(true)
	return nil
}

// CreateIndexes creates the secondary indexes that are missing, and the
// name trigrams and chunk callers deferred since DropIndexes.
func (s *indexStore) CreateIndexes(ctx context.Context) error {
	if err := s.nameBulkCallers(ctx); err != nil {
		return err
	}
	return s.createIndexes(ctx)
}

// nameBulkCallers names the callers of every chunk after DropIndexes.
func (s *indexStore) nameBulkCallers(ctx context.Context) error {
	if !s.bulk.Load() {
		return nil
	}
	s.callersMu.Lock()
	callers := s.callers
	s.callersMu.Unlock()
	if callers == nil {
		return nil // named already
	}
	if err := s.nameChunkCallers(ctx, callers); err != nil {
		return err
	}
	s.callersMu.Lock()
	s.callers = nil
	s.callersMu.Unlock()
	return nil
}

// createIndexes is CreateIndexes once chunk callers are named.
func (s *indexStore) createIndexes(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, secondaryIndexes+`
		INSERT INTO chunk_fts(chunk_fts, rank) VALUES('hashsize', `+defaultHashSize+`);`); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	if s.bulk.Swap(false) {
		// One statement indexes every name: with FTS5's default 1 MiB of
		// pending terms it would write many small segments and merge them
		// again and again, so the pending terms may grow for it.
		_, err := s.db.ExecContext(ctx, `BEGIN IMMEDIATE;
			INSERT INTO name_trigrams(name_trigrams, rank) VALUES('hashsize', `+bulkHashSize+`);
			INSERT INTO name_trigrams(rowid, lname) SELECT id, lname FROM nodes;
			INSERT INTO name_trigrams(name_trigrams, rank) VALUES('hashsize', `+defaultHashSize+`);
			COMMIT;`)
		if err != nil {
			s.db.ExecContext(ctx, `ROLLBACK`)
			s.bulk.Store(true)
			return fmt.Errorf("index names: %w", err)
		}
	}
	return nil
}

// nameChunkCallers completes the context of every chunk with the callers
// of its symbol, after a first build: from the callers gathered while the
// files were stored, or from the edges when those no longer tell.
func (s *indexStore) nameChunkCallers(ctx context.Context, callers *callerTable) error {
	var chunks bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM chunks WHERE node_id IS NOT NULL)`).Scan(&chunks); err != nil {
		return fmt.Errorf("index chunks: %w", err)
	}
	if !chunks {
		return nil // a graph without chunks names no callers
	}
	if callers.inexact {
		if _, err := s.db.ExecContext(ctx, bulkChunkIndex); err != nil {
			return fmt.Errorf("index chunks: %w", err)
		}
		return nil
	}
	err := s.Write(ctx, func(w *indexWriter) error {
		if err := w.conn.Exec(`DELETE FROM chunk_callers`); err != nil {
			return err
		}
		ins, err := w.stmt(`INSERT INTO chunk_callers(name, list) VALUES(?, ?)`)
		if err != nil {
			return err
		}
		for name, l := range callers.byName {
			text := l.text()
			if text == "" {
				continue
			}
			ins.BindText(1, name)
			ins.BindText(2, text)
			if err := ins.Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index chunks: name callers: %w", err)
	}
	return nil
}

// bulkHashSize is the memory FTS5 may fill with pending terms while a
// first build indexes every name in one statement; defaultHashSize is
// FTS5's default, restored after.
const (
	bulkHashSize    = "16777216"
	defaultHashSize = "1048576"
)

// bulkChunkIndex names up to three callers of each chunk's symbol, by
// name as calls are stored, and indexes the text of every chunk.
const bulkChunkIndex = `
	DELETE FROM chunk_callers;
	WITH c AS (SELECT DISTINCT e.dst_name AS name, n.qualified_name AS q
			FROM edges e JOIN nodes n ON n.id = e.src WHERE e.kind = 'calls'),
		r AS (SELECT name, q, row_number() OVER (PARTITION BY name ORDER BY q) AS k FROM c)
	INSERT INTO chunk_callers SELECT name, 'Called by ' || group_concat(q, ', ') || '.' FROM r WHERE k <= 3 GROUP BY name;`

// Write runs fn in one write transaction, committed when fn returns nil.
func (s *indexStore) Write(ctx context.Context, fn func(w *indexWriter) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		raw := dc.(interface{ Raw() *sqlite3.Conn }).Raw()
		tx, err := raw.BeginImmediate()
		if err != nil {
			return fmt.Errorf("write index: %w", err)
		}
		// The walk manifest describes the index before this write.
		if err := raw.Exec(`DELETE FROM meta WHERE key = '` + manifestKey + `'`); err != nil {
			tx.Rollback()
			return fmt.Errorf("write index: %w", err)
		}
		w := &indexWriter{conn: raw, deferTrigrams: s.bulk.Load()}
		if w.deferTrigrams {
			w.callers = &callerTable{}
		} else {
			w.touched = map[string]bool{}
		}
		defer w.close()
		err = fn(w)
		if err == nil {
			err = w.nameTouchedCallers()
		}
		if err == nil && w.files {
			err = w.exec(`DELETE FROM meta WHERE key = '`+walkKey+`' AND value != ?`, w.walk)
		}
		var committed func()
		if err == nil && w.beforeCommit != nil {
			committed, err = w.beforeCommit()
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		if committed != nil {
			defer committed()
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("write index: commit: %w", err)
		}
		if w.callers != nil {
			s.callersMu.Lock()
			if s.callers != nil {
				s.callers.merge(w.callers)
			}
			s.callersMu.Unlock()
		}
		s.generation.Add(1)
		return nil
	})
}

// indexWriter changes the index inside one transaction (see indexStore.Write).
type indexWriter struct {
	conn          *sqlite3.Conn
	stmts         map[string]*sqlite3.Stmt
	deferTrigrams bool
	// callers gathers the callers of chunks during a first build (see
	// callerTable), or is nil.
	callers *callerTable
	// touched holds, outside a first build, the names whose callers or
	// definitions the transaction changed: their chunk_callers rows are
	// named again before it commits.
	touched map[string]bool
	// files says the transaction changed what the index holds of a file.
	// walk is the walk token (see beginWalk) of the update writing, set by
	// its fn; a change of files by any other writer ends the update's
	// claim to record its walk manifest.
	files bool
	walk  string
	// beforeCommit, when fn sets it, runs once everything is written,
	// right before the commit: an error rolls the transaction back, and
	// committed, when not nil, runs after the commit (or its failure).
	beforeCommit func() (committed func(), err error)
}

func (w *indexWriter) stmt(query string) (*sqlite3.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, _, err := w.conn.Prepare(query)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", query, err)
	}
	if w.stmts == nil {
		w.stmts = make(map[string]*sqlite3.Stmt)
	}
	w.stmts[query] = st
	return st, nil
}

func (w *indexWriter) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// exec runs a prepared statement with arguments of type string, int,
// int64 or nil.
func (w *indexWriter) exec(query string, args ...any) error {
	st, err := w.stmt(query)
	if err != nil {
		return err
	}
	if err := bindArgs(st, args); err != nil {
		return err
	}
	if err := st.Exec(); err != nil {
		return fmt.Errorf("%s: %w", strings.Fields(query)[0], err)
	}
	return nil
}

// bindArgs binds arguments of type string, int, int64 or nil to st's
// parameters, in order.
func bindArgs(st *sqlite3.Stmt, args []any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case string:
			err = st.BindText(i+1, v)
		case int:
			err = st.BindInt(i+1, v)
		case int64:
			err = st.BindInt64(i+1, v)
		case nil:
			err = st.BindNull(i + 1)
		default:
			err = fmt.Errorf("unsupported argument type %T", a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DeleteFile removes a file with its symbols and edges.
func (w *indexWriter) DeleteFile(path string) error {
	w.files = true
	id, ok, err := w.fileID(path)
	if err != nil || !ok {
		return err
	}
	if w.callers != nil {
		w.callers.inexact = true
	}
	if err := w.clearFile(id); err != nil {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	if err := w.exec(`DELETE FROM files WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	return nil
}

// Touch records a new size and modification time for a file whose content
// did not change.
func (w *indexWriter) Touch(path string, st FileState) error {
	w.files = true
	if err := w.exec(`UPDATE files SET size = ?, mtime = ? WHERE path = ?`, st.Size, st.Mtime, path); err != nil {
		return fmt.Errorf("touch %s: %w", path, err)
	}
	return nil
}

func (w *indexWriter) fileID(path string) (int64, bool, error) {
	st, err := w.stmt(`SELECT id FROM files WHERE path = ?`)
	if err != nil {
		return 0, false, err
	}
	defer st.Reset()
	if err := st.BindText(1, path); err != nil {
		return 0, false, err
	}
	if !st.Step() {
		return 0, false, st.Err()
	}
	return st.ColumnInt64(0), true, nil
}

func (w *indexWriter) clearFile(id int64) error {
	if w.touched != nil {
		// The names this file called lose callers.
		st, err := w.stmt(`SELECT DISTINCT dst_name FROM edges
			WHERE kind = 'calls' AND src IN (SELECT id FROM nodes WHERE file_id = ?)`)
		if err != nil {
			return err
		}
		st.BindInt64(1, id)
		for st.Step() {
			w.touched[st.ColumnText(0)] = true
		}
		err = st.Err()
		st.Reset()
		if err != nil {
			return err
		}
	}
	if err := w.exec(`DELETE FROM edges WHERE src IN (SELECT id FROM nodes WHERE file_id = ?)`, id); err != nil {
		return err
	}
	if err := w.exec(`DELETE FROM name_trigrams WHERE rowid IN (SELECT id FROM nodes WHERE file_id = ?)`, id); err != nil {
		return err
	}
	if err := w.exec(`DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)`, id); err != nil {
		return err
	}
	if err := w.exec(`DELETE FROM chunks WHERE file_id = ?`, id); err != nil {
		return err
	}
	return w.exec(`DELETE FROM nodes WHERE file_id = ?`, id)
}

// ReplaceFile stores the graph of a file in place of what the index had for
// it.
func (w *indexWriter) ReplaceFile(st FileState, g *FileGraph) error {
	w.files = true
	id, ok, err := w.fileID(g.Path)
	if err != nil {
		return fmt.Errorf("replace %s: %w", g.Path, err)
	}
	if ok {
		if w.callers != nil {
			w.callers.inexact = true
		}
		if err := w.clearFile(id); err != nil {
			return fmt.Errorf("replace %s: %w", g.Path, err)
		}
		err = w.exec(`UPDATE files SET language = ?, size = ?, mtime = ?, hash = ?, parse_errors = ? WHERE id = ?`,
			g.Language, st.Size, st.Mtime, int64(st.Hash), g.ParseErrors, id)
	} else {
		err = w.exec(`INSERT INTO files(path, language, size, mtime, hash, parse_errors) VALUES(?, ?, ?, ?, ?, ?)`,
			g.Path, g.Language, st.Size, st.Mtime, int64(st.Hash), g.ParseErrors)
		id = w.conn.LastInsertRowID()
	}
	if err != nil {
		return fmt.Errorf("replace %s: %w", g.Path, err)
	}
	ids := make([]int64, len(g.Symbols))
	var forward []int // symbols whose parent comes after them
	for i, s := range g.Symbols {
		var parent any
		if s.Parent >= i {
			forward = append(forward, i)
		} else if s.Parent >= 0 {
			parent = ids[s.Parent]
		}
		err := w.exec(`INSERT INTO nodes(file_id, parent, kind, name, lname, initials, qualified_name, module,
			start_line, start_col, start_byte, end_line, end_col, end_byte, signature, doc,
			name_line, name_col, name_end_line, name_end_col)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, parent, string(s.Kind), s.Name, foldName(s.Name), initials(s.Name), s.QualifiedName, s.Module,
			s.Range.Start.Line, s.Range.Start.Column, s.Range.Start.Offset,
			s.Range.End.Line, s.Range.End.Column, s.Range.End.Offset, s.Signature, s.Doc,
			s.NameRange.Start.Line, s.NameRange.Start.Column, s.NameRange.End.Line, s.NameRange.End.Column)
		if err != nil {
			return fmt.Errorf("replace %s: %w", g.Path, err)
		}
		ids[i] = w.conn.LastInsertRowID()
		if !w.deferTrigrams {
			if err := w.exec(`INSERT INTO name_trigrams(rowid, lname) VALUES(?, ?)`, ids[i], foldName(s.Name)); err != nil {
				return fmt.Errorf("replace %s: %w", g.Path, err)
			}
		}
	}
	for _, i := range forward {
		if err := w.exec(`UPDATE nodes SET parent = ? WHERE id = ?`, ids[g.Symbols[i].Parent], ids[i]); err != nil {
			return fmt.Errorf("replace %s: %w", g.Path, err)
		}
	}
	// Edges are most of the rows: bind them directly, without the generic
	// exec's map lookup and boxing.
	ins, err := w.stmt(`INSERT INTO edges(src, kind, dst_name, qualifier, subject, line, col) VALUES(?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("replace %s: %w", g.Path, err)
	}
	for _, r := range g.Refs {
		if r.Kind == EdgeCalls {
			if w.callers != nil {
				w.callers.add(r.Name, g.Symbols[r.Source].QualifiedName)
			} else {
				w.touched[r.Name] = true
			}
		}
		ins.BindInt64(1, ids[r.Source])
		ins.BindText(2, string(r.Kind))
		ins.BindText(3, r.Name)
		ins.BindText(4, r.Qualifier)
		ins.BindText(5, r.Subject)
		ins.BindInt(6, r.Range.Start.Line)
		ins.BindInt(7, r.Range.Start.Column)
		if err := ins.Exec(); err != nil {
			return fmt.Errorf("replace %s: insert edge: %w", g.Path, err)
		}
	}
	for i := range g.Chunks {
		if err := w.insertChunk(id, ids, g, &g.Chunks[i]); err != nil {
			return fmt.Errorf("replace %s: chunk %s: %w", g.Path, g.Chunks[i].Name, err)
		}
	}
	return nil
}

// insertChunk stores one chunk of a file and indexes its terms. The
// callers of its symbol complete its context (in chunk_callers): named
// when the transaction commits, or at the end of a bulk load, when every
// call is known. Callers
// are shown and embedded but not indexed as text: a caller's name says
// little about what the chunk does.
func (w *indexWriter) insertChunk(fileID int64, ids []int64, g *FileGraph, c *Chunk) error {
	var node any
	symName := ""
	if c.Symbol > 0 {
		node = ids[c.Symbol]
		symName = g.Symbols[c.Symbol].Name
	}
	if symName != "" && w.touched != nil && c.Kind != KindModule {
		w.touched[symName] = true
	}
	st, err := w.stmt(`INSERT INTO chunks(file_id, node_id, kind, name, sym_name, part, parts,
		start_line, end_line, start_byte, end_byte, context, callers, text, vector)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	st.BindInt64(1, fileID)
	if node != nil {
		st.BindInt64(2, node.(int64))
	} else {
		st.BindNull(2)
	}
	st.BindText(3, string(c.Kind))
	st.BindText(4, c.Name)
	st.BindText(5, symName)
	st.BindInt(6, c.Part)
	st.BindInt(7, c.Parts)
	st.BindInt(8, c.Range.Start.Line)
	st.BindInt(9, c.Range.End.Line)
	st.BindInt(10, c.Range.Start.Offset)
	st.BindInt(11, c.Range.End.Offset)
	st.BindText(12, c.Context)
	st.BindText(13, "") // see chunk_callers
	st.BindText(14, c.Text)
	if c.Vector != nil {
		st.BindBlob(15, c.Vector)
	} else {
		st.BindNull(15)
	}
	if err := st.Exec(); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	return w.exec(`INSERT INTO chunk_fts(rowid, name, context, body) VALUES(?, ?, ?, ?)`,
		w.conn.LastInsertRowID(), c.terms.name, c.terms.context, c.terms.body)
}

// nameTouchedCallers names again the callers of the names the
// transaction touched (see Writer.touched).
func (w *indexWriter) nameTouchedCallers() error {
	names := slices.Sorted(maps.Keys(w.touched))
	for _, name := range names {
		if err := w.nameCallers(name); err != nil {
			return fmt.Errorf("name callers of %s: %w", name, err)
		}
	}
	clear(w.touched)
	return nil
}

// nameCallers records in chunk_callers the callers of the symbols called
// name, as the index knows them now, for every chunk of such a symbol.
func (w *indexWriter) nameCallers(name string) error {
	list, err := w.callersOf(name)
	if err != nil {
		return err
	}
	if list == "" {
		return w.exec(`DELETE FROM chunk_callers WHERE name = ?`, name)
	}
	return w.exec(`INSERT INTO chunk_callers(name, list) VALUES(?, ?)
		ON CONFLICT(name) DO UPDATE SET list = excluded.list`, name, list)
}

// callersOf names up to three callers of the symbols called name, as the
// contextual prefix of their chunks says.
func (w *indexWriter) callersOf(name string) (string, error) {
	st, err := w.stmt(`SELECT DISTINCT n.qualified_name FROM edges e JOIN nodes n ON n.id = e.src
		WHERE e.dst_name = ? AND e.kind = 'calls' LIMIT 3`)
	if err != nil {
		return "", err
	}
	defer st.Reset()
	if err := st.BindText(1, name); err != nil {
		return "", err
	}
	var names []string
	for st.Step() {
		names = append(names, st.ColumnText(0))
	}
	if err := st.Err(); err != nil {
		return "", fmt.Errorf("callers of %s: %w", name, err)
	}
	if len(names) == 0 {
		return "", nil
	}
	return "Called by " + strings.Join(names, ", ") + ".", nil
}

// initials returns the lower-cased first letters of the words of a name,
// so that "fbi" finds FindByID and "gun" finds get_user_name.
func initials(name string) string {
	var b strings.Builder
	for _, w := range SplitIdentifier(name) {
		r := []rune(w)[0]
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
