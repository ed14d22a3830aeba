package keyword

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hit is a match without its snippet.
type hit struct {
	Path           string
	Line, Col, End int
}

func (h hit) String() string { return fmt.Sprintf("%s:%d:%d-%d", h.Path, h.Line, h.Col, h.End) }

// naiveSearch is the reference: it splits text into lines and searches each
// one on its own, with strings.Index for literals and regexp for the rest.
// Whole words are supported for literals only.
func naiveSearch(t testing.TB, path string, text []byte, pattern string, regex, fold, wholeWord bool) []hit {
	t.Helper()
	if isBinary(text) {
		return nil
	}
	var out []hit
	wordOK := func(line string, s, e int) bool {
		return !wholeWord || (s == 0 || !isIdent(line[s-1])) && (e == len(line) || !isIdent(line[e]))
	}
	var re *regexp.Regexp
	switch {
	case regex && wholeWord:
		t.Fatalf("naiveSearch: whole-word regular expressions are not supported")
	case regex:
		prefix := ""
		if fold {
			prefix = "(?i)"
		}
		re = regexp.MustCompile(prefix + pattern)
	}
	for n, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSuffix(line, "\r")
		add := func(s, e int) { out = append(out, hit{path, n + 1, s + 1, e + 1}) }
		switch {
		case re != nil:
			for _, loc := range re.FindAllStringIndex(line, -1) {
				if loc[1] > loc[0] {
					add(loc[0], loc[1])
				}
			}
		case fold:
			// At each character (invalid bytes are U+FFFD, one byte wide,
			// as regexp decodes them), compare the pattern's characters by
			// Unicode simple folding, as regexp's (?i) does.
			for s := 0; s < len(line); {
				if e, ok := foldPrefix(line[s:], pattern); ok && wordOK(line, s, s+e) {
					add(s, s+e)
					s += e
					continue
				}
				_, w := utf8.DecodeRuneInString(line[s:])
				s += w
			}
		default:
			for p := 0; ; {
				i := strings.Index(line[p:], pattern)
				if i < 0 {
					break
				}
				s, e := p+i, p+i+len(pattern)
				if wordOK(line, s, e) {
					add(s, e)
					p = e
				} else {
					p = s + 1
				}
			}
		}
	}
	return out
}

// foldPrefix reports whether text starts with pattern up to case, and
// where the match ends.
func foldPrefix(text, pattern string) (int, bool) {
	end := 0
	for _, p := range pattern {
		r, w := utf8.DecodeRuneInString(text[end:])
		if w == 0 || !foldEqual(r, p) {
			return 0, false
		}
		end += w
	}
	return end, true
}

// foldEqual reports whether a and b are the same letter up to case.
func foldEqual(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// hits returns the matches without their snippets.
func hits(ms []Match) []hit {
	out := make([]hit, len(ms))
	for i, m := range ms {
		out[i] = hit{m.Path, m.Line, m.Column, m.EndColumn}
	}
	return out
}

// diffHits describes the first differences between got and want.
func diffHits(got, want []hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "got %d matches, want %d", len(got), len(want))
	shown := 0
	for i := 0; i < max(len(got), len(want)) && shown < 5; i++ {
		var g, w string
		if i < len(got) {
			g = got[i].String()
		}
		if i < len(want) {
			w = want[i].String()
		}
		if g != w {
			fmt.Fprintf(&b, "\n  #%d: got %s, want %s", i, g, w)
			shown++
		}
	}
	return b.String()
}

// corpus is a set of files with their text.
type corpus struct {
	files []File
	text  map[string][]byte
}

// goStringsCorpus returns the files of the standard library's strings
// package, or skips the test.
func goStringsCorpus(t *testing.T) corpus {
	dir := filepath.Join(runtimeGOROOT(), "src", "strings")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no Go source to compare against: %v", err)
	}
	c := corpus{text: map[string][]byte{}}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		abs := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		c.files = append(c.files, File{Path: "strings/" + e.Name(), Abs: abs})
		c.text["strings/"+e.Name()] = data
	}
	return c
}

// generatedCorpus writes files mixing code-like words, case variants,
// non-ASCII letters that fold to ASCII (K, ſ), invalid UTF-8, CRLF line
// ends, long lines and files without a final newline.
func generatedCorpus(t *testing.T, seed uint64, n int) corpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := []string{
		"func", "Func", "FUNC", "return", "Reader", "reader", "ReadFull", "readfull", "io.ReadFull",
		"TODO", "todo", "ToDo", "x", "xx", "foo", "foo_bar", "foobar", "Foo2", "(", ")", "*", "\\",
		"strings.Builder", "Kelvin", "\u212aelvin", "ſtring", "STRING", "é", "É", "ß", "ẞ", "日本語",
		"\xff", "\xe2\x82", "\ufffd", "\t", "  ", "_", "-", "->", "a\rb", "0x1F", "9", "$", "^",
	}
	dir := t.TempDir()
	c := corpus{text: map[string][]byte{}}
	for i := range n {
		var b strings.Builder
		lines := rng.IntN(40)
		for l := range lines {
			for w := rng.IntN(12); w > 0; w-- {
				b.WriteString(words[rng.IntN(len(words))])
				if rng.IntN(3) > 0 {
					b.WriteByte(' ')
				}
			}
			if rng.IntN(50) == 0 {
				b.WriteString(strings.Repeat("ab ", 200+rng.IntN(300)))
			}
			if l < lines-1 || rng.IntN(2) == 0 {
				if rng.IntN(4) == 0 {
					b.WriteString("\r\n")
				} else {
					b.WriteString("\n")
				}
			}
		}
		name := fmt.Sprintf("gen/f%03d.txt", i)
		abs := filepath.Join(dir, fmt.Sprintf("f%03d.txt", i))
		if err := os.WriteFile(abs, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		c.files = append(c.files, File{Path: name, Abs: abs})
		c.text[name] = []byte(b.String())
	}
	return c
}

// runtimeGOROOT is where the Go tree is looked for.
func runtimeGOROOT() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	return "/usr/local/go"
}

// TestAgainstReference compares Search with naiveSearch over Go's strings
// package and a generated corpus.
func TestAgainstReference(t *testing.T) {
	type query struct {
		pattern         string
		regex, fold, ww bool
	}
	var queries []query
	for _, lit := range []string{
		"func", "Func", "string", "Builder", "s", "k", "K", "\u212a", "ſ", "é", "É", "ß", "日本",
		"x", "xx", "foo", "foo_bar", "->", "(", "\\", "TODO", "ReadFull", "io.ReadFull", "b\r",
		"\ufffd", "\t", "0x1f", "strings.", "ab ab", "Kelvin", "STRING",
	} {
		for _, fold := range []bool{false, true} {
			for _, ww := range []bool{false, true} {
				queries = append(queries, query{lit, false, fold, ww})
			}
		}
	}
	// Regular expressions that match a lot are run case-sensitive only,
	// to keep the test quick under the race detector.
	for _, re := range []string{
		`[A-Z]\w+`, `[^a-z]+`, `\pL+`, `[[:upper:]]{2}`, `e\w+x`, `(?s).a`, `[^ ]{20,}`, `\d+`,
		`x{2,}`, `.$`, `\S+\.go`, `\s+$`, `(?m)^\w`, `(?U)a.+b`, `[\n\t]x|x`, `\p{Greek}`,
	} {
		queries = append(queries, query{re, true, false, false})
	}
	for _, re := range []string{
		`func \w+\(`, `func \(\w+ \*Reader\) Read`, `\bfor\b`, `^\t+func`, `x|y`, `a\z`, `\Afunc`,
		`(?i)strings\.`, `Read(Full|At|er)`, `foo(bar)?`, `ab\r?`, `[Kk]elvin`, `ſ+`, `\x{fffd}`,
		`\\`, `\$`, `ReadFull`, `(?i)k`, `\Bing\b`,
	} {
		for _, fold := range []bool{false, true} {
			queries = append(queries, query{re, true, fold, false})
		}
	}
	corpora := map[string]func(*testing.T) corpus{
		"go-strings": goStringsCorpus,
		"generated":  func(t *testing.T) corpus { return generatedCorpus(t, 7, 80) },
	}
	for name, mk := range corpora {
		t.Run(name, func(t *testing.T) {
			c := mk(t)
			matched := 0
			defer func() {
				// Most queries must find something, or the comparison
				// proves little.
				if matched < len(queries)*2/3 {
					t.Errorf("only %d of %d queries match anything", matched, len(queries))
				}
			}()
			for _, q := range queries {
				t.Run(fmt.Sprintf("%q/re=%v/fold=%v/ww=%v", q.pattern, q.regex, q.fold, q.ww), func(t *testing.T) {
					var want []hit
					for _, f := range c.files {
						want = append(want, naiveSearch(t, f.Path, c.text[f.Path], q.pattern, q.regex, q.fold, q.ww)...)
					}
					res, err := Search(context.Background(), c.files, q.pattern,
						Options{Regex: q.regex, IgnoreCase: &q.fold, WholeWord: q.ww, MaxMatches: 1 << 30})
					if err != nil {
						t.Fatal(err)
					}
					if got := hits(res.Matches); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s", diffHits(got, want))
					}
					if len(want) > 0 {
						matched++
					}
					if res.Total != len(want) || res.Truncated {
						t.Errorf("Total = %d, Truncated = %v; want %d, false", res.Total, res.Truncated, len(want))
					}
					for _, m := range res.Matches {
						if !utf8.ValidString(m.Text) || len(m.Text) > snippetLen+8 {
							t.Errorf("%s:%d: bad snippet %q", m.Path, m.Line, m.Text)
						}
					}
				})
			}
		})
	}
}
