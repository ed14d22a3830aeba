package analysis_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// benchRoot is the workspace the cold index benchmarks index: by default
// $GOROOT/src/net, a few hundred real Go files.
var benchRoot = flag.String("bench.root", "", "workspace indexed by the cold index benchmarks (default $GOROOT/src/net)")

func coldRoot(b *testing.B) string {
	if *benchRoot != "" {
		return *benchRoot
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no Go installation: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src", "net")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no benchmark corpus: %v", err)
	}
	return root
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds per operation, which a loaded machine
// disturbs less than wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkBareParse is the baseline of the cold index benchmarks: every
// file parsed by tree-sitter alone, on one worker per CPU as the index
// uses.
func BenchmarkBareParse(b *testing.B) {
	root := coldRoot(b)
	cpu := cpuTime()
	for b.Loop() {
		if _, _, _, err := analysis.ParseBaseline(context.Background(), root, runtime.NumCPU()); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkColdIndexGraph indexes the code graph alone into a new
// database.
func BenchmarkColdIndexGraph(b *testing.B) {
	benchColdIndex(b, analysis.Options{NoChunks: true})
}

// BenchmarkColdIndexChunks indexes the graph and chunks, without vectors.
func BenchmarkColdIndexChunks(b *testing.B) {
	benchColdIndex(b, analysis.Options{})
}

// BenchmarkColdIndex indexes as anchorage index does: graph, chunks and
// word vectors.
func BenchmarkColdIndex(b *testing.B) {
	vec, err := retrieval.NewWordVectors()
	if err != nil {
		b.Fatal(err)
	}
	benchColdIndex(b, analysis.Options{Embedder: vec})
}

func benchColdIndex(b *testing.B, opts analysis.Options) {
	ctx := context.Background()
	opts.Root = coldRoot(b)
	cpu := cpuTime()
	n := 0
	for b.Loop() {
		n++
		opts.DBPath = filepath.Join(b.TempDir(), "index.db")
		ix, err := analysis.Open(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := ix.Update(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(sum.Problems) > 0 && sum.Problems[0].Reason == "embedding" {
			b.Fatal(sum.Problems[0].Detail)
		}
		ix.Close()
		b.ReportMetric(float64(sum.Files), "files")
		t := sum.Timings
		b.ReportMetric(t.Parse, "parse-s")
		b.ReportMetric(t.Queries, "query-s")
		b.ReportMetric(t.Assemble+t.Chunks, "assemble-s")
		b.ReportMetric(t.Store, "store-s")
		b.ReportMetric(t.Finish, "finish-s")
		b.ReportMetric(t.Vectors, "vector-s")
	}
	reportCPU(b, cpu)
	reportRSS(b)
}

// reportRSS reports the process's peak resident set size so far.
func reportRSS(b *testing.B) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
	}
}
