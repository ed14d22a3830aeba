package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

func TestGoDocSentence(t *testing.T) {
	for _, tc := range []struct{ doc, name, want string }{
		{"Parse parses a URL. It returns an error.", "Parse", "parses a URL"},
		{"Open opens the named file.\n\nMore text.", "Open", "opens the named file"},
		{"returns the sum of a and b", "Add", "returns the sum of a and b"},
		{"Deprecated: use Other.", "Old", ""},
		{"Get() returns\tthe value.", "Get", "returns the value"},
	} {
		if got := goDocSentence(tc.doc, tc.name); got != tc.want {
			t.Errorf("goDocSentence(%q, %q) = %q, want %q", tc.doc, tc.name, got, tc.want)
		}
	}
}

func TestGoCode(t *testing.T) {
	src := `package p
// Sum adds the values of a list.
func (l *List) Sum(xs []int) int { total := 0; for _, x := range xs { total += x }; return total }`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	fd := f.Decls[0]
	got := goCode(fd.(*ast.FuncDecl))
	if want := "List Sum xs int int total _ x xs total x total"; got != want {
		t.Errorf("goCode = %q, want %q", got, want)
	}
}

func TestJSPairs(t *testing.T) {
	src := `
/**
 * Parses a query string into an object.
 * @param {string} qs
 */
function parseQuery(qs) {
  const out = {}; // the result
  for (const part of qs.split('&')) { out[part] = true }
  return out
}

/** Short. */
const x = 1

/**
 * Removes every entry of the cache directory.
 */
export const clearAll = async (cache) => { await rimraf(cache.dir) }

class Store {
  /**
   * Looks a key up in the store.
   */
  async lookup(key) { return this.map.get(key) }
}
`
	got := jsPairs(src)
	want := [][2]string{
		{"Parses a query string into an object", "parseQuery qs parseQuery qs out part qs split out part return out"},
		{"Removes every entry of the cache directory", "clearAll cache clearAll cache rimraf cache dir"},
		{"Looks a key up in the store", "lookup key lookup key return map"},
	}
	if len(got) != len(want) {
		t.Fatalf("jsPairs = %q, want %d pairs", got, len(want))
	}
	for i := range want {
		if got[i][0] != want[i][0] {
			t.Errorf("pair %d doc = %q, want %q", i, got[i][0], want[i][0])
		}
		if !strings.HasPrefix(got[i][1], strings.Fields(want[i][1])[0]) {
			t.Errorf("pair %d code = %q, want it to start with %q", i, got[i][1], strings.Fields(want[i][1])[0])
		}
	}
}

// TestStepLowersLoss trains on one batch of pairs a few times: the loss on
// it must fall, and only the rows of the batch's words may move.
func TestStepLowersLoss(t *testing.T) {
	m, err := wordvec.Load()
	if err != nil {
		t.Fatal(err)
	}
	docs := [][2]string{
		{"turn a query string into a dictionary", "parse qs pairs split dict append"},
		{"copy a directory tree recursively", "copytree src dst symlinks makedirs listdir"},
		{"wait until all workers have finished", "wait group counter semaphore acquire"},
		{"read the whole contents of a file", "read file open stat size close"},
		{"compress data with gzip", "gzip writer deflate level flush"},
		{"send an email message over smtp", "smtp sendmail login starttls recipients"},
	}
	var batch []pair
	for _, d := range docs {
		batch = append(batch, pair{q: embedText(m, d[0]), c: embedText(m, d[1])})
	}
	d := m.Dims()
	start := &table{dims: d, v: make([]float32, m.Len()*d)}
	for i := range m.Len() {
		v, _ := m.Vector(m.Word(i))
		copy(start.row(int32(i)), v)
	}
	tab := &table{dims: d, v: append([]float32(nil), start.v...)}
	acc := make([]float32, len(tab.v))
	o := options{temp: 20, lr: 0.05, l2: 1e-4}
	first := step(tab, tab, start, acc, acc, batch, o)
	var last float64
	for range 30 {
		last = step(tab, tab, start, acc, acc, batch, o)
	}
	if !(last < first/2) {
		t.Errorf("loss %v after 30 steps, %v at first: want it at least halved", last, first)
	}
	used := map[int32]bool{}
	for _, p := range batch {
		for _, r := range append(append([]int32(nil), p.q.rows...), p.c.rows...) {
			used[r] = true
		}
	}
	for i := range m.Len() {
		r := int32(i)
		if used[r] {
			continue
		}
		for j, x := range tab.row(r) {
			if x != start.row(r)[j] {
				t.Fatalf("row %d (%q), not in the batch, moved", i, m.Word(i))
			}
		}
	}
}

// TestReadPairsLicences checks that train reads only the sources its
// licence list marks kept: excluded and unlisted sources are left out, and
// a malformed list is an error.
func TestReadPairsLicences(t *testing.T) {
	m, err := wordvec.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.tsv")
	data := "mit-mod\tparse a query string\tparse query split\n" +
		"gpl-pkg\tcopy a directory tree\tcopytree src dst\n" +
		"unlisted\tread a whole file\tread file open\n" +
		"mit-mod\tcompress data with gzip\tgzip writer deflate\n"
	if err := os.WriteFile(pairs, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, list string
		want       map[string]int // nil: an error
	}{
		{"no list reads all", "", map[string]int{"mit-mod": 2, "gpl-pkg": 1, "unlisted": 1}},
		{"kept only", "mit-mod\tMIT\tkept\ngpl-pkg\tGPL\texcluded\n", map[string]int{"mit-mod": 2}},
		{"malformed", "mit-mod\tMIT\n", nil},
		{"bad verdict", "mit-mod\tMIT\tmaybe\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options{pairs: []string{pairs}, perSrc: 100, holdout: 0}
			if tt.list != "" {
				o.licences = filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".txt")
				if err := os.WriteFile(o.licences, []byte(tt.list), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, sources, err := readPairs(m, o)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("readPairs: no error, sources %v", sources)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sources, tt.want) {
				t.Errorf("sources %v, want %v", sources, tt.want)
			}
		})
	}
}
