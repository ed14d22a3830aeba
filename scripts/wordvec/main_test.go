package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

func readTiny(t *testing.T) *source {
	t.Helper()
	src, err := readSource("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestReadSource(t *testing.T) {
	src := readTiny(t)
	if src.dims != 3 || len(src.words) != 10 || src.rank["database"] != 3 || len(src.vectors["sqlite"]) != 3 {
		t.Errorf("got %d dims, %d words, rank(database) %d", src.dims, len(src.words), src.rank["database"])
	}

	// The same JSON inside an npm tarball.
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	tgz := func(name string) string {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		tw.WriteHeader(&tar.Header{Name: "package/package.json", Mode: 0o644, Size: 2})
		tw.Write([]byte("{}"))
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data))})
		tw.Write(data)
		tw.Close()
		gz.Close()
		path := filepath.Join(t.TempDir(), "pkg.tgz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fromTar, err := readSource(tgz(packageJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromTar.words, src.words) {
		t.Errorf("tarball words %v, JSON words %v", fromTar.words, src.words)
	}
	if _, err := readSource(tgz("package/other.json")); err == nil || !strings.Contains(err.Error(), "no "+packageJSON) {
		t.Errorf("tarball without the vectors: %v", err)
	}
}

func TestDecodeSourceErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not an object", `[]`, "want {"},
		{"layout", `{"dimensions":3,"l2NormIndex":2,"wordIndex":4,"size":0,"words":[],"vectors":{}}`, "unexpected layout"},
		{"size", `{"dimensions":1,"l2NormIndex":1,"wordIndex":2,"size":2,"words":["a"],"vectors":{"a":[1,1,0]}}`, "size 2"},
		{"index", `{"dimensions":1,"l2NormIndex":1,"wordIndex":2,"size":1,"words":["a"],"vectors":{"a":[1,1,5]}}`, "says index 5"},
		{"norm", `{"dimensions":1,"l2NormIndex":1,"wordIndex":2,"size":1,"words":["a"],"vectors":{"a":[1,3,0]}}`, "l2 norm 3"},
		{"short vector", `{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":1,"words":["a"],"vectors":{"a":[1,1,0]}}`, "no vector of 4 values"},
		{"truncated", `{"dimensions":1,"vectors":{"a":[1,`, "decoding \"vectors\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeSource(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestEligible(t *testing.T) {
	tests := []struct {
		w    string
		want bool
	}{
		{"database", true}, {"md5", true}, {"1999", true}, {"café", true},
		{"", false}, {",", false}, {"co-worker", false}, {"o'neil", false},
		{"Upper", false}, {"a_b", false}, {strings.Repeat("a", 65), false},
	}
	for _, tt := range tests {
		if got := eligible(tt.w); got != tt.want {
			t.Errorf("eligible(%q) = %v, want %v", tt.w, got, tt.want)
		}
	}
	for w, want := range map[string]bool{"xff": true, "x0a": true, "xml": false, "x": false, "ff": false} {
		if got := isHexByte(w); got != want {
			t.Errorf("isHexByte(%q) = %v, want %v", w, got, want)
		}
	}
}

func words(rows []wordvec.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Word)
	}
	return out
}

func TestBuild(t *testing.T) {
	src := readTiny(t)
	o := options{top: 3, maxNumRank: 5}
	rows, st, err := build(src, o, []string{"parser", "missing", "co-worker", "database"},
		[][]string{{"cfg", "configuration"}, {"db", "database", "sqlite"}})
	if err != nil {
		t.Fatal(err)
	}
	// The top 3 eligible words (",", co-worker skipped), the code word
	// parser, and both aliases as new rows; 1999 is a number past rank 5.
	want := []string{"the", "database", "db", "sqlite", "cfg", "parser"}
	if got := words(rows); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if st.top != 3 || st.code != 1 || st.aliases != 2 || st.newAliases != 2 || !slices.Equal(st.missing, []string{"missing", "co-worker"}) {
		t.Errorf("stats %+v", st)
	}
	for _, r := range rows {
		switch r.Word {
		case "cfg":
			if !slices.Equal(r.Vector, src.vectors["configuration"]) || r.Rank != src.rank["configuration"] {
				t.Errorf("cfg = %v rank %d, want configuration's", r.Vector, r.Rank)
			}
		case "db":
			for j := range r.Vector {
				mean := (src.vectors["database"][j] + src.vectors["sqlite"][j]) / 2
				if math.Abs(float64(r.Vector[j]-mean)) > 1e-6 {
					t.Errorf("db[%d] = %v, want the mean %v", j, r.Vector[j], mean)
				}
			}
		}
	}
	if _, _, err := build(src, o, nil, [][]string{{"cfg", "nosuchword"}}); err == nil || !strings.Contains(err.Error(), "not in the source") {
		t.Errorf("alias to a missing word: %v", err)
	}
	if _, _, err := build(src, o, nil, [][]string{{"Bad-Alias", "database"}}); err == nil {
		t.Error("an alias that cannot be looked up was accepted")
	}
}

func TestABTT(t *testing.T) {
	src := readTiny(t)
	rows, _, err := build(src, options{top: 100, maxNumRank: 100}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	abtt(rows, 1)
	// The mean is gone and the vectors span one dimension less: the
	// covariance of 3-d vectors becomes singular.
	var mean [3]float64
	for _, r := range rows {
		for j, x := range r.Vector {
			mean[j] += float64(x) / float64(len(rows))
		}
	}
	var cov [3][3]float64
	for _, r := range rows {
		for i := range 3 {
			for j := range 3 {
				cov[i][j] += float64(r.Vector[i]) * float64(r.Vector[j])
			}
		}
	}
	det := cov[0][0]*(cov[1][1]*cov[2][2]-cov[1][2]*cov[2][1]) -
		cov[0][1]*(cov[1][0]*cov[2][2]-cov[1][2]*cov[2][0]) +
		cov[0][2]*(cov[1][0]*cov[2][1]-cov[1][1]*cov[2][0])
	for j, m := range mean {
		if math.Abs(m) > 1e-6 {
			t.Errorf("mean[%d] = %v after abtt, want 0", j, m)
		}
	}
	if math.Abs(det) > 1e-6 {
		t.Errorf("covariance determinant %v after removing a component, want 0", det)
	}
}

func TestTopEigenvectors(t *testing.T) {
	a := [][]float64{{1, 0, 0}, {0, 5, 0}, {0, 0, 3}}
	got := topEigenvectors(a, 2)
	want := [][]float64{{0, 1, 0}, {0, 0, 1}}
	for k := range want {
		for i := range want[k] {
			if math.Abs(math.Abs(got[k][i])-want[k][i]) > 1e-6 {
				t.Fatalf("eigenvector %d = %v, want ±%v", k, got[k], want[k])
			}
		}
	}
}

func TestRunDeterministic(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o := options{
		in: "testdata/tiny.json", top: 4, maxNumRank: 2000, abtt: 1,
		codewords: write("codewords.txt", "# comment\nparser\t12\t9\n\n"),
		aliases:   write("aliases.txt", "cfg configuration # replaces\n"),
	}
	var outs [][]byte
	for i := range 2 {
		o.out = filepath.Join(dir, "out"+string(rune('a'+i))+".bin")
		if err := run(o, "", 0, false, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(o.out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, data)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("two runs wrote different files")
	}
	m, err := wordvec.Parse(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	// the, database, sqlite, 1999 (a number within -maxnumrank), parser, cfg.
	if !strings.HasPrefix(m.Name(), "glove-6b-3d-0k-") || m.Len() != 6 || m.Row("parser") < 0 || m.Row("cfg") < 0 {
		t.Errorf("model %s of %d words", m.Name(), m.Len())
	}
	if err := run(options{in: "testdata/tiny.json", codewords: filepath.Join(dir, "none.txt")}, "", 0, false, io.Discard, io.Discard); err == nil {
		t.Error("a missing code word list was accepted")
	}
	if _, err := readAliases(write("bad.txt", "lonely\n")); err == nil || !strings.Contains(err.Error(), "no target") {
		t.Errorf("alias without a target: %v", err)
	}
}

func TestCandidates(t *testing.T) {
	src := readTiny(t)
	df := map[string]int{"the": 100, "parser": 50, "configuration": 70, "cfg": 5, "1999": 90, "nosuch": 99}
	got := candidates(src, df, options{top: 2, maxNumRank: 2000}, 10)
	// the is in the top 2; cfg is too rare in code; 1999 is a number;
	// nosuch is not in the source.
	if want := []string{"configuration", "parser"}; !slices.Equal(got, want) {
		t.Errorf("candidates = %v, want %v", got, want)
	}
}

func TestEvalPairs(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// Open opens a connection to the database at path.
func Open(path string) error { return nil }

// Short doc.
func Short() {}

// Deprecated: use Open, which opens connections.
func Old() {}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := evalPairs(dir, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].query != "opens a connection to the database at path" || !strings.HasPrefix(pairs[0].code, "func Open(") {
		t.Errorf("pairs = %+v", pairs)
	}
}
