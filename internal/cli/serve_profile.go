package cli

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"syscall"
)

// serveProfiler writes a CPU profile and an execution trace of the
// language server (serve's hidden --profile PREFIX): PREFIX.0.cpu and
// PREFIX.0.trace from the start; each SIGUSR1 ends the files being
// written and starts the next pair (PREFIX.1.cpu, …), so that a benchmark
// can profile one phase of a run (anchorage bench --lsp-typing
// --server-profile does: phase 0 is the cold index, phase 1 the typing
// once indexed).
type serveProfiler struct {
	prefix string
	sig    chan os.Signal

	mu    sync.Mutex
	phase int
	cpu   *os.File
	trace *os.File
}

// startServeProfiler starts the first phase's profile and trace.
func startServeProfiler(prefix string) (*serveProfiler, error) {
	p := &serveProfiler{prefix: prefix, sig: make(chan os.Signal, 1)}
	if err := p.start(); err != nil {
		return nil, err
	}
	signal.Notify(p.sig, syscall.SIGUSR1)
	go func() {
		for range p.sig {
			p.mu.Lock()
			p.end()
			p.phase++
			if err := p.start(); err != nil {
				fmt.Fprintf(os.Stderr, "anchorage serve --profile: %v\n", err)
			}
			p.mu.Unlock()
		}
	}()
	return p, nil
}

// start begins the current phase's files; the caller holds mu, or is
// the constructor.
func (p *serveProfiler) start() error {
	cpu, err := os.Create(fmt.Sprintf("%s.%d.cpu", p.prefix, p.phase))
	if err != nil {
		return fmt.Errorf("create the CPU profile: %w", err)
	}
	tr, err := os.Create(fmt.Sprintf("%s.%d.trace", p.prefix, p.phase))
	if err != nil {
		cpu.Close()
		return fmt.Errorf("create the trace: %w", err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		tr.Close()
		return fmt.Errorf("start the CPU profile: %w", err)
	}
	if err := trace.Start(tr); err != nil {
		pprof.StopCPUProfile()
		cpu.Close()
		tr.Close()
		return fmt.Errorf("start the trace: %w", err)
	}
	p.cpu, p.trace = cpu, tr
	return nil
}

// end stops and closes the current phase's files; the caller holds mu.
func (p *serveProfiler) end() {
	if p.cpu == nil {
		return
	}
	trace.Stop()
	pprof.StopCPUProfile()
	p.trace.Close()
	p.cpu.Close()
	p.cpu, p.trace = nil, nil
}

// stop ends the profiling for good: the files are complete after it.
func (p *serveProfiler) stop() {
	signal.Stop(p.sig)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
}
