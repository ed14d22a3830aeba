package bpe_test

import (
	"fmt"
	"go/build"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/anchorage-dev/anchorage/retrieval/budget"
	"github.com/anchorage-dev/anchorage/retrieval/budget/bpe"
)

var _ budget.PrefixCounter = (*bpe.Tokenizer)(nil)

// load returns a tokenizer of enc, failing the test if it cannot load.
func load(tb testing.TB, enc bpe.Encoding) *bpe.Tokenizer {
	tb.Helper()
	tk, err := bpe.New(enc)
	if err != nil {
		tb.Fatal(err)
	}
	if tk.Encoding() != enc {
		tb.Fatalf("Encoding() = %s, want %s", tk.Encoding(), enc)
	}
	return tk
}

func TestNewUnknownEncoding(t *testing.T) {
	_, err := bpe.New("p50k_base")
	if err == nil || !strings.Contains(err.Error(), `unknown encoding "p50k_base"`) {
		t.Errorf("New(p50k_base) error = %v, want unknown encoding", err)
	}
}

func TestCount(t *testing.T) {
	// Counts published with OpenAI's tiktoken, or read off its output.
	tests := []struct {
		enc  bpe.Encoding
		text string
		want int
	}{
		{bpe.CL100K, "", 0},
		{bpe.CL100K, "hello world", 2},
		{bpe.CL100K, "tiktoken is great!", 6},
		{bpe.CL100K, "It's 12345 items", 6},
		{bpe.CL100K, "\treturn nil, fmt.Errorf(\"find user %s: %w\", id, err)", 18},
		{bpe.CL100K, "日本語のテキストです。", 10},
		// A special token is counted as the text it is spelled with.
		{bpe.CL100K, "<|endoftext|>", 7},
		{bpe.O200K, "hello world", 2},
	}
	tks := map[bpe.Encoding]*bpe.Tokenizer{bpe.CL100K: load(t, bpe.CL100K), bpe.O200K: load(t, bpe.O200K)}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %q", tt.enc, tt.text), func(t *testing.T) {
			if got := tks[tt.enc].Count(tt.text); got != tt.want {
				t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

// TestSameAsLibrary checks the patterns copied into this package against
// the library's own encodings (which this package does not use, to leave
// the library's global loader alone).
func TestSameAsLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("tokenizes files twice")
	}
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	texts := append(goFiles(t, 10), readFile(t, "testdata/cjk.txt"), "a\xffb\xe2\x82 <|endoftext|> 'S 'LL ...\r\n\r\n")
	for _, enc := range []bpe.Encoding{bpe.CL100K, bpe.O200K} {
		t.Run(string(enc), func(t *testing.T) {
			lib, err := tiktoken.GetEncoding(string(enc))
			if err != nil {
				t.Fatal(err)
			}
			tk := load(t, enc)
			for i, text := range texts {
				if got, want := tk.Count(text), len(lib.EncodeOrdinary(text)); got != want {
					t.Errorf("text %d: Count = %d, library %d", i, got, want)
				}
			}
		})
	}
}

func TestPrefixLen(t *testing.T) {
	tk := load(t, bpe.CL100K)
	texts := []string{
		readFile(t, "testdata/cjk.txt")[:600],
		"package main\n\nfunc main() {\n\tprintln(\"héllo, 世界 👩‍💻\")\n}\n",
		strings.Repeat("a\xffb\xe2\x82\xacc\xf0\x9f\x99 ", 20),
	}
	for i, text := range texts {
		total := tk.Count(text)
		prev := 0
		for n := -1; n <= total+1; n++ {
			p := tk.PrefixLen(text, n)
			if n <= 0 && p != 0 {
				t.Errorf("text %d: PrefixLen(%d) = %d, want 0", i, n, p)
			}
			if p < prev {
				t.Errorf("text %d: PrefixLen(%d) = %d < PrefixLen(%d) = %d", i, n, p, n-1, prev)
			}
			// A prefix may tokenize a little differently from the whole.
			if got := tk.Count(text[:p]); n > 0 && got > n+2 {
				t.Errorf("text %d: PrefixLen(%d) = %d, whose text counts %d tokens", i, n, p, got)
			}
			if !runeBoundary(text, p) {
				t.Errorf("text %d: PrefixLen(%d) = %d splits a character", i, n, p)
			}
			prev = p
		}
		if p := tk.PrefixLen(text, total); p != len(text) {
			t.Errorf("text %d: PrefixLen(Count) = %d, want %d", i, p, len(text))
		}
		// The prefix of 3/4 of the tokens is about 3/4 of the text.
		if p := tk.PrefixLen(text, total*3/4); p < len(text)/2 || p == len(text) {
			t.Errorf("text %d: PrefixLen(%d of %d) = %d of %d bytes", i, total*3/4, total, p, len(text))
		}
	}
}

// runeBoundary reports whether i falls between two characters of s, a
// byte that is not UTF-8 being a character of its own.
func runeBoundary(s string, i int) bool {
	for j := 0; j < i; {
		_, w := utf8.DecodeRuneInString(s[j:])
		if j+w > i {
			return false
		}
		j += w
	}
	return true
}

func TestTruncateExact(t *testing.T) {
	tk := load(t, bpe.CL100K)
	r := rand.New(rand.NewPCG(3, 4))
	src := strings.Join(goFiles(t, 5), "\n")
	cjk := readFile(t, "testdata/cjk.txt")
	for i := 0; i < 300; i++ {
		var text string
		switch i % 3 {
		case 0:
			start := r.IntN(len(src) - 4000)
			text = src[start : start+r.IntN(4000)]
		case 1:
			text = cjk[:r.IntN(len(cjk))]
		default:
			text = src[:200] + "\xff\xe2\x82" + cjk[:300]
		}
		max := 1 + r.IntN(400)
		out, truncated := budget.Truncate(text, max, tk)
		n := tk.Count(out)
		switch {
		case n > max:
			t.Fatalf("Truncate(%q, %d) = %q: %d tokens", text, max, out, n)
		case truncated != (tk.Count(text) > max):
			t.Fatalf("Truncate(%d tokens, %d): truncated = %v", tk.Count(text), max, truncated)
		case !truncated && out != text:
			t.Fatalf("Truncate changed a text that fits")
		case truncated && max >= 20 && !strings.Contains(out, "… [truncated: "):
			t.Fatalf("Truncate(%q, %d) = %q: no marker", text, max, out)
		case truncated && max >= 100 && i%3 == 0 && n < max*3/4:
			// Go has short lines: cutting at the end of one wastes
			// little of the budget.
			t.Errorf("Truncate(%d tokens of Go, %d) kept only %d tokens", tk.Count(text), max, n)
		case truncated && max >= 100 && n < max/3:
			t.Errorf("Truncate(%d tokens, %d) kept only %d tokens", tk.Count(text), max, n)
		}
	}
}

func TestConcurrentCount(t *testing.T) {
	tk := load(t, bpe.CL100K)
	texts := goFiles(t, 8)
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = tk.Count(s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(texts))
	for range 8 {
		wg.Go(func() {
			for i, s := range texts {
				if got := tk.Count(s); got != want[i] {
					errs <- fmt.Errorf("text %d: %d tokens, then %d", i, want[i], got)
				}
				if p := tk.PrefixLen(s, 50); p <= 0 || p >= len(s) {
					errs <- fmt.Errorf("text %d: PrefixLen(50) = %d", i, p)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestEstimatorError measures budget.Estimator against cl100k_base: the
// mean absolute error per file, in percent, of each corpus.
func TestEstimatorError(t *testing.T) {
	if testing.Short() {
		t.Skip("reads many files")
	}
	tk := load(t, bpe.CL100K)
	goroot := build.Default.GOROOT
	python, _ := filepath.Glob("/usr/lib/python3*/*.py")
	slices.Sort(python)
	tests := []struct {
		name  string
		files []string
		max   float64 // percent; 0 to only report
	}{
		{"Go (GOROOT/src)", sample(walk(t, filepath.Join(goroot, "src"), ".go"), 80), 6},
		{"Python (standard library)", sample(python, 25), 5},
		{"sample workspace (Go, Python, TS, JS, Rust, Java)", walk(t, filepath.Join("..", "..", "..", "testdata", "sampleapp"), ".go", ".py", ".ts", ".tsx", ".js", ".rs", ".java"), 10},
		{"TypeScript (sample workspace)", walk(t, filepath.Join("..", "..", "..", "testdata", "sampleapp"), ".ts", ".tsx"), 12},
		{"English Markdown (GOROOT)", walk(t, goroot, ".md"), 8},
		{"Chinese, Japanese, Korean", []string{"testdata/cjk.txt"}, 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, bias, n := 0.0, 0.0, 0
			for _, f := range tt.files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				exact := tk.Count(string(b))
				if exact < 50 {
					continue
				}
				rel := float64(budget.Estimate(string(b))-exact) / float64(exact)
				sum += math.Abs(rel)
				bias += rel
				n++
			}
			if n == 0 {
				t.Skip("no files")
			}
			mape, mean := 100*sum/float64(n), 100*bias/float64(n)
			t.Logf("%d files: mean absolute error %.1f%%, mean error %+.1f%%", n, mape, mean)
			if tt.max > 0 && mape > tt.max {
				t.Errorf("mean absolute error %.1f%%, want at most %.0f%%", mape, tt.max)
			}
		})
	}
}

func walk(tb testing.TB, root string, exts ...string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(p, e) }) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		tb.Skipf("walk %s: %v", root, err)
	}
	return out
}

// sample returns about n of files, spread evenly.
func sample(files []string, n int) []string {
	if len(files) <= n {
		return files
	}
	out := make([]string, n)
	for i := range out {
		out[i] = files[i*len(files)/n]
	}
	return out
}

func goFiles(tb testing.TB, n int) []string {
	tb.Helper()
	var out []string
	for _, f := range sample(walk(tb, filepath.Join(build.Default.GOROOT, "src", "net", "http"), ".go"), n) {
		out = append(out, readFile(tb, f))
	}
	return out
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// function returns the first 40 lines of a Go function.
func function(tb testing.TB) string {
	src := readFile(tb, filepath.Join(build.Default.GOROOT, "src", "strings", "strings.go"))
	i := strings.Index(src, "\nfunc genSplit")
	if i < 0 {
		tb.Skip("strings.genSplit not found")
	}
	return strings.Join(strings.SplitN(src[i+1:], "\n", 41)[:40], "\n")
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bpe.New(bpe.CL100K); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	tk := load(b, bpe.CL100K)
	src := strings.Join(goFiles(b, 200), "\n")
	for len(src) < 1<<20 {
		src += src
	}
	for _, c := range []struct {
		name string
		text string
	}{
		{"function40lines", function(b)},
		{"2KB", src[:2<<10]},
		{"1MB", src[:1<<20]},
	} {
		b.Run(c.name+"/exact", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				tk.Count(c.text)
			}
		})
		b.Run(c.name+"/estimate", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				budget.Estimate(c.text)
			}
		})
	}
}

func BenchmarkTruncate(b *testing.B) {
	tk := load(b, bpe.CL100K)
	text := strings.Join(goFiles(b, 3), "\n")[:16<<10]
	for _, c := range []struct {
		name string
		c    budget.Counter
	}{
		{"exact", tk},
		{"exact-without-PrefixLen", budget.CounterFunc(tk.Count)},
		{"estimate", budget.Estimator{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				budget.Truncate(text, 1000, c.c)
			}
		})
	}
}
