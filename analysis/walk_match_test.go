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

// FuzzNameMatcher checks nameMatcher against path.Match, which it stands
// in for, on file names read from disk.
func FuzzNameMatcher(f *testing.F) {
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
		if got := newNameMatchers([]string{pattern})[0].match(name); got != want {
			t.Errorf("nameMatcher(%q).match(%q) = %v, path.Match says %v", pattern, name, got, want)
		}
	})
}

func TestComparePaths(t *testing.T) {
	// The order of filepath.WalkDir: a directory's entries by name, each
	// directory's files right after it.
	want := []string{"a", "a/b.go", "a/c/d.go", "a.go", "a_b.go", "b/a.go", "ba.go"}
	for i := range want {
		for j := range want {
			got := comparePaths(want[i], want[j])
			if (i < j && got >= 0) || (i > j && got <= 0) || (i == j && got != 0) {
				t.Errorf("comparePaths(%q, %q) = %d", want[i], want[j], got)
			}
		}
	}
}
