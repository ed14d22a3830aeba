package cli

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

var benchStdlib = flag.Bool("cli.stdlib", false, "run BenchmarkCommands on the Go standard library (GOROOT/src; the first run indexes it, which takes minutes)")

// BenchmarkCommands times command lines run in this process (the
// process's start-up is left out: anchorage bench --cli times whole
// processes) on an index with nothing changed: the sample app, or the Go
// standard library with -cli.stdlib. Each reports its median as p50-ms.
// The router and the task patterns are compiled by the first routed
// search of the process only; the later runs show the cost of a command
// itself.
func BenchmarkCommands(b *testing.B) {
	root, _ := filepath.Abs(sampleApp)
	if *benchStdlib {
		root = filepath.Join(runtime.GOROOT(), "src")
	}
	data := b.TempDir()
	common := []string{"--data-dir", data, "--root", root}
	ctx := context.Background()
	if err := Run(ctx, append(slices.Clone(common), "index"), io.Discard, io.Discard); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"graph-symbols-no-refresh", []string{"graph", "symbols", "ReadFull", "--no-refresh"}},
		{"keyword-search", []string{"search", "--strategy", "keyword", "ReadFull"}},
		{"keyword-search-no-refresh", []string{"search", "--strategy", "keyword", "--no-refresh", "ReadFull"}},
		{"routed-question", []string{"search", "where are gzip headers parsed"}},
		{"route", []string{"route", "who calls ReadFull"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			args := append(slices.Clone(common), c.args...)
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				if err := Run(ctx, args, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			p50, _ := percentiles(times)
			b.ReportMetric(p50, "p50-ms")
		})
	}
}
