package retrieval

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

var evalFunctions = flag.Bool("eval.functions", false, "evaluate function-level search on the blind sets over the Go module cache, the Python standard library and an npm package (slow)")

// functionCase is a line of a function-level set: a question, the files
// that answer it and the functions that do.
type functionCase struct {
	Q    string   `json:"q"`
	Rel  []string `json:"rel"`
	Sym  []string `json:"sym"`
	Kind string   `json:"kind"`
}

// functionSets are the function-level sets with the roots they are
// written against (see testdata/eval/README.md). $GOMODCACHE and
// $GOROOT stand for the module cache and the Go tree of the toolchain.
var functionSets = []struct{ file, root string }{
	{"zap-blind.jsonl", "$GOMODCACHE/go.uber.org/zap@v1.21.0"},
	{"zap-tasks-blind.jsonl", "$GOMODCACHE/go.uber.org/zap@v1.21.0"},
	{"cobra-blind.jsonl", "$GOMODCACHE/github.com/spf13/cobra@v1.10.2"},
	{"python311-blind.jsonl", "/usr/lib/python3.11"},
	{"python311-tasks-blind.jsonl", "/usr/lib/python3.11"},
	{"npm-blind.jsonl", "/usr/lib/node_modules/npm/node_modules/cacache"},
	{"gosdk-blind2.jsonl", "$GOMODCACHE/github.com/modelcontextprotocol/go-sdk@v1.8.0"},
	{"python311-blind2.jsonl", "/usr/lib/python3.11"},
	{"semver-blind2.jsonl", "/usr/lib/node_modules/npm/node_modules/semver"},
	{"yaml-blind3.jsonl", "$GOMODCACHE/gopkg.in/yaml.v3@v3.0.1"},
	{"gostdlib-blind3.jsonl", "$GOROOT/src"},
	{"python311-blind3.jsonl", "/usr/lib/python3.11"},
	{"pgx-blind4.jsonl", "$GOMODCACHE/github.com/jackc/pgx/v5@v5.12.0"},
	{"gostdlib-blind4.jsonl", "$GOROOT/src"},
	{"python311-blind4.jsonl", "/usr/lib/python3.11"},
	{"gocmp-blind5.jsonl", "$GOMODCACHE/github.com/google/go-cmp@v0.7.0"},
	{"gostdlib-blind5.jsonl", "$GOROOT/src"},
	{"python311-blind5.jsonl", "/usr/lib/python3.11"},
	{"regexp2-blind6.jsonl", "$GOMODCACHE/github.com/dlclark/regexp2@v1.10.0"},
	{"gostdlib-blind6.jsonl", "$GOROOT/src"},
	{"python311-blind6.jsonl", "/usr/lib/python3.11"},
	{"pflag-blind7.jsonl", "$GOMODCACHE/github.com/spf13/pflag@v1.0.9"},
	{"makefetch-blind7.jsonl", "/usr/lib/node_modules/npm/node_modules/make-fetch-happen"},
	{"python311-blind7.jsonl", "/usr/lib/python3.11"},
	{"doublestar-blind8.jsonl", "$GOMODCACHE/github.com/bmatcuk/doublestar/v4@v4.10.4"},
	{"ssri-blind8.jsonl", "/usr/lib/node_modules/npm/node_modules/ssri"},
	{"python311-blind8.jsonl", "/usr/lib/python3.11"},
}

// matchesFunction reports whether a result is one of the case's
// functions: its file is in rel and its symbol is an entry of sym or ends
// with "." and one.
func matchesFunction(r Result, c functionCase) bool {
	if !contains(c.Rel, r.File) {
		return false
	}
	for _, s := range c.Sym {
		if r.Symbol == s || strings.HasSuffix(r.Symbol, "."+s) {
			return true
		}
	}
	return false
}

// TestEvalFunctions measures function-level hit@5 and MRR (and file-level
// hit@5) of the routed search on the blind function-level sets. Run with
// -eval.functions -v; -eval.dir keeps the indexes.
func TestEvalFunctions(t *testing.T) {
	if !*evalFunctions {
		t.Skip("needs -eval.functions")
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		modcache = strings.TrimSpace(string(out))
	}
	searchers := map[string]*Searcher{}
	var report []string
	for _, set := range functionSets {
		root := strings.ReplaceAll(set.root, "$GOMODCACHE", modcache)
		root = strings.ReplaceAll(root, "$GOROOT", runtime.GOROOT())
		if _, err := os.Stat(root); err != nil {
			t.Logf("skipped %s: no %s", set.file, root)
			continue
		}
		s := searchers[root]
		if s == nil {
			s = newEvalSearcherTB(t, root)
			searchers[root] = s
		}
		cases := readFunctionCases(t, set.file)
		var fn, file evalScore
		var misses []string
		for _, c := range cases {
			resp, err := s.Search(context.Background(), Request{Query: c.Q, TopK: 10, Group: GroupFiles})
			if err != nil {
				t.Fatalf("%s %q: %v", set.file, c.Q, err)
			}
			fr := 0
			for i, r := range resp.Results {
				if matchesFunction(r, c) {
					fr = i + 1
					break
				}
			}
			fn.add(fr)
			file.add(firstRelevantFile(resp, c.Rel))
			if fr == 0 || fr > 5 {
				var got []string
				for _, r := range resp.Results[:min(5, len(resp.Results))] {
					got = append(got, fmt.Sprintf("%s %s %.3f", r.File, r.Symbol, r.Score))
				}
				q := c.Q
				if len(q) > 70 {
					q = q[:70] + "…"
				}
				misses = append(misses, fmt.Sprintf("    %-72q want %v %v (rank %d) → %v", q, c.Sym, c.Rel, fr, got))
			}
		}
		report = append(report, fmt.Sprintf("%-30s %3d  function hit@5 %.2f MRR %.2f   file hit@5 %.2f MRR %.2f\n%s",
			set.file, fn.n, fn.hitAt5(), fn.mrr(), file.hitAt5(), file.mrr(), strings.Join(misses, "\n")))
	}
	t.Logf("function-level search\n%s", strings.Join(report, "\n"))
}

func readFunctionCases(t *testing.T, name string) []functionCase {
	return readEvalLines[functionCase](t, name)
}
