package retrieval

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

var evalCands = flag.Int("eval.candidates", 0, "BM25 candidates of a search by meaning in TestEvalDumpCandidates (0: the default)")

var evalDump = flag.String("eval.dump", "", "write the candidates of each function-level question, with their features, to this file (JSON lines)")

// TestEvalDumpCandidates writes, for every question in words of the
// function-level sets, the candidates of the search by meaning with their
// scores and where each query term occurs in them: the material to study
// a ranking change before building it.
func TestEvalDumpCandidates(t *testing.T) {
	if *evalDump == "" {
		t.Skip("needs -eval.dump FILE")
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		modcache = strings.TrimSpace(string(out))
	}
	f, err := os.Create(*evalDump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	searchers := map[string]*Searcher{}
	ctx := context.Background()
	for _, set := range functionSets {
		root := strings.ReplaceAll(set.root, "$GOMODCACHE", modcache)
		root = strings.ReplaceAll(root, "$GOROOT", runtime.GOROOT())
		s := searchers[root]
		if s == nil {
			s = newEvalSearcherTB(t, root)
			s.candidates = *evalCands
			searchers[root] = s
		}
		var lists [][]int64
		s.traceLists = func(l [][]int64, w []float64) { lists = l }
		for qi, c := range readFunctionCases(t, set.file) {
			if c.Kind == "task" {
				continue
			}
			ranked, chunks, err := s.semanticRank(ctx, c.Q, 10)
			if err != nil {
				t.Fatal(err)
			}
			ranked = functionsFirst(ranked, chunks)
			rankIn := func(id int64) []int {
				out := make([]int, 4)
				for i, l := range lists {
					for r, x := range l {
						if x == id {
							out[i] = r + 1
							break
						}
					}
				}
				return out
			}
			words := QueryTerms(c.Q)
			qv := s.Vectors.Embed(c.Q)
			sim := func(text string) float64 {
				v := s.Vectors.Embed(text)
				if len(v) == 0 || len(qv) == 0 {
					return 0
				}
				return s.Vectors.Similarity(qv, v)
			}
			df, total, err := s.Index.TermStats(ctx, words)
			if err != nil {
				t.Fatal(err)
			}
			type cand struct {
				Path, Name, Symbol, Kind, Lang string
				Score                          float64
				Match, FileMatch               bool
				Unexp, Test, Aside             bool
				NameT, CtxT, DocT              []string
				BodyTF                         map[string]int
				Lines                          int
				Ranks                          []int
				SimName, SimDoc, SimOwn        float64
				Context, Callers               string
			}
			var cands []cand
			seen := map[string]bool{}
			for _, fu := range ranked {
				ch := chunks[fu.id]
				key := ch.Path + "\x00" + ch.Name
				if ch.Kind == analysis.KindModule {
					key = ch.Path + "\x00" + ch.Context
				}
				if seen[key] {
					continue
				}
				seen[key] = true
				sym := ch.Name
				if ch.Kind == analysis.KindModule {
					sym = ""
				}
				r := Result{File: ch.Path, Symbol: sym}
				in := func(text string) []string {
					ts := map[string]bool{}
					for _, x := range QueryTerms(text) {
						ts[x] = true
					}
					var o []string
					for _, w := range words {
						if ts[w] {
							o = append(o, w)
						}
					}
					return o
				}
				doc := ""
				if i := strings.Index(ch.Context, ": "); i >= 0 {
					doc = ch.Context[i+2:]
					if j := strings.Index(doc, " Calls "); j >= 0 {
						doc = doc[:j]
					}
				}
				tf := map[string]int{}
				for _, x := range strings.Fields(string(analysis.AppendTerms(nil, ch.Text))) {
					tf[x]++
				}
				btf := map[string]int{}
				for _, w := range words {
					if tf[w] > 0 {
						btf[w] = tf[w]
					}
				}
				cands = append(cands, cand{
					Path: ch.Path, Name: ch.Name, Symbol: ch.Symbol, Kind: string(ch.Kind), Lang: ch.Language,
					Score: fu.score, Match: matchesFunction(r, c), FileMatch: contains(c.Rel, ch.Path),
					Unexp: isUnexported(ch), Test: IsTestPath(ch.Path) || IsFixturePath(ch.Path), Aside: isAsidePath(ch.Path),
					NameT: in(ch.Name), CtxT: in(ch.Context), DocT: in(doc), BodyTF: btf,
					Lines: ch.EndLine - ch.StartLine + 1, Ranks: rankIn(fu.id),
					Context: ch.Context, Callers: ch.Callers,
					SimName: sim(ch.Symbol), SimDoc: sim(doc), SimOwn: sim(ch.Symbol + " " + doc),
				})
			}
			if err := enc.Encode(map[string]any{
				"set": set.file, "qi": qi, "q": c.Q, "sym": c.Sym, "rel": c.Rel, "where": asksWhere(c.Q),
				"words": words, "df": df, "total": total, "cands": cands,
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
