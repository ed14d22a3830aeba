package team

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestServerGoneAndBack: with the server stopped, every call fails with
// ErrUnreachable (and Listen returns it); once it is back, the same Store
// works again, nothing lost.
func TestServerGoneAndBack(t *testing.T) {
	td := newTeamDB(t)
	c := td.db.Cluster()
	if !c.Own() {
		t.Skip("the cluster of ANCHORAGE_TEST_PGURL is not ours to stop")
	}
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)
	p, err := alice.Propose(ctx, Rule{Content: "wrap database errors with the query that failed"})
	if err != nil {
		t.Fatal(err)
	}
	// Connections pooled before a restart are dead after it: the first
	// use of each after the restart still succeeds.
	var busy sync.WaitGroup
	for range 4 {
		busy.Add(2)
		go func() { defer busy.Done(); alice.Changes(ctx, 0) }()
		go func() { defer busy.Done(); bob.Audit(ctx, 1) }()
	}
	busy.Wait()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := alice.Changes(ctx, 0); err != nil {
			t.Fatalf("Changes %d after a restart: %v", i, err)
		}
		if _, err := bob.Audit(ctx, 1); err != nil {
			t.Fatalf("Audit %d after a restart: %v", i, err)
		}
	}

	_, wait := listening(t, ctx, alice, nil)
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !c.Running() {
			c.Start(context.Background())
		}
	})
	if err := wait(); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Listen with the server stopped: %v; want ErrUnreachable", err)
	}
	calls := map[string]func() error{
		"Changes": func() error { _, err := alice.Changes(ctx, 0); return err },
		"Propose": func() error { _, err := alice.Propose(ctx, Rule{Content: "x"}); return err },
		"Approve": func() error { _, err := bob.Approve(ctx, p.ID); return err },
		"Me":      func() error { _, err := alice.Me(ctx); return err },
		"Audit":   func() error { _, err := alice.Audit(ctx, 1); return err },
		"Open":    func() error { _, err := Open(ctx, td.memberURL); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrUnreachable) {
			t.Errorf("%s with the server stopped: %v; want ErrUnreachable", name, err)
		}
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := bob.Approve(ctx, p.ID)
	if err != nil || a.Status != StatusApproved {
		t.Fatalf("approving after the restart: %+v, %v", a, err)
	}
	rules, err := alice.Changes(ctx, 0)
	if err != nil || len(rules) != 1 || rules[0].Status != StatusApproved {
		t.Fatalf("after the restart: %+v, %v; want the one rule, approved", rules, err)
	}
}

// TestApproveInterruptedThenRetried interrupts approvals at every point
// (the context ends while the request is on its way) and retries them, as
// a client that lost the reply does: each rule ends approved exactly
// once, with one approval in the audit.
func TestApproveInterruptedThenRetried(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)
	const n = 20
	texts := []string{"keep handlers thin", "name tests after behaviour", "log at the edges", "return early on errors",
		"prefer small interfaces", "pass contexts first", "close what you open", "document exported names",
		"avoid global state", "check every error", "wrap errors with context", "keep packages small",
		"test with real parts", "fuzz every parser", "measure before tuning", "write the docs first",
		"review your own diff", "delete dead code", "keep functions short", "sort imports"}
	var ids []string
	for i := range n {
		r, err := alice.Propose(ctx, Rule{ID: uuidN(i), Content: texts[i]})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	for i, id := range ids {
		// An attempt whose context ends at once or soon: it may or may
		// not have committed.
		actx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { bob.Approve(actx, id); close(done) }()
		if i%2 == 0 {
			cancel()
		}
		<-done
		cancel()
		r, err := bob.Approve(ctx, id)
		if err != nil || r.Status != StatusApproved {
			t.Fatalf("retrying approval %d: %+v, %v", i, r, err)
		}
	}
	log, err := alice.Audit(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	approvals := map[string]int{}
	for _, e := range log {
		if e.Action == ActionApprove {
			approvals[e.RuleID]++
		}
	}
	for _, id := range ids {
		if approvals[id] != 1 {
			t.Errorf("rule %s approved %d times in the audit; want 1", id, approvals[id])
		}
	}
}

// TestApproveConnectionKilled ends the approving connection while its
// transaction waits for the write lock (as when PostgreSQL or a proxy
// drops it): the approval is retried on a fresh connection and the rule
// ends approved once, with one approval in the audit.
func TestApproveConnectionKilled(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)
	p, err := alice.Propose(ctx, Rule{Content: "keep handlers thin"})
	if err != nil {
		t.Fatal(err)
	}
	admin := sqlConn(t, td.db.URL)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(writeLockKey)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := bob.Approve(ctx, p.ID); done <- err }()
	// Wait until the approval waits for the lock, then end its connection.
	watcher := sqlConn(t, td.db.URL)
	var killed bool
	for !killed {
		if err := watcher.QueryRow(ctx, `SELECT coalesce(bool_or(pg_terminate_backend(l.pid)), false)
			FROM pg_locks l JOIN pg_stat_activity a USING (pid)
			WHERE l.locktype = 'advisory' AND NOT l.granted AND a.usename = $1`, td.approverRole).Scan(&killed); err != nil {
			t.Fatal(err)
		}
		if killed {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the approval ended before it waited for the lock: %v", err)
		case <-ctx.Done():
			t.Fatal("the approval never waited for the lock")
		case <-time.After(10 * time.Millisecond): // the next look at pg_locks
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the approval whose connection was ended: %v; want it retried and done", err)
	}
	log, err := alice.Audit(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range log {
		if e.Action == ActionApprove && e.RuleID == p.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d approvals in the audit; want 1", n)
	}
}
