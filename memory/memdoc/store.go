package memdoc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/anchorage-dev/anchorage/state"
)

// Component is this package's row in the user database's
// schema_versions.
const Component = "memdoc"

// MaxFileSize is the largest memory document read, in bytes; larger
// files are skipped with a reason.
const MaxFileSize = 1 << 20

// DefaultBusyTimeout is how long an operation waits for another
// connection's lock.
const DefaultBusyTimeout = 10 * time.Second

// DefaultGlobs returns the patterns that find memory documents under a
// workspace root when none are configured. Patterns are
// doublestar patterns over root-relative slash paths ("**" matches any
// number of directories).
func DefaultGlobs() []string {
	return []string{".anchorage/memory/**/*.md", "specs/**/memory/*.md"}
}

// Match reports whether relPath (root-relative, slashes) is a memory
// document under globs; no globs means DefaultGlobs. Invalid patterns
// match nothing.
func Match(globs []string, relPath string) bool {
	if len(globs) == 0 {
		globs = DefaultGlobs()
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, relPath); ok {
			return true
		}
	}
	return false
}

// Store keeps memory documents, per workspace root, in the user's memory
// database (the file of state.Dirs.MemoryPath, shared with package
// memory; this package versions its own table, memdoc_documents, in
// schema_versions). It is safe for concurrent use.
type Store struct {
	db   *state.DB
	path string
	now  func() time.Time
	// owned is set when Open opened db, for Close to close it.
	owned bool
}

// Open opens the memory database at path, creating it and its directory
// if needed, and brings this component's table up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := state.Open(ctx, path, state.User, state.Options{BusyTimeout: DefaultBusyTimeout})
	if err != nil {
		return nil, fmt.Errorf("open memory documents: %w", err)
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns the memory documents in db, a user database that other
// components share (see state.Open), and brings their table up to date.
// Close leaves db open: its owner closes it.
func New(ctx context.Context, db *state.DB) (*Store, error) {
	if err := db.Migrate(ctx, Component, migrations()); err != nil {
		return nil, fmt.Errorf("open memory documents: %w", err)
	}
	return &Store{db: db, path: db.Path(), now: time.Now}, nil
}

// Close closes the database if Open opened it; a Store of New leaves it
// to its owner.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

func migrations() []string { return []string{schemaV1} }

// schemaV1 creates the table of documents. JSON columns hold the Go
// types of the same names; times are Unix milliseconds.
const schemaV1 = `CREATE TABLE memdoc_documents(
		root TEXT NOT NULL,
		path TEXT NOT NULL, -- relative to root, slashes
		hash TEXT NOT NULL,
		size INTEGER NOT NULL,
		mod_time INTEGER NOT NULL, -- the file's, Unix nanoseconds
		title TEXT NOT NULL,
		description TEXT NOT NULL DEFAULT '',
		trigger_phrases TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
		importance_tier TEXT NOT NULL DEFAULT 'normal',
		context_type TEXT NOT NULL DEFAULT '',
		content TEXT NOT NULL,
		sections TEXT NOT NULL DEFAULT '[]', -- JSON []Section
		warnings TEXT NOT NULL DEFAULT '[]', -- JSON []Warning
		updated_at INTEGER NOT NULL,
		PRIMARY KEY(root, path)
	) WITHOUT ROWID;`

// SyncSummary says what a Sync changed. Paths are root-relative.
type SyncSummary struct {
	Added     []string `json:"added"`
	Updated   []string `json:"updated"`
	Removed   []string `json:"removed"`
	Unchanged int      `json:"unchanged"`
	// Skipped are the files that matched but were not loaded, and the
	// patterns that are not valid, each with the reason.
	Skipped []Skip `json:"skipped"`
}

// Changed reports whether the Sync added, updated or removed documents.
func (s SyncSummary) Changed() bool {
	return len(s.Added)+len(s.Updated)+len(s.Removed) > 0
}

// A Skip is a file or pattern a Sync left out, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// stored is what Sync compares a file with.
type stored struct {
	hash    string
	size    int64
	modTime int64
}

// Sync brings the stored documents of the workspace at root in line with
// the files under it that match globs (DefaultGlobs when empty): new and
// changed files (by content hash; a file whose size and modification
// time did not change is not read again) are parsed and stored, and the
// documents whose files are gone (or no longer match, or are skipped)
// are removed. Files over MaxFileSize, and files that are not UTF-8
// text, are skipped with a reason. The changes are committed at once.
func (s *Store) Sync(ctx context.Context, root string, globs []string) (SyncSummary, error) {
	var sum SyncSummary
	root, err := CleanRoot(root)
	if err != nil {
		return sum, fmt.Errorf("sync memory documents: %w", err)
	}
	files, skipped, err := discover(ctx, root, globs)
	if err != nil {
		return sum, fmt.Errorf("sync memory documents of %s: %w", root, err)
	}
	sum.Skipped = skipped
	old, err := s.stored(ctx, root)
	if err != nil {
		return sum, fmt.Errorf("sync memory documents of %s: %w", root, err)
	}
	type change struct {
		doc     *Document
		size    int64
		modTime int64
		touch   bool // same content, new size or time
		added   bool
	}
	var changes []change
	keep := make(map[string]bool, len(files))
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return SyncSummary{}, err
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		info, err := os.Stat(full)
		if err != nil {
			sum.Skipped = append(sum.Skipped, Skip{Path: rel, Reason: err.Error()})
			continue
		}
		if info.Size() > MaxFileSize {
			sum.Skipped = append(sum.Skipped, Skip{Path: rel, Reason: fmt.Sprintf("larger than %d bytes (%d)", MaxFileSize, info.Size())})
			continue
		}
		prev, had := old[rel]
		mod := info.ModTime().UnixNano()
		if had && prev.size == info.Size() && prev.modTime == mod {
			keep[rel] = true
			sum.Unchanged++
			continue
		}
		data, err := os.ReadFile(full)
		if err != nil {
			sum.Skipped = append(sum.Skipped, Skip{Path: rel, Reason: err.Error()})
			continue
		}
		if err := CheckText(data); err != nil {
			sum.Skipped = append(sum.Skipped, Skip{Path: rel, Reason: err.Error()})
			continue
		}
		keep[rel] = true
		content := string(data)
		if had && prev.hash == hashContent(content) {
			changes = append(changes, change{doc: &Document{Root: root, Path: rel}, size: int64(len(data)), modTime: mod, touch: true})
			sum.Unchanged++
			continue
		}
		d := Parse(root, rel, content)
		changes = append(changes, change{doc: d, size: int64(len(data)), modTime: mod, added: !had})
		if had {
			sum.Updated = append(sum.Updated, rel)
		} else {
			sum.Added = append(sum.Added, rel)
		}
	}
	for rel := range old {
		if !keep[rel] {
			sum.Removed = append(sum.Removed, rel)
		}
	}
	slices.Sort(sum.Removed)
	if len(changes) == 0 && len(sum.Removed) == 0 {
		return sum, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return SyncSummary{}, fmt.Errorf("sync memory documents of %s: %w", root, err)
	}
	defer tx.Rollback()
	now := s.now().UnixMilli()
	for _, c := range changes {
		if c.touch {
			if _, err := tx.ExecContext(ctx, `UPDATE memdoc_documents SET size = ?, mod_time = ? WHERE root = ? AND path = ?`,
				c.size, c.modTime, root, c.doc.Path); err != nil {
				return SyncSummary{}, fmt.Errorf("sync memory document %s: %w", c.doc.Path, err)
			}
			continue
		}
		if err := upsert(ctx, tx, c.doc, c.size, c.modTime, now); err != nil {
			return SyncSummary{}, fmt.Errorf("sync memory document %s: %w", c.doc.Path, err)
		}
	}
	for _, rel := range sum.Removed {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memdoc_documents WHERE root = ? AND path = ?`, root, rel); err != nil {
			return SyncSummary{}, fmt.Errorf("remove memory document %s: %w", rel, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return SyncSummary{}, fmt.Errorf("sync memory documents of %s: %w", root, err)
	}
	return sum, nil
}

// upsert stores d.
func upsert(ctx context.Context, tx *sql.Tx, d *Document, size, modTime, now int64) error {
	phrases, err := json.Marshal(nonNil(d.TriggerPhrases))
	if err != nil {
		return err
	}
	sections, err := json.Marshal(nonNil(d.Sections))
	if err != nil {
		return err
	}
	warnings, err := json.Marshal(nonNil(d.Warnings))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO memdoc_documents(root, path, hash, size, mod_time, title, description,
			trigger_phrases, importance_tier, context_type, content, sections, warnings, updated_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(root, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mod_time = excluded.mod_time,
			title = excluded.title, description = excluded.description, trigger_phrases = excluded.trigger_phrases,
			importance_tier = excluded.importance_tier, context_type = excluded.context_type, content = excluded.content,
			sections = excluded.sections, warnings = excluded.warnings, updated_at = excluded.updated_at`,
		d.Root, d.Path, d.Hash, size, modTime, d.Title, d.Description, string(phrases), d.ImportanceTier,
		d.ContextType, d.Content, string(sections), string(warnings), now)
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// stored returns the hash, size and time of each stored document of root.
func (s *Store) stored(ctx context.Context, root string) (map[string]stored, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, hash, size, mod_time FROM memdoc_documents WHERE root = ?`, root)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]stored)
	for rows.Next() {
		var p string
		var st stored
		if err := rows.Scan(&p, &st.hash, &st.size, &st.modTime); err != nil {
			return nil, err
		}
		out[p] = st
	}
	return out, rows.Err()
}

const documentColumns = `root, path, hash, title, description, trigger_phrases, importance_tier, context_type,
	content, sections, warnings, updated_at`

// Documents returns the stored documents of the workspace at root, by
// path; an empty root returns those of every workspace, by root and path.
func (s *Store) Documents(ctx context.Context, root string) ([]Document, error) {
	q := `SELECT ` + documentColumns + ` FROM memdoc_documents`
	var args []any
	if root != "" {
		r, err := CleanRoot(root)
		if err != nil {
			return nil, fmt.Errorf("memory documents: %w", err)
		}
		q += ` WHERE root = ?`
		args = append(args, r)
	}
	q += ` ORDER BY root, path`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("memory documents of %s: %w", root, err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("memory documents of %s: %w", root, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("memory documents of %s: %w", root, err)
	}
	return out, nil
}

// ErrUnknownDocument reports a document id not stored for a root.
var ErrUnknownDocument = errors.New("no such memory document")

// Document returns the stored document of root with the given id
// ("doc:" + path) or path.
func (s *Store) Document(ctx context.Context, root, id string) (Document, error) {
	r, err := CleanRoot(root)
	if err != nil {
		return Document{}, fmt.Errorf("memory document %s: %w", id, err)
	}
	rel := strings.TrimPrefix(id, "doc:")
	row := s.db.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM memdoc_documents WHERE root = ? AND path = ?`, r, rel)
	d, err := scanDocument(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, fmt.Errorf("memory document %s: %w", id, ErrUnknownDocument)
	}
	if err != nil {
		return Document{}, fmt.Errorf("memory document %s: %w", id, err)
	}
	return d, nil
}

func scanDocument(row interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var phrases, sections, warnings string
	var updated int64
	if err := row.Scan(&d.Root, &d.Path, &d.Hash, &d.Title, &d.Description, &phrases, &d.ImportanceTier,
		&d.ContextType, &d.Content, &sections, &warnings, &updated); err != nil {
		return Document{}, err
	}
	d.ID = "doc:" + d.Path
	d.UpdatedAt = time.UnixMilli(updated)
	if err := json.Unmarshal([]byte(phrases), &d.TriggerPhrases); err != nil {
		return Document{}, fmt.Errorf("%s: trigger phrases: %w", d.Path, err)
	}
	if err := json.Unmarshal([]byte(sections), &d.Sections); err != nil {
		return Document{}, fmt.Errorf("%s: sections: %w", d.Path, err)
	}
	if err := json.Unmarshal([]byte(warnings), &d.Warnings); err != nil {
		return Document{}, fmt.Errorf("%s: warnings: %w", d.Path, err)
	}
	return d, nil
}

// CleanRoot returns root as documents are stored under it: absolute,
// cleaned, and with symbolic links resolved when it exists (so that the
// command line and the language server, which resolves them, agree).
func CleanRoot(root string) (string, error) {
	if root == "" {
		return "", errors.New("no workspace root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	return filepath.Clean(abs), nil
}

// Discover returns the root-relative slash paths of the regular files
// under root that match globs (DefaultGlobs when empty), sorted, and the
// patterns that are not valid. It does not follow symbolic links.
func Discover(ctx context.Context, root string, globs []string) ([]string, []Skip, error) {
	r, err := CleanRoot(root)
	if err != nil {
		return nil, nil, fmt.Errorf("discover memory documents: %w", err)
	}
	return discover(ctx, r, globs)
}

func discover(ctx context.Context, root string, globs []string) ([]string, []Skip, error) {
	if len(globs) == 0 {
		globs = DefaultGlobs()
	}
	if _, err := os.Stat(root); err != nil {
		return nil, nil, err
	}
	fsys := os.DirFS(root)
	seen := make(map[string]bool)
	var files []string
	var skipped []Skip
	for _, g := range globs {
		g = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(g)), "./")
		if g == "" || strings.HasPrefix(g, "/") || !doublestar.ValidatePattern(g) {
			skipped = append(skipped, Skip{Path: g, Reason: "not a valid root-relative glob pattern"})
			continue
		}
		err := doublestar.GlobWalk(fsys, g, func(p string, d fs.DirEntry) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.Type().IsRegular() && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			return nil
		}, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			skipped = append(skipped, Skip{Path: g, Reason: err.Error()})
		}
	}
	slices.Sort(files)
	return files, skipped, nil
}

// CheckText says why data cannot be a memory document: larger than
// MaxFileSize, or not UTF-8 text (invalid UTF-8, or a NUL byte). It
// returns nil for text that can be.
func CheckText(data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("larger than %d bytes (%d)", MaxFileSize, len(data))
	}
	if !utf8.Valid(data) || slices.Contains(data, 0) {
		return errors.New("not UTF-8 text")
	}
	return nil
}
