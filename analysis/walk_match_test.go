package analysis

import (
	"path"
	"strings"
	"testing"
)

func TestIsSecret(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".env", true}, {".env.local", true}, {"prod.env", true}, {"server.pem", true},
		{"id_rsa", true}, {"id_ed25519.pub", true}, {".netrc", true}, {"credentials.json", true},
		{"key.asc", true}, {"vault.kdbx", true},
		{"main.go", false}, {"environment.go", false}, {".envrc", false}, {"env", false},
		{"credentials.go", false}, {"pem.go", false}, {"keys.go", false}, {"my_id_rsa", false},
	}
	for _, tt := range tests {
		if got := IsSecret(tt.name); got != tt.want {
			t.Errorf("IsSecret(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzMatchSimple checks matchSimple against path.Match, which it stands
// in for, on file names read from disk.
func FuzzMatchSimple(f *testing.F) {
	for _, p := range secretPatterns {
		f.Add(p, "a"+strings.Trim(p, "*"))
	}
	f.Add("a[b]*", "ab")
	f.Add(`*\*`, "x*")
	f.Add("?x*", "ax")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if strings.Contains(name, "/") {
			return // names only
		}
		want, err := path.Match(pattern, name)
		if err != nil {
			return // a malformed pattern is never ours
		}
		if got := matchSimple(pattern, name); got != want {
			t.Errorf("matchSimple(%q, %q) = %v, path.Match says %v", pattern, name, got, want)
		}
	})
}
