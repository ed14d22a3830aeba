package wordvec

import (
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

func load(tb testing.TB) *Model {
	tb.Helper()
	m, err := Load()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

func TestLoad(t *testing.T) {
	m := load(t)
	if m.Dims() != 100 {
		t.Errorf("Dims = %d, want 100", m.Dims())
	}
	if m.Len() < 50000 || m.Len() > 80000 {
		t.Errorf("Len = %d, want 50k..80k words", m.Len())
	}
	if !strings.HasPrefix(m.Name(), "glove-6b-100d-") {
		t.Errorf("Name = %q, want glove-6b-100d-…", m.Name())
	}
	if m.Stamp() != "wordvec:"+m.Name() {
		t.Errorf("Stamp = %q", m.Stamp())
	}
	// Frequent English, code words kept beyond the cut, and aliases.
	for _, w := range []string{"the", "database", "connection", "sqlite", "json", "config", "mutex", "goroutine", "ctx", "stdout"} {
		if m.Row(w) < 0 {
			t.Errorf("Row(%q) = -1, want the word known", w)
		}
	}
	for _, w := range []string{"", "Database", "zzqqxxyy", "co-worker", strings.Repeat("a", 100)} {
		if r := m.Row(w); r >= 0 {
			t.Errorf("Row(%q) = %d, want -1", w, r)
		}
	}
	// Rows are in order of frequency.
	if m.Word(0) != "the" || m.Rank(0) != 1 {
		t.Errorf("row 0 = %q rank %d, want \"the\" rank 1", m.Word(0), m.Rank(0))
	}
	for i := 1; i < m.Len(); i++ {
		if m.Rank(i) < m.Rank(i-1) {
			t.Fatalf("row %d (%q) has rank %d after rank %d", i, m.Word(i), m.Rank(i), m.Rank(i-1))
		}
	}
	// Every word finds its own row.
	for i := 0; i < m.Len(); i += 97 {
		if r := m.Row(m.Word(i)); r != i {
			t.Errorf("Row(%q) = %d, want %d", m.Word(i), r, i)
		}
	}
}

func TestLoadReturnsIndependentModels(t *testing.T) {
	a, b := load(t), load(t)
	if a == b {
		t.Fatal("Load returned the same *Model twice")
	}
	a.Neighbors("database", 1)
	if b.invNorms != nil {
		t.Error("computing norms on one Model filled another's")
	}
}

func TestVector(t *testing.T) {
	m := load(t)
	v, ok := m.Vector("database")
	if !ok || len(v) != m.Dims() || norm(v) < 1 {
		t.Fatalf("Vector(database) = %d values of norm %.2f, %v", len(v), norm(v), ok)
	}
	if v, ok := m.Vector("zzqqxxyy"); ok || v != nil {
		t.Errorf("Vector(zzqqxxyy) = %v, %v; want nil, false", v, ok)
	}
	// An alias has the vector of what it stands for.
	for _, pair := range [][2]string{{"cfg", "configuration"}, {"db", "database"}, {"ctx", "context"}} {
		a, _ := m.Vector(pair[0])
		b, _ := m.Vector(pair[1])
		if c := Cosine(a, b); c < 0.99 {
			t.Errorf("cos(%s, %s) = %.3f, want ≈ 1 (alias)", pair[0], pair[1], c)
		}
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"same", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"opposite", []float32{1, 0}, []float32{-2, 0}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 5}, 0},
		{"zero", []float32{0, 0}, []float32{1, 1}, 0},
		{"empty", nil, nil, 0},
		{"shorter wins", []float32{1, 0}, []float32{1, 0, 7}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-6 {
				t.Errorf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRelations checks that sentence vectors put related texts nearer
// than unrelated ones: cos(anchor, near) > cos(anchor, far).
func TestRelations(t *testing.T) {
	m := load(t)
	fn, err := os.ReadFile("testdata/func40.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		anchor, near, far string
	}{
		{"open a database connection", "connect to sqlite", "parse command line flags"},
		{"read the configuration file", "load settings from a yaml file", "draw a button on the screen"},
		{"retry failed HTTP requests", "resend the request when the server times out", "sort a list of names alphabetically"},
		{"hash the user's password", "encrypt credentials before storing them", "render the page template"},
		{"how are users loaded from the database", string(fn), "func parseFlags(args []string) (*Options, error) { fs := flag.NewFlagSet(args[0], flag.ContinueOnError) }"},
		{"lock shared state between goroutines", "mu sync.Mutex", "img := image.NewRGBA(bounds)"},
		{"write log messages to stderr", "logger.Warn(msg)", "matrix multiplication"},
		{"cfg", "configuration", "database"},
	}
	for _, tt := range tests {
		t.Run(tt.anchor, func(t *testing.T) {
			a, n, f := m.Embed(tt.anchor), m.Embed(tt.near), m.Embed(tt.far)
			cn, cf := Cosine(a, n), Cosine(a, f)
			if cn <= cf {
				t.Errorf("cos(anchor, near) = %.3f ≤ cos(anchor, far) = %.3f", cn, cf)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	m := load(t)
	zero := make([]float32, m.Dims())
	t.Run("no known word gives zero", func(t *testing.T) {
		for _, s := range []string{"", "   ", "!!!", "the of and", "func return nil", "zzqqxxyy qqzzvvww", "x y z 1 2"} {
			if got := m.Embed(s); !slices.Equal(got, zero) {
				t.Errorf("Embed(%q) is not the zero vector", s)
			}
		}
	})
	t.Run("unit length", func(t *testing.T) {
		for _, s := range []string{"database", "open a database connection", "HTTPServer", "Über database résumé"} {
			v := m.Embed(s)
			if len(v) != m.Dims() || math.Abs(norm(v)-1) > 1e-5 {
				t.Errorf("Embed(%q): %d values of norm %v, want %d of norm 1", s, len(v), norm(v), m.Dims())
			}
		}
	})
	t.Run("identifiers split like words", func(t *testing.T) {
		a, b := m.Embed("parseHTTPRequest"), m.Embed("parse http request")
		if c := Cosine(a, b); c < 0.9999 {
			t.Errorf("cos(parseHTTPRequest, parse http request) = %v, want 1", c)
		}
	})
	t.Run("case does not matter", func(t *testing.T) {
		if c := Cosine(m.Embed("DATABASE Connection"), m.Embed("database connection")); c < 0.9999 {
			t.Errorf("cos = %v, want 1", c)
		}
	})
	t.Run("stop words and noise carry no weight", func(t *testing.T) {
		a := m.Embed("the database")
		b := m.Embed("func database() { return nil }")
		c := m.Embed("database")
		if Cosine(a, c) < 0.9999 || Cosine(b, c) < 0.9999 {
			t.Errorf("cos = %v, %v; want 1", Cosine(a, c), Cosine(b, c))
		}
	})
	t.Run("whole word before its parts", func(t *testing.T) {
		// mp3 is a word of its own; sha256 is not and falls back to its
		// parts, of which the model knows sha (it has no numbers).
		if m.Row("mp3") < 0 || m.Row("sha256") >= 0 || m.Row("sha") < 0 {
			t.Fatal("the vocabulary changed: pick other words for this test")
		}
		v, _ := m.Vector("mp3")
		if c := Cosine(m.Embed("MP3"), v); c < 0.9999 {
			t.Errorf("cos(Embed(MP3), Vector(mp3)) = %v, want 1", c)
		}
		if c := Cosine(m.Embed("mp 3"), v); c > 0.9 {
			t.Errorf("cos(Embed(mp 3), Vector(mp3)) = %v: the parts look like the whole", c)
		}
		if c := Cosine(m.Embed("sha256"), m.Embed("sha")); c < 0.9999 {
			t.Errorf("cos(Embed(sha256), Embed(sha)) = %v, want 1", c)
		}
	})
	t.Run("rare words weigh more", func(t *testing.T) {
		// SIF: weight grows with rank, from ~0 for the most frequent words.
		var prev float32
		for _, w := range []string{"year", "data", "database", "sqlite"} {
			got := m.weight(m.Row(w))
			if got <= prev || got > 1 {
				t.Errorf("weight(%s) = %v, want in (%v, 1]", w, got, prev)
			}
			prev = got
		}
	})
}

func TestEmbedTerms(t *testing.T) {
	m := load(t)
	t.Run("one term of weight 1 is Embed", func(t *testing.T) {
		got := m.EmbedTerms([]Term{{Text: "open a database connection", Weight: 1}})
		if !slices.Equal(got, m.Embed("open a database connection")) {
			t.Error("EmbedTerms differs from Embed")
		}
	})
	t.Run("bad weights are left out", func(t *testing.T) {
		got := m.EmbedTerms([]Term{
			{Text: "database", Weight: 1},
			{Text: "flags", Weight: 0},
			{Text: "parser", Weight: -1},
			{Text: "screen", Weight: float32(math.NaN())},
			{Text: "button", Weight: float32(math.Inf(1))},
		})
		if c := Cosine(got, m.Embed("database")); c < 0.9999 {
			t.Errorf("cos = %v, want 1", c)
		}
	})
	t.Run("weight tilts the average", func(t *testing.T) {
		db, flags := m.Embed("database"), m.Embed("flags")
		heavy := m.EmbedTerms([]Term{{"database", 10}, {"flags", 1}})
		light := m.EmbedTerms([]Term{{"database", 1}, {"flags", 10}})
		if Cosine(heavy, db) <= Cosine(light, db) || Cosine(light, flags) <= Cosine(heavy, flags) {
			t.Errorf("weights did not tilt: heavy·db %.3f, light·db %.3f", Cosine(heavy, db), Cosine(light, db))
		}
	})
	t.Run("nothing gives zero", func(t *testing.T) {
		if got := m.EmbedTerms(nil); norm(got) != 0 || len(got) != m.Dims() {
			t.Errorf("EmbedTerms(nil) = %d values of norm %v", len(got), norm(got))
		}
	})
}

func TestNeighbors(t *testing.T) {
	m := load(t)
	t.Run("database", func(t *testing.T) {
		got := m.Neighbors("database", 10)
		if len(got) != 10 {
			t.Fatalf("got %d neighbours, want 10", len(got))
		}
		words := make([]string, len(got))
		for i, n := range got {
			words[i] = n.Word
			if n.Word == "database" {
				t.Error("the word itself is its own neighbour")
			}
			if noiseWeight(n.Word) < 1 {
				t.Errorf("neighbour %q is a stop word", n.Word)
			}
			if i > 0 && n.Cos > got[i-1].Cos {
				t.Errorf("neighbours out of order at %d: %v", i, got)
			}
		}
		if !slices.Contains(words, "databases") {
			t.Errorf("Neighbors(database) = %v, want databases among them", words)
		}
	})
	t.Run("matches exact cosine", func(t *testing.T) {
		// The integer search must find what a float search finds.
		for _, w := range []string{"sqlite", "parser", "retry"} {
			q, _ := m.Vector(w)
			var best string
			var bestCos float32 = -2
			for i := 0; i < m.Len(); i++ {
				if m.Word(i) == w || noiseWeight(m.Word(i)) < 1 {
					continue
				}
				v, _ := m.Vector(m.Word(i))
				if c := Cosine(q, v); c > bestCos {
					best, bestCos = m.Word(i), c
				}
			}
			got := m.Neighbors(w, 3)
			if len(got) == 0 || math.Abs(float64(got[0].Cos-bestCos)) > 0.01 {
				t.Fatalf("Neighbors(%s) = %v, want first %s (%.3f)", w, got, best, bestCos)
			}
			if got[0].Word != best && got[1].Cos < bestCos-0.01 {
				t.Errorf("Neighbors(%s)[0] = %v, want %s (%.3f)", w, got[0], best, bestCos)
			}
		}
	})
	t.Run("identifier", func(t *testing.T) {
		got := m.Neighbors("parseURL", 5)
		if len(got) != 5 {
			t.Fatalf("got %d neighbours, want 5", len(got))
		}
		for _, n := range got {
			if n.Word == "parse" || n.Word == "url" {
				t.Errorf("Neighbors(parseURL) contains its own part %q", n.Word)
			}
		}
	})
	t.Run("case-insensitive", func(t *testing.T) {
		if a, b := m.Neighbors("Database", 3), m.Neighbors("database", 3); !slices.Equal(a, b) {
			t.Errorf("Neighbors(Database) = %v, Neighbors(database) = %v", a, b)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		for _, tt := range []struct {
			word string
			k    int
		}{{"database", 0}, {"database", -1}, {"zzqqxxyy", 5}, {"", 5}, {"the", 0}} {
			if got := m.Neighbors(tt.word, tt.k); got != nil {
				t.Errorf("Neighbors(%q, %d) = %v, want nil", tt.word, tt.k, got)
			}
		}
		if got := m.Nearest(make([]float32, m.Dims()), 3); got != nil {
			t.Errorf("Nearest(zero) = %v, want nil", got)
		}
		if got := m.Nearest([]float32{1, 2}, 3); got != nil {
			t.Errorf("Nearest(2 values) = %v, want nil", got)
		}
	})
	t.Run("nearest to a sentence", func(t *testing.T) {
		got := m.Nearest(m.Embed("open a database connection"), 5)
		if len(got) != 5 {
			t.Fatalf("got %v", got)
		}
		if !slices.ContainsFunc(got, func(n Neighbor) bool { return n.Word == "database" || n.Word == "connection" }) {
			t.Errorf("Nearest(open a database connection) = %v", got)
		}
	})
	t.Run("more than the vocabulary", func(t *testing.T) {
		v := m.Embed("database")
		all := m.Nearest(v, m.Len()+10)
		if len(all) == 0 || len(all) >= m.Len() {
			t.Errorf("got %d neighbours of %d words (stop words excluded)", len(all), m.Len())
		}
		for i := 1; i < len(all); i++ {
			if all[i].Cos > all[i-1].Cos {
				t.Fatalf("out of order at %d: %v, %v", i, all[i-1], all[i])
			}
		}
		if top := m.Nearest(v, 25); !slices.Equal(top, all[:25]) {
			t.Errorf("Nearest(v, 25) = %v, want the first 25 of all: %v", top, all[:25])
		}
	})
}

func TestConcurrentUse(t *testing.T) {
	m := load(t)
	var wg sync.WaitGroup
	results := make([][]Neighbor, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = m.Neighbors("network", 5)
			m.Embed("send a request over the network")
		}()
	}
	wg.Wait()
	for i := range results {
		if !slices.Equal(results[i], results[0]) {
			t.Errorf("goroutine %d got %v, goroutine 0 %v", i, results[i], results[0])
		}
	}
}

func TestWeight(t *testing.T) {
	m := load(t)
	tests := []struct {
		word     string
		min, max float32
	}{
		{"the", 0, 0},
		{"How", 0, 0},
		{"func", 0, 0},
		{"qqqzzzunknown", 0, 0},
		{"gzip", 0.9, 1},
		{"Server", 0.9, 1},
		{"first", 0.1, 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if w := m.Weight(tt.word); w < tt.min || w > tt.max {
				t.Errorf("Weight(%q) = %v, want in [%v, %v]", tt.word, w, tt.min, tt.max)
			}
		})
	}
}

// TestLoadCode checks the code-search model: Load's words, ranks and
// weights with other vectors, which place a description of what code does
// nearer the words of that code than GloVe's do.
func TestLoadCode(t *testing.T) {
	g := load(t)
	c, err := LoadCode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Name(), "codevec-100d-") || c.Stamp() == g.Stamp() {
		t.Errorf("Name = %q, Stamp = %q: want codevec-100d-… and a stamp of its own", c.Name(), c.Stamp())
	}
	if c.Len() != g.Len() || c.Dims() != g.Dims() || c.SourceSize() != g.SourceSize() {
		t.Fatalf("code model %d×%d (source %d), GloVe %d×%d (source %d): want the same words", c.Len(), c.Dims(), c.SourceSize(), g.Len(), g.Dims(), g.SourceSize())
	}
	for _, i := range []int{0, 1, 100, 5000, c.Len() - 1} {
		if c.Word(i) != g.Word(i) || c.Rank(i) != g.Rank(i) {
			t.Errorf("row %d: %q rank %d, GloVe %q rank %d", i, c.Word(i), c.Rank(i), g.Word(i), g.Rank(i))
		}
	}
	for _, w := range []string{"database", "parse", "dictionary", "sqlite"} {
		if c.Weight(w) != g.Weight(w) {
			t.Errorf("Weight(%q) = %v, GloVe %v: want the same weights", w, c.Weight(w), g.Weight(w))
		}
	}
	// Each description against its code and the other code: trained
	// vectors must separate them at least as well as GloVe on most.
	cases := []struct{ doc, code, other string }{
		{"turn a query string into a dictionary", "parse_qs qs keep_blank_values dict split pairs append", "copytree src dst symlinks copy2 makedirs listdir"},
		{"copy a directory tree recursively", "copytree src dst symlinks copy2 makedirs listdir", "parse_qs qs keep_blank_values dict split pairs append"},
		{"wait until all goroutines have finished", "WaitGroup Wait state Load semaphore runtime_Semacquire", "ReadFile name Open Stat Size ReadAll Close"},
		{"read the whole contents of a file", "ReadFile name Open Stat Size ReadAll Close", "WaitGroup Wait state Load semaphore runtime_Semacquire"},
	}
	better := 0
	for _, tc := range cases {
		margin := func(m *Model) float32 {
			q := m.Embed(tc.doc)
			return Cosine(q, m.Embed(tc.code)) - Cosine(q, m.Embed(tc.other))
		}
		mg, mc := margin(g), margin(c)
		if mc <= 0 {
			t.Errorf("%q: code model prefers the other code (margin %.3f)", tc.doc, mc)
		}
		if mc >= mg {
			better++
		}
	}
	if better < len(cases)/2 {
		t.Errorf("the code model separates %d of %d descriptions at least as well as GloVe", better, len(cases))
	}
}

// TestEachRow checks that EachRow gives the words and weights Embed sums.
func TestEachRow(t *testing.T) {
	m := load(t)
	for _, s := range []string{"", "the", "open a database connection", "parseHTTPRequest sha256 MP3", "Über résumé db"} {
		sum := make([]float32, m.Dims())
		m.EachRow(s, func(row int, w float32) {
			if w <= 0 {
				t.Errorf("%q: row %d (%q) with weight %v, want > 0", s, row, m.Word(row), w)
			}
			m.addRow(sum, row, w)
		})
		Normalize(sum)
		if want := m.Embed(s); !slices.EqualFunc(sum, want, func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-6 }) {
			t.Errorf("%q: EachRow's sum differs from Embed", s)
		}
	}
}
