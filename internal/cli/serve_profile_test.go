package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestServeProfilerPhases starts serve's profiler, sends the process
// SIGUSR1 and checks that each phase has its CPU profile and trace, both
// complete (non-empty) once stopped.
func TestServeProfilerPhases(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "serve")
	p, err := startServeProfiler(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		p.stop()
		t.Fatal(err)
	}
	// The signal is handled by the profiler's goroutine: wait for it.
	for {
		p.mu.Lock()
		phase := p.phase
		p.mu.Unlock()
		if phase == 1 {
			break
		}
		runtime.Gosched()
	}
	p.stop()
	for phase := range 2 {
		for _, ext := range []string{"cpu", "trace"} {
			name := fmt.Sprintf("%s.%d.%s", prefix, phase, ext)
			fi, err := os.Stat(name)
			if err != nil {
				t.Errorf("phase %d: %v", phase, err)
			} else if fi.Size() == 0 {
				t.Errorf("phase %d: %s is empty", phase, name)
			}
		}
	}
	if _, err := os.Stat(prefix + ".2.cpu"); err == nil {
		t.Errorf("a third phase was started without a second signal")
	}
}

// TestServeProfilerBadPrefix reports a prefix in a directory that does
// not exist as an error, and profiles nothing.
func TestServeProfilerBadPrefix(t *testing.T) {
	p, err := startServeProfiler(filepath.Join(t.TempDir(), "missing", "serve"))
	if err == nil {
		p.stop()
		t.Fatal("startServeProfiler in a missing directory: no error")
	}
}
