package wordvec

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"HTTPServer", []string{"http", "server"}},
		{"parseURL", []string{"parse", "url"}},
		{"FindByID", []string{"find", "by", "id"}},
		{"getUserById2", []string{"get", "user", "by", "id", "2"}},
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"ALL_CAPS_CONST", []string{"all", "caps", "const"}},
		{"kebab-case", []string{"kebab", "case"}},
		{"XMLHttpRequest", []string{"xml", "http", "request"}},
		{"MyHTTPSConnection", []string{"my", "https", "connection"}},
		{"utf8", []string{"utf", "8"}},
		{"base64Encode", []string{"base", "64", "encode"}},
		{"HTTP2Server", []string{"http", "2", "server"}},
		{"x1y2", []string{"x", "1", "y", "2"}},
		{"URLs", []string{"urls"}},
		{"IDsForUser", []string{"ids", "for", "user"}},
		{"ABC", []string{"abc"}},
		{"Is", []string{"is"}},
		{"a.b.c", []string{"a", "b", "c"}},
		{"  spaces\tand\nnewlines ", []string{"spaces", "and", "newlines"}},
		{"don't", []string{"don", "t"}},
		{"r.conn.QueryContext(ctx)", []string{"r", "conn", "query", "context", "ctx"}},
		{"ÜberCafé", []string{"über", "café"}},
		{"日本語", []string{"日本語"}},
		{"!!! ??? ...", nil},
		{strings.Repeat("a", 65) + " ok", []string{"ok"}},
		{strings.Repeat("a", 64), []string{strings.Repeat("a", 64)}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SplitWords(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("SplitWords(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEachWordParts(t *testing.T) {
	tests := []struct {
		in    string
		words []string
		parts [][]int
	}{
		{"md5Sum", []string{"md5", "Sum"}, [][]int{{2}, nil}},
		{"sha256sum", []string{"sha256sum"}, [][]int{{3, 6}}},
		{"3d", []string{"3d"}, [][]int{{1}}},
		{"plain", []string{"plain"}, [][]int{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var words []string
			var parts [][]int
			eachWord(tt.in, func(w string, p []int) {
				words = append(words, w)
				parts = append(parts, slices.Clone(p))
			})
			if !slices.Equal(words, tt.words) {
				t.Errorf("words = %q, want %q", words, tt.words)
			}
			for i := range parts {
				if i < len(tt.parts) && !slices.Equal(parts[i], tt.parts[i]) {
					t.Errorf("parts of %q = %v, want %v", words[i], parts[i], tt.parts[i])
				}
			}
		})
	}
}

func TestAppendLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "MixedCase42", "ÜBER", "straße", "İstanbul"} {
		if got, want := string(appendLower([]byte("prefix:"), s)), "prefix:"+strings.ToLower(s); got != want {
			t.Errorf("appendLower(%q) = %q, want %q", s, got, want)
		}
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Errorf("lower(%q) = %q, want %q", s, got, want)
		}
	}
}
