//go:build !unix

package memory

import "time"

// processCPU returns 0: the process's CPU time is read on Unix only.
func processCPU() time.Duration { return 0 }
