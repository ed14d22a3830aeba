package analysis

import (
	"slices"
	"strings"
	"testing"
)

func TestCompoundParts(t *testing.T) {
	tests := []struct {
		word string
		want []string
	}{
		{"updatecache", []string{"update", "cache"}},
		{"checkcache", []string{"check", "cache"}},
		{"monthrange", []string{"month", "range"}},
		{"readdirnames", []string{"read", "dir", "names"}},
		{"fromtarfile", []string{"from", "tar", "file"}},
		{"decodebytes", []string{"decode", "bytes"}},
		{"parseline", []string{"parse", "line"}},
		// Known words stay whole.
		{"register", nil},
		{"together", nil},
		{"numerator", nil},
		// Affixes and rare three-letter words do not split a word.
		{"conjugate", nil},
		// Parts of fewer than three letters do not count.
		{"isdir", nil},
		// Not a lower-case ASCII word, or too short.
		{"updateCache", nil},
		{"get_x", nil},
		{"abc", nil},
		{"", nil},
		// Letters that make no words.
		{"xqzvkwpt", nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := compoundParts(tt.word); !slices.Equal(got, tt.want) {
				t.Errorf("compoundParts(%q) = %q, want %q", tt.word, got, tt.want)
			}
		})
	}
}

func TestAppendNameTerms(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"linecache.updatecache", "linecach updatecach lin cach updat cach"},
		{"Lister.readdirnames", "list readdirnam read dir nam"},
		// "from" is a stop word: the parts keep what AppendTerms keeps.
		{"TarFile.fromtarfile", "tar fil tarfil fromtarfil tar fil"},
		{"ParseURL", "pars url parseurl"},
	}
	for _, tt := range tests {
		if got := string(AppendNameTerms(nil, tt.name)); got != tt.want {
			t.Errorf("AppendNameTerms(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// The name column of a chunk holds the parts; the other columns do not.
	terms, _ := appendChunkTerms(nil, "linecache.py", "updatecache", "updatecache", "updatecache")
	if !strings.Contains(terms[0], "cach") || strings.Contains(terms[1], "cach ") || terms[2] != "updatecach" {
		t.Errorf("appendChunkTerms: %q", terms)
	}
}

func FuzzCompoundParts(f *testing.F) {
	for _, s := range []string{"updatecache", "readdirnames", "conjugate", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		parts := compoundParts(w)
		if parts == nil {
			return
		}
		if len(parts) < 2 || strings.Join(parts, "") != w {
			t.Fatalf("compoundParts(%q) = %q: not a split of the word", w, parts)
		}
		for _, p := range parts {
			if len(p) < compoundMinPart {
				t.Fatalf("compoundParts(%q) = %q: a part is too short", w, parts)
			}
		}
	})
}
