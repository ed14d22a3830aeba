package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	evalTasks = flag.String("eval.tasks", "", "evaluate task search on a SWE-bench style instance file (repo, instance_id, query, gold_files)")
	evalTrees = flag.String("eval.trees", "", "the work trees of -eval.tasks, one folder per repository named OWNER+NAME")
)

// taskInstance is one line of a task set: an issue's text and the files
// its fix changed.
type taskInstance struct {
	Repo  string   `json:"repo"`
	ID    string   `json:"instance_id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold_files"`
}

// TestEvalTasks measures file localization of whole task descriptions:
// R@1, R@5, R@10 and MRR@10 over distinct result files, per repository.
// It runs only with -eval.tasks and -eval.trees (see
// shared/eval/swebench-dev/README.md); -eval.dir keeps the indexes.
func TestEvalTasks(t *testing.T) {
	if *evalTasks == "" || *evalTrees == "" {
		t.Skip("needs -eval.tasks and -eval.trees")
	}
	f, err := os.Open(*evalTasks)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byRepo := map[string][]taskInstance{}
	var repos []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var in taskInstance
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		if byRepo[in.Repo] == nil {
			repos = append(repos, in.Repo)
		}
		byRepo[in.Repo] = append(byRepo[in.Repo], in)
	}
	type score struct {
		n, r1, r5, r10 int
		mrr            float64
	}
	var total score
	var lines, misses []string
	var lat []float64
	for _, repo := range repos {
		root := filepath.Join(*evalTrees, strings.ReplaceAll(repo, "/", "+"))
		if _, err := os.Stat(root); err != nil {
			t.Logf("skipped %s: no tree at %s", repo, root)
			continue
		}
		s := newEvalSearcherTB(t, root)
		var sc score
		for _, in := range byRepo[repo] {
			start := time.Now()
			resp, err := s.Search(context.Background(), Request{Query: in.Query, TopK: 50})
			if err != nil {
				t.Fatalf("%s: %v", in.ID, err)
			}
			lat = append(lat, float64(time.Since(start).Microseconds())/1000)
			var files []string
			for _, r := range resp.Results {
				if len(files) < 10 && !contains(files, r.File) {
					files = append(files, r.File)
				}
			}
			rank := 0
			for i, f := range files {
				if contains(in.Gold, f) {
					rank = i + 1
					break
				}
			}
			sc.n++
			if rank == 1 {
				sc.r1++
			}
			if rank > 0 && rank <= 5 {
				sc.r5++
			}
			if rank > 0 {
				sc.r10++
				sc.mrr += 1 / float64(rank)
			}
			if rank == 0 || rank > 3 {
				misses = append(misses, fmt.Sprintf("  %-32s rank %2d gold %v got %v", in.ID, rank, in.Gold, files[:min(4, len(files))]))
			}
		}
		lines = append(lines, fmt.Sprintf("%-22s %3d  %5.1f  %5.1f  %5.1f  %.3f", repo, sc.n,
			pct(sc.r1, sc.n), pct(sc.r5, sc.n), pct(sc.r10, sc.n), sc.mrr/float64(max(sc.n, 1))))
		total.n += sc.n
		total.r1 += sc.r1
		total.r5 += sc.r5
		total.r10 += sc.r10
		total.mrr += sc.mrr
	}
	sort.Float64s(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	t.Logf("task file localization\n%-22s %3s  %5s  %5s  %5s  %s\n%s\n%-22s %3d  %5.1f  %5.1f  %5.1f  %.3f\nlatency p50 %.0f ms, p95 %.0f ms\nmisses at 3:\n%s",
		"repo", "n", "R@1", "R@5", "R@10", "MRR", strings.Join(lines, "\n"), "overall", total.n,
		pct(total.r1, total.n), pct(total.r5, total.n), pct(total.r10, total.n), total.mrr/float64(max(total.n, 1)),
		q(0.5), q(0.95), strings.Join(misses, "\n"))
}

func pct(a, n int) float64 { return 100 * float64(a) / float64(max(n, 1)) }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

var evalTaskRepo = flag.String("eval.repo", "astropy/astropy", "the repository of -eval.tasks that BenchmarkTaskSearch searches")

// BenchmarkTaskSearch measures warm search latency on one repository of
// -eval.tasks (astropy, the largest, by default): its issues as pasted,
// one issue of 2,000 words, and one-line questions (the issues' titles).
// It reports p50 and p95 in milliseconds for each.
func BenchmarkTaskSearch(b *testing.B) {
	if *evalTasks == "" || *evalTrees == "" {
		b.Skip("needs -eval.tasks and -eval.trees")
	}
	raw, err := os.ReadFile(*evalTasks)
	if err != nil {
		b.Fatal(err)
	}
	var issues, titles []string
	var long strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		var in taskInstance
		if json.Unmarshal([]byte(line), &in) != nil || in.Repo != *evalTaskRepo {
			continue
		}
		issues = append(issues, in.Query)
		if t := taskTitle(in.Query); t != "" {
			titles = append(titles, t)
		}
		if len(strings.Fields(long.String())) < 2000 {
			long.WriteString(in.Query + "\n\n")
		}
	}
	words := strings.Fields(long.String())
	longIssue := strings.Join(words[:min(2000, len(words))], " ")
	s := newEvalSearcherTB(b, filepath.Join(*evalTrees, strings.ReplaceAll(*evalTaskRepo, "/", "+")))
	ctx := context.Background()
	for _, bench := range []struct {
		name    string
		queries []string
	}{
		{"issues", issues},
		{"2000-words", []string{longIssue}},
		{"one-line", titles},
	} {
		b.Run(bench.name, func(b *testing.B) {
			var ms []float64
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := s.Search(ctx, Request{Query: bench.queries[i%len(bench.queries)], TopK: 10}); err != nil {
					b.Fatal(err)
				}
				ms = append(ms, float64(time.Since(start).Microseconds())/1000)
				i++
			}
			sort.Float64s(ms)
			b.ReportMetric(ms[len(ms)/2], "p50-ms")
			b.ReportMetric(ms[min(len(ms)-1, len(ms)*95/100)], "p95-ms")
		})
	}
}
