package analysis

import (
	"runtime"
	"syscall"
)

// backgroundNice is the CPU priority of the indexer's threads in a
// server (Options.LowPriority): the lowest, as nice(1) gives it.
const backgroundNice = 19

// lowerPriority runs the calling goroutine, for the rest of its life, on
// an operating-system thread of its own at the lowest CPU priority: the
// kernel then gives a core to the keystroke's threads (and the editor's)
// first, at once, rather than sharing it with the indexer. The thread is
// never unlocked, so it ends with the goroutine and no other goroutine
// ever runs at that priority. A failure leaves the priority as it was.
// The locks such a thread shares with the keystroke's path (the
// foreground's, an open workspace's) are held for moments only, so a
// keystroke does not wait behind a thread the kernel put aside.
func lowerPriority() {
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
}
