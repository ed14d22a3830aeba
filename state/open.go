package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
)

// OpenUserDatabase opens the user database at path, running pragmas on
// each connection. When the file exists but cannot be opened for writing
// (a read-only file system or directory) and has no write-ahead log
// pending, it is opened read-only instead, so that the commands that only
// read work; writing then fails with SQLite's read-only error. It reports
// whether the database is read-only.
func OpenUserDatabase(ctx context.Context, path, pragmas string) (*sql.DB, bool, error) {
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(path), RawQuery: "_txlock=immediate"}
	db, err := driver.Open(u.String(), func(c *sqlite3.Conn) error { return c.Exec(pragmas) })
	if err == nil {
		if err = db.PingContext(ctx); err == nil {
			return db, false, nil
		}
		db.Close()
	}
	if !cannotWrite(err) || !readable(path) {
		return nil, false, err
	}
	// Nothing else can change the file (no one can write beside it), and
	// no log holds changes not in it: SQLite may read it as immutable,
	// which needs no shared memory file.
	u.RawQuery = "mode=ro&immutable=1"
	ro, rerr := driver.Open(u.String(), func(c *sqlite3.Conn) error { return c.Exec(`PRAGMA query_only=ON;`) })
	if rerr == nil {
		if rerr = ro.PingContext(ctx); rerr == nil {
			return ro, true, nil
		}
		ro.Close()
	}
	return nil, false, fmt.Errorf("%w (read-only: %v)", err, rerr)
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
