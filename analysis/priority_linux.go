package analysis

import (
	"runtime"
	"syscall"
)

// lowerThreadPriority moves the calling goroutine to an OS thread of its
// own for the rest of its life and lowers that thread's scheduling
// priority by backgroundNice (nice, up to 19): the kernel then runs the
// keystroke's threads, and the editor's, first when the cores are all
// busy, which Go's scheduler alone cannot do (it has no priorities, and a
// goroutine waiting for a core is invisible to it). It reports whether
// the priority was lowered.
//
// The goroutine must end without unlocking the thread: the runtime then
// ends the thread, whose priority an unprivileged process could not raise
// back before another goroutine ran on it.
func lowerThreadPriority() bool {
	runtime.LockOSThread()
	tid := syscall.Gettid()
	// getpriority(2) returns 20 - nice: 1 (nice 19) to 40 (nice -20).
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return false
	}
	nice := 20 - raw
	if nice >= 19 {
		return true
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, nice+backgroundNice)) == nil
}
