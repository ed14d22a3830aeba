package team

import (
	"sync"
	"testing"
)

// TestChangesMissNothing has proposers write concurrently while a
// follower keeps asking for Changes(since the highest Seq it has seen), as
// a member's cache does: Seq numbers commit in order, so the follower
// ends with every rule.
func TestChangesMissNothing(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	follower := open(t, td.memberURL)
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		s := open(t, td.memberURL)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.Propose(ctx, Rule{ID: uuidN(w*1000 + i), Content: "rule text"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	seen := map[string]bool{}
	var since int64
	follow := func() {
		rules, err := follower.Changes(ctx, since)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if r.Seq <= since {
				t.Fatalf("Changes(%d) returned seq %d", since, r.Seq)
			}
			seen[r.ID] = true
			since = r.Seq
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		follow()
	}
	follow()
	if len(seen) != writers*each {
		t.Fatalf("the follower saw %d rules; want %d", len(seen), writers*each)
	}
}
