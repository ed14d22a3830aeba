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

// burstHold and burstTurn bound how long a burst holds the indexer back
// where it leaves no unit running (two cores or fewer): at most
// burstHold from the burst's first keystroke, then the indexer has a
// turn of burstTurn, one unit at a time, and is held back burstHold
// again, and so on while the burst lasts. So a user who types for
// minutes without a pause of burstWindow still gets an index: the
// indexer runs at least burstTurn of every burstHold+burstTurn (a fifth
// of a core), and the keystrokes of the other four fifths find both
// cores free.
const (
	burstHold = 2 * time.Second
	burstTurn = 500 * time.Millisecond
)

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
// units back, but not for ever: after burstHold the indexer has a turn
// of burstTurn, one unit at a time, and so on while the burst goes on;
// the index catches up in the pauses and the turns.
//
// A unit already running gives its place back inside its work too, at
// the points where it calls pause (between the stages of a file's
// extraction): while a parse runs, or while the user types and more units
// run than the typing limit (the user started typing while they ran), it
// waits there as acquire does. The index's writer, which holds a write
// transaction, waits between the files of a batch for a parse only
// (wait); when a burst holds the indexer back (held), it commits what it
// wrote, gives its place back and waits for its next turn in acquire,
// holding no transaction meanwhile.
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
	// hold and turn are burstHold and burstTurn when 0 (fields, for
	// tests).
	hold, turn time.Duration
	// nextTurn is when the indexer's next turn during the burst may
	// start, turnEnd when the current one ends (see burstHold).
	nextTurn, turnEnd time.Time
	// waiting counts the callers of acquire blocked now; peak is the
	// most units that ran at once while the user typed (for tests).
	waiting int
	peak    int
	// pauses counts the units that gave their place back in pause, turns
	// the indexer's turns during bursts, and yields the writer's commits
	// because a burst held it back (for tests).
	pauses, turns, yields int
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
	f.keyLocked(t)
	f.mu.Unlock()
}

// keyLocked records a keystroke at t. The first of a burst schedules the
// indexer's first turn during it (see burstHold). f.mu is held.
func (f *foreground) keyLocked(t time.Time) {
	if f.lastKey.IsZero() || !t.Before(f.lastKey.Add(burstWindow)) {
		hold, _ := f.windows()
		f.nextTurn, f.turnEnd = t.Add(hold), time.Time{}
	}
	f.lastKey = t
}

// windows returns how long a burst holds the indexer back before its
// turn, and how long the turn lasts (burstHold and burstTurn unless a
// test set them).
func (f *foreground) windows() (hold, turn time.Duration) {
	hold, turn = f.hold, f.turn
	if hold <= 0 {
		hold = burstHold
	}
	if turn <= 0 {
		turn = burstTurn
	}
	return hold, turn
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
	f.keyLocked(t)
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
// changes: the end of the burst, of the indexer's turn or hold during
// it, or of the typing. It starts the indexer's turn when one is due
// (see burstHold). f.mu is held.
func (f *foreground) typingLocked() (typing bool, limit int, until time.Time) {
	if f.lastKey.IsZero() {
		return false, 0, time.Time{}
	}
	now := f.clock()
	if burstEnd := f.lastKey.Add(burstWindow); now.Before(burstEnd) {
		limit := f.limitLocked(true)
		if limit > 0 {
			return true, limit, burstEnd
		}
		// The burst holds every unit back: for burstHold, then a turn.
		hold, turn := f.windows()
		if f.nextTurn.IsZero() {
			f.nextTurn = f.lastKey.Add(hold)
		}
		if !now.Before(f.turnEnd) && !now.Before(f.nextTurn) {
			f.turnEnd = now.Add(turn)
			f.nextTurn = f.turnEnd.Add(hold)
			f.turns++
		}
		if now.Before(f.turnEnd) {
			return true, 1, f.turnEnd
		}
		if f.nextTurn.Before(burstEnd) {
			return true, 0, f.nextTurn
		}
		return true, 0, burstEnd
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

// held reports whether a burst holds every unit of the indexer back now
// (a machine of two cores or fewer, outside the indexer's turns): the
// index's writer then commits what it wrote and gives its place back.
// A foreground parse alone does not count: the writer waits for it
// (wait) without committing.
func (f *foreground) held() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	typing, limit, _ := f.typingLocked()
	if typing && limit == 0 {
		f.yields++
		return true
	}
	return false
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

// turnCount returns how many turns the indexer had during bursts, and
// how many times held told the writer to commit.
func (f *foreground) turnCount() (turns, yields int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.turns, f.yields
}

// pauseCount returns how many times units gave their place back in pause.
func (f *foreground) pauseCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pauses
}
