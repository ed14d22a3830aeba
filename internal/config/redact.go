package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces a password in what RedactURL and Redact print.
const Redacted = "xxxxx"

// MaxTeamURLBytes is the longest team database connection string
// accepted.
const MaxTeamURLBytes = 4096

// CheckTeamURL checks that u can be a PostgreSQL connection string: a
// postgres:// or postgresql:// URL, or a libpq key=value DSN. It does not
// connect. Its errors never contain a password.
func CheckTeamURL(u string) error {
	u = strings.TrimSpace(u)
	switch {
	case u == "":
		return errors.New("the team database URL is empty")
	case len(u) > MaxTeamURLBytes:
		return fmt.Errorf("the team database URL is %d bytes, more than %d", len(u), MaxTeamURLBytes)
	case strings.IndexFunc(u, func(r rune) bool { return unicode.IsControl(r) }) >= 0:
		return errors.New("the team database URL has control characters")
	}
	if i := strings.Index(u, "://"); i >= 0 {
		scheme := strings.ToLower(u[:i])
		if scheme != "postgres" && scheme != "postgresql" {
			return fmt.Errorf("the team database URL %s is not a PostgreSQL URL (want postgres://… or key=value pairs)", RedactURL(u))
		}
		if _, err := url.Parse(u); err != nil {
			return fmt.Errorf("the team database URL %s cannot be read", RedactURL(u))
		}
		return nil
	}
	if !strings.Contains(u, "=") {
		return fmt.Errorf("the team database URL %s is neither a postgres:// URL nor key=value pairs", RedactURL(u))
	}
	return nil
}

// HasPassword reports whether a connection string holds a password.
func HasPassword(u string) bool { return RedactURL(u) != u }

// RedactURL returns a connection string without its password: the
// password of a URL's user:password@ and of password= (in a URL's query
// or a key=value DSN) become Redacted.
func RedactURL(u string) string { return Redact(u) }

var (
	// userinfoPassword is the password of scheme://user:password@host,
	// up to the last @ before the host (a password may hold @ and :).
	userinfoPassword = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://[^:/?#@\s]*:)([^\s/?#]*)@`)
	// keyPassword is password=value in a DSN (quoted or not) or a query.
	// A quoted value runs on to the next space (libpq would refuse
	// 'a'b, but what follows the quote is the password's too), and an
	// unterminated quote to the end: whatever libpq might take for the
	// password is hidden.
	keyPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*(?:'[^\s&;]*|$)|[^\s&;]*)`)
)

// Redact returns msg with every password it holds in a connection string
// replaced by Redacted: user:password@ in URLs and password=… pairs. Every
// message that may contain the team database's URL goes through it.
func Redact(msg string) string {
	msg = userinfoPassword.ReplaceAllString(msg, "${1}"+Redacted+"@")
	return keyPassword.ReplaceAllString(msg, "${1}"+Redacted)
}
