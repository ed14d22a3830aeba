//go:build !unix

package keyword

import "time"

// cpuTime returns 0: CPU time is not measured here.
func cpuTime() time.Duration { return 0 }
