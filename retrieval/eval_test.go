package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

var (
	evalStdlib = flag.Bool("eval.stdlib", false, "also evaluate search on the Go standard library (indexes GOROOT/src: slow)")
	evalDir    = flag.String("eval.dir", "", "keep the evaluation's index databases in this directory between runs")
	evalVecs   = flag.String("eval.wordvec", "", "a word-vector model file (wordvec format) to search with instead of the built-in one")
	evalVecW   = flag.Float64("eval.vectorweight", 0, "the weight of the vector list in a search by meaning (0: the default)")
	evalExpand = flag.String("eval.expandwith", "", "a word-vector model file whose neighbours expand queries (default: the search's own vectors)")
)

// evalCase is one line of a retrieval set: a query and the files that
// answer it.
type evalCase struct {
	Q    string   `json:"q"`
	Rel  []string `json:"rel"`
	Kind Strategy `json:"kind"`
}

func readEval(t testing.TB, name string) []evalCase { return readEvalLines[evalCase](t, name) }

// readEvalLines reads a JSON Lines set of testdata/eval, one T a line;
// blank lines are skipped.
func readEvalLines[T any](t testing.TB, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "eval", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c T
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v in %s", name, err, sc.Text())
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// evalScore accumulates hit@5 and reciprocal ranks.
type evalScore struct {
	n, hits int
	rr      float64
}

func (s *evalScore) add(rank int) {
	s.n++
	if rank > 0 && rank <= 5 {
		s.hits++
	}
	if rank > 0 {
		s.rr += 1 / float64(rank)
	}
}

func (s evalScore) hitAt5() float64 { return float64(s.hits) / float64(max(s.n, 1)) }
func (s evalScore) mrr() float64    { return s.rr / float64(max(s.n, 1)) }

// firstRelevantFile returns the 1-based rank of the first relevant file
// of a response's file ranking (Request.Group), or 0.
func firstRelevantFile(resp *Response, rel []string) int {
	for i, f := range resp.Files {
		if contains(rel, f.File) {
			return i + 1
		}
	}
	return 0
}

// firstRelevant returns the 1-based rank of the first result in a relevant
// file, or 0.
func firstRelevant(rs []Result, rel []string) int {
	for i, r := range rs {
		for _, f := range rel {
			if r.File == f {
				return i + 1
			}
		}
	}
	return 0
}

// evalSystems are the configurations compared: the routed search as
// shipped, and four that search every query by meaning: BM25 alone, BM25
// fused with the vector signal, with the popularity signal, and with both
// (the semantic backend as shipped).
var evalSystems = []string{"routed", "bm25", "bm25+vectors", "bm25+pop", "bm25+vec+pop"}

// runEval searches every case with each system and prints hit@5 and MRR
// per query kind. It returns the routed system's scores by kind, with
// "all" for the whole set.
func runEval(t *testing.T, s *Searcher, cases []evalCase) map[Strategy]evalScore {
	t.Helper()
	ctx := context.Background()
	scores := map[string]map[Strategy]*evalScore{}
	for _, sys := range evalSystems {
		scores[sys] = map[Strategy]*evalScore{}
	}
	var misses []string
	// fromFunctions scores the files of the routed function list, in
	// its order: what a user who reads the list without grouping sees.
	var fromFunctions evalScore
	for _, c := range cases {
		for _, sys := range evalSystems {
			searcher := *s
			// The file ranking is the answer to "which file": it is
			// computed apart from the function list (see semanticLevels).
			req := Request{Query: c.Q, TopK: 10, Group: GroupFiles}
			switch sys {
			case "bm25":
				searcher.Vectors = nil
				searcher.noPopularity = true
				req.Strategy = Semantic
			case "bm25+vectors":
				searcher.noPopularity = true
				req.Strategy = Semantic
			case "bm25+pop":
				searcher.Vectors = nil
				req.Strategy = Semantic
			case "bm25+vec+pop":
				req.Strategy = Semantic
			}
			resp, err := searcher.Search(ctx, req)
			if err != nil {
				t.Fatalf("%s %q: %v", sys, c.Q, err)
			}
			rank := firstRelevantFile(resp, c.Rel)
			if sys == "routed" {
				fromFunctions.add(firstRelevant(resp.Results, c.Rel))
			}
			for _, k := range []Strategy{c.Kind, "all"} {
				if scores[sys][k] == nil {
					scores[sys][k] = &evalScore{}
				}
				scores[sys][k].add(rank)
			}
			if sys == "routed" && (rank == 0 || rank > 5) {
				var got []string
				for _, f := range resp.Files[:min(3, len(resp.Files))] {
					got = append(got, f.File)
				}
				misses = append(misses, fmt.Sprintf("  %-10s %-55q → %s %v", c.Kind, c.Q, resp.Strategy, got))
			}
		}
	}
	kinds := []Strategy{Semantic, Structural, Keyword, Hybrid, "all"}
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s", "kind", "n")
	for _, sys := range evalSystems {
		fmt.Fprintf(&b, "  %-19s", sys+" hit@5/MRR")
	}
	b.WriteString("\n")
	for _, k := range kinds {
		if scores["routed"][k] == nil {
			continue
		}
		fmt.Fprintf(&b, "%-11s %4d", k, scores["routed"][k].n)
		for _, sys := range evalSystems {
			sc := scores[sys][k]
			fmt.Fprintf(&b, "  %5.2f / %-11.2f", sc.hitAt5(), sc.mrr())
		}
		b.WriteString("\n")
	}
	sort.Strings(misses)
	fmt.Fprintf(&b, "routed, files of the function list in its order: hit@5 %.2f / MRR %.2f\n", fromFunctions.hitAt5(), fromFunctions.mrr())
	t.Logf("retrieval quality (%d queries)\n%s\nrouted misses at 5:\n%s", len(cases), b.String(), strings.Join(misses, "\n"))
	out := map[Strategy]evalScore{}
	for k, v := range scores["routed"] {
		out[k] = *v
	}
	return out
}

// evalWordVectors returns the built-in word vectors, or those of the
// -eval.wordvec file.
func evalWordVectors() (*WordVectors, error) {
	return readWordVectors(*evalVecs)
}

// readWordVectors returns the vectors of a model file, or the built-in
// ones for "".
func readWordVectors(path string) (*WordVectors, error) {
	if path == "" {
		return NewWordVectors()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := wordvec.Parse(data)
	if err != nil {
		return nil, err
	}
	return WordVectorsOf(m), nil
}

// expandingWith is a vector signal whose query expansion comes from
// other vectors (-eval.expandwith).
type expandingWith struct {
	*WordVectors
	exp *WordVectors
}

func (e expandingWith) Expand(query string) []string { return e.exp.Expand(query) }

// evalSearcherVectors is the vector signal of the evaluation's searches:
// evalWordVectors, expanding queries with -eval.expandwith when given.
func evalSearcherVectors(vec *WordVectors) (Vectorizer, error) {
	if *evalExpand == "" {
		return vec, nil
	}
	exp, err := readWordVectors(*evalExpand)
	if err != nil {
		return nil, err
	}
	return expandingWith{vec, exp}, nil
}

// newEvalSearcher indexes root into a temporary database.
func newEvalSearcher(t *testing.T, root string) *Searcher { return newEvalSearcherTB(t, root) }

func newEvalSearcherTB(t testing.TB, root string) *Searcher {
	t.Helper()
	ctx := context.Background()
	vec, err := evalWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	dir := *evalDir
	if dir == "" {
		dir = t.TempDir()
	}
	ix, err := analysis.Open(ctx, analysis.Options{
		Root: root, DBPath: filepath.Join(dir, filepath.Base(filepath.Dir(root+"/"))+".db"),
		Workers: runtime.NumCPU(), Embedder: vec, TermsInMemory: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// As a server does: searches rank from the terms in memory.
	if err := ix.LoadTermsInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	sv, err := evalSearcherVectors(vec)
	if err != nil {
		t.Fatal(err)
	}
	return &Searcher{Index: ix, Vectors: sv, vectorWeight: *evalVecW}
}

// TestEvalSampleApp measures search quality on the sample app and guards
// against regressions. Run with -v to see the table.
func TestEvalSampleApp(t *testing.T) {
	s := newEvalSearcher(t, filepath.Join("..", "testdata", "sampleapp"))
	for _, set := range []string{"sampleapp.jsonl", "sampleapp-holdout.jsonl"} {
		t.Run(set, func(t *testing.T) {
			got := runEval(t, s, readEval(t, set))
			if all := got["all"]; all.hitAt5() < 0.8 {
				t.Errorf("routed hit@5 = %.2f on %s, want ≥ 0.80", all.hitAt5(), set)
			}
		})
	}
}

// TestEvalStdlib measures search quality on the Go standard library:
// go test ./retrieval -run TestEvalStdlib -eval.stdlib -v
func TestEvalStdlib(t *testing.T) {
	if !*evalStdlib {
		t.Skip("indexes the Go standard library; run with -eval.stdlib")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no Go standard library at %s", root)
	}
	s := newEvalSearcher(t, root)
	for _, set := range []string{"gostdlib.jsonl", "gostdlib-holdout.jsonl", "gostdlib-holdout2.jsonl", "gostdlib-holdout3.jsonl", "gostdlib-holdout4.jsonl", "gostdlib-holdout5.jsonl"} {
		t.Run(set, func(t *testing.T) {
			runEval(t, s, readEval(t, set))
		})
	}
}
