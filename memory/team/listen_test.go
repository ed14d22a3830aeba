package team

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// listening runs s.Listen in a goroutine, sending each Seq it reports on
// the returned channel, and returns after the first report (listening
// has begun). The returned function waits for Listen's error.
func listening(t *testing.T, ctx context.Context, s *Store, fn func(int64)) (<-chan int64, func() error) {
	t.Helper()
	seqs := make(chan int64, 1024)
	done := make(chan error, 1)
	go func() {
		done <- s.Listen(ctx, func(seq int64) {
			if fn != nil {
				fn(seq)
			}
			select {
			case seqs <- seq:
			default:
			}
		})
	}()
	select {
	case <-seqs:
	case err := <-done:
		t.Fatalf("Listen: %v", err)
	case <-ctx.Done():
		t.Fatal("Listen never began")
	}
	return seqs, func() error { return <-done }
}

// waitSeq waits until a reported Seq reaches want.
func waitSeq(t *testing.T, ctx context.Context, seqs <-chan int64, want int64) {
	t.Helper()
	for {
		select {
		case got := <-seqs:
			if got >= want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no notification of seq %d", want)
		}
	}
}

// TestListen: a change made by another member's connection is reported
// with its Seq; cancelling the context ends Listen with its error.
func TestListen(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)
	lctx, cancel := context.WithCancel(ctx)
	seqs, wait := listening(t, lctx, alice, nil)

	r, err := bob.Propose(ctx, Rule{Content: "wrap database errors with the query that failed"})
	if err != nil {
		t.Fatal(err)
	}
	waitSeq(t, ctx, seqs, r.Seq)
	a, err := bob.Approve(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	waitSeq(t, ctx, seqs, a.Seq)
	cancel()
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Listen after cancel: %v; want context.Canceled", err)
	}
}

// TestListenConnectionLost: when the server ends Listen's connection,
// Listen returns ErrUnreachable (the caller reconnects).
func TestListenConnectionLost(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	_, wait := listening(t, ctx, alice, nil)
	var n int
	if err := sqlConn(t, td.db.URL).QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1`, ListenApplicationName).Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminating the listening connection: %d, %v", n, err)
	}
	if err := wait(); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Listen after its connection was ended: %v; want ErrUnreachable", err)
	}
}

// TestListenFlood: a flood of notifications (anyone may NOTIFY the
// channel) is coalesced: the caller, who runs Changes on each call, is
// called far fewer times than there are notifications, and last with
// the latest Seq.
func TestListenFlood(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	var calls atomic.Int64
	// Listen runs under its own context, ended (and waited for) before
	// the test returns: a call still running when the test's context
	// ends would report that end as a failure.
	lctx, cancel := context.WithCancel(ctx)
	seqs, wait := listening(t, lctx, alice, func(int64) {
		calls.Add(1)
		if _, err := alice.Changes(lctx, 0); err != nil && lctx.Err() == nil {
			t.Error(err)
		}
	})
	defer func() {
		cancel()
		if err := wait(); !errors.Is(err, context.Canceled) {
			t.Errorf("Listen after cancel: %v; want context.Canceled", err)
		}
	}()
	const flood = 100_000
	member := sqlConn(t, td.memberURL)
	// Garbage first, then a flood of numbers, in one transaction: all
	// are delivered at its commit.
	if _, err := member.Exec(ctx, `SELECT pg_notify('anchorage_team', 'not a number'),
		(SELECT count(pg_notify('anchorage_team', g::text)) FROM generate_series(1, $1::int) g)`, flood); err != nil {
		t.Fatal(err)
	}
	waitSeq(t, ctx, seqs, flood)
	if n := calls.Load(); n > flood/20 {
		t.Fatalf("%d notifications made %d calls; want them coalesced (at most %d)", flood, n, flood/20)
	} else {
		t.Logf("%d notifications, %d calls", flood, n)
	}
}
