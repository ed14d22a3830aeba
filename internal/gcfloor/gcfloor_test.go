package gcfloor

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		name        string
		live, floor uint64
		base, want  int
	}{
		{"nothing live", 0, 128 << 20, 100, maxPercent},
		{"tiny heap is capped", 1000, 128 << 20, 100, maxPercent},
		{"small heap grows to the floor", 8 << 20, 128 << 20, 100, 1500},
		{"heap at the floor", 128 << 20, 128 << 20, 100, 100},
		{"heap over the floor", 400 << 20, 128 << 20, 100, 100},
		{"near the floor, base is more", 100 << 20, 128 << 20, 100, 100},
		{"a higher base is kept", 64 << 20, 128 << 20, 300, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percent(tc.live, tc.floor, tc.base); got != tc.want {
				t.Errorf("Percent(%d, %d, %d) = %d, want %d", tc.live, tc.floor, tc.base, got, tc.want)
			}
		})
	}
}

// TestFloorFewerCycles allocates 64 MiB of garbage with a small live heap:
// at GOGC=100 that is many cycles; with a 512 MiB floor, at most one (one
// may have been under way).
func TestFloorFewerCycles(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor stays off")
	}
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	cycles := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumGC
	}
	garbage := func() {
		for range 64 << 10 {
			runtime.KeepAlive(alloc(1 << 10))
		}
	}
	runtime.GC()
	n0 := cycles()
	garbage()
	without := cycles() - n0
	if without < 4 {
		t.Fatalf("64 MiB of garbage at GOGC=100 took %d cycles: the test's premise (many) does not hold", without)
	}
	f := Start(512 << 20)
	if f == nil {
		t.Fatal("Start = nil without GOGC or GOMEMLIMIT")
	}
	defer f.Stop()
	// The floor takes effect after a cycle: wait for its finalizer.
	for {
		if p, _ := f.GOGC(); p != 100 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	n1 := cycles()
	garbage()
	if with := cycles() - n1; with > 1 {
		p, _ := f.GOGC()
		t.Errorf("64 MiB of garbage under a 512 MiB floor took %d cycles, want at most 1 (%d without the floor; GOGC %d)", with, without, p)
	}
	// The floor follows every cycle, not only the first.
	_, tuned := f.GOGC()
	for {
		if _, n := f.GOGC(); n >= tuned+3 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	if got := debug.SetMemoryLimit(-1); got < 2*512<<20 {
		t.Errorf("memory limit under the floor = %d, want at least twice the floor", got)
	}
	f.Stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after Stop, GOGC = %d, want 100 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after Stop, memory limit = %d, want none (%d) back", got, int64(math.MaxInt64))
	}
}

func TestStartRespectsEnvironment(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			value := "200"
			if env == "GOMEMLIMIT" {
				value = "1GiB"
			}
			t.Setenv(env, value)
			if f := Start(DefaultFloor); f != nil {
				f.Stop()
				t.Errorf("Start with %s=%s set = %v, want nil: the user's setting rules", env, value, f)
			}
		})
	}
}

// alloc returns a new slice on the heap: one it returns escapes.
//
//go:noinline
func alloc(n int) []byte { return make([]byte, n) }
