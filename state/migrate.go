package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Migrate brings one component's tables in the database up to date:
// migrations[i] takes the component from version i to i+1. This is the
// one migration scheme of every database. Several components (memory,
// documents, the memory graph, routing feedback) share the user database,
// so each keeps its version in a row of schema_versions(component,
// version).
//
// An index written before schema_versions existed kept its version in
// PRAGMA user_version: in a database of the Index profile, that version
// is taken as the component's when it has no row yet, and user_version is
// kept equal to it, so that the schema migrates in place and older
// versions of Anchorage see the version they know.
//
// It runs in one transaction, so two processes opening the database at
// once do not both migrate it. A database whose version is newer than
// migrations is refused with an error wrapping ErrNewer, and left as it
// is; one that cannot be read, with ErrCorrupt.
func (d *DB) Migrate(ctx context.Context, component string, migrations []string) error {
	what := "migrate " + component
	if v, ok, err := d.schemaVersion(ctx, d.DB, component); err == nil && ok && v == len(migrations) {
		return nil
	} else if err != nil && !isNoTable(err) {
		return d.Wrap(what, err)
	}
	if d.readOnly {
		return fmt.Errorf("%s: %s: %w: its tables cannot be created or brought up to date", what, d.path, ErrReadOnly)
	}
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return d.Wrap(what, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_versions(component TEXT PRIMARY KEY, version INTEGER NOT NULL)`); err != nil {
		return d.Wrap(what, err)
	}
	v, ok, err := d.schemaVersion(ctx, tx, component)
	if err != nil {
		return d.Wrap(what, err)
	}
	if !ok && d.profile == Index {
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
			return d.Wrap(what, err)
		}
	}
	if v > len(migrations) {
		return fmt.Errorf("%s: %s: %w: its %s schema is version %d, this anchorage knows %d; it was left as it is (use the newer anchorage, or a different --data-dir)",
			what, d.path, ErrNewer, component, v, len(migrations))
	}
	if ok && v == len(migrations) {
		return nil // another process migrated it meanwhile
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return d.Wrap(fmt.Sprintf("%s to version %d", what, v+1), err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_versions(component, version) VALUES(?, ?)
		ON CONFLICT(component) DO UPDATE SET version = excluded.version`, component, v); err != nil {
		return d.Wrap(fmt.Sprintf("%s to version %d", what, v), err)
	}
	if d.profile == Index {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version=%d`, v)); err != nil {
			return d.Wrap(fmt.Sprintf("%s to version %d", what, v), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.Wrap(fmt.Sprintf("%s to version %d", what, v), err)
	}
	return nil
}

// schemaVersion returns a component's schema version, and whether it has
// a row in schema_versions (0 and false before its first migration).
func (d *DB) schemaVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, component string) (int, bool, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT version FROM schema_versions WHERE component = ?`, component).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return v, err == nil, err
}

// isNoTable reports the error of a database without schema_versions yet.
func isNoTable(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "no such table")
}
