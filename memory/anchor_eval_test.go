package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

var (
	anchorStdlib    = flag.Bool("anchor.stdlib", false, "also evaluate anchoring on the Go standard library (indexes GOROOT/src once: slow)")
	anchorDir       = flag.String("anchor.dir", "", "keep the evaluation's index databases in this directory between runs")
	anchorCalibrate = flag.Bool("anchor.calibrate", false, "fit the relevance model on the training rule sets and print it")
)

// anchorCase is one line of a rule set: a rule and its acceptable
// examples. A rule with no files has no good example in the workspace.
type anchorCase struct {
	Rule   string   `json:"rule"`
	File   []string `json:"file"`
	Symbol []string `json:"symbol"`
	Scope  string   `json:"scope"`
	// Corrections are the files the rule's corrections were made in, if
	// the set says.
	Corrections []string `json:"corrections,omitempty"`
	// Root is the workspace of a set over several (blind-rules.jsonl).
	Root string `json:"root,omitempty"`
}

// origins returns where the case's corrections were made.
func (c anchorCase) origins() []AnchorOrigin {
	var out []AnchorOrigin
	for _, f := range c.Corrections {
		out = append(out, AnchorOrigin{File: f})
	}
	return out
}

func readAnchorCases(t testing.TB, name string) []anchorCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "anchors", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []anchorCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c anchorCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s: %v in %s", name, err, sc.Text())
		}
		if c.Root != "" {
			c.Root = resolveSetRoot(c.Root, goEnv(t))
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// goEnvVars are the Go environment variables a set's root may name.
var goEnvVars = []string{"GOMODCACHE", "GOROOT", "GOPATH"}

// goEnv returns the values of goEnvVars: the environment's, else
// `go env`'s (which knows the defaults), else the running toolchain's
// GOROOT.
func goEnv(t testing.TB) map[string]string {
	t.Helper()
	env := map[string]string{}
	missing := false
	for _, k := range goEnvVars {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		} else {
			missing = true
		}
	}
	if !missing {
		return env
	}
	out, err := exec.Command("go", append([]string{"env"}, goEnvVars...)...).Output()
	if err != nil {
		t.Logf("go env %s: %v; using the environment and GOROOT %s", strings.Join(goEnvVars, " "), err, runtime.GOROOT())
	} else {
		for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if i < len(goEnvVars) && env[goEnvVars[i]] == "" {
				env[goEnvVars[i]] = strings.TrimSpace(v)
			}
		}
	}
	if env["GOROOT"] == "" {
		env["GOROOT"] = runtime.GOROOT()
	}
	return env
}

// resolveSetRoot returns the workspace a rule set's root names on this
// machine. A root may name $GOMODCACHE, $GOROOT or $GOPATH
// ("$GOMODCACHE/golang.org/x/net@v0.57.0/http2"); an absolute path into
// another machine's module cache (".../pkg/mod/MODULE@VERSION/...", as
// the first sets were written) or Go tree (".../go/src/...") that does
// not exist here is moved into this machine's.
func resolveSetRoot(root string, env map[string]string) string {
	if strings.Contains(root, "$") {
		root = os.Expand(root, func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		})
		return filepath.Clean(root)
	}
	if _, err := os.Stat(root); err == nil {
		return root
	}
	slash := filepath.ToSlash(root)
	if i := strings.Index(slash, "/pkg/mod/"); i >= 0 && env["GOMODCACHE"] != "" {
		return filepath.Join(env["GOMODCACHE"], filepath.FromSlash(slash[i+len("/pkg/mod/"):]))
	}
	if i := strings.LastIndex(slash, "/go/src/"); i >= 0 && env["GOROOT"] != "" {
		return filepath.Join(env["GOROOT"], "src", filepath.FromSlash(slash[i+len("/go/src/"):]))
	}
	return root
}

// checkSetRoot reports why a set's workspace cannot be used, with what
// fetches it.
func checkSetRoot(root string, env map[string]string) error {
	if _, err := os.Stat(root); err != nil {
		if rel, rerr := filepath.Rel(env["GOMODCACHE"], root); env["GOMODCACHE"] != "" && rerr == nil && !strings.HasPrefix(rel, "..") {
			mod := filepath.ToSlash(rel)
			if j := strings.Index(mod, "@"); j >= 0 {
				if k := strings.Index(mod[j:], "/"); k >= 0 {
					mod = mod[:j+k]
				}
				return fmt.Errorf("workspace %s is not in the module cache (go mod download %s): %w", root, mod, err)
			}
		}
		return fmt.Errorf("workspace %s: %w", root, err)
	}
	return nil
}

// accepts reports whether an anchor is one of the case's examples: the
// file, and the symbol too when sym is set.
func (c anchorCase) accepts(a *AnchorCandidate, sym bool) bool {
	if a == nil || !slices.Contains(c.File, a.File) {
		return false
	}
	return !sym || slices.Contains(c.Symbol, a.Symbol)
}

// copySampleApp copies testdata/sampleapp into a temporary directory
// named sampleapp (the project name its rules' scopes use); the copy's
// files all change in the same hour, so recency is neutral.
func copySampleApp(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	return root
}

// openEvalIndex indexes root into a database in -anchor.dir (or a
// temporary directory) and returns a searcher over it, with the word
// vectors the command line uses.
func openEvalIndex(t testing.TB, root, dir string) *retrieval.Searcher {
	t.Helper()
	vec, err := retrieval.NewWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	return openIndexWith(t, root, dir, vec)
}

// openIndexWith is openEvalIndex with the given word vectors.
func openIndexWith(t testing.TB, root, dir string, vec *retrieval.WordVectors) *retrieval.Searcher {
	t.Helper()
	ctx := context.Background()
	if dir == "" {
		dir = t.TempDir()
	}
	ix, err := analysis.Open(ctx, analysis.Options{
		Root: root, DBPath: filepath.Join(dir, filepath.Base(filepath.Clean(root))+".db"),
		Workers: runtime.NumCPU(), Embedder: vec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return &retrieval.Searcher{Index: ix, Vectors: vec}
}

// stdlibRoot returns GOROOT/src, or skips the test unless
// -anchor.stdlib.
func stdlibRoot(t testing.TB) string {
	t.Helper()
	if !*anchorStdlib {
		t.Skip("indexes the Go standard library; run with -anchor.stdlib")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no Go standard library at %s", root)
	}
	return root
}

// anchorTally counts an evaluation's outcomes.
type anchorTally struct {
	rules, anchored, rightFile, rightSymbol int
	// project-scoped rules with an example
	projRules, projAnchored, projRightFile int
	// rules without a good example, and those left unanchored
	none, noneUnanchored int
	// anchors in one of the rule's files
	anchoredRight int
	elapsed       time.Duration
}

func share(n, of int) float64 { return float64(n) / float64(max(of, 1)) }

// runAnchorEval anchors every rule of a set and logs a table of the
// outcomes and each miss.
func runAnchorEval(t *testing.T, a *Anchorer, name string, cases []anchorCase) anchorTally {
	t.Helper()
	ctx := context.Background()
	var s anchorTally
	var lines []string
	for _, c := range cases {
		start := time.Now()
		res, err := a.FindAnchor(ctx, c.Rule, AnchorOptions{Scope: c.Scope, Origins: c.origins()})
		if err != nil {
			t.Fatalf("%q: %v", c.Rule, err)
		}
		s.elapsed += time.Since(start)
		top := "-"
		if len(res.Candidates) > 0 {
			b := res.Candidates[0]
			top = fmt.Sprintf("%s %s q=%.2f r=%.2f", b.File, b.Symbol, b.Quality, b.Relevance)
		}
		mark := ""
		if len(c.File) == 0 {
			s.none++
			if res.Anchor == nil {
				s.noneUnanchored++
			} else {
				mark = "FALSE ANCHOR"
			}
		} else {
			s.rules++
			proj := strings.HasPrefix(c.Scope, KindProject+":")
			if proj {
				s.projRules++
			}
			if res.Anchor != nil {
				s.anchored++
				if proj {
					s.projAnchored++
				}
				if c.accepts(res.Anchor, false) {
					s.anchoredRight++
				}
			} else {
				mark = "unanchored"
			}
			if c.accepts(res.Anchor, false) || res.Anchor == nil && len(res.Candidates) > 0 && c.accepts(&res.Candidates[0], false) {
				// The right file counts for the top candidate, anchored
				// or not: anchoring is measured above.
				s.rightFile++
				if proj {
					s.projRightFile++
				}
			} else {
				mark += " WRONG FILE"
			}
			best := res.Anchor
			if best == nil && len(res.Candidates) > 0 {
				best = &res.Candidates[0]
			}
			if c.accepts(best, true) {
				s.rightSymbol++
			} else if !strings.Contains(mark, "FILE") {
				mark += " wrong symbol"
			}
		}
		lines = append(lines, fmt.Sprintf("  %-14s %-70.70q → %s", strings.TrimSpace(mark), c.Rule, top))
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i] > lines[j] })
	proj := func(n int) string {
		if s.projRules == 0 {
			return "no project-scoped rules"
		}
		return fmt.Sprintf("project-scoped: %.0f%% of %d", 100*share(n, s.projRules), s.projRules)
	}
	t.Logf("%s: %d rules with an example, %d without\n"+
		"  anchored (quality ≥ threshold): %.0f%% (%s)\n"+
		"  right file (top candidate):     %.0f%% (%s)\n"+
		"  right symbol (top candidate):   %.0f%%\n"+
		"  anchors in a right file:        %d of %d\n"+
		"  rules without an example left unanchored: %d of %d\n"+
		"  mean time per rule: %.1f ms\n%s",
		name, s.rules, s.none,
		100*share(s.anchored, s.rules), proj(s.projAnchored),
		100*share(s.rightFile, s.rules), proj(s.projRightFile),
		100*share(s.rightSymbol, s.rules), s.anchoredRight, s.anchored, s.noneUnanchored, s.none,
		float64(s.elapsed.Microseconds())/1000/float64(max(len(cases), 1)), strings.Join(lines, "\n"))
	return s
}

// TestAnchorEvalSampleApp measures anchor discovery on the sample app's
// rule sets and holds the training set to the targets: an anchor for
// ≥ 80 % of the rules with an example (project-scoped ones and all), the
// right file for ≥ 90 %, and no anchor for ≥ 80 % of the rules without
// one. Run with -v to see the table.
func TestAnchorEvalSampleApp(t *testing.T) {
	a := NewAnchorer(openEvalIndex(t, copySampleApp(t), ""))
	for _, set := range []string{"sampleapp.jsonl", "sampleapp-holdout.jsonl"} {
		t.Run(set, func(t *testing.T) {
			s := runAnchorEval(t, a, set, readAnchorCases(t, set))
			if set != "sampleapp.jsonl" {
				return // the holdout is measured, not tuned on
			}
			for _, c := range []struct {
				what    string
				n, of   int
				atLeast float64
			}{
				{"anchored project-scoped rules", s.projAnchored, s.projRules, 0.8},
				{"anchored rules", s.anchored, s.rules, 0.8},
				{"rules with the right file", s.rightFile, s.rules, 0.9},
				{"rules without an example left unanchored", s.noneUnanchored, s.none, 0.8},
			} {
				if got := share(c.n, c.of); got < c.atLeast {
					t.Errorf("%s: %.2f, want ≥ %.2f", c.what, got, c.atLeast)
				}
			}
		})
	}
}

// TestAnchorEvalStdlib measures anchor discovery on the Go standard
// library:
//
//	go test ./memory -run TestAnchorEvalStdlib -anchor.stdlib [-anchor.dir DIR] -v
func TestAnchorEvalStdlib(t *testing.T) {
	a := NewAnchorer(openEvalIndex(t, stdlibRoot(t), *anchorDir))
	for _, set := range []string{"gostdlib.jsonl", "gostdlib-holdout.jsonl"} {
		t.Run(set, func(t *testing.T) {
			runAnchorEval(t, a, set, readAnchorCases(t, set))
		})
	}
}

var (
	anchorBlind    = flag.Bool("anchor.blind", false, "evaluate anchoring on the blind set (testdata/anchors/blind-rules.jsonl), whose rules name their workspaces")
	anchorBlindDir = flag.String("anchor.blinddir", "", "with -anchor.calibrate -anchor.blind: keep the blind set's index databases in this directory")
	anchorBlindSet = flag.String("anchor.set", "blind-rules.jsonl", "with -anchor.blind: the set of testdata/anchors to evaluate (blind-rules2.jsonl)")
)

// TestAnchorEvalBlind measures anchor discovery on the blind set, each
// rule in the workspace its root names (the Go module cache, the Python
// library), and counts anchors in another language than the rule's
// scope:
//
//	go test ./memory -run TestAnchorEvalBlind -anchor.blind [-anchor.dir DIR] -v
func TestAnchorEvalBlind(t *testing.T) {
	if !*anchorBlind {
		t.Skip("indexes the blind set's workspaces; run with -anchor.blind")
	}
	byRoot := map[string][]anchorCase{}
	var roots []string
	for _, c := range readAnchorCases(t, *anchorBlindSet) {
		if _, ok := byRoot[c.Root]; !ok {
			roots = append(roots, c.Root)
		}
		byRoot[c.Root] = append(byRoot[c.Root], c)
	}
	var all anchorTally
	cross, crossTop := 0, 0
	for _, root := range roots {
		if err := checkSetRoot(root, goEnv(t)); err != nil {
			t.Error(err)
			continue
		}
		t.Run(filepath.Base(root), func(t *testing.T) {
			a := NewAnchorer(openEvalIndex(t, root, *anchorDir))
			s := runAnchorEval(t, a, filepath.Base(root), byRoot[root])
			for _, c := range byRoot[root] {
				lang := scopeName(c.Scope)
				res, err := a.FindAnchor(context.Background(), c.Rule, AnchorOptions{Scope: c.Scope})
				if err != nil {
					t.Fatal(err)
				}
				if res.Anchor != nil && lang != "" && LanguageOfFile(res.Anchor.File) != lang {
					cross++
					t.Errorf("%q: anchored in %s, another language than %s", c.Rule, res.Anchor.File, lang)
				}
				if len(res.Candidates) > 0 && lang != "" && LanguageOfFile(res.Candidates[0].File) != lang {
					crossTop++
				}
			}
			all.rules += s.rules
			all.anchored += s.anchored
			all.rightFile += s.rightFile
			all.rightSymbol += s.rightSymbol
			all.anchoredRight += s.anchoredRight
			all.none += s.none
			all.noneUnanchored += s.noneUnanchored
		})
	}
	t.Logf("%s, all workspaces: %d rules with an example, %d without\n"+
		"  anchored: %.0f%%; right file (top candidate): %.0f%%; right symbol (top candidate): %.0f%%\n"+
		"  anchors in a right file: %d of %d; rules without an example left unanchored: %d of %d\n"+
		"  anchors in another language than the rule's: %d (top candidates: %d)",
		*anchorBlindSet, all.rules, all.none, 100*share(all.anchored, all.rules), 100*share(all.rightFile, all.rules), 100*share(all.rightSymbol, all.rules),
		all.anchoredRight, all.anchored, all.noneUnanchored, all.none, cross, crossTop)
}

// checkRuleSet fails for examples that the workspace does not define.
func checkRuleSet(t *testing.T, ix *analysis.Index, name string) {
	checkRuleSetCases(t, ix, name, readAnchorCases(t, name))
}

// checkRuleSetCases fails for examples of cases that the workspace does
// not define.
func checkRuleSetCases(t *testing.T, ix *analysis.Index, name string, cases []anchorCase) {
	ctx := context.Background()
	for _, c := range cases {
		if len(c.File) == 0 != (len(c.Symbol) == 0) {
			t.Errorf("%s: %q: files and symbols must both be given or both empty", name, c.Rule)
		}
		if _, err := NormalizeScope(c.Scope); c.Scope != "" && err != nil {
			t.Errorf("%s: %q: %v", name, c.Rule, err)
		}
		for _, f := range c.File {
			syms, err := ix.SymbolsInFile(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(syms) == 0 {
				t.Errorf("%s: %q: no indexed file %s", name, c.Rule, f)
			}
		}
		for _, sym := range c.Symbol {
			found := false
			for _, f := range c.File {
				if _, ok, err := ix.FindSymbol(ctx, f, sym, 0); err != nil {
					t.Fatal(err)
				} else if ok {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: %q: no symbol %s in %v", name, c.Rule, sym, c.File)
			}
		}
	}
}

// TestAnchorRuleSets checks that every example of the sample app's rule
// sets exists (and the standard library's with -anchor.stdlib).
func TestAnchorRuleSets(t *testing.T) {
	s := openEvalIndex(t, filepath.Join("..", "testdata", "sampleapp"), "")
	for _, set := range []string{"sampleapp.jsonl", "sampleapp-holdout.jsonl"} {
		checkRuleSet(t, s.Index, set)
	}
	if *anchorStdlib {
		s := openEvalIndex(t, stdlibRoot(t), *anchorDir)
		for _, set := range []string{"gostdlib.jsonl", "gostdlib-holdout.jsonl"} {
			checkRuleSet(t, s.Index, set)
		}
	}
}

// BenchmarkAnchorStdlib times anchor discovery for the standard
// library's rules and reports p50 and p95 per rule, and the process's CPU
// time per rule, with the chunks' terms searched in SQLite's text index
// (sqlite: a command that anchors once) and in memory (memory: the
// language server and the MCP server, which keep them there):
//
//	go test ./memory -run '^$' -bench AnchorStdlib -anchor.stdlib [-anchor.dir DIR]
func BenchmarkAnchorStdlib(b *testing.B) {
	s := openEvalIndex(b, stdlibRoot(b), *anchorDir)
	cases := append(readAnchorCases(b, "gostdlib.jsonl"), readAnchorCases(b, "gostdlib-holdout.jsonl")...)
	ctx := context.Background()
	run := func(b *testing.B) {
		a := NewAnchorer(s)
		var times, cpus []time.Duration
		cpu0 := processCPU()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			c := cases[i%len(cases)]
			start, startCPU := time.Now(), processCPU()
			if _, err := a.FindAnchor(ctx, c.Rule, AnchorOptions{Scope: c.Scope}); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
			cpus = append(cpus, processCPU()-startCPU)
		}
		b.StopTimer()
		pct := func(d []time.Duration, p int) float64 {
			slices.Sort(d)
			return float64(d[len(d)*p/100].Microseconds()) / 1000
		}
		b.ReportMetric(pct(times, 50), "p50-ms")
		b.ReportMetric(pct(times, 95), "p95-ms")
		if cpu := processCPU(); cpu > 0 {
			b.ReportMetric(float64((cpu-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/rule")
			// The CPU time of each rule (the process's, garbage
			// collection included) does not grow with the machine's
			// load as its wall time does.
			b.ReportMetric(pct(cpus, 50), "cpu-p50-ms")
			b.ReportMetric(pct(cpus, 95), "cpu-p95-ms")
		}
	}
	b.Run("sqlite", run)
	b.Run("memory", func(b *testing.B) {
		if err := s.Index.LoadTermsInMemory(ctx); err != nil {
			b.Fatal(err)
		}
		run(b)
	})
}

// calibrationRule is a training rule's candidates: their ranking
// features, whether each is a known example (good) or in a known file
// (goodFile), and the rule's grounding.
type calibrationRule struct {
	x        [][anchorRankFeatures]float64
	coverage []float64
	good     []bool
	goodFile []bool
	size     []float64
	grounded float64
	corpus   float64
	// hasExample is set for a rule with known examples.
	hasExample bool
	// set and rule name the rule; symbols and matched are its
	// candidates' names and matched key terms, for -anchor.dump.
	set, rule string
	symbols   []string
	files     []string
	matched   []int
	keyTerms  int
	lines     []int
	relevance []float64
}

// collectRules scores every candidate of every rule of a set.
func collectRules(t *testing.T, a *Anchorer, cases []anchorCase) []calibrationRule {
	t.Helper()
	ctx := context.Background()
	var out []calibrationRule
	for _, c := range cases {
		_, lang, _, err := a.anchorScope(AnchorOptions{Scope: c.Scope})
		if err != nil {
			t.Fatal(err)
		}
		scored, _, err := a.rank(ctx, c.Rule, anchorLanguages(lang, c.origins()), c.origins())
		if err != nil {
			t.Fatal(err)
		}
		r := calibrationRule{hasExample: len(c.File) > 0, rule: c.Rule}
		for _, s := range scored {
			r.symbols = append(r.symbols, s.Symbol)
			r.files = append(r.files, s.File)
			r.matched = append(r.matched, s.features.matched)
			r.keyTerms = s.features.keyTerms
			r.lines = append(r.lines, s.lines)
			r.relevance = append(r.relevance, s.Relevance)
			r.x = append(r.x, s.features.ranking())
			r.coverage = append(r.coverage, s.features.Coverage)
			r.size = append(r.size, s.Size)
			r.good = append(r.good, c.accepts(&s.AnchorCandidate, true))
			r.goodFile = append(r.goodFile, c.accepts(&s.AnchorCandidate, false))
			r.grounded = s.features.Grounded
			r.corpus = s.features.Corpus
		}
		out = append(out, r)
	}
	return out
}

func dotw(w []float64, x [anchorRankFeatures]float64) float64 {
	z := 0.0
	for i, v := range x {
		z += w[i] * v
	}
	return z
}

// fitRanking fits the ranking weights by gradient descent on the
// listwise loss −log Σ_good softmax(w·x) over the rules that have a good
// candidate, with a small L2 penalty.
func fitRanking(rules []calibrationRule) []float64 {
	w := make([]float64, anchorRankFeatures)
	const lr, l2, epochs = 0.5, 0.002, 5000
	for range epochs {
		grad := make([]float64, anchorRankFeatures)
		n := 0
		for _, r := range rules {
			if !slices.Contains(r.good, true) {
				continue
			}
			n++
			zs := make([]float64, len(r.x))
			zmax := math.Inf(-1)
			for i, x := range r.x {
				zs[i] = dotw(w, x)
				zmax = math.Max(zmax, zs[i])
			}
			var all, good float64
			for i, z := range zs {
				e := math.Exp(z - zmax)
				all += e
				if r.good[i] {
					good += e
				}
			}
			for i, x := range r.x {
				e := math.Exp(zs[i] - zmax)
				d := e / all
				if r.good[i] {
					d -= e / good
				}
				for k, v := range x {
					grad[k] += d * v
				}
			}
		}
		for k := range w {
			w[k] -= lr * (grad[k]/float64(max(n, 1)) + l2*w[k])
		}
	}
	return w
}

var anchorBalance = flag.Float64("anchor.balance", 0, "with -anchor.calibrate: how far to even the classes of the calibration (0: as they are, 1: equal)")

// fitCalibration fits relevance = σ(c₀ + c₁·score + c₂·margin +
// c₃·coverage + c₄·grounded + c₅·corpus + c₆·ln(1+key terms)) by
// logistic regression on each rule's best candidate by score, labelled
// by whether it is one of the rule's known examples (in one of its
// files, with file set). Scores and margins are recomputed with the
// ranking weights w.
func fitCalibration(rules []calibrationRule, w []float64, file bool) []float64 {
	var xs [][6]float64
	var ys, sizes []float64
	for _, r := range rules {
		if len(r.x) == 0 {
			continue
		}
		best, second := -1, -1
		for i, x := range r.x {
			switch {
			case best < 0 || dotw(w, x) > dotw(w, r.x[best]):
				best, second = i, best
			case second < 0 || dotw(w, x) > dotw(w, r.x[second]):
				second = i
			}
		}
		sc := dotw(w, r.x[best])
		m := sc
		if second >= 0 {
			m = sc - dotw(w, r.x[second])
		}
		m = math.Max(-anchorMaxMargin, math.Min(anchorMaxMargin, m))
		xs = append(xs, [6]float64{sc, m, r.coverage[best], r.grounded, r.corpus, anchorKeyTermsLog(r.keyTerms)})
		sizes = append(sizes, r.size[best])
		y := 0.0
		if r.good[best] || file && r.goodFile[best] {
			y = 1
		}
		ys = append(ys, y)
	}
	var pos float64
	for _, y := range ys {
		pos += y
	}
	n := float64(len(ys))
	// Class weights: as they are (1/n each) moved by -anchor.balance
	// towards even classes (0.5/count each).
	b := *anchorBalance
	cw := [2]float64{(1-b)/n + b*0.5/(n-pos), (1-b)/n + b*0.5/pos}
	c := make([]float64, 7)
	const lr, l2, epochs = 0.05, 0.001, 100000
	for range epochs {
		var g [7]float64
		for i, x := range xs {
			z := c[0]
			for k, v := range x {
				z += c[k+1] * v
			}
			d := cw[int(ys[i])] * (anchorLogistic(z) - ys[i])
			g[0] += d
			for k, v := range x {
				g[k+1] += d * v
			}
		}
		for k := range c {
			reg := 0.0
			if k > 0 {
				reg = l2 * c[k]
			}
			c[k] -= lr * (g[k] + reg)
		}
	}
	// The intercept is then set where the anchoring decision (quality
	// ≥ 0.7 at neutral recency) is right for the most training rules:
	// anchored when the best candidate is a known example, not
	// anchored otherwise; in the middle of the best interval.
	right := func(shift float64) int {
		n := 0
		for i, x := range xs {
			z := c[0] + shift
			for k, v := range x {
				z += c[k+1] * v
			}
			q := anchorWeightRelevance*anchorLogistic(z) + anchorWeightSize*sizes[i] + anchorWeightRecency*0.5
			if (q >= DefaultAnchorThreshold) == (ys[i] == 1) {
				n++
			}
		}
		return n
	}
	bestN, lo, hi := -1, 0.0, 0.0
	for shift := -6.0; shift <= 6; shift += 0.01 {
		switch n := right(shift); {
		case n > bestN:
			bestN, lo, hi = n, shift, shift
		case n == bestN && shift-hi < 0.015:
			hi = shift
		}
	}
	c[0] += (lo + hi) / 2
	return c
}

// anchorSeenBlindSets are the blind sets whose misses have been read:
// training sets since.
var anchorSeenBlindSets = []string{"blind-rules.jsonl", "blind-rules2.jsonl", "blind-rules3.jsonl", "blind-rules4.jsonl", "blind-rules5.jsonl", "blind-rules6.jsonl", "blind-rules7.jsonl", "blind-rules8.jsonl"}

var anchorDump = flag.String("anchor.dump", "", "with -anchor.calibrate: write every training rule's candidates and their features to this file (JSON lines) to study the ranking offline")

// TestAnchorCalibrate fits the ranking weights and the relevance
// calibration on the training sets and prints them for
// anchorRankWeights and anchorCalibration:
//
//	go test ./memory -run TestAnchorCalibrate -anchor.calibrate -anchor.stdlib -anchor.dir DIR -v
func TestAnchorCalibrate(t *testing.T) {
	if !*anchorCalibrate {
		t.Skip("run with -anchor.calibrate")
	}
	tag := func(rs []calibrationRule, set string) []calibrationRule {
		for i := range rs {
			rs[i].set = set
		}
		return rs
	}
	// The holdouts are only measured: dumped, never fitted.
	var holdout []calibrationRule
	a := NewAnchorer(openEvalIndex(t, copySampleApp(t), ""))
	rules := tag(collectRules(t, a, readAnchorCases(t, "sampleapp.jsonl")), "sampleapp.jsonl")
	if *anchorDump != "" {
		holdout = append(holdout, tag(collectRules(t, a, readAnchorCases(t, "sampleapp-holdout.jsonl")), "sampleapp-holdout.jsonl")...)
	}
	if *anchorStdlib {
		s := NewAnchorer(openEvalIndex(t, stdlibRoot(t), *anchorDir))
		rules = append(rules, tag(collectRules(t, s, readAnchorCases(t, "gostdlib.jsonl")), "gostdlib.jsonl")...)
		if *anchorDump != "" {
			holdout = append(holdout, tag(collectRules(t, s, readAnchorCases(t, "gostdlib-holdout.jsonl")), "gostdlib-holdout.jsonl")...)
		}
	}
	if *anchorBlind {
		// The first two blind sets, seen since their first runs:
		// development sets now, each rule in its own workspace.
		for _, set := range anchorSeenBlindSets {
			byRoot := map[string][]anchorCase{}
			var roots []string
			for _, c := range readAnchorCases(t, set) {
				if _, ok := byRoot[c.Root]; !ok {
					roots = append(roots, c.Root)
				}
				byRoot[c.Root] = append(byRoot[c.Root], c)
			}
			for _, root := range roots {
				if err := checkSetRoot(root, goEnv(t)); err != nil {
					t.Fatalf("%s: %v", set, err)
				}
				s := NewAnchorer(openEvalIndex(t, root, *anchorBlindDir))
				rules = append(rules, tag(collectRules(t, s, byRoot[root]), set)...)
			}
		}
	}
	if *anchorDump != "" {
		if err := dumpCalibrationRules(*anchorDump, append(slices.Clip(rules), holdout...)); err != nil {
			t.Fatal(err)
		}
	}
	w := fitRanking(rules)
	c := fitCalibration(rules, w, false)
	var b strings.Builder
	for i, name := range []string{"focus", "name", "agreement", "named", "literal", "test", "spell", "type", "head", "long", "quoted", "path", "platform", "opposite", "option", "callee", "delegates", "file", "vector"} {
		fmt.Fprintf(&b, "\t%.2f, // %s\n", w[i], name)
	}
	b.WriteString("calibration:\n")
	for i, name := range []string{"intercept", "ranking score", "margin", "coverage", "grounded", "corpus", "key terms"} {
		fmt.Fprintf(&b, "\t%.2f, // %s\n", c[i], name)
	}
	top1, top1File, pooled, withExample := 0, 0, 0, 0
	for _, r := range rules {
		if r.hasExample {
			withExample++
		}
		if slices.Contains(r.good, true) {
			pooled++
		}
		best := -1
		for i, x := range r.x {
			if best < 0 || dotw(w, x) > dotw(w, r.x[best]) {
				best = i
			}
		}
		if best >= 0 && r.good[best] {
			top1++
		}
		if best >= 0 && r.goodFile[best] {
			top1File++
		}
	}
	t.Logf("%d rules (%d with an example, %d of them with one among the candidates); the fitted ranking puts a known example first for %d, one in a right file for %d\nranking weights:\n%s",
		len(rules), withExample, pooled, top1, top1File, b.String())
}

// dumpCalibrationRules writes one JSON object per rule: its set, text,
// grounding and candidates with their ranking features and labels.
func dumpCalibrationRules(name string, rules []calibrationRule) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("dump the rules: %w", err)
	}
	enc := json.NewEncoder(f)
	for _, r := range rules {
		type cand struct {
			Symbol    string                      `json:"symbol"`
			File      string                      `json:"file"`
			X         [anchorRankFeatures]float64 `json:"x"`
			Coverage  float64                     `json:"coverage"`
			Size      float64                     `json:"size"`
			Lines     int                         `json:"lines"`
			Matched   int                         `json:"matched"`
			Relevance float64                     `json:"relevance"`
			Good      bool                        `json:"good,omitempty"`
			GoodFile  bool                        `json:"good_file,omitempty"`
		}
		out := struct {
			Set        string  `json:"set"`
			Rule       string  `json:"rule"`
			HasExample bool    `json:"has_example"`
			Grounded   float64 `json:"grounded"`
			Corpus     float64 `json:"corpus"`
			KeyTerms   int     `json:"key_terms"`
			Cands      []cand  `json:"cands"`
		}{Set: r.set, Rule: r.rule, HasExample: r.hasExample, Grounded: r.grounded, Corpus: r.corpus, KeyTerms: r.keyTerms}
		for i := range r.x {
			out.Cands = append(out.Cands, cand{r.symbols[i], r.files[i], r.x[i], r.coverage[i], r.size[i], r.lines[i], r.matched[i], r.relevance[i], r.good[i], r.goodFile[i]})
		}
		if err := enc.Encode(out); err != nil {
			f.Close()
			return fmt.Errorf("dump the rules: %w", err)
		}
	}
	return f.Close()
}

var (
	anchorDebug      = flag.String("anchor.debug", "", "print the scored candidates of this rule (with -anchor.stdlib: on the standard library)")
	anchorDebugRoot  = flag.String("anchor.root", "", "with -anchor.debug: the workspace (a blind set's root) instead of the sample app")
	anchorDebugFiles = flag.String("anchor.files", "", "with -anchor.debug: the files, comma-separated, the rule's corrections were made in")
)

// TestAnchorDebug prints every candidate of one rule with its features.
func TestAnchorDebug(t *testing.T) {
	if *anchorDebug == "" {
		t.Skip("run with -anchor.debug RULE")
	}
	var s *retrieval.Searcher
	if *anchorDebugRoot != "" {
		s = openEvalIndex(t, resolveSetRoot(*anchorDebugRoot, goEnv(t)), *anchorDir)
	} else if *anchorStdlib {
		s = openEvalIndex(t, stdlibRoot(t), *anchorDir)
	} else {
		s = openEvalIndex(t, copySampleApp(t), "")
	}
	a := NewAnchorer(s)
	rq := analyzeAnchorRule(*anchorDebug)
	if err := a.weighTerms(context.Background(), &rq); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "idents %q literals %q grounded %.2f search %q\n", rq.idents, rq.literals, rq.grounded, rq.searchText())
	for _, term := range rq.terms {
		fmt.Fprintf(&b, "  term %-14s w=%.2f known=%v soft=%v whole=%v kw=%v forms=%v\n", term.stem, term.weight, term.known, term.soft, term.whole, term.keyword, term.forms)
	}
	var origins []AnchorOrigin
	for _, f := range strings.Split(*anchorDebugFiles, ",") {
		if f != "" {
			origins = append(origins, AnchorOrigin{File: f})
		}
	}
	scored, reason, err := a.rank(context.Background(), *anchorDebug, anchorLanguages("", origins), origins)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "reason %q\n", reason)
	for i, c := range scored {
		if i == 25 {
			break
		}
		f := c.features
		fmt.Fprintf(&b, "%5.2f %5.2f  s %5.2f m %5.2f foc %.2f nam %.2f gr %.2f agr %.2f named %.1f lit %.1f spell %.2f type %.0f code %.2f callee %.2f deleg %.2f file %.2f vec %.2f home %.1f %d/%d size %.2f  %s %s\n",
			c.Quality, c.Relevance, f.Score, f.Margin, f.Focus, f.Name, f.Grounded, f.Agreement, f.Named, f.Literal, f.Spell, f.Type, f.Code, f.Callee, f.Delegates, f.File, f.Vector, f.Home, f.matched, f.keyTerms, c.Size, c.File, c.Symbol)
	}
	t.Log(b.String())
}

var anchorMisses = flag.Bool("anchor.misses", false, "with -anchor.blind: print, for each rule whose top candidate is wrong, the top candidates and where its known examples rank")

// TestAnchorMisses prints the misses of a blind set by class: for each
// rule whose top candidate is not a known example, the top three and the
// best-ranked known example with its rank and features, or that no known
// example was a candidate at all:
//
//	go test ./memory -run TestAnchorMisses -anchor.misses -anchor.blind -anchor.set SET -anchor.dir DIR -v
func TestAnchorMisses(t *testing.T) {
	if !*anchorMisses || !*anchorBlind {
		t.Skip("run with -anchor.misses -anchor.blind")
	}
	byRoot := map[string][]anchorCase{}
	var roots []string
	for _, c := range readAnchorCases(t, *anchorBlindSet) {
		if _, ok := byRoot[c.Root]; !ok {
			roots = append(roots, c.Root)
		}
		byRoot[c.Root] = append(byRoot[c.Root], c)
	}
	line := func(i int, c anchorScored) string {
		f := c.features
		return fmt.Sprintf("    #%-3d q %.2f r %.2f s %5.2f foc %.2f nam %.2f agr %.2f named %.1f lit %.1f spell %.2f type %.0f %d/%d %3d lines  %s %s",
			i+1, c.Quality, c.Relevance, f.Score, f.Focus, f.Name, f.Agreement, f.Named, f.Literal, f.Spell, f.Type, f.matched, f.keyTerms, c.lines, c.File, c.Symbol)
	}
	for _, root := range roots {
		if err := checkSetRoot(root, goEnv(t)); err != nil {
			t.Error(err)
			continue
		}
		a := NewAnchorer(openEvalIndex(t, root, *anchorDir))
		var b strings.Builder
		for _, c := range byRoot[root] {
			if len(c.File) == 0 {
				continue
			}
			_, lang, _, err := a.anchorScope(AnchorOptions{Scope: c.Scope})
			if err != nil {
				t.Fatal(err)
			}
			scored, _, err := a.rank(context.Background(), c.Rule, anchorLanguages(lang, c.origins()), c.origins())
			if err != nil {
				t.Fatal(err)
			}
			if len(scored) > 0 && c.accepts(&scored[0].AnchorCandidate, true) {
				continue
			}
			fmt.Fprintf(&b, "%q (want %v)\n", anchorShorten(c.Rule, 100), c.Symbol)
			for i := range min(3, len(scored)) {
				b.WriteString(line(i, scored[i]) + "\n")
			}
			found := false
			for i := range scored {
				if c.accepts(&scored[i].AnchorCandidate, true) {
					b.WriteString(line(i, scored[i]) + "  ← known example\n")
					found = true
					break
				}
			}
			if !found {
				b.WriteString("    no known example among the candidates\n")
			}
		}
		t.Logf("%s:\n%s", filepath.Base(root), b.String())
	}
}

// TestResolveSetRoot checks that a rule set's root is found on any
// machine: named by a Go variable, or an absolute path into another
// machine's module cache or Go tree.
func TestResolveSetRoot(t *testing.T) {
	tmp := t.TempDir()
	env := map[string]string{
		"GOMODCACHE": filepath.Join(tmp, "mod"),
		"GOROOT":     filepath.Join(tmp, "goroot"),
		"GOPATH":     filepath.Join(tmp, "gopath"),
	}
	existing := filepath.Join(tmp, "here")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ root, want string }{
		{"$GOMODCACHE/golang.org/x/net@v0.57.0/http2", filepath.Join(tmp, "mod", "golang.org", "x", "net@v0.57.0", "http2")},
		{"${GOROOT}/src/net/http", filepath.Join(tmp, "goroot", "src", "net", "http")},
		{"/home/someone/go/pkg/mod/github.com/ncruces/go-sqlite3@v0.35.6", filepath.Join(tmp, "mod", "github.com", "ncruces", "go-sqlite3@v0.35.6")},
		{"/home/someone/sdk/go/src/encoding/json", filepath.Join(tmp, "goroot", "src", "encoding", "json")},
		{existing, existing},
		{"/usr/lib/python3.11/asyncio", "/usr/lib/python3.11/asyncio"},
	} {
		if got := resolveSetRoot(c.root, env); got != c.want {
			t.Errorf("resolveSetRoot(%q) = %q, want %q", c.root, got, c.want)
		}
	}
	err := checkSetRoot(filepath.Join(tmp, "mod", "golang.org", "x", "net@v0.57.0", "http2"), env)
	if err == nil || !strings.Contains(err.Error(), "go mod download golang.org/x/net@v0.57.0") {
		t.Errorf("checkSetRoot of a module not downloaded: %v, want the go mod download command", err)
	}
}

var anchorLeaveOut = flag.String("anchor.leaveout", "", "read the rules dumped by -anchor.dump from this file and measure each blind set with the ranking and calibration fitted without it")

// TestAnchorLeaveOneOut measures how the fit generalises to a set it has
// not seen: each blind set of a -anchor.dump file is ranked and anchored
// by weights and a calibration fitted on every other training rule, its
// candidates ordered as FindAnchor orders them (relevance, then size and
// length) and anchored at quality ≥ DefaultAnchorThreshold with neutral
// recency:
//
//	go test ./memory -run TestAnchorLeaveOneOut -anchor.leaveout dump.jsonl -v
func TestAnchorLeaveOneOut(t *testing.T) {
	if *anchorLeaveOut == "" {
		t.Skip("run with -anchor.leaveout DUMP (written by TestAnchorCalibrate's -anchor.dump)")
	}
	rules, err := readDumpedRules(*anchorLeaveOut)
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, r := range rules {
		if strings.HasPrefix(r.set, "blind-rules") && !slices.Contains(sets, r.set) {
			sets = append(sets, r.set)
		}
	}
	slices.Sort(sets)
	if len(sets) < 2 {
		t.Fatalf("%s: %d blind sets; leaving one out needs two or more", *anchorLeaveOut, len(sets))
	}
	var b strings.Builder
	var all leaveOutTally
	for _, set := range sets {
		var train, held []calibrationRule
		for _, r := range rules {
			switch {
			case r.set == set:
				held = append(held, r)
			case !strings.Contains(r.set, "holdout"):
				train = append(train, r)
			}
		}
		w := fitRanking(train)
		c := fitCalibration(train, w, false)
		s := leaveOutMeasure(held, w, c)
		all.add(s)
		fmt.Fprintf(&b, "%-20s %s\n", set, s)
	}
	fmt.Fprintf(&b, "%-20s %s\n", "all", all)
	t.Logf("leave one set out (right file / right symbol / anchored of the rules with an example):\n%s", b.String())
}

// leaveOutTally counts the outcomes of a held-out set.
type leaveOutTally struct {
	rules, file, symbol, anchored, anchoredRight, anchors, none, noneUnanchored int
}

func (s *leaveOutTally) add(o leaveOutTally) {
	s.rules += o.rules
	s.file += o.file
	s.symbol += o.symbol
	s.anchored += o.anchored
	s.anchoredRight += o.anchoredRight
	s.anchors += o.anchors
	s.none += o.none
	s.noneUnanchored += o.noneUnanchored
}

func (s leaveOutTally) String() string {
	return fmt.Sprintf("right file %5.1f %%, right symbol %5.1f %%, anchored %5.1f %%; anchors in a right file %d of %d; no-example rules unanchored %d of %d",
		100*share(s.file, s.rules), 100*share(s.symbol, s.rules), 100*share(s.anchored, s.rules), s.anchoredRight, s.anchors, s.noneUnanchored, s.none)
}

// leaveOutMeasure ranks and anchors rules with ranking weights w and
// calibration c as FindAnchor does.
func leaveOutMeasure(rules []calibrationRule, w, c []float64) leaveOutTally {
	var s leaveOutTally
	for _, r := range rules {
		if r.hasExample {
			s.rules++
		} else {
			s.none++
		}
		if len(r.x) == 0 {
			if !r.hasExample {
				s.noneUnanchored++
			}
			continue
		}
		score := make([]float64, len(r.x))
		first, second := math.Inf(-1), math.Inf(-1)
		for i, x := range r.x {
			score[i] = dotw(w, x)
			switch {
			case score[i] > first:
				first, second = score[i], first
			case score[i] > second:
				second = score[i]
			}
		}
		rel := make([]float64, len(r.x))
		for i := range r.x {
			best := first
			if score[i] == first {
				best = second
			}
			if math.IsInf(best, -1) {
				best = 0
			}
			m := math.Max(-anchorMaxMargin, math.Min(anchorMaxMargin, score[i]-best))
			rel[i] = anchorLogistic(c[0] + c[1]*score[i] + c[2]*m + c[3]*r.coverage[i] + c[4]*r.grounded + c[5]*r.corpus + c[6]*anchorKeyTermsLog(r.keyTerms))
		}
		top := 0
		for i := range r.x {
			switch {
			case rel[i] != rel[top]:
				if rel[i] > rel[top] {
					top = i
				}
			case r.size[i] != r.size[top]:
				if r.size[i] > r.size[top] {
					top = i
				}
			case r.lines[i] < r.lines[top]:
				top = i
			}
		}
		q := anchorWeightRelevance*rel[top] + anchorWeightSize*r.size[top] + anchorWeightRecency*0.5
		anchored := q >= DefaultAnchorThreshold
		if anchored {
			s.anchors++
			if r.goodFile[top] {
				s.anchoredRight++
			}
		}
		switch {
		case !r.hasExample:
			if !anchored {
				s.noneUnanchored++
			}
		default:
			if r.good[top] {
				s.symbol++
			}
			if r.goodFile[top] {
				s.file++
			}
			if anchored {
				s.anchored++
			}
		}
	}
	return s
}

// readDumpedRules reads the rules that dumpCalibrationRules wrote.
func readDumpedRules(name string) ([]calibrationRule, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read the dumped rules: %w", err)
	}
	defer f.Close()
	var out []calibrationRule
	dec := json.NewDecoder(bufio.NewReader(f))
	for n := 1; ; n++ {
		var in struct {
			Set        string  `json:"set"`
			Rule       string  `json:"rule"`
			HasExample bool    `json:"has_example"`
			Grounded   float64 `json:"grounded"`
			Corpus     float64 `json:"corpus"`
			KeyTerms   int     `json:"key_terms"`
			Cands      []struct {
				Symbol   string    `json:"symbol"`
				File     string    `json:"file"`
				X        []float64 `json:"x"`
				Coverage float64   `json:"coverage"`
				Size     float64   `json:"size"`
				Lines    int       `json:"lines"`
				Good     bool      `json:"good"`
				GoodFile bool      `json:"good_file"`
			} `json:"cands"`
		}
		if err := dec.Decode(&in); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("read the dumped rules: %s: rule %d: %w", name, n, err)
		}
		r := calibrationRule{set: in.Set, rule: in.Rule, hasExample: in.HasExample, grounded: in.Grounded, corpus: in.Corpus, keyTerms: in.KeyTerms}
		for _, c := range in.Cands {
			if len(c.X) != anchorRankFeatures {
				return nil, fmt.Errorf("read the dumped rules: %s: rule %d: %d ranking features, want %d (dumped by another version)", name, n, len(c.X), anchorRankFeatures)
			}
			var x [anchorRankFeatures]float64
			copy(x[:], c.X)
			r.x = append(r.x, x)
			r.symbols, r.files = append(r.symbols, c.Symbol), append(r.files, c.File)
			r.coverage, r.size, r.lines = append(r.coverage, c.Coverage), append(r.size, c.Size), append(r.lines, c.Lines)
			r.good, r.goodFile = append(r.good, c.Good), append(r.goodFile, c.GoodFile)
		}
		out = append(out, r)
	}
}
