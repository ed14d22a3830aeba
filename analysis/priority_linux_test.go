package analysis

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// threadNice reads the nice value of the calling thread from /proc.
func threadNice(t *testing.T) int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skip("no /proc/thread-self:", err)
	}
	// The fields after the command name, which is in parentheses; nice is
	// the 19th field of the line, the 17th after it.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatalf("nice in %q: %v", b, err)
	}
	return n
}

// TestLowerThreadPriority lowers a goroutine's thread's priority and
// checks the kernel's nice value of that thread, and that the test's own
// thread keeps its priority (the lowered one is its goroutine's alone).
func TestLowerThreadPriority(t *testing.T) {
	type result struct {
		before, after, tid int
		lowered            bool
	}
	done := make(chan result)
	// Threads the process has not lowered share its nice value.
	before := threadNice(t)
	go func() {
		r := result{before: before}
		// Read on the thread that is then lowered: the goroutine is
		// locked to it from the start.
		r.lowered = lowerThreadPriority()
		r.tid = syscall.Gettid()
		r.after = threadNice(t)
		done <- r
		// Ends locked: the runtime ends the thread.
	}()
	r := <-done
	if !r.lowered {
		t.Fatalf("lowerThreadPriority = false on Linux")
	}
	if want := min(19, r.before+backgroundNice); r.after != want {
		t.Errorf("thread %d's nice = %d after lowerThreadPriority, want %d (the process's %d + %d)", r.tid, r.after, want, r.before, backgroundNice)
	}
	if syscall.Gettid() == r.tid {
		t.Fatalf("the test runs on the lowered thread %d", r.tid)
	}
	if n := threadNice(t); n != before {
		t.Errorf("the test's thread's nice = %d after another was lowered, want %d", n, before)
	}
}
