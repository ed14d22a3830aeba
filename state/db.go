package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// Errors of the storage layer, the same for every database; test for them
// with errors.Is. Each is wrapped with the file's path and what was being
// done.
var (
	// ErrCorrupt reports a file that SQLite cannot read: corrupt, or
	// not an SQLite database. A user database is never removed or
	// rewritten; an index, a cache, is rebuilt by its owner.
	ErrCorrupt = errors.New("database is corrupt or not an SQLite database")
	// ErrLocked reports a database that another connection or process
	// kept locked for longer than the busy timeout.
	ErrLocked = errors.New("database is locked by another process")
	// ErrNewer reports a database written by a newer version of
	// Anchorage, whose schema this version does not know. It is left
	// as it is.
	ErrNewer = errors.New("database was written by a newer version of anchorage")
	// ErrReadOnly reports a write to a database that could only be
	// opened for reading (a read-only file or data directory).
	ErrReadOnly = errors.New("database is read-only")
)

// Profile names how a database is opened: its durability and what a
// failure to open it means.
type Profile int

const (
	// Index is a workspace's code index: a cache rebuilt from the
	// files, so commits do not wait for the disk (synchronous=NORMAL in
	// WAL mode: a power cut may lose the last commits, never corrupt
	// the file), with a larger page cache and the FTS5 text index.
	Index Profile = iota
	// User is the user's database (rules, corrections, documents,
	// feedback): every commit is on disk before it returns
	// (synchronous=FULL), foreign keys are enforced, a file of 0 bytes
	// is refused (see CheckUserDatabase), and a file that cannot be
	// written is opened read-only.
	User
	// Stats holds statistics recorded on read paths (which searches
	// were routed where, which results were used), in a small database
	// of its own beside the user database: commits never wait for the
	// disk (synchronous=OFF), so that a read such as anchorage search
	// does not fsync; a power cut may lose or damage recent statistics,
	// never the user's rules, and a file that is corrupt is recreated
	// by its owner, like an index.
	Stats
)

// String returns the profile's name.
func (p Profile) String() string {
	switch p {
	case Index:
		return "index"
	case User:
		return "user"
	case Stats:
		return "statistics"
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// DefaultBusyTimeout is how long a statement waits for another
// connection's lock before failing with ErrLocked.
const DefaultBusyTimeout = 10 * time.Second

// Options are the optional settings of Open.
type Options struct {
	// BusyTimeout is how long statements wait for locks; ≤ 0 means
	// DefaultBusyTimeout.
	BusyTimeout time.Duration
}

// DB is one SQLite database file opened with a profile: one pool of
// connections that every component using the file shares within a
// process. It is safe for concurrent use.
type DB struct {
	*sql.DB
	path     string
	profile  Profile
	readOnly bool
	busy     time.Duration
}

// Open opens (creating it and its directory if needed) the database at
// path with the pragmas of profile. The errors it returns name the file
// and wrap ErrCorrupt, ErrLocked or ErrReadOnly when they are one of
// those; nothing is removed or rewritten.
func Open(ctx context.Context, path string, profile Profile, opts Options) (*DB, error) {
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	d := &DB{path: path, profile: profile, busy: busy}
	perm := os.FileMode(0o755)
	if profile != Index {
		perm = 0o700
	}
	if err := os.MkdirAll(filepath.Dir(path), perm); err != nil {
		return nil, fmt.Errorf("open %s database %s: %w", profile, path, err)
	}
	if err := create(path); err != nil {
		return nil, fmt.Errorf("open %s database: %w", profile, err)
	}
	if profile == User {
		if err := CheckUserDatabase(path); err != nil {
			return nil, fmt.Errorf("open %s database: %w", profile, err)
		}
	}
	// Wait for locks before changing the journal mode, which takes one.
	pragmas := fmt.Sprintf(`PRAGMA busy_timeout=%d; PRAGMA journal_mode=WAL;`, busy.Milliseconds())
	switch profile {
	case Index:
		pragmas += ` PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32000; PRAGMA temp_store=MEMORY;`
	case User:
		pragmas += ` PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;`
	case Stats:
		pragmas += ` PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON;`
	default:
		return nil, fmt.Errorf("open database %s: unknown profile %v", path, profile)
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(path), RawQuery: "_txlock=immediate"}
	db, err := driver.Open(u.String(), func(c *sqlite3.Conn) error {
		if err := fts5.Register(c); err != nil {
			return err
		}
		return c.Exec(pragmas)
	})
	if err == nil {
		if err = db.PingContext(ctx); err == nil {
			d.DB = db
			return d, nil
		}
		db.Close()
	}
	if profile != User || !cannotWrite(err) || !readable(path) {
		return nil, d.Wrap("open "+profile.String()+" database", err)
	}
	// Nothing else can change the file (no one can write beside it), and
	// no log holds changes not in it: SQLite may read it as immutable,
	// which needs no shared memory file.
	u.RawQuery = "mode=ro&immutable=1"
	ro, rerr := driver.Open(u.String(), func(c *sqlite3.Conn) error {
		if err := fts5.Register(c); err != nil {
			return err
		}
		return c.Exec(`PRAGMA query_only=ON; PRAGMA foreign_keys=ON;`)
	})
	if rerr == nil {
		if rerr = ro.PingContext(ctx); rerr == nil {
			d.DB, d.readOnly = ro, true
			return d, nil
		}
		ro.Close()
	}
	return nil, d.Wrap("open "+profile.String()+" database", fmt.Errorf("%w (read-only: %v)", err, rerr))
}

// create makes a new, empty database file at path in WAL mode when there
// is none, atomically: it is made under a temporary name in the same
// directory and linked into place, so that another process opening the
// same path at once never sees a file half made (0 bytes, which a user
// database refuses, or a journal mode being changed, which fails with
// "database is locked" at once). When another process was first, its
// file is kept. Where the file system cannot link, SQLite creates the
// file as it opens it, as before.
func create(path string) error {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	name := tmp.Name()
	tmp.Close()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(name + suffix)
		}
	}()
	c, err := sqlite3.Open(name)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	// A table made and dropped writes the database's first page, with
	// the WAL mode in its header.
	err = c.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE anchorage_new(x); DROP TABLE anchorage_new;`)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	// When another process was first (fs.ErrExist), its file is kept;
	// where the file system has no hard links, SQLite creates the file.
	_ = os.Link(name, path)
	return nil
}

// Path returns the database file's path.
func (d *DB) Path() string { return d.path }

// Profile returns the profile the database was opened with.
func (d *DB) Profile() Profile { return d.profile }

// ReadOnly reports whether the database could only be opened for reading.
func (d *DB) ReadOnly() bool { return d.readOnly }

// BusyTimeout returns how long statements wait for locks.
func (d *DB) BusyTimeout() time.Duration { return d.busy }

// Wrap returns err, from doing what, naming the file and wrapping
// ErrCorrupt, ErrLocked or ErrReadOnly when SQLite's error is one of
// those. It returns nil for a nil err, and err itself when it already
// wraps one of the storage errors.
func (d *DB) Wrap(what string, err error) error {
	return wrap(d.path, d.profile, d.busy, what, err)
}

func wrap(path string, profile Profile, busy time.Duration, what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrLocked), errors.Is(err, ErrNewer), errors.Is(err, ErrReadOnly),
		errors.Is(err, ErrEmptyDatabase):
		return fmt.Errorf("%s: %w", what, err)
	case IsCorrupt(err):
		if profile == User {
			return fmt.Errorf("%s: %s: %w (the file was left as it is; restore it from a backup, or move it away to start afresh): %v", what, path, ErrCorrupt, err)
		}
		return fmt.Errorf("%s: %s: %w: %v", what, path, ErrCorrupt, err)
	case errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED):
		return fmt.Errorf("%s: %s: %w (waited %v): %v", what, path, ErrLocked, busy, err)
	case errors.Is(err, sqlite3.READONLY):
		return fmt.Errorf("%s: %s: %w: %v", what, path, ErrReadOnly, err)
	}
	return fmt.Errorf("%s %s: %w", what, path, err)
}

// IsCorrupt reports whether err says that a database cannot be read:
// ErrCorrupt, or SQLite's SQLITE_CORRUPT or SQLITE_NOTADB.
func IsCorrupt(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, sqlite3.CORRUPT) || errors.Is(err, sqlite3.NOTADB)
}

// cannotWrite reports whether err says a database cannot be opened for
// writing.
func cannotWrite(err error) bool {
	return errors.Is(err, sqlite3.CANTOPEN) || errors.Is(err, sqlite3.READONLY) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// readable reports whether path is a non-empty database file whose
// write-ahead log, if any, is empty.
func readable(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return false
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return false
	}
	return true
}
