package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// threadNices returns the nice value of each of the process's threads
// but the main one: the runtime never ends that one, and parks it for
// good when a goroutine locked to it ends (it runs nothing after).
func threadNices(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc/self/task: %v", err)
	}
	out := map[string]string{}
	for _, d := range dirs {
		if d.Name() == fmt.Sprint(os.Getpid()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc/self/task", d.Name(), "stat"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		_, rest, ok := strings.Cut(string(b), ") ")
		if f := strings.Fields(rest); ok && len(f) > 16 {
			out[d.Name()] = f[16] // the 19th field: nice
		}
	}
	return out
}

// TestLowerPriority checks that lowerPriority sets the nice value of the
// calling goroutine's thread only.
func TestLowerPriority(t *testing.T) {
	got := make(chan int, 1)
	go func() {
		lowerPriority()
		// The raw system call answers 20 - nice.
		p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		if err != nil {
			t.Errorf("getpriority: %v", err)
		}
		got <- 20 - p
	}()
	if nice := <-got; nice != backgroundNice {
		t.Errorf("nice after lowerPriority = %d, want %d", nice, backgroundNice)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid()); err != nil || 20-p == backgroundNice {
		t.Errorf("the test's own thread: nice %d, %v; want it unchanged", 20-p, err)
	}
}

// TestUpdateLowPriority indexes a workspace with Options.LowPriority: the
// index is complete, and once the update returned no thread of the
// process is left at the indexer's priority (each ends with its
// goroutine, none goes back to the runtime's pool).
func TestUpdateLowPriority(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package a\n\nfunc F%d() { G(%d) }\n", i, i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, func(o *Options) { o.Workers = 2; o.LowPriority = true })
	if sum := mustUpdate(t, ix); sum.Parsed != len(files) {
		t.Errorf("parsed %d files, want %d", sum.Parsed, len(files))
	}
	if syms, err := ix.Symbols(context.Background(), "F29", 10); err != nil || len(syms) != 1 {
		t.Errorf("Symbols(F29) = %v, %v; want one", syms, err)
	}
	// The threads end as their goroutines do, right after the update
	// returned.
	want := fmt.Sprint(backgroundNice)
	for {
		niced := 0
		for _, n := range threadNices(t) {
			if n == want {
				niced++
			}
		}
		if niced == 0 {
			break
		}
		runtime.Gosched()
	}
}
