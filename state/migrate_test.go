package state

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestMigrate migrates two components in one database, again (a no-op),
// and refuses a database newer than the migrations.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "user.db"), User, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := []string{`CREATE TABLE a1(x)`, `CREATE TABLE a2(y)`}
	b := []string{`CREATE TABLE b1(z)`}
	for range 2 {
		if err := db.Migrate(ctx, "a", a); err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx, "b", b); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		component string
		want      int
	}{{"a", 2}, {"b", 1}, {"c", 0}} {
		if v, _, err := db.schemaVersion(ctx, db, tc.component); err != nil || v != tc.want {
			t.Errorf("version of %s = %d, %v; want %d", tc.component, v, err, tc.want)
		}
	}
	for _, table := range []string{"a1", "a2", "b1"} {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(new(int)); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
	if err := db.Migrate(ctx, "a", a[:1]); err == nil || !errors.Is(err, ErrNewer) {
		t.Errorf("migrating a to an older version: %v, want a refusal", err)
	}
}
