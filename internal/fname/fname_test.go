package fname

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "pkg/server.go", "pkg/server.go"},
		{"utf-8", "pkg/grüße.go", "pkg/grüße.go"},
		{"latin-1 byte", "pkg/gr\xfc\xc3\x9fe.go", `pkg/gr\xfcße.go`},
		{"truncated sequence", "a\xe2\x82.go", `a\xe2\x82.go`},
		{"newline", "a\nb.go", `a\x0ab.go`},
		{"delete", "a\x7f.go", `a\x7f.go`},
		{"backslash", `a\b.go`, `a\\b.go`},
		{"literal escape text", `a\xfc.go`, `a\\xfc.go`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Quote(tc.in)
			if got != tc.want {
				t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Quote(%q) = %q is not valid UTF-8", tc.in, got)
			}
			if NeedsQuote(tc.in) != (got != tc.in) {
				t.Errorf("NeedsQuote(%q) = %v, but Quote changes it: %v", tc.in, NeedsQuote(tc.in), got != tc.in)
			}
			back, err := Unquote(got)
			if err != nil || back != tc.in {
				t.Errorf("Unquote(%q) = %q, %v; want %q", got, back, err, tc.in)
			}
		})
	}
}

func TestUnquoteErrors(t *testing.T) {
	for _, in := range []string{`a\`, `a\x`, `a\xf`, `a\xzz.go`, `a\n.go`, `\u00fc`} {
		if got, err := Unquote(in); err == nil {
			t.Errorf("Unquote(%q) = %q, want an error", in, got)
		} else if !strings.Contains(err.Error(), "file name") {
			t.Errorf("Unquote(%q): %v does not say it is about a file name", in, err)
		}
	}
}

// FuzzQuote: every byte string survives Quote then Unquote, and Quote's
// output is valid UTF-8 without control characters; Unquote of any input
// returns an error or a string, never panics.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"pkg/a.go", "gr\xfc\xc3\x9fe.go", `a\\b`, `a\xfc`, "\x00\x1f\x7f", "\xff\xfe", `\`, `\x`, `\xz`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if !utf8.ValidString(q) {
			t.Fatalf("Quote(%q) = %q: not UTF-8", s, q)
		}
		for _, r := range q {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("Quote(%q) = %q holds a control character", s, q)
			}
		}
		if back, err := Unquote(q); err != nil || back != s {
			t.Fatalf("Unquote(Quote(%q)) = %q, %v", s, back, err)
		}
		Unquote(s)
	})
}
