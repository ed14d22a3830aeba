package analysis

import (
	"context"
	"sync"
)

// foreground counts the parses of open documents in progress (keystrokes
// being read), for the indexer to yield to: its workers start no file
// while one runs, so that on a machine with few cores the keystroke gets
// a core instead of sharing it with every worker. A file already being
// parsed or written runs to its end; the indexer only waits between
// files, and never longer than the keystroke's parse. The zero value is
// ready to use; it is safe for concurrent use.
type foreground struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
	// waiting counts the callers of wait blocked now.
	waiting int
}

// enter marks a foreground parse as started; leave, as finished.
func (f *foreground) enter() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *foreground) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.idle)
	}
}

// wait returns once no foreground parse runs, or when ctx is done.
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

// blocked returns how many callers of wait are blocked.
func (f *foreground) blocked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}
