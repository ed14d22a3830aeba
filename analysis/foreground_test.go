package analysis

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestForegroundTypingLimit checks the indexer's tokens: while the user
// types, a unit beyond the limit waits for one to end; otherwise, and
// once the typing window is over, units start at once.
func TestForegroundTypingLimit(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	f := &foreground{typingLimit: 1, now: func() time.Time { return clock }}

	// Not typing: any number of units.
	for range 3 {
		if !f.acquire(ctx) {
			t.Fatal("acquire failed without typing")
		}
	}
	for range 3 {
		f.release()
	}

	f.keystroke()
	if !f.acquire(ctx) {
		t.Fatal("first unit while typing did not start")
	}
	started := make(chan bool)
	go func() { started <- f.acquire(ctx) }()
	for f.blocked() == 0 {
		select {
		case <-started:
			t.Fatal("a second unit started while one ran and the user typed (limit 1)")
		default:
			runtime.Gosched()
		}
	}
	f.release()
	if !<-started {
		t.Fatal("the waiting unit did not start when the first ended")
	}
	if got := f.typingPeak(); got != 1 {
		t.Errorf("typing peak = %d, want 1", got)
	}

	// The window over: a second unit starts beside the first.
	clock = t0.Add(typingWindow)
	if !f.acquire(ctx) {
		t.Fatal("unit after the typing window did not start")
	}
	f.release()
	f.release()

	// A parse in progress stops every unit, typing or not; a cancelled
	// caller gives up without counting.
	f.enter()
	cctx, cancel := context.WithCancel(ctx)
	gave := make(chan bool)
	go func() { gave <- f.acquire(cctx) }()
	for f.blocked() == 0 {
		runtime.Gosched()
	}
	cancel()
	if <-gave {
		t.Fatal("acquire succeeded during a parse after its context was cancelled")
	}
	go func() { started <- f.acquire(ctx) }()
	for f.blocked() == 0 {
		runtime.Gosched()
	}
	f.leave()
	if !<-started {
		t.Fatal("unit did not start when the parse ended")
	}
	f.release()
	if f.running != 0 {
		t.Errorf("running = %d after every unit ended, want 0", f.running)
	}
}

// TestForegroundTypingEnds blocks a unit behind another while the user
// types, and never releases the first: the second starts when the typing
// window closes.
func TestForegroundTypingEnds(t *testing.T) {
	ctx := context.Background()
	f := &foreground{typingLimit: 1}
	f.keystroke()
	f.mu.Lock()
	f.lastKey = f.lastKey.Add(-typingWindow + 10*time.Millisecond) // the window closes soon
	f.mu.Unlock()
	if !f.acquire(ctx) {
		t.Fatal("first unit did not start")
	}
	if !f.acquire(ctx) {
		t.Fatal("second unit did not start")
	}
	if got := f.typingPeak(); got != 1 {
		t.Errorf("typing peak = %d, want 1 (the second unit started after the window)", got)
	}
}

// TestIndexerWhileTyping indexes a workspace on four workers while the
// user types throughout: one unit of work (a file parsed, a batch
// written) runs at a time, and every file is indexed.
func TestIndexerWhileTyping(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package a\n\n// F%d does things.\nfunc F%d() { G(%d) }\n", i, i, i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, func(o *Options) { o.Workers = 4 })
	now := time.Now()
	ix.fg.typingLimit = 1
	ix.fg.now = func() time.Time { return now } // typing all along
	ix.fg.keystroke()
	sum := mustUpdate(t, ix)
	if sum.Parsed != len(files) {
		t.Errorf("parsed %d files, want %d", sum.Parsed, len(files))
	}
	if got := ix.fg.typingPeak(); got != 1 {
		t.Errorf("%d units ran at once while the user typed, want 1", got)
	}
	syms, err := ix.Symbols(context.Background(), "F39", 10)
	if err != nil || len(syms) != 1 {
		t.Errorf("Symbols(F39) = %v, %v; want one", syms, err)
	}
}

// TestForegroundPause checks that a unit already running gives its place
// back inside its work: at a pause, while a parse runs or while the user
// types with more units running than the limit, it waits until it may go
// on, and stays counted; otherwise a pause returns at once.
func TestForegroundPause(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	f := &foreground{typingLimit: 1, now: func() time.Time { return clock }}
	paused := func(ctx context.Context) chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f.pause(ctx)
		}()
		return done
	}
	// waitBlocked returns once n callers are blocked, failing if the
	// pause returned first.
	waitBlocked := func(n int, done chan struct{}, what string) {
		t.Helper()
		for f.blocked() < n {
			select {
			case <-done:
				t.Fatalf("%s: the pause returned, want it to wait", what)
			default:
				runtime.Gosched()
			}
		}
	}

	// Two units run before the user types: pauses return at once.
	f.acquire(ctx)
	f.acquire(ctx)
	f.pause(ctx)
	f.pause(ctx)
	if got := f.pauseCount(); got != 0 {
		t.Fatalf("pauses without typing = %d, want 0", got)
	}

	// The user types: one unit too many. The first to pause gives its
	// place back and waits until the other ends.
	f.keystroke()
	done := paused(ctx)
	waitBlocked(1, done, "two units, limit 1, typing")
	f.pause(ctx) // within the limit now: the other unit goes on
	f.release()
	<-done
	if got := f.pauseCount(); got != 1 {
		t.Errorf("pauses = %d, want 1", got)
	}

	// A parse in progress makes the one unit left wait too, typing or
	// not, until it ends.
	clock = t0.Add(2 * typingWindow)
	f.enter()
	done = paused(ctx)
	waitBlocked(1, done, "a parse in progress")
	f.leave()
	<-done

	// A pause whose context ends while it waits returns, the unit
	// still counted: its release leaves none running.
	f.enter()
	cctx, cancel := context.WithCancel(ctx)
	done = paused(cctx)
	waitBlocked(1, done, "a parse in progress, before the cancel")
	cancel()
	<-done
	f.leave()
	f.release()
	f.mu.Lock()
	running := f.running
	f.mu.Unlock()
	if running != 0 {
		t.Fatalf("units running after every release = %d, want 0", running)
	}
	// The unit that went on after its pause was the one running.
	if got := f.typingPeak(); got != 1 {
		t.Errorf("typing peak = %d, want 1", got)
	}
}

// TestForegroundLimits checks how many units run at once while the user
// types a burst and after it, by the number of cores.
func TestForegroundLimits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		cores, typingLimit int
		since              time.Duration // since the last keystroke
		typing             bool
		limit              int
		until              time.Duration // since the last keystroke
	}{
		{cores: 2, since: 0, typing: true, limit: 0, until: burstWindow},
		{cores: 2, since: burstWindow - time.Millisecond, typing: true, limit: 0, until: burstWindow},
		{cores: 2, since: burstWindow, typing: true, limit: 1, until: typingWindow},
		{cores: 2, since: typingWindow, typing: false, limit: 1, until: typingWindow},
		{cores: 1, since: 0, typing: true, limit: 0, until: burstWindow},
		{cores: 1, since: burstWindow, typing: true, limit: 1, until: typingWindow},
		{cores: 4, since: 0, typing: true, limit: 2, until: burstWindow},
		{cores: 4, since: 2 * burstWindow, typing: true, limit: 3, until: typingWindow},
		{cores: 2, typingLimit: 1, since: 0, typing: true, limit: 1, until: burstWindow},
		{cores: 8, typingLimit: 1, since: burstWindow, typing: true, limit: 1, until: typingWindow},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("cores=%d,limit=%d,since=%v", tt.cores, tt.typingLimit, tt.since), func(t *testing.T) {
			clock := t0.Add(tt.since)
			f := &foreground{cores: tt.cores, typingLimit: tt.typingLimit, lastKey: t0, now: func() time.Time { return clock }}
			f.mu.Lock()
			typing, limit, until := f.typingLocked()
			f.mu.Unlock()
			if typing != tt.typing || limit != tt.limit || !until.Equal(t0.Add(tt.until)) {
				t.Errorf("typingLocked() = %v, %d, +%v; want %v, %d, +%v", typing, limit, until.Sub(t0), tt.typing, tt.limit, tt.until)
			}
		})
	}
}

// TestForegroundBurst types a burst on a machine of two cores: no unit
// starts, and a running unit gives its place back at its next pause,
// until the burst is over; then one unit runs at a time.
func TestForegroundBurst(t *testing.T) {
	ctx := context.Background()
	f := &foreground{cores: 2}
	if !f.acquire(ctx) {
		t.Fatal("unit before typing did not start")
	}
	f.keystroke()
	keyAt := f.lastKey
	paused := make(chan struct{})
	go func() {
		f.pause(ctx) // waits out the burst
		close(paused)
	}()
	started := make(chan bool)
	go func() { started <- f.acquire(ctx) }()
	for f.blocked() < 2 {
		select {
		case <-paused:
			t.Fatal("a running unit went on during a burst on two cores")
		case <-started:
			t.Fatal("a unit started during a burst on two cores")
		default:
			runtime.Gosched()
		}
	}
	// The burst ends by itself: one of the two goes on, the other waits
	// for it (one unit after the burst, while the typing window lasts).
	var first string
	select {
	case <-paused:
		first = "paused"
	case ok := <-started:
		if !ok {
			t.Fatal("acquire failed")
		}
		first = "started"
	}
	if now := time.Now(); now.Before(keyAt.Add(burstWindow)) {
		t.Fatalf("a unit went on %v after the keystroke, before the burst window (%v) ended", now.Sub(keyAt), burstWindow)
	}
	if got := f.typingPeak(); got != 1 {
		t.Errorf("typing peak = %d after the burst, want 1", got)
	}
	f.release()
	if first == "paused" {
		if !<-started {
			t.Fatal("acquire failed")
		}
	} else {
		<-paused
	}
	f.release()
	if f.running != 0 {
		t.Errorf("running = %d after every unit ended, want 0", f.running)
	}
}

// TestForegroundBurstTurns types a burst that never pauses for a second on
// a machine of two cores: the indexer is held back burstHold from the
// burst's first keystroke, then has a turn of burstTurn (one unit), then
// is held back again; a pause of a second ends the burst, and the next
// burst holds the indexer back burstHold from its own first keystroke.
func TestForegroundBurstTurns(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	f := &foreground{cores: 2, now: func() time.Time { return clock }}
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	hold, turn := int(burstHold/time.Millisecond), int(burstTurn/time.Millisecond)
	tests := []struct {
		at    int  // ms after t0
		key   bool // a keystroke at that time
		limit int
		until int // ms after t0
		turns int
	}{
		{at: 0, key: true, limit: 0, until: 1000},
		// The burst lasts: the indexer is held back until its first
		// turn.
		{at: hold - 100, key: true, limit: 0, until: hold},
		{at: hold, key: true, limit: 1, until: hold + turn, turns: 1},
		{at: hold + turn - 1, key: true, limit: 1, until: hold + turn, turns: 1},
		{at: hold + turn, key: true, limit: 0, until: hold + turn + 1000, turns: 1},
		{at: 2*hold + turn - 100, key: true, limit: 0, until: 2*hold + turn, turns: 1},
		{at: 2*hold + turn, key: true, limit: 1, until: 2*hold + 2*turn, turns: 2},
		// Asked only after it was due, the turn starts then.
		{at: 3*hold + 2*turn + 300, key: true, limit: 1, until: 3*hold + 3*turn + 300, turns: 3},
		// A pause of a second: the burst is over (one unit while the user
		// types), and the next one starts its hold afresh.
		{at: 3*hold + 3*turn + 1300, limit: 1, until: 3*hold + 2*turn + 300 + int(typingWindow/time.Millisecond), turns: 3},
		{at: 3*hold + 3*turn + 1400, key: true, limit: 0, until: 3*hold + 3*turn + 2400, turns: 3},
		{at: 4*hold + 3*turn + 1400, key: true, limit: 1, until: 4*hold + 4*turn + 1400, turns: 4},
	}
	prev := 0
	for _, tt := range tests {
		if tt.key {
			// Keystrokes every half second since the last step: the
			// burst goes on.
			for at := prev + 500; at < tt.at; at += 500 {
				clock = ms(at)
				f.keystroke()
			}
			clock = ms(tt.at)
			f.keystroke()
		}
		clock, prev = ms(tt.at), tt.at
		f.mu.Lock()
		typing, limit, until := f.typingLocked()
		f.mu.Unlock()
		turns, _ := f.turnCount()
		if !typing || limit != tt.limit || !until.Equal(ms(tt.until)) || turns != tt.turns {
			t.Errorf("at +%dms: typingLocked() = %v, %d, +%v (%d turns); want typing, %d, +%dms (%d turns)",
				tt.at, typing, limit, until.Sub(t0), turns, tt.limit, tt.until, tt.turns)
		}
	}
}

// TestWriterYieldsToBurst makes the user start a burst while the index's
// writer is in the middle of a batch, on two cores: the writer commits
// the files it wrote, holds no transaction while the burst holds it back,
// and writes the rest in its turn.
func TestWriterYieldsToBurst(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package a\n\n// F%d does things.\nfunc F%d() { G(%d) }\n", i, i, i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, func(o *Options) { o.Workers = 2 })
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	setClock := func(t time.Time) {
		mu.Lock()
		clock = t
		mu.Unlock()
	}
	ix.fg.cores = 2
	ix.fg.now = now
	// The burst starts once the writer wrote ten files, with more of the
	// same batch to write.
	var written, before int
	burst := make(chan time.Time, 1)
	type check struct {
		committed, turns int
		at, turnAt       time.Time
		err              error
	}
	checked := make(chan check, 1)
	ix.writeHook = func(_ string, left int) {
		written++
		switch {
		case before == 0 && written >= 10 && left > 0:
			before = written
			ix.fg.keystroke()
			burst <- now()
		case before > 0 && written == before+1:
			// The writer goes on in its turn only, with the files it
			// wrote before committed: another connection reads them.
			states, err := ix.store.FileStates(context.Background())
			turns, _ := ix.fg.turnCount()
			ix.fg.mu.Lock()
			turnAt := ix.fg.turnEnd.Add(-burstTurn)
			ix.fg.mu.Unlock()
			checked <- check{committed: len(states), turns: turns, at: now(), turnAt: turnAt, err: err}
		}
	}
	done := make(chan *Summary, 1)
	go func() {
		sum, err := ix.Update(context.Background(), nil)
		if err != nil {
			t.Errorf("Update: %v", err)
		}
		done <- sum
	}()
	start := <-burst
	// The writer is told to commit at its next file (then it waits for
	// its turn, which the clock holds back).
	for {
		if _, yields := ix.fg.turnCount(); yields > 0 {
			break
		}
		select {
		case sum := <-done:
			t.Fatalf("the update ended during the burst (%+v); want the writer held back", sum)
		case c := <-checked:
			t.Fatalf("the writer went on during the burst's hold: %+v", c)
		default:
			runtime.Gosched()
		}
	}
	// Still typing (a keystroke less than a second after the one
	// before) until the turn.
	for at := 900 * time.Millisecond; at < burstHold; at += 900 * time.Millisecond {
		setClock(start.Add(at))
		ix.fg.keystroke()
	}
	setClock(start.Add(burstHold))
	ix.fg.mu.Lock()
	ix.fg.wakeLocked()
	ix.fg.mu.Unlock()
	var c check
	select {
	case c = <-checked:
	case sum := <-done:
		t.Fatalf("the update ended (%+v) without writing a file after the burst", sum)
	}
	if c.err != nil {
		t.Fatalf("reading the committed files: %v", c.err)
	}
	if c.committed != before {
		t.Errorf("files committed when the writer went on = %d, want the %d it wrote before the burst", c.committed, before)
	}
	if c.turns != 1 || c.turnAt.Before(start.Add(burstHold)) {
		t.Errorf("the writer went on at +%v in turn %d (started +%v); want its first turn, at +%v", c.at.Sub(start), c.turns, c.turnAt.Sub(start), burstHold)
	}
	sum := <-done
	if sum == nil {
		return
	}
	if sum.Parsed != len(files) {
		t.Errorf("parsed %d files, want %d", sum.Parsed, len(files))
	}
	states, err := ix.store.FileStates(context.Background())
	if err != nil || len(states) != len(files) {
		t.Errorf("files in the index = %d, %v; want %d", len(states), err, len(files))
	}
}

// TestIndexingUnderContinuousTyping indexes a workspace on two cores
// while the user types without a pause from start to end: the index is
// built in the indexer's turns (see burstHold), one unit at a time.
func TestIndexingUnderContinuousTyping(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package a\n\n// F%d does things.\nfunc F%d() { G(%d) }\n", i, i, i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, func(o *Options) { o.Workers = 2 })
	ix.fg.cores = 2
	// Short windows, so that the test takes many turns quickly; what is
	// checked does not depend on them.
	ix.fg.hold, ix.fg.turn = 20*time.Millisecond, 2*time.Millisecond
	ix.fg.keystroke()
	stop := make(chan struct{})
	typed := make(chan struct{})
	go func() {
		defer close(typed)
		for {
			select {
			case <-stop:
				return
			default:
				ix.fg.keystroke()
				runtime.Gosched()
			}
		}
	}()
	sum := mustUpdate(t, ix)
	close(stop)
	<-typed
	if sum.Parsed != len(files) {
		t.Errorf("parsed %d files, want %d", sum.Parsed, len(files))
	}
	if got := ix.fg.typingPeak(); got != 1 {
		t.Errorf("%d units ran at once during the burst, want 1 (in its turns)", got)
	}
	if turns, _ := ix.fg.turnCount(); turns == 0 {
		t.Error("the index was built during a burst without a turn")
	}
	syms, err := ix.Symbols(context.Background(), "F59", 10)
	if err != nil || len(syms) != 1 {
		t.Errorf("Symbols(F59) = %v, %v; want one", syms, err)
	}
}
