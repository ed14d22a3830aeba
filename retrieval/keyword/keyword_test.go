package keyword

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fixture is a file to write: name and text.
type fixture struct{ name, text string }

// writeFiles writes the fixtures to a temporary directory and returns them
// as Files, in the order given.
func writeFiles(t *testing.T, fixtures ...fixture) []File {
	t.Helper()
	dir := t.TempDir()
	var files []File
	for _, fx := range fixtures {
		abs := filepath.Join(dir, filepath.FromSlash(fx.name))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(fx.text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: fx.name, Abs: abs})
	}
	return files
}

// brief formats matches as "path:line:col-end".
func brief(ms []Match) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s:%d:%d-%d", m.Path, m.Line, m.Column, m.EndColumn))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestSearch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []fixture
		pattern string
		opts    Options
		want    []string
	}{
		{
			name:    "literal",
			files:   []fixture{{"a.go", "foo bar foo\nbaz foo\n"}, {"b.go", "nothing\n"}, {"c.go", "x foo"}},
			pattern: "foo",
			want:    []string{"a.go:1:1-4", "a.go:1:9-12", "a.go:2:5-8", "c.go:1:3-6"},
		},
		{
			name:    "smart case: lower-case pattern ignores case",
			files:   []fixture{{"a.go", "foo Foo FOO fOo"}},
			pattern: "foo",
			want:    []string{"a.go:1:1-4", "a.go:1:5-8", "a.go:1:9-12", "a.go:1:13-16"},
		},
		{
			name:    "smart case: upper-case letter makes it exact",
			files:   []fixture{{"a.go", "foo Foo FOO fOo"}},
			pattern: "Foo",
			want:    []string{"a.go:1:5-8"},
		},
		{
			name:    "forced case-sensitive",
			files:   []fixture{{"a.go", "foo Foo FOO"}},
			pattern: "foo",
			opts:    Options{IgnoreCase: ptr(false)},
			want:    []string{"a.go:1:1-4"},
		},
		{
			name:    "forced case-insensitive",
			files:   []fixture{{"a.go", "foo Foo FOO"}},
			pattern: "Foo",
			opts:    Options{IgnoreCase: ptr(true)},
			want:    []string{"a.go:1:1-4", "a.go:1:5-8", "a.go:1:9-12"},
		},
		{
			name:    "case folding beyond ASCII: Kelvin sign and long s",
			files:   []fixture{{"a.txt", "kelvin \u212aELVIN ſtring String"}},
			pattern: "kelvin",
			want:    []string{"a.txt:1:1-7", "a.txt:1:8-16"},
		},
		{
			name:    "case folding: long s",
			files:   []fixture{{"a.txt", "kelvin \u212aELVIN ſtring String"}},
			pattern: "string",
			want:    []string{"a.txt:1:17-24", "a.txt:1:25-31"},
		},
		{
			name:    "case folding: non-ASCII letters",
			files:   []fixture{{"a.txt", "Été ÉTÉ été"}},
			pattern: "été",
			want:    []string{"a.txt:1:1-6", "a.txt:1:7-12", "a.txt:1:13-18"},
		},
		{
			name:    "whole word",
			files:   []fixture{{"a.go", "foo foobar foo_x (foo) xfoo 2foo foo.bar foo"}},
			pattern: "foo",
			opts:    Options{WholeWord: true},
			want:    []string{"a.go:1:1-4", "a.go:1:19-22", "a.go:1:34-37", "a.go:1:42-45"},
		},
		{
			name:    "whole word with non-word edges",
			files:   []fixture{{"a.go", "x = foo() + 1; barfoo(); foo()x"}},
			pattern: "foo()",
			opts:    Options{WholeWord: true},
			want:    []string{"a.go:1:5-10"},
		},
		{
			name:    "whole word, case-insensitive, after a rejected occurrence",
			files:   []fixture{{"a.go", "readfullReadFull ReadFull"}},
			pattern: "readfull",
			opts:    Options{WholeWord: true},
			want:    []string{"a.go:1:18-26"},
		},
		{
			name:    "several matches per line do not overlap",
			files:   []fixture{{"a.txt", "aaaaa\naa"}},
			pattern: "aa",
			want:    []string{"a.txt:1:1-3", "a.txt:1:3-5", "a.txt:2:1-3"},
		},
		{
			name:    "first and last line, no final newline",
			files:   []fixture{{"a.txt", "foo\nbar\n\nbar foo"}},
			pattern: "foo",
			want:    []string{"a.txt:1:1-4", "a.txt:4:5-8"},
		},
		{
			name:    "CRLF line ends",
			files:   []fixture{{"a.txt", "foo\r\nbar foo\r\n\r\nfoo"}},
			pattern: "foo",
			want:    []string{"a.txt:1:1-4", "a.txt:2:5-8", "a.txt:4:1-4"},
		},
		{
			name:    "CRLF: a literal does not take the terminator's \\r",
			files:   []fixture{{"a.txt", "foo\r\nfoo\rbar\r\nfoo\r"}},
			pattern: "foo\r",
			want:    []string{"a.txt:2:1-5"},
		},
		{
			name:    "CRLF: $ is before the \\r",
			files:   []fixture{{"a.txt", "foo\r\nbar foo\r\nfoo bar\r\n"}},
			pattern: `foo$`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:1-4", "a.txt:2:5-8"},
		},
		{
			name:    "CRLF: trailing space without the \\r, regex with no literal",
			files:   []fixture{{"a.txt", "a  \r\nb\r\nc \t\r\n"}},
			pattern: `\s+$`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:2-4", "a.txt:3:2-4"},
		},
		{
			name:    "columns count bytes",
			files:   []fixture{{"a.txt", "é日本 foo"}},
			pattern: "foo",
			want:    []string{"a.txt:1:10-13"},
		},
		{
			name:    "regex with a required literal",
			files:   []fixture{{"r.go", "func (r *Reader) Read(p []byte)\nfunc (b *Reader) ReadByte()\nfunc (w *Writer) Read()\n"}},
			pattern: `func \(\w+ \*Reader\) Read`,
			opts:    Options{Regex: true},
			want:    []string{"r.go:1:1-22", "r.go:2:1-22"},
		},
		{
			name:    "regex without a literal",
			files:   []fixture{{"a.txt", "a 123 4567\nx 89"}},
			pattern: `[0-9]{2,3}`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:3-6", "a.txt:1:7-10", "a.txt:2:3-5"},
		},
		{
			name:    "regex alternatives, leftmost-first",
			files:   []fixture{{"a.txt", "ReadFull ReadAt Reader"}},
			pattern: `Read(Full|At|er)?`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:1-9", "a.txt:1:10-16", "a.txt:1:17-23"},
		},
		{
			name:    "regex anchors are line anchors",
			files:   []fixture{{"a.txt", "foo foo\nfoo\nbar foo"}},
			pattern: `^foo|\Afoo|foo\z`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:1-4", "a.txt:1:5-8", "a.txt:2:1-4", "a.txt:3:5-8"},
		},
		{
			name:    "regex never spans lines",
			files:   []fixture{{"a.txt", "a b\nc d"}},
			pattern: `b\s+c|[^a]+`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:2-4", "a.txt:2:1-4"},
		},
		{
			name:    "regex smart case ignores escapes",
			files:   []fixture{{"a.txt", "foo bar\nFOO BAR"}},
			pattern: `foo\Sbar|foo\sbar`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:1-8", "a.txt:2:1-8"},
		},
		{
			name:    "regex with an upper-case letter is exact",
			files:   []fixture{{"a.txt", "foo Foo"}},
			pattern: `F\w+`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:5-8"},
		},
		{
			name:    "regex whole word",
			files:   []fixture{{"a.go", "myReader Reader bufio.Reader ReaderAt Readers"}},
			pattern: `\w*Reader`,
			opts:    Options{Regex: true, WholeWord: true},
			want:    []string{"a.go:1:1-9", "a.go:1:10-16", "a.go:1:23-29"},
		},
		{
			name:    "regex whole word takes the alternative that fits",
			files:   []fixture{{"a.go", "foobar foo"}},
			pattern: `foo|foobar`,
			opts:    Options{Regex: true, WholeWord: true},
			want:    []string{"a.go:1:1-7", "a.go:1:8-11"},
		},
		{
			name:    "regex whole word at file and line starts, adjacent matches",
			files:   []fixture{{"a.go", "ab ab\nab-ab"}},
			pattern: `a.`,
			opts:    Options{Regex: true, WholeWord: true},
			want:    []string{"a.go:1:1-3", "a.go:1:4-6", "a.go:2:1-3", "a.go:2:4-6"},
		},
		{
			name:    "regex whole word without a literal, over CRLF",
			files:   []fixture{{"a.go", "12 345x 6\r\n78\r\n"}},
			pattern: `\d+`,
			opts:    Options{Regex: true, WholeWord: true},
			want:    []string{"a.go:1:1-3", "a.go:1:9-10", "a.go:2:1-3"},
		},
		{
			name:    "regex that is a literal",
			files:   []fixture{{"a.go", "io.ReadFull(r) ioXReadFull"}},
			pattern: `io\.ReadFull`,
			opts:    Options{Regex: true},
			want:    []string{"a.go:1:1-12"},
		},
		{
			name:    "regex character class without \\n",
			files:   []fixture{{"a.txt", "x\ny"}},
			pattern: `[\n\t]?x|[^q]y`,
			opts:    Options{Regex: true},
			want:    []string{"a.txt:1:1-2"},
		},
		{
			name:    "invalid UTF-8 in the file",
			files:   []fixture{{"a.txt", "\xff\xfefoo\xe2\x82 foo"}},
			pattern: "foo",
			want:    []string{"a.txt:1:3-6", "a.txt:1:9-12"},
		},
		{
			name:    "no files",
			pattern: "foo",
			want:    []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := writeFiles(t, tc.files...)
			res, err := Search(context.Background(), files, tc.pattern, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := brief(res.Matches); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("matches\n got %q\nwant %q", got, tc.want)
			}
			if res.Total != len(tc.want) || res.Truncated || res.FilesSearched != len(files) || res.ErrorCount != 0 {
				t.Errorf("Total %d Truncated %v FilesSearched %d ErrorCount %d; want %d false %d 0",
					res.Total, res.Truncated, res.FilesSearched, res.ErrorCount, len(tc.want), len(files))
			}
			matched := map[string]bool{}
			for _, m := range res.Matches {
				matched[m.Path] = true
			}
			if res.FilesMatched != len(matched) {
				t.Errorf("FilesMatched = %d, want %d", res.FilesMatched, len(matched))
			}
		})
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x", 500) + " needle " + strings.Repeat("y", 500)
	files := writeFiles(t,
		fixture{"a.txt", "\t\t  return needle  \r\n"},
		fixture{"b.txt", long},
		fixture{"c.txt", "\xff needle \xfe"},
		fixture{"d.txt", strings.Repeat("é", 300) + "needle" + strings.Repeat("日", 300)},
		fixture{"e.txt", "\t\tx"},
	)
	res, err := Search(context.Background(), files, "needle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := Search(context.Background(), files[4:], `^\t+`, Options{Regex: true})
	if err != nil {
		t.Fatal(err)
	}
	got := append(res.Matches, res2.Matches...)
	for i, check := range []func(string) bool{
		func(s string) bool { return s == "return needle" },
		func(s string) bool {
			return strings.HasPrefix(s, "…x") && strings.HasSuffix(s, "y…") && strings.Contains(s, " needle ") && len(s) <= snippetLen+2*len("…")
		},
		func(s string) bool { return s == "\uFFFD needle \uFFFD" },
		func(s string) bool {
			return strings.HasPrefix(s, "…é") && strings.HasSuffix(s, "日…") && strings.Contains(s, "needle") && len(s) <= snippetLen+2*len("…")
		},
		func(s string) bool { return s == "\t\tx" },
	} {
		if i >= len(got) {
			t.Fatalf("only %d matches", len(got))
		}
		if s := got[i].Text; !check(s) || !utf8.ValidString(s) {
			t.Errorf("%s: Text = %q", got[i].Path, s)
		}
	}
}

func TestOverlay(t *testing.T) {
	files := writeFiles(t, fixture{"a.go", "foo on disk\n"}, fixture{"b.go", "foo on disk\n"})
	files = append(files, File{Path: "unsaved.go"}) // no file on disk
	overlay := func(path string) ([]byte, bool) {
		switch path {
		case "a.go":
			return []byte("edited\n\nfoo foo"), true
		case "unsaved.go":
			return []byte("foo"), true
		}
		return nil, false
	}
	res, err := Search(context.Background(), files, "foo", Options{Overlay: overlay})
	if err != nil {
		t.Fatal(err)
	}
	want := "a.go:3:1-4 a.go:3:5-8 b.go:1:1-4 unsaved.go:1:1-4"
	if got := strings.Join(brief(res.Matches), " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if res.Matches[0].Text != "foo foo" {
		t.Errorf("Text = %q, want the overlay's line", res.Matches[0].Text)
	}
}

func TestSkippedAndUnreadable(t *testing.T) {
	bin := "foo\x00foo\n"
	lateNUL := strings.Repeat("a", binaryPrefix) + "\x00 foo"
	files := writeFiles(t,
		fixture{"bin.dat", bin},
		fixture{"late.txt", lateNUL},
		fixture{"ok.txt", "foo"},
		fixture{"big.txt", strings.Repeat("foo\n", 2500)},
		fixture{"dir/x.txt", "foo"},
	)
	dir := filepath.Dir(files[4].Abs)
	files = append(files,
		File{Path: "missing.txt", Abs: filepath.Join(dir, "missing.txt")},
		File{Path: "dir", Abs: dir},
		File{Path: "noabs.txt"},
	)
	if os.Geteuid() != 0 { // root reads anything
		locked := writeFiles(t, fixture{"locked.txt", "foo"})[0]
		if err := os.Chmod(locked.Abs, 0); err != nil {
			t.Fatal(err)
		}
		files = append(files, locked)
	}
	res, err := Search(context.Background(), files, "foo", Options{MaxFileSize: 9000})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(brief(res.Matches), " "), "late.txt:1:8003-8006 ok.txt:1:1-4 dir/x.txt:1:1-4"; got != want {
		t.Errorf("matches %s, want %s", got, want)
	}
	wantErrs := []string{"big.txt: skipped: file too large", "missing.txt: open ", "dir: not a regular file", "noabs.txt: no file name"}
	if os.Geteuid() != 0 {
		wantErrs = append(wantErrs, "locked.txt: open ")
	}
	if res.ErrorCount != len(wantErrs) || len(res.Errors) != len(wantErrs) {
		t.Fatalf("Errors = %q (count %d), want %d", res.Errors, res.ErrorCount, len(wantErrs))
	}
	for i, want := range wantErrs {
		if !strings.HasPrefix(res.Errors[i], want) {
			t.Errorf("Errors[%d] = %q, want prefix %q", i, res.Errors[i], want)
		}
	}
	if res.FilesSearched != 3 || res.FilesSkipped != 2 || res.FilesMatched != 3 {
		t.Errorf("searched %d skipped %d matched %d, want 3 2 3", res.FilesSearched, res.FilesSkipped, res.FilesMatched)
	}
}

func TestErrorsCapped(t *testing.T) {
	var files []File
	for i := range MaxErrors + 20 {
		files = append(files, File{Path: fmt.Sprint(i), Abs: filepath.Join(t.TempDir(), "missing")})
	}
	res, err := Search(context.Background(), files, "foo", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != MaxErrors || res.ErrorCount != len(files) {
		t.Errorf("%d errors kept, count %d; want %d, %d", len(res.Errors), res.ErrorCount, MaxErrors, len(files))
	}
}

func TestMaxMatchesAndOrder(t *testing.T) {
	var fixtures []fixture
	for i := range 300 {
		n := i % 7
		fixtures = append(fixtures, fixture{fmt.Sprintf("f%03d.txt", i), strings.Repeat("x hit hit\n", n)})
	}
	files := writeFiles(t, fixtures...)
	all, err := Search(context.Background(), files, "hit", Options{MaxMatches: 1 << 20, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max, workers, kept int
	}{
		{0, 0, min(all.Total, DefaultMaxMatches)},
		{50, 1, 50},
		{50, 8, 50},
		{1000, 3, 1000},
		{-1, 4, 0},
		{1 << 20, 16, all.Total},
	} {
		t.Run(fmt.Sprintf("max=%d,workers=%d", tc.max, tc.workers), func(t *testing.T) {
			res, err := Search(context.Background(), files, "hit", Options{MaxMatches: tc.max, Workers: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) != tc.kept || res.Total != all.Total || res.Truncated != (tc.kept < all.Total) {
				t.Fatalf("kept %d of %d (truncated %v), want %d of %d", len(res.Matches), res.Total, res.Truncated, tc.kept, all.Total)
			}
			for i, m := range res.Matches {
				if m != all.Matches[i] {
					t.Fatalf("match %d = %+v, want %+v", i, m, all.Matches[i])
				}
			}
			if res.FilesMatched != all.FilesMatched || res.FilesSearched != len(files) {
				t.Errorf("FilesMatched %d FilesSearched %d, want %d %d", res.FilesMatched, res.FilesSearched, all.FilesMatched, len(files))
			}
		})
	}
}

func TestHugeLine(t *testing.T) {
	// Many matches on one long line must not take time quadratic in it.
	line := strings.Repeat("ab ", 300000)
	files := writeFiles(t, fixture{"a.txt", "  " + line + "\nab"})
	for _, opts := range []Options{{}, {Regex: true}, {Regex: true, WholeWord: true}} {
		res, err := Search(context.Background(), files, "ab", opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 300001 || len(res.Matches) != DefaultMaxMatches || res.Matches[9999].Column != 3+3*9999 {
			t.Errorf("%+v: Total %d, kept %d", opts, res.Total, len(res.Matches))
		}
	}
}

func TestCancel(t *testing.T) {
	var fixtures []fixture
	for i := range 2000 {
		fixtures = append(fixtures, fixture{fmt.Sprintf("f%04d.txt", i), "foo\n"})
	}
	files := writeFiles(t, fixtures...)

	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := Search(ctx, files, "foo", Options{})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("got %v, %v; want context.Canceled", res, err)
		}
	})
	t.Run("during", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var (
			mu           sync.Mutex
			calls, after int
		)
		overlay := func(path string) ([]byte, bool) {
			// Workers call this concurrently: only count under a lock.
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls == 100 {
				cancel()
			}
			if calls > 100 {
				after++
			}
			return nil, false
		}
		res, err := Search(ctx, files, "foo", Options{Overlay: overlay, Workers: 4})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("got %v, %v; want context.Canceled", res, err)
		}
		if after > 8 {
			t.Errorf("%d files were read after the cancellation", after)
		}
	})
}

func TestBadPatterns(t *testing.T) {
	files := writeFiles(t, fixture{"a.txt", "foo"})
	for _, tc := range []struct {
		pattern string
		regex   bool
		want    string
	}{
		{"", false, "empty pattern"},
		{"", true, "empty pattern"},
		{strings.Repeat("a", MaxPatternLen+1), false, "pattern is 1001 bytes long, over the limit of 1000"},
		{"\xff", false, "not valid UTF-8"},
		{"a\nb", false, "line break"},
		{`a\nb`, true, "line break"},
		{"(", true, `invalid regular expression "(": missing closing )`},
		{"a(b", true, `invalid regular expression "a(b": missing closing )`},
		{"ab[c", true, `invalid regular expression "ab[c": missing closing ] in "[c"`},
		{"x**", true, `invalid regular expression "x**": invalid nested repetition operator in "**"`},
		{`\p{Nope}`, true, `invalid character class range`},
		{"a{1001}", true, "invalid repeat count"},
		{"(?<", true, "invalid or unsupported Perl syntax"},
		{"a*", true, "can match the empty string"},
		{"^", true, "can match the empty string"},
		{`\b`, true, "can match the empty string"},
		{"(|x)", true, "can match the empty string"},
		{"^$", true, "can match the empty string"},
		{"x{0,3}", true, "can match the empty string"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			res, err := Search(context.Background(), files, tc.pattern, Options{Regex: tc.regex})
			var pe *PatternError
			if res != nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want a *PatternError containing %q", res, err, tc.want)
			}
			if tc.regex && strings.HasPrefix(tc.want, "invalid") {
				var se *syntax.Error
				if !errors.As(err, &se) {
					t.Errorf("%v does not wrap a *syntax.Error", err)
				}
			}
		})
	}
}

func TestLowerASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 100 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.UintN(256))
		}
		got := make([]byte, n)
		lowerASCII(got, src)
		var want []byte
		for _, c := range src {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want = append(want, c)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("lowerASCII(%q) = %q, want %q", src, got, want)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	got := make([]byte, 256)
	lowerASCII(got, all)
	for i, c := range got {
		want := byte(i)
		if 'A' <= want && want <= 'Z' {
			want += 'a' - 'A'
		}
		if c != want {
			t.Errorf("byte %#x lowered to %#x, want %#x", i, c, want)
		}
	}
}

func TestFinder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(" eEetTtT\tab*)R\n")
	for range 5000 {
		text := make([]byte, rng.IntN(400))
		for i := range text {
			text[i] = alphabet[rng.IntN(len(alphabet))]
		}
		needle := make([]byte, 1+rng.IntN(4))
		for i := range needle {
			needle[i] = alphabet[rng.IntN(len(alphabet))]
		}
		fold := rng.IntN(2) == 0
		hay := text
		if fold {
			lowerASCII(needle, needle)
			hay = make([]byte, len(text))
			lowerASCII(hay, text)
		}
		// Every non-overlapping occurrence, as the scanners ask for them.
		var want, got []int
		for p := 0; ; {
			i := bytes.Index(hay[p:], needle)
			if i < 0 {
				break
			}
			want = append(want, p+i)
			p += i + len(needle)
		}
		var lower []byte
		f := newFinder(text, needle, fold, &lower)
		for p := 0; ; {
			i := f.next(p)
			if i < 0 {
				break
			}
			got = append(got, i)
			p = i + len(needle)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("finder(%q, fold=%v) in %q: %v, want %v", needle, fold, text, got, want)
		}
	}
}

func TestFoldSafe(t *testing.T) {
	for r := rune(0); r < 0x300; r++ {
		want := r < utf8.RuneSelf && !strings.ContainsRune("kKsS", r)
		if got := foldSafe(r); got != want {
			t.Errorf("foldSafe(%q) = %v, want %v", r, got, want)
		}
	}
}

func TestRegexHasUpper(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{`foo`, false},
		{`Foo`, true},
		{`\S+\W\D\B`, false},
		{`\p{Lu}\PL\pN`, false},
		{`\x{4A}\x4A`, false},
		{`(?P<Name>x)(?<Other>y)`, false},
		{`\QAbc\E`, true},
		{`\Qabc`, false},
		{`[A-Z]`, true},
		{`é`, false},
		{`É`, true},
		{`\`, false},
	} {
		if got := regexHasUpper(tc.pattern); got != tc.want {
			t.Errorf("regexHasUpper(%q) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}
