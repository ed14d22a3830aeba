package state

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/driver"
)

// schema is a component's migrations in these tests.
var schema = []string{
	`CREATE TABLE rules(id INTEGER PRIMARY KEY, text TEXT NOT NULL)`,
	`ALTER TABLE rules ADD COLUMN scope TEXT NOT NULL DEFAULT 'universal'`,
}

// openMigrated opens path with profile and migrates the component "c" to
// version n.
func openMigrated(t *testing.T, path string, profile Profile, n int) *DB {
	t.Helper()
	db, err := Open(context.Background(), path, profile, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background(), "c", schema[:n]); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}

// TestBadInput is the storage layer's one test of bad databases, for both
// profiles: each case prepares the file, then opens and migrates it as a
// component of this version would, and checks the error (what it wraps,
// that it names the file) and that the file was kept.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for _, profile := range []Profile{Index, User, Stats} {
		for _, tc := range []struct {
			name string
			// prepare makes the file at path; it may return a function
			// to run once the case is checked.
			prepare func(t *testing.T, path string) func()
			want    error // nil: opens and migrates
			kept    bool  // the file's bytes are unchanged
		}{
			{"new file", func(*testing.T, string) func() { return nil }, nil, false},
			{"older version migrates", func(t *testing.T, path string) func() {
				db := openMigrated(t, path, profile, 1)
				if _, err := db.Exec(`INSERT INTO rules(text) VALUES('kept')`); err != nil {
					t.Fatal(err)
				}
				db.Close()
				return nil
			}, nil, false},
			{"newer version refused", func(t *testing.T, path string) func() {
				db := openMigrated(t, path, profile, 2)
				if _, err := db.Exec(`UPDATE schema_versions SET version = 7 WHERE component = 'c'`); err != nil {
					t.Fatal(err)
				}
				db.Close()
				return nil
			}, ErrNewer, true},
			{"not a database", func(t *testing.T, path string) func() {
				if err := os.WriteFile(path, bytes.Repeat([]byte("these are not the pages of a database\n"), 200), 0o600); err != nil {
					t.Fatal(err)
				}
				return nil
			}, ErrCorrupt, true},
			{"damaged pages", func(t *testing.T, path string) func() {
				db := openMigrated(t, path, profile, 2)
				for i := range 300 {
					if _, err := db.Exec(`INSERT INTO rules(text) VALUES(?)`, strings.Repeat("rule ", 40+i%7)); err != nil {
						t.Fatal(err)
					}
				}
				db.Close()
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				// Page 1 keeps the header; pages 2 on, the schema's
				// root pages among them, become noise.
				if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 4096*6), 4096); err != nil {
					t.Fatal(err)
				}
				return nil
			}, ErrCorrupt, true},
			{"locked by another process", func(t *testing.T, path string) func() {
				openMigrated(t, path, profile, 1).Close()
				other, err := driver.Open("file:" + filepath.ToSlash(path))
				if err != nil {
					t.Fatal(err)
				}
				conn, err := other.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE; INSERT INTO rules(text) VALUES('held')`); err != nil {
					t.Fatal(err)
				}
				return func() {
					conn.ExecContext(ctx, `ROLLBACK`)
					conn.Close()
					other.Close()
				}
			}, ErrLocked, false},
		} {
			t.Run(profile.String()+"/"+tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "x.db")
				if done := tc.prepare(t, path); done != nil {
					defer done()
				}
				before, _ := os.ReadFile(path)
				db, err := Open(ctx, path, profile, Options{BusyTimeout: 50 * time.Millisecond})
				if err == nil {
					err = db.Migrate(ctx, "c", schema)
					if err == nil {
						_, err = db.ExecContext(ctx, `INSERT INTO rules(text, scope) VALUES('new', 'language:go')`)
						if err != nil {
							err = db.Wrap("write a rule", err)
						}
					}
					db.Close()
				}
				switch {
				case tc.want == nil && err != nil:
					t.Fatalf("open and migrate: %v", err)
				case tc.want != nil && !errors.Is(err, tc.want):
					t.Fatalf("open and migrate: %v, want an error wrapping %q", err, tc.want)
				case tc.want != nil && !strings.Contains(err.Error(), path):
					t.Errorf("the error does not name the file: %v", err)
				}
				if after, _ := os.ReadFile(path); tc.kept && !bytes.Equal(before, after) {
					t.Errorf("the file changed (%d bytes, now %d)", len(before), len(after))
				}
				if tc.want != nil {
					return
				}
				db = openMigrated(t, path, profile, 2)
				defer db.Close()
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM rules WHERE scope != ''`).Scan(&n); err != nil || n < 1 {
					t.Errorf("rules after migrating: %d, %v", n, err)
				}
			})
		}
	}
}

// TestLegacyIndexVersion opens an index that kept its schema version in
// PRAGMA user_version, as versions before schema_versions did: only the
// migrations after that version run, and user_version follows.
func TestLegacyIndexVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	raw, err := driver.Open("file:" + filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(schema[0] + `; INSERT INTO rules(text) VALUES('old'); PRAGMA user_version=1;`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db := openMigrated(t, path, Index, 2)
	defer db.Close()
	var scope string
	var uv int
	if err := db.QueryRowContext(ctx, `SELECT scope FROM rules WHERE text = 'old'`).Scan(&scope); err != nil || scope != "universal" {
		t.Errorf("the old row after migrating: %q, %v", scope, err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&uv); err != nil || uv != 2 {
		t.Errorf("user_version = %d, %v; want 2", uv, err)
	}
}

// TestTwoProcesses opens one database through two pools at once (as the
// language server and the command line do) and migrates and writes
// through both: both succeed, and the component is migrated once.
func TestTwoProcesses(t *testing.T) {
	ctx := context.Background()
	for _, profile := range []Profile{Index, User} {
		t.Run(profile.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					db, err := Open(ctx, path, profile, Options{})
					if err != nil {
						errs[i] = err
						return
					}
					defer db.Close()
					if err := db.Migrate(ctx, "c", schema); err != nil {
						errs[i] = err
						return
					}
					for range 50 {
						if _, err := db.ExecContext(ctx, `INSERT INTO rules(text) VALUES('x')`); err != nil {
							errs[i] = db.Wrap("write", err)
							return
						}
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			db := openMigrated(t, path, profile, 2)
			defer db.Close()
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM rules`).Scan(&n); err != nil || n != 100 {
				t.Errorf("%d rules, %v; want 100", n, err)
			}
		})
	}
}

// TestReadOnlyDirectory opens a user database in a read-only directory (a
// read-only bind mount: root on Linux, skipped elsewhere): it is read, a
// migration it needs and a write are refused with ErrReadOnly, and an
// index that cannot be created there says so.
func TestReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory.db")
	db := openMigrated(t, path, User, 1)
	if _, err := db.Exec(`INSERT INTO rules(text) VALUES('kept')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount the directory: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot make the bind mount read-only: %v %s", err, out)
	}

	db, err := Open(ctx, path, User, Options{})
	if err != nil {
		t.Fatalf("open a user database in a read-only directory: %v", err)
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	if err := db.Migrate(ctx, "c", schema[:1]); err != nil {
		t.Errorf("a database that needs no migration: %v", err)
	}
	var text string
	if err := db.QueryRow(`SELECT text FROM rules`).Scan(&text); err != nil || text != "kept" {
		t.Errorf("read %q, %v", text, err)
	}
	if err := db.Migrate(ctx, "c", schema); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
		t.Errorf("a migration: %v, want ErrReadOnly naming the file", err)
	}
	_, err = db.Exec(`INSERT INTO rules(text) VALUES('new')`)
	if err = db.Wrap("write a rule", err); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a write: %v, want ErrReadOnly", err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "index", "index.db"), Index, Options{}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("an index in a read-only directory: %v, want an error naming it", err)
	}
}
