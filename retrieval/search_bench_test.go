package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"
)

// BenchmarkSearchStdlib times routed searches of the Go standard library
// questions end to end and reports their p50 and p95:
// go test ./retrieval -run '^$' -bench SearchStdlib -eval.stdlib [-eval.dir DIR]
func BenchmarkSearchStdlib(b *testing.B) {
	if !*evalStdlib {
		b.Skip("indexes the Go standard library; run with -eval.stdlib")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no Go standard library at %s", root)
	}
	s := newEvalSearcherTB(b, root)
	cases := readEval(b, "gostdlib.jsonl")
	ctx := context.Background()
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := cases[i%len(cases)]
		start := time.Now()
		if _, err := s.Search(ctx, Request{Query: c.Q}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
}
