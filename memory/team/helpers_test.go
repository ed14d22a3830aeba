package team

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// teamDB is a fresh team database with the schema installed and three
// login roles: an approver, a member and a role of neither group.
type teamDB struct {
	db                       *pgtest.DB
	approverURL, memberURL   string
	outsiderURL              string
	approverRole, memberRole string
}

func newTeamDB(t *testing.T) *teamDB {
	t.Helper()
	db := pgtest.Start(t)
	if err := Install(testCtx(t), db.URL); err != nil {
		t.Fatalf("Install: %v", err)
	}
	td := &teamDB{db: db}
	td.approverURL, td.approverRole = db.Login(t, "bob", RoleApprover)
	td.memberURL, td.memberRole = db.Login(t, "alice", RoleMember)
	td.outsiderURL, _ = db.Login(t, "eve")
	return td
}

// open opens a store and closes it at the end of the test.
func open(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(testCtx(t), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// sqlConn is a plain connection, for what a user could do with psql.
func sqlConn(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(testCtx(t), url)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// testCtx is a generous bound on one test's database work: CI is a busy
// machine; nothing waits for it to pass.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// uuidN is a fixed UUID for test rule n.
func uuidN(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 12 {
		s = "0" + s
	}
	return "00000000-0000-4000-8000-" + s
}
