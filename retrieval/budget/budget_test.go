package budget

import (
	"fmt"
	"go/build"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// runeCounter counts one token per character. It has no PrefixLen, so
// Truncate searches with Count.
var runeCounter = CounterFunc(utf8.RuneCountInString)

// wordCounter counts one token per space-separated field, and is not
// monotonic in the prefix (a cut word still counts one).
var wordCounter = CounterFunc(func(s string) int { return len(strings.Fields(s)) })

func TestEstimate(t *testing.T) {
	// cl100k is the count of OpenAI's cl100k_base tokenizer, slack how
	// far the estimate may be from it.
	tests := []struct {
		name          string
		text          string
		cl100k, slack int
	}{
		{"empty", "", 0, 0},
		{"prose", "hello world", 2, 0},
		{"contraction and digits", "It's 12345 items", 6, 0},
		{"marker", "… [truncated: 12 of 345 tokens shown]", 13, 0},
		{"russian", "Привет, мир", 6, 1},
		{"go assignment", "x := y\n", 4, 1},
		{"go statement", "\treturn nil, fmt.Errorf(\"find user %s: %w\", id, err)", 18, 2},
		{"go signature", "func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {", 22, 3},
		{"japanese", "日本語のテキストです。", 10, 4},
		{"long identifier", "getEffectiveTypeParameterDeclarations", 6, 2},
		{"invalid utf-8", "a\xffb\xe2\x82", 4, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Estimate(tt.text)
			if got < tt.cl100k-tt.slack || got > tt.cl100k+tt.slack {
				t.Errorf("Estimate(%q) = %d, want %d±%d", tt.text, got, tt.cl100k, tt.slack)
			}
			if c := (Estimator{}).Count(tt.text); c != got {
				t.Errorf("Estimator.Count = %d, Estimate = %d", c, got)
			}
		})
	}
}

func TestEstimateContentAware(t *testing.T) {
	// The same number of characters costs more as code than as prose,
	// and more again as Chinese.
	prose := strings.Repeat("the quick brown fox jumps over the lazy dog and ", 20)
	code := strings.Repeat("if (x[i]!=y){z+=1;}\n", 48)
	cjk := strings.Repeat("中文文本的估计", 45)
	perToken := func(s string) float64 { return float64(utf8.RuneCountInString(s)) / float64(Estimate(s)) }
	pr, co, zh := perToken(prose), perToken(code), perToken(cjk)
	t.Logf("characters per token: prose %.2f, code %.2f, Chinese %.2f", pr, co, zh)
	if !(pr > co && co > zh) {
		t.Errorf("characters per token: prose %.2f, code %.2f, Chinese %.2f; want decreasing", pr, co, zh)
	}
}

func TestEstimatorPrefixLen(t *testing.T) {
	text := "package main\n\nfunc main() {\n\tprintln(\"héllo, 世界\")\n}\n"
	total := Estimate(text)
	var e Estimator
	prev := 0
	for n := 0; n <= total+1; n++ {
		p := e.PrefixLen(text, n)
		if p < prev {
			t.Errorf("PrefixLen(%d) = %d < PrefixLen(%d) = %d", n, p, n-1, prev)
		}
		if got := Estimate(text[:p]); got > n {
			t.Errorf("PrefixLen(%d) = %d: the prefix %q estimates %d tokens", n, p, text[:p], got)
		}
		if !utf8.ValidString(text[:p]) {
			t.Errorf("PrefixLen(%d) = %d splits a character", n, p)
		}
		prev = p
	}
	if p := e.PrefixLen(text, total); p != len(text) {
		t.Errorf("PrefixLen(Estimate) = %d, want the whole text (%d)", p, len(text))
	}
}

func TestTruncate(t *testing.T) {
	lines := "alpha beta\ngamma delta\nepsilon zeta\neta theta\niota kappa\nlambda mu\n" // 12 words
	var numbered []string
	for i := 1; i <= 20; i++ {
		numbered = append(numbered, fmt.Sprint("w", i))
	}
	line := strings.Join(numbered, " ") // 20 words
	tests := []struct {
		name          string
		text          string
		max           int
		c             Counter
		want          string
		wantTruncated bool
	}{
		{"no limit", lines, 0, runeCounter, lines, false},
		{"negative is no limit", lines, -5, runeCounter, lines, false},
		{"fits exactly", lines, utf8.RuneCountInString(lines), runeCounter, lines, false},
		{"empty", "", 3, runeCounter, "", false},
		// The marker line counts 7 words: 10 leave room for 3, and the
		// cut moves back to the end of the first line.
		{"at a line", lines, 10, wordCounter, "alpha beta\n… [truncated: 2 of 12 tokens shown]", true},
		{"marker only", lines, 7, wordCounter, "… [truncated: 0 of 12 tokens shown]", true},
		{"short marker", lines, 3, wordCounter, "…", true},
		{"nothing fits", "abc", 1, CounterFunc(func(s string) int { return len(s) }), "", true},
		{"within a line at a word", line, 12, wordCounter, "w1 w2 w3 w4 w5\n… [truncated: 5 of 20 tokens shown]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := Truncate(tt.text, tt.max, tt.c)
			if got != tt.want || truncated != tt.wantTruncated {
				t.Errorf("Truncate(%q, %d) = %q, %v; want %q, %v", tt.text, tt.max, got, truncated, tt.want, tt.wantTruncated)
			}
		})
	}
}

func TestTruncateNilCounterEstimates(t *testing.T) {
	text := strings.Repeat("func f() { return g(x, y) }\n", 50)
	got, truncated := Truncate(text, 40, nil)
	if !truncated || Estimate(got) > 40 || !strings.Contains(got, "… [truncated: ") {
		t.Errorf("Truncate(nil counter) = %q (%d tokens), %v", got, Estimate(got), truncated)
	}
	if !strings.HasPrefix(got, "func f() { return g(x, y) }\n") {
		t.Errorf("Truncate did not keep whole lines: %q", got)
	}
}

// fragments make random texts: code, prose, other scripts, combining
// marks, emoji and bytes that are not UTF-8.
var fragments = []string{
	"func (r *Repo) FindByID(ctx context.Context, id string) (*User, error) {\n",
	"\treturn nil, fmt.Errorf(\"find %s: %w\", id, err)\n", "}\n", "\n\n", "    ", "\t\t",
	"def load(self, path: str) -> None:\n", "    # a comment about things\n",
	"export const cache = new Map<string, number>();\n", "The quick brown fox ", "jumps. ",
	"日本語のテキスト", "中文", "한국어 ", "Привет ", "e\u0301", "👩‍💻", "🙂", "…",
	"\xff", "\xe2\x82", "\xc3", "\x80\x80", "12345", "=======", "getEffectiveTypeParameterDeclarations",
	"\r\n", "'s", " ", "x",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(60); n > 0; n-- {
		f := fragments[r.IntN(len(fragments))]
		if r.IntN(10) == 0 && len(f) > 1 {
			// Cut a fragment anywhere, even inside a character.
			f = f[:r.IntN(len(f))]
		}
		b.WriteString(f)
	}
	return b.String()
}

// checkTruncate reports what is wrong with out, truncated =
// Truncate(text, max, c).
func checkTruncate(text string, max int, c Counter, out string, truncated bool) error {
	if max <= 0 {
		if out != text || truncated {
			return fmt.Errorf("no limit, got %q, %v", out, truncated)
		}
		return nil
	}
	if n := c.Count(out); n > max {
		return fmt.Errorf("%q counts %d tokens, over the budget", out, n)
	}
	if !truncated {
		if out != text {
			return fmt.Errorf("not truncated but changed: %q", out)
		}
		if c.Count(text) > max {
			return fmt.Errorf("text counts %d tokens, not truncated", c.Count(text))
		}
		return nil
	}
	if out == "" || out == shortMarker {
		return nil
	}
	i := strings.LastIndex(out, "… [truncated: ")
	if i < 0 || !strings.HasSuffix(out, " tokens shown]") {
		return fmt.Errorf("truncated text has no marker line: %q", out)
	}
	kept := strings.TrimSuffix(out[:i], "\n")
	if !strings.HasPrefix(text, kept) && !strings.HasPrefix(text, out[:i]) {
		return fmt.Errorf("kept %q is not a prefix of the text", kept)
	}
	var shown, total int
	if _, err := fmt.Sscanf(out[i:], "… [truncated: %d of %d tokens shown]", &shown, &total); err != nil {
		return fmt.Errorf("marker %q: %v", out[i:], err)
	}
	if total != c.Count(text) || shown != c.Count(out[:i]) && shown != c.Count(kept) {
		return fmt.Errorf("marker %q, want %d of %d", out[i:], c.Count(kept), c.Count(text))
	}
	if !runePrefix(out[:i], text) {
		return fmt.Errorf("the cut after %q splits a character", out[:i])
	}
	return nil
}

// runePrefix reports whether the characters of prefix (decoded as UTF-8,
// a byte that is not UTF-8 being a character of its own) are the first
// characters of text: the cut between them splits no character.
func runePrefix(prefix, text string) bool {
	if !strings.HasPrefix(text, prefix) {
		// A line break added before the marker.
		prefix = strings.TrimSuffix(prefix, "\n")
		if !strings.HasPrefix(text, prefix) {
			return false
		}
	}
	for i := 0; i < len(prefix); {
		_, w := utf8.DecodeRuneInString(text[i:])
		if i+w > len(prefix) {
			return false
		}
		i += w
	}
	return true
}

func TestTruncateProperties(t *testing.T) {
	counters := map[string]Counter{"estimator": Estimator{}, "runes": runeCounter, "words": wordCounter}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		text := randomText(r)
		max := r.IntN(200) - 5
		for name, c := range counters {
			out, truncated := Truncate(text, max, c)
			if err := checkTruncate(text, max, c, out, truncated); err != nil {
				t.Fatalf("%s: Truncate(%q, %d): %v", name, text, max, err)
			}
		}
	}
}

func TestTruncateRuneSafety(t *testing.T) {
	texts := []string{
		strings.Repeat("世界", 40),
		strings.Repeat("👩‍💻🙂", 20),
		strings.Repeat("e\u0301", 50),
		strings.Repeat("\xff\xe2\x82\xc3", 30),
		strings.Repeat("a\xe2\x82\xacb\xf0\x9f\x99", 25),
	}
	for _, text := range texts {
		for max := 1; max <= 60; max++ {
			for name, c := range map[string]Counter{"estimator": Estimator{}, "runes": runeCounter} {
				out, truncated := Truncate(text, max, c)
				if err := checkTruncate(text, max, c, out, truncated); err != nil {
					t.Errorf("%s: Truncate(%q, %d): %v", name, text, max, err)
				}
			}
		}
	}
}

func TestFloorRune(t *testing.T) {
	s := "a€\xffb\xe2\x82c" // a, € (3 bytes), \xff, b, \xe2, \x82, c
	tests := []struct{ i, want int }{
		{-1, 0}, {0, 0}, {1, 1}, {2, 1}, {3, 1}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}, {100, 9},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.i), func(t *testing.T) {
			if got := floorRune(s, tt.i); got != tt.want {
				t.Errorf("floorRune(%q, %d) = %d, want %d", s, tt.i, got, tt.want)
			}
		})
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("alpha beta\ngamma delta\n", 3)
	f.Add("日本語のテキストです。\n", 2)
	f.Add("a\xffb\xe2\x82c", 1)
	f.Add(strings.Repeat("x", 500), 7)
	f.Fuzz(func(t *testing.T, text string, max int) {
		max %= 1000
		for name, c := range map[string]Counter{"estimator": Estimator{}, "runes": runeCounter, "words": wordCounter} {
			out, truncated := Truncate(text, max, c)
			if err := checkTruncate(text, max, c, out, truncated); err != nil {
				t.Fatalf("%s: Truncate(%q, %d): %v", name, text, max, err)
			}
		}
	})
}

func TestFit(t *testing.T) {
	// Each word is a token.
	items := func(texts ...string) []Item {
		out := make([]Item, len(texts))
		for i, s := range texts {
			out[i] = Item{Text: s}
		}
		return out
	}
	words := func(n int) string { return strings.TrimSuffix(strings.Repeat("word ", n), " ") }
	long := words(60)
	tests := []struct {
		name        string
		items       []Item
		budget      int
		wantTexts   []string
		wantTokens  []int
		wantCut     []bool
		wantDropped int
	}{
		{"no limit", items("a b", "c d e"), 0, []string{"a b", "c d e"}, []int{2, 3}, []bool{false, false}, 0},
		{"all fit", items("a b", "c d e"), 5, []string{"a b", "c d e"}, []int{2, 3}, []bool{false, false}, 0},
		{"empty", nil, 10, []string{}, []int{}, []bool{}, 0},
		{"rest too small to cut", items("a b", long, "c"), 10, []string{"a b"}, []int{2}, []bool{false}, 2},
		{"later items dropped", items("a b", long, "c", "d"), 32,
			[]string{"a b", words(23) + "\n… [truncated: 23 of 60 tokens shown]"}, []int{2, 30}, []bool{false, true}, 2},
		{"first item always cut", items(long, "c"), 12,
			[]string{words(5) + "\n… [truncated: 5 of 60 tokens shown]"}, []int{12}, []bool{true}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]Item(nil), tt.items...)
			kept, dropped := Fit(tt.items, tt.budget, wordCounter)
			if dropped != tt.wantDropped || len(kept) != len(tt.wantTexts) {
				t.Fatalf("Fit kept %d, dropped %d; want %d, %d: %+v", len(kept), dropped, len(tt.wantTexts), tt.wantDropped, kept)
			}
			sum := 0
			for i, it := range kept {
				if it.Text != tt.wantTexts[i] || it.Tokens != tt.wantTokens[i] || it.Truncated != tt.wantCut[i] {
					t.Errorf("kept[%d] = %+v, want %q, %d tokens, truncated %v", i, it, tt.wantTexts[i], tt.wantTokens[i], tt.wantCut[i])
				}
				sum += it.Tokens
			}
			if tt.budget > 0 && sum > tt.budget {
				t.Errorf("kept %d tokens, over the budget %d", sum, tt.budget)
			}
			for i := range before {
				if tt.items[i] != before[i] {
					t.Errorf("Fit modified items[%d]: %+v", i, tt.items[i])
				}
			}
		})
	}
}

func TestFitEstimator(t *testing.T) {
	src := goSource(t, "strings", "strings.go")
	var items []Item
	for chunk := range strings.SplitSeq(src, "\n\n") {
		items = append(items, Item{Text: chunk})
	}
	for _, budget := range []int{25, 100, 700, 2000} {
		kept, dropped := Fit(items, budget, nil)
		sum := 0
		for _, it := range kept {
			sum += it.Tokens
			if it.Tokens != Estimate(it.Text) {
				t.Errorf("Tokens = %d, Estimate = %d", it.Tokens, Estimate(it.Text))
			}
		}
		if sum > budget || len(kept)+dropped != len(items) || len(kept) == 0 {
			t.Errorf("budget %d: kept %d items, %d tokens, dropped %d of %d", budget, len(kept), sum, dropped, len(items))
		}
		if budget-sum >= MinTruncated && dropped > 0 && !kept[len(kept)-1].Truncated {
			t.Errorf("budget %d: %d tokens left but the next item was not cut in", budget, budget-sum)
		}
	}
}

// goSource returns a file of the Go distribution's sources.
func goSource(tb testing.TB, elem ...string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{build.Default.GOROOT, "src"}, elem...)...))
	if err != nil {
		tb.Skipf("Go sources not available: %v", err)
	}
	return string(b)
}

func BenchmarkEstimate(b *testing.B) {
	src := goSource(b, "strings", "strings.go")
	for _, size := range []int{2 << 10, len(src)} {
		text := src[:size]
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Estimate(text)
			}
		})
	}
}

func BenchmarkTruncate(b *testing.B) {
	src := goSource(b, "strings", "strings.go")
	for _, c := range []struct {
		name string
		c    Counter
	}{{"estimator", Estimator{}}, {"runes", runeCounter}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Truncate(src, 500, c.c)
			}
		})
	}
}
