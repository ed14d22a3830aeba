package config

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://alice:s3cret@db.example/anchorage", "postgres://alice:xxxxx@db.example/anchorage"},
		{"postgresql://alice:p@ss:w0rd@db:5432/a?sslmode=require", "postgresql://alice:xxxxx@db:5432/a?sslmode=require"},
		{"postgres://alice@db/a", "postgres://alice@db/a"},
		{"postgres://db:5432/a", "postgres://db:5432/a"},
		{"postgres://db/a?user=bob&password=hunter2&sslmode=verify-full", "postgres://db/a?user=bob&password=xxxxx&sslmode=verify-full"},
		{"host=db user=bob password=hunter2 dbname=a", "host=db user=bob password=xxxxx dbname=a"},
		{`host=db password='it\'s a secret' dbname=a`, "host=db password=xxxxx dbname=a"},
		{`host=db password=''p q`, "host=db password=xxxxx q"},
		{`host=db password='p q`, "host=db password=xxxxx"},
		{"host=db PASSWORD = 'two words' dbname=a", "host=db PASSWORD = xxxxx dbname=a"},
		{`connect to postgres://alice:s3cret@db/a: dial tcp: connection refused`, `connect to postgres://alice:xxxxx@db/a: dial tcp: connection refused`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := HasPassword(tt.in); got != (tt.in != tt.want) {
			t.Errorf("HasPassword(%q) = %v", tt.in, got)
		}
		// What was printed once has no password left to find.
		if HasPassword(tt.want) {
			t.Errorf("HasPassword(%q) = true after redaction", tt.want)
		}
	}
}

func TestCheckTeamURL(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"postgres://db/a", ""},
		{"postgresql://alice:pw@db/a?sslmode=verify-full&sslrootcert=/etc/ca.pem", ""},
		{"host=db dbname=a sslmode=require", ""},
		{"", "empty"},
		{"mysql://alice:pw@db/a", "not a PostgreSQL URL"},
		{"just-a-host", "neither"},
		{"postgres://db/a\n", ""}, // trimmed
		{"postgres://db/\x00a", "control characters"},
		{"postgres://alice:pw@db/" + strings.Repeat("a", MaxTeamURLBytes), "more than"},
	}
	for _, tt := range tests {
		err := CheckTeamURL(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("CheckTeamURL(%q): %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("CheckTeamURL(%q) = %v, want an error with %q", tt.in, err, tt.err)
		case err != nil && strings.Contains(err.Error(), "pw@"):
			t.Errorf("CheckTeamURL(%q) error shows the password: %v", tt.in, err)
		}
	}
}

func TestTeamURLSetting(t *testing.T) {
	f := Parse("c.yaml", []byte("memory:\n  team:\n    url: postgres://alice:s3cret@db/a\n"))
	if f.Settings.TeamURL != "postgres://alice:s3cret@db/a" || f.Lines[KeyTeamURL] != 3 {
		t.Fatalf("settings %+v, lines %v", f.Settings, f.Lines)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Message, "does not belong") || strings.Contains(f.Warnings[0].Message, "s3cret") {
		t.Errorf("warnings %v, want one about the password that does not show it", f.Warnings)
	}
	for _, bad := range []string{"memory: x\n", "memory:\n  team: x\n", "memory:\n  team:\n    url: mysql://db/a\n", "memory:\n  teem:\n    url: postgres://db/a\n"} {
		f := Parse("c.yaml", []byte(bad))
		if f.Settings.TeamURL != "" || len(f.Warnings) == 0 {
			t.Errorf("%q: settings %+v, warnings %v", bad, f.Settings, f.Warnings)
		}
	}

	// Precedence: default < file < $ANCHORAGE_TEAM_URL < flag or editor.
	file := Parse("c.yaml", []byte("memory:\n  team:\n    url: postgres://file/a\n"))
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == TeamURLEnv {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name      string
		file      *File
		env, flag string
		want, src string
	}{
		{"nothing", nil, "", "", "", SourceDefault},
		{"file", file, "", "", "postgres://file/a", RelPath + ":3"},
		{"env over file", file, "postgres://env/a", "", "postgres://env/a", "$" + TeamURLEnv},
		{"flag over env", file, "postgres://env/a", "postgres://flag/a", "postgres://flag/a", "--team-url"},
	}
	for _, tt := range tests {
		r := Resolve(tt.file)
		r.ApplyEnv(env(tt.env))
		if tt.flag != "" {
			r.Override(Settings{TeamURL: tt.flag}, "--team-url")
		}
		if r.Settings.TeamURL != tt.want || r.Sources[KeyTeamURL] != tt.src {
			t.Errorf("%s: %q from %q, want %q from %q", tt.name, r.Settings.TeamURL, r.Sources[KeyTeamURL], tt.want, tt.src)
		}
	}
	r := Resolve(Parse("c.yaml", []byte("memory:\n  team:\n    url: postgres://alice:s3cret@db/a\n")))
	if v := r.Value(KeyTeamURL); v != "postgres://alice:xxxxx@db/a" {
		t.Errorf("Value(%s) = %q", KeyTeamURL, v)
	}
	if !reflect.DeepEqual(Resolve(nil).Value(KeyTeamURL), "(none: rules are personal)") {
		t.Errorf("unset: %q", Resolve(nil).Value(KeyTeamURL))
	}
}

// FuzzRedact checks that a password put in a URL or a DSN never
// survives Redact.
func FuzzRedact(f *testing.F) {
	for _, pw := range []string{"s3cret", "p@ss:w0rd", "a'b", "xxxxxy", "with space"} {
		f.Add(pw, "alice", "db.example:5432")
	}
	f.Fuzz(func(t *testing.T, pw, user, host string) {
		clean := func(s string) bool {
			return strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("/?#@:'\\\"&;=", r) }) < 0
		}
		if len(pw) < 6 || strings.Contains(Redacted, pw) || !clean(user) || !clean(host) || strings.Contains(user+host, pw) {
			return
		}
		if strings.ContainsAny(pw, " \t\n\r\f\v/?#") {
			return // not valid in a URL's userinfo
		}
		// check fails if Redact keeps pw in the text made by with. A
		// password whose text is in the redaction of the same text with
		// another password (the end of "host=" and the host, "xxxxx" and
		// what follows it) is there for other reasons: not checked.
		check := func(with func(pw string) string) {
			if strings.Contains(Redact(with("NEUTRALPW")), pw) {
				return
			}
			if s := with(pw); strings.Contains(Redact(s), pw) {
				t.Errorf("Redact(%q) = %q keeps the password", s, Redact(s))
			}
		}
		check(func(pw string) string { return "postgres://" + user + ":" + pw + "@" + host + "/a" })
		check(func(pw string) string {
			return "error: connect postgres://" + user + ":" + pw + "@" + host + "/a failed"
		})
		if !strings.ContainsAny(pw, " \t\n\r\f\v&;'\\") {
			check(func(pw string) string { return "host=" + host + " password=" + pw + " dbname=a" })
		}
	})
}
