package analysis

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// typingWindow is how long after a keystroke the user counts as typing:
// while they do, the indexer runs fewer work units at once (see
// foreground). It is long enough to cover a pause to read or think: the
// keystroke that ends one is read from the editor by a goroutine that
// needs a free P, and with every P running the indexer it waited for
// one (up to a scheduler time slice, or the runtime's next poll of the
// editor's pipe) before anything else could happen.
const typingWindow = 10 * time.Second

// burstWindow is how long after a keystroke the user counts as typing a
// burst: while they do, the indexer leaves two cores to the keystrokes
// (see foreground). A keystroke's round trip needs one for the server
// and the editor needs one to send the next edit and read the answer;
// the collector's background work, which the indexer's garbage calls
// for, takes its share of the same cores. A pause of this long, to read
// or think, lets the indexer go on with one core fewer than it has.
const burstWindow = time.Second

// foreground schedules the indexer around the user's keystrokes, which go
// first. A keystroke's round trip (the edit read from the editor, the
// parse, the answer written back) is a chain of goroutines, each of which
// waits for a free P when it wakes; Go's scheduler has no priorities, so
// with every P running the indexer (its parse workers, its SQLite writer,
// which both run Go code) each of them could wait a time slice (10 ms).
//
// So the indexer's goroutines take a token for each unit of work (a file
// parsed, a batch of files written in one transaction, a chunk embedded,
// a batch of vectors written), and give it back between units:
//   - while an open document is being parsed, no unit starts;
//   - while the user types a burst (a keystroke less than burstWindow
//     ago), at most GOMAXPROCS-2 units run at once: none on a machine of
//     two cores, where the indexer's unit, its garbage collection, the
//     keystroke and the editor that sends it cannot all have a core;
//   - while the user types (a keystroke less than typingWindow ago), at
//     most GOMAXPROCS-1 units run at once (at least one), which leaves
//     a P (and, on a machine as busy as its cores, a core) free for the
//     keystroke;
//   - otherwise, any number.
//
// On two cores, typing without a pause of a second holds the indexer's
// units back for as long as it goes on: the keystrokes go first, and
// the index catches up in the pauses.
//
// A unit already running gives its place back inside its work too, at
// the points where it calls pause (between the stages of a file's
// extraction): while a parse runs, or while the user types and more units
// run than the typing limit (the user started typing while they ran), it
// waits there as acquire does. The index's writer, which holds a write
// transaction, waits between the files of a batch for a parse only
// (wait).
// The zero value is ready to use; it is safe for concurrent use.
type foreground struct {
	mu sync.Mutex
	// n counts the foreground parses in progress; idle is closed when
	// n drops to 0.
	n    int
	idle chan struct{}
	// running counts the indexer's units of work in progress; freed is
	// closed (and replaced) whenever one ends or a parse does.
	running int
	freed   chan struct{}
	// lastKey is when the last keystroke arrived; zero before the first.
	lastKey time.Time
	// typingLimit is how many units run at once while the user types,
	// in a burst or not; 0 means the limits of cores.
	typingLimit int
	// cores is how many cores the limits leave room on; 0 means
	// GOMAXPROCS (a field, for tests).
	cores int
	// now is the clock; nil means time.Now (a field, for tests).
	now func() time.Time
	// waiting counts the callers of acquire blocked now; peak is the
	// most units that ran at once while the user typed (for tests).
	waiting int
	peak    int
	// pauses counts the units that gave their place back in pause (for
	// tests).
	pauses int
}

func (f *foreground) clock() time.Time {
	if f.now == nil {
		return time.Now()
	}
	return f.now()
}

// limitLocked is how many units run at once while the user types, in a
// burst (burst) or not. f.mu is held.
func (f *foreground) limitLocked(burst bool) int {
	if f.typingLimit > 0 {
		return f.typingLimit
	}
	cores := f.cores
	if cores <= 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	if burst {
		return max(0, cores-2)
	}
	return max(1, cores-1)
}

// keystroke records that the user edited an open document now.
func (f *foreground) keystroke() {
	t := f.clock()
	f.mu.Lock()
	f.lastKey = t
	f.mu.Unlock()
}

// enter marks a foreground parse as started; leave, as finished. A parse
// is a keystroke too.
func (f *foreground) enter() {
	t := f.clock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	f.lastKey = t
}

func (f *foreground) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.idle)
		f.wakeLocked()
	}
}

// wakeLocked wakes the callers of acquire. f.mu is held.
func (f *foreground) wakeLocked() {
	if f.freed != nil {
		close(f.freed)
		f.freed = nil
	}
}

// typingLocked reports whether the user typed less than typingWindow
// ago, and if so how many units may run (limitLocked) and when that
// changes: the end of the burst, or of the typing. f.mu is held.
func (f *foreground) typingLocked() (typing bool, limit int, until time.Time) {
	if f.lastKey.IsZero() {
		return false, 0, time.Time{}
	}
	now := f.clock()
	if burstEnd := f.lastKey.Add(burstWindow); now.Before(burstEnd) {
		return true, f.limitLocked(true), burstEnd
	}
	until = f.lastKey.Add(typingWindow)
	return now.Before(until), f.limitLocked(false), until
}

// acquire waits until a unit of the indexer's work may start, and counts
// it as running; release must follow. It is false (and counts nothing)
// when ctx is done first.
func (f *foreground) acquire(ctx context.Context) bool {
	f.mu.Lock()
	for {
		typing, limit, until := f.typingLocked()
		if f.n == 0 && (!typing || f.running < limit) {
			f.running++
			if typing {
				f.peak = max(f.peak, f.running)
			}
			f.mu.Unlock()
			return true
		}
		// Woken when a unit or a parse ends, or when the burst or the
		// typing stops.
		if f.freed == nil {
			f.freed = make(chan struct{})
		}
		freed := f.freed
		var timer *time.Timer
		var timeout <-chan time.Time
		if typing && f.n == 0 {
			timer = time.NewTimer(until.Sub(f.clock()))
			timeout = timer.C
		}
		f.waiting++
		f.mu.Unlock()
		var done bool
		select {
		case <-freed:
		case <-timeout:
		case <-ctx.Done():
			done = true
		}
		if timer != nil {
			timer.Stop()
		}
		f.mu.Lock()
		f.waiting--
		if done {
			f.mu.Unlock()
			return false
		}
	}
}

// pause is called by a unit of work counted by acquire at a point inside
// its work where it may wait: when a foreground parse runs, or the user
// types and more units run than the typing limit, the unit gives its
// place back and waits, as acquire does, until it may go on. It returns
// at once otherwise (a lock and a clock read). The unit stays counted
// (release must follow) even when ctx is done while it waits.
func (f *foreground) pause(ctx context.Context) {
	f.mu.Lock()
	typing, limit, _ := f.typingLocked()
	if f.n == 0 && (!typing || f.running <= limit) {
		f.mu.Unlock()
		return
	}
	f.running--
	f.pauses++
	f.mu.Unlock()
	if !f.acquire(ctx) {
		// Counted again: the unit ends soon (its context is done) and
		// releases its place.
		f.mu.Lock()
		f.running++
		f.mu.Unlock()
	}
}

// wait returns once no foreground parse runs, or when ctx is done. It is
// pause for a unit that holds what another unit may need (the index's
// write transaction, which a unit writing vectors waits for): it waits
// for a parse only, never for the typing limit, which that other unit may
// be holding up.
func (f *foreground) wait(ctx context.Context) {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return
	}
	idle := f.idle
	f.waiting++
	f.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
	f.mu.Lock()
	f.waiting--
	f.mu.Unlock()
}

// release ends a unit of work counted by acquire.
func (f *foreground) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.wakeLocked()
}

// blocked returns how many callers of wait and acquire (and pause) are
// blocked.
func (f *foreground) blocked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

// typingPeak returns the most units of work that ran at once while the
// user typed.
func (f *foreground) typingPeak() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// pauseCount returns how many times units gave their place back in pause.
func (f *foreground) pauseCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pauses
}
