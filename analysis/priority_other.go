//go:build !linux

package analysis

// lowerThreadPriority lowers the calling goroutine's thread's priority on
// Linux only; elsewhere it does nothing and reports false.
func lowerThreadPriority() bool { return false }
