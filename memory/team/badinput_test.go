package team

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// secret is the password of the URLs of these tests: no error may show it.
const secret = "s3cr3t-Pw-7x9"

// TestOpenBadInput: every way a URL can be wrong gives its own error,
// quickly, and never the password.
func TestOpenBadInput(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	admin := sqlConn(t, td.db.URL)
	u, err := url.Parse(td.memberURL)
	if err != nil {
		t.Fatal(err)
	}
	user := u.User.Username()
	if _, err := admin.Exec(ctx, "ALTER ROLE "+pgx.Identifier{user}.Sanitize()+" PASSWORD '"+secret+"'"); err != nil {
		t.Fatal(err)
	}
	withPassword := func(pw string) string {
		v := *u
		v.User = url.UserPassword(user, pw)
		return v.String()
	}
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/x?sslmode=disable&connect_timeout=5", user, secret, port)
	}()
	other := pgtest.Start(t) // a database of another application
	if _, err := sqlConn(t, other.URL).Exec(ctx, `CREATE TABLE customers (id int)`); err != nil {
		t.Fatal(err)
	}
	empty := pgtest.Start(t)
	missingDB := *u
	missingDB.User = url.UserPassword(user, secret)
	missingDB.Path = "/no_such_database"

	tests := []struct {
		name string
		url  string
		want error
	}{
		{"empty", "", ErrInvalid},
		{"bad port", "postgres://" + user + ":" + secret + "@127.0.0.1:99999/x", ErrInvalid},
		{"bad DSN", "host=127.0.0.1 password=" + secret + " port=notaport", ErrInvalid},
		{"bad option", withPassword(secret) + "&sslmode=sometimes", ErrInvalid},
		{"nothing listening", closed, ErrUnreachable},
		{"wrong password", withPassword(secret + "-wrong"), ErrAuth},
		{"missing database", missingDB.String(), ErrNoDatabase},
		{"another application", other.URL, ErrNotTeamDB},
		{"no schema", empty.URL, ErrNotSchema},
		{"the right one", withPassword(secret), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.url)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				s.Close()
				return
			}
			if s != nil {
				s.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open(%s): %v; want %v", RedactURL(tt.url), err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error shows the password: %v", err)
			}
			t.Logf("%v", err)
		})
	}
}

// TestSchemaVersions: Install is idempotent (and safe to run twice at
// once); a newer schema is refused by Open and Install.
func TestSchemaVersions(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	p, err := alice.Propose(ctx, Rule{Content: "keep it"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- Install(ctx, td.db.URL) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("installing again: %v", err)
		}
	}
	if got, err := alice.Changes(ctx, 0); err != nil || len(got) != 1 || got[0].ID != p.ID {
		t.Fatalf("after installing again: %+v, %v; want the rule kept", got, err)
	}
	if err := Install(ctx, td.memberURL); !errors.Is(err, ErrForbidden) {
		t.Errorf("Install as a member: %v; want ErrForbidden", err)
	}
	if _, err := sqlConn(t, td.db.URL).Exec(ctx, `UPDATE anchorage.schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"Open": func() error { _, err := Open(ctx, td.memberURL); return err }(), "Install": Install(ctx, td.db.URL)} {
		if !errors.Is(err, ErrNewer) || !strings.Contains(err.Error(), "version 99") {
			t.Errorf("%s of a newer schema: %v; want ErrNewer naming version 99", name, err)
		}
	}
}

// TestRuleTextBadInput: a rule text of 1 MB is refused whole (by the
// client, and by the database for plain SQL); SQL in a rule text is
// stored as it is.
func TestRuleTextBadInput(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	big := strings.Repeat("wrap errors ", 1<<20/12)
	tests := []struct {
		name string
		r    Rule
	}{
		{"1 MB text", Rule{Content: big}},
		{"empty text", Rule{Content: "  \n "}},
		{"NUL in the text", Rule{Content: "a\x00b"}},
		{"not UTF-8", Rule{Content: "caf\xe9"}},
		{"bad id", Rule{ID: "'; DROP TABLE anchorage.rules; --", Content: "x"}},
		{"bad scope", Rule{Scope: "universal", Content: "x"}},
		{"bad scope kind", Rule{Scope: "team colour:blue", Content: "x"}},
		{"no language", Rule{Scope: "team language:", Content: "x"}},
		{"1 MB rationale", Rule{Content: "x", Rationale: big}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := alice.Propose(ctx, tt.r); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Propose: %v; want ErrInvalid", err)
			}
		})
	}
	if _, err := sqlConn(t, td.memberURL).Exec(ctx, `INSERT INTO anchorage.rules (id, content) VALUES ($1, $2)`, uuidN(1), big); err == nil {
		t.Fatal("the database took a 1 MB rule text")
	}
	if got, err := alice.Changes(ctx, 0); err != nil || len(got) != 0 {
		t.Fatalf("after refused proposals: %d rules, %v; want none written", len(got), err)
	}

	evil := []string{
		`'); DROP TABLE anchorage.rules; --`,
		`$1 $$ \x27 E'\\' ; SELECT pg_sleep(10)`,
		`Robert"); UPDATE anchorage.rules SET status='approved'; --`,
	}
	for i, text := range evil {
		r, err := alice.Propose(ctx, Rule{ID: uuidN(10 + i), Content: text, Rationale: text, ExampleSymbol: text})
		if err != nil {
			t.Fatalf("Propose(%q): %v", text, err)
		}
		if r.Content != text || r.Rationale != text || r.ExampleSymbol != text || r.Status != StatusProposed {
			t.Fatalf("stored %+v; want the text verbatim", r)
		}
	}
	got, err := alice.Changes(ctx, 0)
	if err != nil || len(got) != len(evil) {
		t.Fatalf("after SQL in rule texts: %d rules, %v; want %d", len(got), err, len(evil))
	}
	for i, r := range got {
		if r.Content != evil[i] || r.Status != StatusProposed {
			t.Errorf("rule %d: %+v; want %q, proposed", i, r, evil[i])
		}
	}
}
