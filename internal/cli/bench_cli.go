package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/anchorage-dev/anchorage/analysis"
)

// cliBench are the settings of anchorage bench --cli.
type cliBench struct {
	runs     int
	symbol   string // looked up by graph symbols, and searched for as a literal
	question string // a one-line question, routed
}

// cliFigure is how long one command line took, as the user sees it: a new
// process each run, its wall time and its CPU time (user and system).
type cliFigure struct {
	Name     string   `json:"name"`
	Args     []string `json:"args"`
	Runs     int      `json:"runs"`
	WallP50  float64  `json:"wall_p50_ms"`
	WallMin  float64  `json:"wall_min_ms"`
	WallMax  float64  `json:"wall_max_ms"`
	CPUP50   float64  `json:"cpu_p50_ms"`
	TargetMS float64  `json:"target_ms,omitempty"`
}

// cliReport holds the figures of anchorage bench --cli.
type cliReport struct {
	Root        string      `json:"root"`
	Figures     []cliFigure `json:"figures"`
	LoadAverage [2]float64  `json:"load_average"`
	// Indexed is set when the index had to be built first.
	Indexed bool `json:"indexed_first,omitempty"`
}

// runCLIBench times command lines of this binary against the index of
// root in the data directory, as a user runs them: graph symbols (with
// the refresh of every graph command, and without), a keyword search for
// a literal (refreshing first, as by default, and not), a routed one-line
// question, and ripgrep for the same literal over the files of the
// indexed languages when rg is installed.
// The index is built first when there is none; nothing is changed
// between runs.
func runCLIBench(ctx context.Context, w io.Writer, g *globalFlags, root string, b cliBench) (*cliReport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program to run it: %w", err)
	}
	common := []string{"--root", root}
	if g.dataDir != "" {
		common = append(common, "--data-dir", g.dataDir)
	}
	if g.embedding.Kind != "" {
		common = append(common, "--embedding-provider", g.embedding.Kind, "--embedding-url", g.embedding.URL,
			"--embedding-model", g.embedding.Model, "--embedding-api-key-env", g.embedding.APIKeyEnv)
	}
	rep := &cliReport{Root: root}
	// One refreshing run first: it builds the index when there is none,
	// and leaves it up to date.
	first, err := runTimed(ctx, "", self, append(common, "index")...)
	if err != nil {
		return nil, err
	}
	rep.Indexed = first.wall > 5*time.Second
	rep.LoadAverage[0] = loadAverage()
	cases := []struct {
		name   string
		dir    string
		prog   string
		args   []string
		target float64
	}{
		{"graph symbols", "", self, append(slices.Clone(common), "graph", "symbols", b.symbol), 60},
		{"graph symbols --no-refresh", "", self, append(slices.Clone(common), "graph", "symbols", b.symbol, "--no-refresh"), 60},
		{"keyword search", "", self, append(slices.Clone(common), "search", "--strategy", "keyword", b.symbol), 0},
		{"keyword search --no-refresh", "", self, append(slices.Clone(common), "search", "--strategy", "keyword", "--no-refresh", b.symbol), 0},
		{"routed question", "", self, append(slices.Clone(common), "search", b.question), 150},
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		args := []string{"-n", "--no-heading", "-F", b.symbol, "--max-filesize", "1M"}
		for _, ext := range analysis.Extensions() {
			args = append(args, "-g", "*"+ext)
		}
		cases = append(cases, struct {
			name   string
			dir    string
			prog   string
			args   []string
			target float64
		}{"ripgrep (same literal, indexed languages)", root, rg, args, 0})
	}
	for _, c := range cases {
		var walls, cpus []time.Duration
		for range max(b.runs, 1) {
			r, err := runTimed(ctx, c.dir, c.prog, c.args...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			walls, cpus = append(walls, r.wall), append(cpus, r.cpu)
		}
		slices.Sort(walls)
		p50, _ := percentiles(walls)
		cpu50, _ := percentiles(cpus)
		rep.Figures = append(rep.Figures, cliFigure{
			Name: c.name, Args: c.args, Runs: len(walls), WallP50: p50, CPUP50: cpu50, TargetMS: c.target,
			WallMin: float64(walls[0].Microseconds()) / 1000, WallMax: float64(walls[len(walls)-1].Microseconds()) / 1000,
		})
	}
	rep.LoadAverage[1] = loadAverage()
	return rep, nil
}

// printCLIReport prints the figures of anchorage bench --cli.
func printCLIReport(w io.Writer, rep *cliReport) {
	fmt.Fprintf(w, "root            %s (load average %.2f → %.2f)\n", rep.Root, rep.LoadAverage[0], rep.LoadAverage[1])
	for _, f := range rep.Figures {
		target := ""
		if f.TargetMS > 0 {
			target = fmt.Sprintf("  (target < %.0f ms)", f.TargetMS)
		}
		fmt.Fprintf(w, "%-42s wall p50 %7.1f ms (min %.1f, max %.1f)  cpu p50 %7.1f ms  %d runs%s\n",
			f.Name, f.WallP50, f.WallMin, f.WallMax, f.CPUP50, f.Runs, target)
	}
}

// timedRun is how long a process took.
type timedRun struct {
	wall, cpu time.Duration
}

// runTimed runs prog with args in dir (the current directory when empty),
// discarding its output, and returns its wall and CPU times. A failing run
// is an error carrying its standard error.
func runTimed(ctx context.Context, dir, prog string, args ...string) (timedRun, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		// ripgrep exits with 1 when nothing matches: not a failure.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stderr.Len() > 0 {
			return timedRun{}, fmt.Errorf("run %s: %w: %s", prog, err, bytes.TrimSpace(stderr.Bytes()))
		}
	}
	var cpu time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return timedRun{wall: wall, cpu: cpu}, nil
}
