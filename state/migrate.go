package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Migrate brings one component's tables in the user database up to date:
// migrations[i] takes the component from version i to i+1. Several
// components (routing feedback, memory) share the file, so each keeps its
// version in a row of schema_versions rather than in PRAGMA user_version.
// It runs in one transaction, so two processes opening the database at
// once do not both migrate it. An error reading the version is returned
// as it is, for callers to tell a corrupt file.
func Migrate(ctx context.Context, db *sql.DB, component string, migrations []string) error {
	if v, err := schemaVersion(ctx, db, component); err == nil && v == len(migrations) {
		return nil
	} else if err != nil && !isNoTable(err) {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_versions(component TEXT PRIMARY KEY, version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	v, err := schemaVersion(ctx, tx, component)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d of %s is newer than this anchorage knows (%d)", v, component, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate %s to version %d: %w", component, v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_versions(component, version) VALUES(?, ?)
		ON CONFLICT(component) DO UPDATE SET version = excluded.version`, component, v); err != nil {
		return fmt.Errorf("migrate %s to version %d: %w", component, v, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s to version %d: %w", component, v, err)
	}
	return nil
}

// schemaVersion returns a component's schema version: 0 before its first
// migration.
func schemaVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, component string) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT version FROM schema_versions WHERE component = ?`, component).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// isNoTable reports the error of a database without schema_versions yet.
func isNoTable(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "no such table")
}
