package analysis

// backgroundNice is how much the index's parse workers lower the
// priority of their threads (lowerThreadPriority) once the user types
// while they run: ten steps of nice give a thread about a tenth of the
// CPU time of one at the default priority when both want the same core.
const backgroundNice = 10

// lowThread runs functions one at a time on a goroutine of its own whose
// thread has a lower priority (lowerThreadPriority): for work that runs
// on its caller's goroutine, which must not be lowered (the index's
// writer, on the goroutine of the index's update).
type lowThread struct {
	work chan func()
}

// newLowThread starts a lowThread; stop ends it.
func newLowThread() *lowThread {
	t := &lowThread{work: make(chan func())}
	go func() {
		lowerThreadPriority()
		for fn := range t.work {
			fn()
		}
		// It ends without unlocking its thread: the runtime ends it.
	}()
	return t
}

// run calls fn on t's thread and returns when it has returned.
func (t *lowThread) run(fn func()) {
	done := make(chan struct{})
	t.work <- func() {
		defer close(done)
		fn()
	}
	<-done
}

// stop ends t's goroutine, and its thread; t runs nothing after it.
func (t *lowThread) stop() { close(t.work) }
