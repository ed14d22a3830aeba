package team

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedactURL: whatever the URL, a password given in it never survives
// RedactURL, and RedactURL does not panic. It runs offline.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{
		"postgres://alice:s3cret@db.example.com:5432/team?sslmode=verify-full",
		"host=db password=s3cret user=alice",
		"host=db password='s3 cret' user=alice",
		"postgresql://alice@db/team?password=s3cret",
		"postgres://alice:p%40ss@db/team",
		"not a url",
		"",
	} {
		f.Add(s, "s3cret")
	}
	f.Fuzz(func(t *testing.T, raw, pw string) {
		RedactURL(raw)
		// A URL made with pw as its password.
		if len(pw) >= 4 && !strings.ContainsAny(pw, "x") {
			u := url.URL{Scheme: "postgres", User: url.UserPassword("alice", pw), Host: "db", Path: "/team"}
			if r := RedactURL(u.String()); strings.Contains(r, u.User.String()) {
				t.Fatalf("RedactURL(%q) = %q shows the password", u.String(), r)
			}
			dsn := "host=db user=alice password=" + pw
			if !strings.ContainsAny(pw, " \t\n\r\f\v'\\") {
				if r := RedactURL(dsn); strings.Contains(r, pw) {
					t.Fatalf("RedactURL(%q) = %q shows the password", dsn, r)
				}
			}
		}
	})
}

// FuzzNormalizeScope: a scope from outside is refused or normalised to a
// team scope that normalises to itself.
func FuzzNormalizeScope(f *testing.F) {
	for _, s := range []string{"team", "Team language:Go", "team project:app", "team language:", "universal", " team  project: a b ", "team\tlanguage:go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeScope(s)
		if err != nil {
			return
		}
		if n != ScopeTeam && !strings.HasPrefix(n, ScopeTeam+" ") {
			t.Fatalf("NormalizeScope(%q) = %q: not a team scope", s, n)
		}
		again, err := NormalizeScope(n)
		if err != nil || again != n {
			t.Fatalf("NormalizeScope(%q) = %q, but that normalises to %q, %v", s, n, again, err)
		}
	})
}
