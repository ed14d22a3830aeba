package gcfloor

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		name        string
		live, floor uint64
		base, want  int
	}{
		{"nothing live: the runtime's minimum heap", 0, 128 << 20, 100, 3100},
		{"tiny heap", 1000, 128 << 20, 100, 3100},
		{"a huge floor is capped", 8 << 20, 1 << 40, 100, maxPercent},
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

// heapGoal reads the collector's heap goal.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestFloorGoal checks the collector's heap goal with a small live heap:
// at GOGC=100 a few megabytes; under a 512 MiB floor, the floor, after
// every cycle (not only the first); after Stop, GOGC and the memory limit
// are back.
func TestFloorGoal(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor stays off")
	}
	const floor = 512 << 20
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	runtime.GC()
	if g := heapGoal(); g >= floor/4 {
		t.Fatalf("heap goal at GOGC=100 = %d: the test's premise (a small live heap) does not hold", g)
	}
	f := Start(floor)
	if f == nil {
		t.Fatal("Start = nil without GOGC or GOMEMLIMIT")
	}
	defer f.Stop()
	// The floor follows each cycle: wait for its finalizer to have run
	// after three of them.
	_, tuned := f.GOGC()
	for {
		if _, n := f.GOGC(); n >= tuned+3 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	if g := heapGoal(); g < floor*9/10 {
		p, _ := f.GOGC()
		t.Errorf("heap goal under a %d-byte floor = %d (GOGC %d), want the floor", floor, g, p)
	}
	if got := debug.SetMemoryLimit(-1); got < 2*floor {
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
