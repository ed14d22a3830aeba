// Package fname shows file names that are not valid UTF-8, or that hold
// control characters, in a form that text and JSON can carry and that
// turns back into the same bytes.
//
// The index stores a file's path as the bytes the file system gave; the
// command line prints it through Quote. A name that is valid UTF-8 without
// control characters or backslashes is printed unchanged. Any other name
// has each byte that is not part of a valid UTF-8 sequence, and each
// control character, written as \xNN, and each backslash as \\: the
// escapes of a Bash $'…' string, so that
//
//	vi $'pkg/gr\xfc\xc3\x9fe.go'
//
// opens the file that `anchorage graph` printed as pkg/gr\xfcße.go.
// Unquote reverses Quote.
package fname

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NeedsQuote reports whether Quote changes p.
func NeedsQuote(p string) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		i += size
	}
	return false
}

// Quote returns p as it is when it is valid UTF-8 without control
// characters or backslashes, else with those bytes escaped (see the
// package comment).
func Quote(p string) string {
	if !NeedsQuote(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			case c < 0x20 || c == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, c)
		} else {
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Unquote turns a name printed by Quote back into its bytes. A string
// without backslashes is returned as it is; a backslash must start \\ or
// \xNN (two hexadecimal digits).
func Unquote(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(s) && s[i+1] == 'x':
			n, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
			if err != nil {
				return "", fmt.Errorf("file name %q: \\x at byte %d wants two hexadecimal digits", s, i)
			}
			b.WriteByte(byte(n))
			i += 3
		default:
			return "", fmt.Errorf("file name %q: a backslash at byte %d starts neither \\\\ nor \\xNN", s, i)
		}
	}
	return b.String(), nil
}
