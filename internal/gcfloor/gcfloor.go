// Package gcfloor keeps a process with a small live heap from collecting
// garbage every few megabytes it allocates.
//
// Go's collector starts a cycle when the heap has grown by GOGC percent
// (100 by default) over what the last cycle found live. The language
// server's live heap is small once its workspace is indexed (the index is
// in SQLite; a few megabytes stay live), while each keystroke allocates
// the document's new text, graph and outline (about half a megabyte on
// net/http/server.go): it collected every ten keystrokes, and a keystroke
// that ran during a cycle shared the machine's cores with the collector's
// workers and paid mark assists. A floor on the heap goal lets the heap
// grow to Floor bytes before a cycle, whatever is live; with a large live
// heap (indexing) GOGC applies as usual.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the heap goal below which the language server does not
// start a collection cycle.
const DefaultFloor = 64 << 20

// minHeap is the Go runtime's minimum heap goal at GOGC=100 (4 MiB).
const minHeap = 4 << 20

// maxPercent bounds the GOGC the floor sets: with almost nothing live,
// the goal is the floor, not a multiple of a tiny heap.
const maxPercent = 100_000

// Floor holds the garbage collector's heap goal at floor bytes or more,
// until stopped.
type Floor struct {
	floor uint64
	base  int   // the GOGC in effect when it started
	limit int64 // the memory limit in effect when it started

	mu      sync.Mutex
	stopped bool
	percent int // the GOGC it set last
	cycles  int // the cycles it has tuned after
	sample  []metrics.Sample
}

// Start holds the heap goal at floor bytes or more: after each cycle it
// sets GOGC so that the next cycle starts when the heap reaches floor, or
// when it has grown by the GOGC in effect at the start over what is live,
// whichever is later. It does nothing (and returns nil) when the
// environment sets GOGC or GOMEMLIMIT: the user's settings rule.
func Start(floor uint64) *Floor {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || floor == 0 {
		return nil
	}
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base < 0 {
		return nil // collection is off
	}
	f := &Floor{floor: floor, base: base, limit: debug.SetMemoryLimit(-1), sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.percent = base
	f.tune()
	f.arm()
	return f
}

// arm sets a finalizer on a new object, which runs after the next cycle
// that finds it unreachable: that is, after every cycle.
func (f *Floor) arm() {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) {
		if f.tune() {
			f.arm()
		}
	})
}

// sentinel is the object whose finalizer runs after each cycle. It holds
// a pointer: a small object without one may share a block of the tiny
// allocator with others, and then its finalizer may never run.
type sentinel struct {
	_ *sentinel
	_ [2]int64
}

// tune sets GOGC from the heap found live by the last cycle; it is false
// once f is stopped.
func (f *Floor) tune() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	live := f.sample[0].Value.Uint64()
	// A guard against the lag of this tuning, which runs after a cycle
	// ends: a cycle that started under a high GOGC, when little was
	// live, and found much more live, sets a goal of that GOGC times the
	// new live heap until tune runs. The memory limit bounds the heap
	// meanwhile (a cycle starts when it is reached); it is over the goal
	// this sets, so it does not start cycles otherwise.
	debug.SetMemoryLimit(int64(Limit(live, f.floor)))
	p := Percent(live, f.floor, f.base)
	f.cycles++
	// A change of less than a tenth is not worth the runtime's heap lock.
	if d := p - f.percent; p == f.percent || d*10 < f.percent && -d*10 < f.percent && p != f.base {
		return true
	}
	f.percent = p
	debug.SetGCPercent(p)
	return true
}

// Percent is the GOGC that makes the heap goal floor bytes for live bytes
// found live, and never less than base.
func Percent(live, floor uint64, base int) int {
	// Under the runtime's minimum heap, the goal is GOGC/100 times that
	// minimum: before the first cycle, or with next to nothing live.
	live = max(live, minHeap)
	if live >= floor {
		return base
	}
	p := (floor - live) * 100 / live
	if p > maxPercent {
		return maxPercent
	}
	return max(int(p), base)
}

// Limit is the memory limit that guards the goal of Percent for live
// bytes found live: twice the larger of live and floor, and half the floor
// more, for the runtime's own memory.
func Limit(live, floor uint64) uint64 {
	return 2*max(live, floor) + floor/2
}

// Stop restores the GOGC and the memory limit in effect when f started. Stopping a nil Floor
// does nothing.
func (f *Floor) Stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	f.stopped = true
	debug.SetGCPercent(f.base)
	debug.SetMemoryLimit(f.limit)
}

// GOGC is the GOGC that f set last (its base before the first cycle),
// and how many cycles it has tuned after.
func (f *Floor) GOGC() (percent, cycles int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.percent, f.cycles
}
