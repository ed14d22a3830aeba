package keyword

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSearch searches fuzzed text for a fuzzed pattern. It must never
// panic, must give clear errors only for the patterns it documents as bad,
// and must find what naiveSearch finds for literals (all options) and for
// regular expressions without WholeWord.
//
// mode picks the options: bit 0 Regex, bit 1 WholeWord, bits 2-3 the case
// (0 smart, 1 insensitive, 2 sensitive).
func FuzzSearch(f *testing.F) {
	for _, seed := range []struct {
		pattern string
		text    string
		mode    uint8
	}{
		{"foo", "foo bar foo\nFoo\r\n", 0},
		{"foo", "foofoo foo_ foo", 2},
		{"kelvin", "\u212aELVIN kelvin ſ", 4},
		{"ſ", "s S ſ", 4},
		{"b\r", "ab\r\nb\rc", 8},
		{`func \(\w+ \*Reader\) Read`, "func (r *Reader) Read()\n", 1},
		{`\s+$`, "a  \r\nb \n", 1},
		{`[^a]+`, "abc\ndef", 1},
		{`(?i)k+`, "kK\u212a", 1},
		{`\w+`, "foo bar", 3},
		{`a\z|^b`, "ab\nba", 1},
		{"\ufffd", "\xff\ufffd", 5},
		{"é", "É\xc3é", 4},
		{"x", "a\x00x", 0},
		{"(", "(", 1},
		{"a*", "aaa", 1},
	} {
		f.Add(seed.pattern, []byte(seed.text), seed.mode)
	}
	f.Fuzz(func(t *testing.T, pattern string, text []byte, mode uint8) {
		regex, ww := mode&1 != 0, mode&2 != 0
		var ignoreCase *bool
		switch (mode >> 2) % 3 {
		case 1:
			ignoreCase = ptr(true)
		case 2:
			ignoreCase = ptr(false)
		}
		files := []File{{Path: "a"}, {Path: "b"}}
		overlay := func(path string) ([]byte, bool) {
			if path == "a" {
				return text, true
			}
			return []byte(pattern), true // the pattern itself, in a second file
		}
		opts := Options{Regex: regex, WholeWord: ww, IgnoreCase: ignoreCase, MaxMatches: 1 << 30, Overlay: overlay}
		res, err := Search(context.Background(), files, pattern, opts)

		literalBad := pattern == "" || len(pattern) > MaxPatternLen || !utf8.ValidString(pattern) || strings.Contains(pattern, "\n")
		if err != nil {
			var pe *PatternError
			if !errors.As(err, &pe) || res != nil {
				t.Fatalf("Search(%q): %v, %v; want a *PatternError and no result", pattern, res, err)
			}
			if !regex && !literalBad {
				t.Fatalf("Search(%q) as a literal: %v", pattern, err)
			}
			return
		}
		if literalBad {
			t.Fatalf("Search(%q) accepted a bad pattern", pattern)
		}
		for _, m := range res.Matches {
			if !utf8.ValidString(m.Text) || len(m.Text) > 3*snippetLen+2*len("…") || m.Line < 1 || m.Column < 1 || m.EndColumn <= m.Column {
				t.Fatalf("bad match %+v", m)
			}
		}
		if res.Total != len(res.Matches) {
			t.Fatalf("Total %d, %d matches", res.Total, len(res.Matches))
		}
		fold := false
		switch {
		case ignoreCase != nil:
			fold = *ignoreCase
		case regex:
			fold = !regexHasUpper(pattern)
		default:
			fold = strings.IndexFunc(pattern, unicode.IsUpper) < 0
		}
		if regex {
			prefix := ""
			if fold {
				prefix = "(?i)"
			}
			if _, err := regexp.Compile(prefix + pattern); err != nil {
				t.Fatalf("Search accepted %q, which regexp refuses: %v", pattern, err)
			}
		}
		if regex && ww {
			// naiveSearch has no whole-word regexps: check what can be.
			checkWholeWord(t, res.Matches, map[string][]byte{"a": text, "b": []byte(pattern)},
				append(naiveSearch(t, "a", text, pattern, true, fold, false),
					naiveSearch(t, "b", []byte(pattern), pattern, true, fold, false)...))
			return
		}
		want := append(naiveSearch(t, "a", text, pattern, regex, fold, ww),
			naiveSearch(t, "b", []byte(pattern), pattern, regex, fold, ww)...)
		if got := hits(res.Matches); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Search(%q, regex=%v, fold=%v, ww=%v) in %q: %s", pattern, regex, fold, ww, text, diffHits(got, want))
		}
	})
}

// checkWholeWord checks whole-word matches: no identifier character
// touches them, they are in order without overlapping, and each match
// that the search without WholeWord finds (all) and that no identifier
// character touches overlaps one of them.
func checkWholeWord(t *testing.T, ms []Match, texts map[string][]byte, all []hit) {
	t.Helper()
	lines := func(path string) []string {
		var out []string
		for _, l := range strings.Split(string(texts[path]), "\n") {
			out = append(out, strings.TrimSuffix(l, "\r"))
		}
		return out
	}
	isolated := func(h hit) bool {
		line := lines(h.Path)[h.Line-1]
		s, e := h.Col-1, h.End-1
		return e <= len(line) && (s == 0 || !isIdent(line[s-1])) && (e == len(line) || !isIdent(line[e]))
	}
	got := hits(ms)
	for i, h := range got {
		if !isolated(h) {
			t.Fatalf("whole-word match %v touches an identifier character", h)
		}
		if i > 0 && got[i-1].Path == h.Path && (got[i-1].Line > h.Line || got[i-1].Line == h.Line && got[i-1].End > h.Col) {
			t.Fatalf("whole-word matches %v and %v overlap or are out of order", got[i-1], h)
		}
	}
	for _, a := range all {
		if !isolated(a) {
			continue
		}
		found := false
		for _, h := range got {
			if h.Path == a.Path && h.Line == a.Line && h.Col < a.End && a.Col < h.End {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("match %v has no identifier character next to it but no whole-word match overlaps it (got %v)", a, got)
		}
	}
}
