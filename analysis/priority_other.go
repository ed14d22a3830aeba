//go:build !linux

package analysis

// lowerPriority does nothing where threads have no priority of their own
// that a process may set (see priority_linux.go).
func lowerPriority() {}
