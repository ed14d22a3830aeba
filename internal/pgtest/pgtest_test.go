package pgtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestStartLoginStopStart checks the harness: a fresh database, a login
// role with a password (and a wrong password refused), and a stop and
// start of the cluster with the data kept.
func TestStartLoginStopStart(t *testing.T) {
	d := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	if err := admin.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil || db != d.Name {
		t.Fatalf("admin URL connects to %q (%v); want %q", db, err, d.Name)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE pgtest_group NOLOGIN; CREATE TABLE kept (x int); INSERT INTO kept VALUES (7); GRANT SELECT ON kept TO pgtest_group"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), d.URL)
		if err == nil {
			c.Exec(context.Background(), "DROP OWNED BY pgtest_group; DROP ROLE pgtest_group")
			c.Close(context.Background())
		}
	})
	admin.Close(ctx)

	u, role := d.Login(t, "alice", "pgtest_group")
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connecting as %s: %v", role, err)
	}
	var who string
	var x int
	if err := conn.QueryRow(ctx, "SELECT session_user, x FROM kept").Scan(&who, &x); err != nil || who != role || x != 7 {
		t.Fatalf("as the login role: session_user %q, x %d, %v; want %q, 7", who, x, err, role)
	}
	conn.Close(ctx)
	if c, err := pgx.Connect(ctx, d.URLAs(role, "wrong")); err == nil {
		c.Close(ctx)
		t.Fatal("a wrong password was accepted")
	}

	c := d.Cluster()
	if !c.Own() {
		t.Skip("the cluster is not ours to stop")
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := pgx.Connect(ctx, u); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a stopped cluster")
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT x FROM kept").Scan(&x); err != nil || x != 7 {
		t.Fatalf("after a restart: x %d, %v; want 7", x, err)
	}
}

// TestFindBinaries: PATH first, then the newest of Debian's versions; a
// directory with only one of the programs, or a file that is not
// executable, does not count.
func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, mode os.FileMode, names ...string) string {
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(d, n), []byte("#!/bin/sh\n"), mode); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	onlyInitdb := mk("only-initdb", 0o755, "initdb")
	notExec := mk("not-exec", 0o644, "initdb", "pg_ctl")
	onPath := mk("on-path", 0o755, "initdb", "pg_ctl")
	mk("lib/9.6/bin", 0o755, "initdb", "pg_ctl")
	v15 := mk("lib/15/bin", 0o755, "initdb", "pg_ctl")
	mk("lib/16/bin", 0o755, "initdb") // incomplete
	glob := filepath.Join(root, "lib/*/bin")
	sep := string(filepath.ListSeparator)
	tests := []struct {
		name, path, glob, want string
	}{
		{"on PATH", onlyInitdb + sep + notExec + sep + onPath, glob, onPath},
		{"Debian's newest complete version", onlyInitdb + sep + notExec, glob, v15},
		{"empty PATH", "", glob, v15},
		{"nowhere", onlyInitdb, filepath.Join(root, "none/*/bin"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findBinaries(tt.path, tt.glob)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "not installed") {
					t.Fatalf("findBinaries = %q, %v; want a 'not installed' error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("findBinaries = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	for ci, want := range map[string]bool{"true": true, "": false, "false": false, "1": false} {
		if got := mustFail(ci); got != want {
			t.Errorf("mustFail(CI=%q) = %v; want %v", ci, got, want)
		}
	}
}

// TestKilledTestBinaryLeavesNoCluster runs a test binary that starts a
// cluster and is killed (as a test timeout does): its watchdog stops the
// cluster and removes its directory.
func TestKilledTestBinaryLeavesNoCluster(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "1" {
		d := Start(t)
		fmt.Printf("DIR=%s\n", d.Cluster().dir)
		os.Stdout.Sync()
		select {} // until killed
	}
	if !Start(t).Cluster().Own() { // Start skips when PostgreSQL is not installed
		t.Skip("the cluster of ANCHORAGE_TEST_PGURL is not ours")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestKilledTestBinaryLeavesNoCluster$", "-test.timeout", "10m")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var dir string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "DIR="); ok {
			dir = d
			break
		}
	}
	if dir == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child never said where its cluster is")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); err != nil {
		t.Fatalf("the child's cluster is not running: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the killed child's cluster in %s was never removed", dir)
		case <-time.After(100 * time.Millisecond): // the next look
		}
	}
}
