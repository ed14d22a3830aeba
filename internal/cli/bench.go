package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/state"
)

// benchReport holds the figures of anchorage bench.
type benchReport struct {
	Root         string  `json:"root"`
	Files        int     `json:"files"`
	Symbols      int     `json:"symbols"`
	Edges        int     `json:"edges"`
	MB           float64 `json:"mb_parsed"`
	ColdSeconds  float64 `json:"cold_index_seconds"`
	MBPerSecond  float64 `json:"cold_mb_per_second"`
	WarmSeconds  float64 `json:"warm_index_seconds"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	Workers      int     `json:"workers"`
	SymbolP50ms  float64 `json:"symbol_lookup_p50_ms"`
	SymbolP95ms  float64 `json:"symbol_lookup_p95_ms"`
	CallersP50ms float64 `json:"callers_p50_ms"`
	CallersP95ms float64 `json:"callers_p95_ms"`
	Samples      int     `json:"samples"`
	BaselineSecs float64 `json:"bare_parse_seconds"`
	Ratio        float64 `json:"cold_index_to_bare_parse"`
	// ColdTimings and GraphTimings say where the cold index's time went,
	// with chunks and vectors and without.
	ColdTimings  analysis.Timings `json:"cold_timings"`
	GraphTimings analysis.Timings `json:"graph_only_timings"`
	// Runs is how many times the bare parse and the cold indexes ran;
	// each figure is the best run's.
	Runs int `json:"runs"`
	// LoadAverage is the machine's one-minute load average before and
	// after the cold runs (Linux), as other work skews wall times.
	LoadAverage [2]float64    `json:"load_average"`
	EditFile    string        `json:"edit_file,omitempty"`
	EditP50ms   float64       `json:"edit_p50_ms"`
	EditP99ms   float64       `json:"edit_p99_ms"`
	LSP         *lspReport    `json:"lsp,omitempty"`
	Search      *searchReport `json:"search,omitempty"`
}

func newBenchCmd(g *globalFlags) *cobra.Command {
	var samples, workers, runs int
	var withLSP, load, typingOnly bool
	var loadFile string
	var loadEdits, loadBigMB int
	var cpuProfile string
	server := benchServerOptions{rounds: 2}
	var cli cliBench
	var withCLI bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure cold and warm indexing, peak memory, and symbol and callers query latency",
		Long: `Indexes the workspace into a fresh temporary database (cold), again with
nothing changed (warm), then times symbol searches and callers queries for
symbols sampled from the index. The figures in the project's notes come
from this command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			root, err := filepath.Abs(g.root)
			if err != nil {
				return err
			}
			if load {
				return runLoadBench(cmd, g, root, loadFile, loadEdits, loadBigMB)
			}
			if typingOnly {
				return runTypingBench(cmd, g, root, server)
			}
			if withCLI {
				rep, err := runCLIBench(ctx, cmd.ErrOrStderr(), g, root, cli)
				if err != nil {
					return err
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), rep)
				}
				printCLIReport(cmd.OutOrStdout(), rep)
				return nil
			}
			tmp, err := os.MkdirTemp("", "anchorage-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			vec, err := retrieval.NewWordVectors()
			if err != nil {
				return err
			}
			if workers <= 0 {
				workers = runtime.NumCPU()
			}
			runs = max(runs, 1)
			rep := benchReport{Root: root, Samples: samples, Workers: workers, Runs: runs}
			rep.LoadAverage[0] = loadAverage()
			// Each run parses bare, then builds the graph alone and the
			// whole index into new databases; the best of each counts.
			var ix *analysis.Index
			var graphSum, cold *analysis.Summary
			var best *session.Session // ix's
			defer func() {
				if best != nil {
					best.Close()
				}
			}()
			for run := range runs {
				_, _, base, err := analysis.ParseBaseline(ctx, root, workers)
				if err != nil {
					return err
				}
				if run == 0 || base.Seconds() < rep.BaselineSecs {
					rep.BaselineSecs = base.Seconds()
				}
				dir := filepath.Join(tmp, fmt.Sprint(run))
				// Each run's indexes are new databases under dir, owned by
				// a session of the run; the best run's stays open.
				sess, err := session.New(ctx, state.Dirs{Data: dir, Cache: dir}, session.Options{})
				if err != nil {
					return err
				}
				graphOnly, err := sess.OpenIndex(ctx, analysis.Options{Root: root, DBPath: filepath.Join(dir, "graph.db"), Workers: workers, NoChunks: true})
				if err != nil {
					sess.Close()
					return err
				}
				g, err := updateWithProgress(ctx, cmd, graphOnly)
				if rerr := sess.ReleaseIndex(graphOnly); err == nil {
					err = rerr
				}
				if err != nil {
					sess.Close()
					return err
				}
				if graphSum == nil || g.Seconds < graphSum.Seconds {
					graphSum = g
				}
				full, err := sess.OpenIndex(ctx, analysis.Options{Root: root, DBPath: filepath.Join(dir, "index.db"), Workers: workers, Embedder: vec})
				if err != nil {
					sess.Close()
					return err
				}
				c, err := updateWithProgress(ctx, cmd, full)
				if err != nil {
					sess.Close()
					return err
				}
				if cold == nil || c.Seconds < cold.Seconds {
					if best != nil {
						best.Close()
					}
					ix, cold, best = full, c, sess
				} else {
					sess.Close()
				}
			}
			rep.LoadAverage[1] = loadAverage()
			rep.ColdSeconds = cold.Seconds
			rep.ColdTimings, rep.GraphTimings = cold.Timings, graphSum.Timings
			rep.Files, rep.Symbols, rep.Edges = cold.Files, cold.Symbols, cold.Edges
			rep.MB = float64(cold.Bytes) / 1e6
			rep.MBPerSecond = rep.MB / cold.Seconds
			rep.Ratio = cold.Seconds / rep.BaselineSecs
			warm, err := ix.Update(ctx, nil)
			if err != nil {
				return err
			}
			rep.WarmSeconds = warm.Seconds

			names, err := ix.SampleSymbols(ctx, samples, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				return err
			}
			var symbolTimes, callerTimes []time.Duration
			for _, s := range names {
				start := time.Now()
				if _, err := ix.Symbols(ctx, s.Name, 200); err != nil {
					return err
				}
				symbolTimes = append(symbolTimes, time.Since(start))
				start = time.Now()
				if _, err := ix.Callers(ctx, s); err != nil {
					return err
				}
				callerTimes = append(callerTimes, time.Since(start))
			}
			rep.SymbolP50ms, rep.SymbolP95ms = percentiles(symbolTimes)
			rep.CallersP50ms, rep.CallersP95ms = percentiles(callerTimes)
			rep.EditFile, rep.EditP50ms, rep.EditP99ms, err = benchEdits(ctx, ix, samples)
			if err != nil {
				return err
			}
			if rep.Search, err = benchSearch(ctx, ix, names, vec); err != nil {
				return err
			}
			rep.Search.GraphOnlySeconds = graphSum.Seconds
			rep.Search.ChunkOverhead = cold.Seconds/graphSum.Seconds - 1
			rep.PeakRSSMB = peakRSSMB()
			if withLSP {
				var queries []string
				for _, s := range names {
					queries = append(queries, s.Name)
				}
				if rep.LSP, err = benchServer(ctx, root, queries, server); err != nil {
					return fmt.Errorf("language server: %w", err)
				}
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "root            %s\n", rep.Root)
			fmt.Fprintf(w, "corpus          %d files, %.1f MB, %d symbols, %d edges\n", rep.Files, rep.MB, rep.Symbols, rep.Edges)
			fmt.Fprintf(w, "bare parse      %.2f s (%d workers, tree-sitter only; best of %d, load average %.2f → %.2f)\n", rep.BaselineSecs, rep.Workers, rep.Runs, rep.LoadAverage[0], rep.LoadAverage[1])
			fmt.Fprintf(w, "cold index      %.2f s (%.1f MB/s, %.2f× bare parse)\n", rep.ColdSeconds, rep.MBPerSecond, rep.Ratio)
			fmt.Fprintf(w, "  breakdown     %s\n", formatTimings(rep.ColdTimings))
			fmt.Fprintf(w, "warm index      %.3f s\n", rep.WarmSeconds)
			fmt.Fprintf(w, "peak RSS        %.0f MB\n", rep.PeakRSSMB)
			fmt.Fprintf(w, "symbol lookup   p50 %.2f ms  p95 %.2f ms  (%d samples)\n", rep.SymbolP50ms, rep.SymbolP95ms, len(symbolTimes))
			fmt.Fprintf(w, "callers         p50 %.2f ms  p95 %.2f ms  (%d samples)\n", rep.CallersP50ms, rep.CallersP95ms, len(callerTimes))
			if rep.EditFile != "" {
				fmt.Fprintf(w, "keystroke       p50 %.2f ms  p99 %.2f ms  (graph update of open %s)\n", rep.EditP50ms, rep.EditP99ms, rep.EditFile)
			}
			if sr := rep.Search; sr != nil {
				fmt.Fprintf(w, "graph only      %.2f s cold (%.2f× bare parse); chunks and vectors add %.0f %% (%d chunks)\n", sr.GraphOnlySeconds, sr.GraphOnlySeconds/rep.BaselineSecs, sr.ChunkOverhead*100, sr.Chunks)
				fmt.Fprintf(w, "  breakdown     %s\n", formatTimings(rep.GraphTimings))
				fmt.Fprintf(w, "routing         p50 %.1f µs  p95 %.1f µs\n", sr.RouteP50us, sr.RouteP95us)
				fmt.Fprintf(w, "routed search   p50 %.2f ms  p95 %.2f ms  (%d queries)\n", sr.SearchP50ms, sr.SearchP95ms, sr.Queries)
				for _, k := range []string{"semantic", "structural", "keyword", "hybrid"} {
					if p, ok := sr.ByStrategy[k]; ok {
						fmt.Fprintf(w, "  %-13s p50 %.2f ms  p95 %.2f ms  (%d)\n", k, p.P50, p.P95, p.N)
					}
				}
				fmt.Fprintf(w, "keyword scan    TODO %.2f ms, whole word %s %.2f ms (best of 3, all indexed files)\n", sr.KeywordTODOms, sr.KeywordWord, sr.KeywordWordms)
			}
			if rep.LSP != nil {
				printLSPReport(w, rep.LSP)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&samples, "samples", 500, "number of sampled symbols to query")
	cmd.Flags().BoolVar(&withLSP, "lsp", false, "also start the language server and measure it over stdio")
	cmd.Flags().BoolVar(&typingOnly, "lsp-typing", false, "only measure the language server's keystrokes, as --lsp does: typed into net/http/server.go of --root while the server indexes it cold, then once it is indexed")
	cmd.Flags().BoolVar(&load, "lsp-load", false, "only measure the language server under load: an edit flood with requests mixed in, then a large didOpen")
	cmd.Flags().StringVar(&loadFile, "load-file", "net/http/server.go", "with --lsp-load, the file to edit (relative to --root; default: the largest Go file when absent)")
	cmd.Flags().IntVar(&loadEdits, "load-edits", 2000, "with --lsp-load, didChange notifications per flood (a request follows every fifth)")
	cmd.Flags().IntVar(&loadBigMB, "load-big-mb", 50, "with --lsp-load, the size in MB of the one-line document opened last (0: none)")
	cmd.Flags().BoolVar(&withCLI, "cli", false, "only time command lines as a user runs them, each a new process, on the index of --root in --data-dir (built first if absent): graph symbols, a keyword search, a routed question, and ripgrep for the same literal")
	cmd.Flags().IntVar(&cli.runs, "cli-runs", 10, "with --cli, runs of each command line")
	cmd.Flags().StringVar(&cli.symbol, "cli-symbol", "ReadFull", "with --cli, the symbol looked up and the literal searched for")
	cmd.Flags().StringVar(&cli.question, "cli-question", "where are gzip headers parsed", "with --cli, the one-line question routed and searched")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	cmd.Flags().IntVar(&server.rounds, "typing-rounds", 2, "with --lsp or --lsp-typing, how many times the function is typed and deleted once the workspace is indexed (each about 300 keystrokes)")
	cmd.Flags().StringVar(&server.profile, "server-profile", "", "with --lsp or --lsp-typing, the language server writes a CPU profile and an execution trace of the cold index to PREFIX.0.cpu and PREFIX.0.trace, of the typing once indexed to PREFIX.1.*")
	cmd.Flags().MarkHidden("server-profile")
	cmd.Flags().IntVar(&workers, "workers", 0, "parser workers (default: one per CPU)")
	cmd.Flags().IntVar(&runs, "runs", 1, "times to run the bare parse and the cold indexes; the best run of each counts")
	return cmd
}

// formatTimings shows where a cold index's time went: the worker stages
// added up over workers, then the single-threaded ones.
func formatTimings(t analysis.Timings) string {
	return fmt.Sprintf("workers: parse %.1f s, queries %.1f s, assemble %.1f s, chunks %.1f s; walk %.2f s, store %.1f s, finish %.2f s, vectors %.2f s",
		t.Parse, t.Queries, t.Assemble, t.Chunks, t.Walk, t.Store, t.Finish, t.Vectors)
}

// percentiles returns the median and 95th percentile in milliseconds.
func percentiles(ds []time.Duration) (p50, p95 float64) {
	if len(ds) == 0 {
		return 0, 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	return at(0.50), at(0.95)
}

// loadAverage returns the one-minute load average, or 0 where
// /proc/loadavg does not exist.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

// peakRSSMB returns the process's peak resident set size in megabytes.
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // kilobytes on Linux
}
