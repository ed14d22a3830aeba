package team

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestApproveConflicts checks the relation check of an approval: a rule
// that repeats or contradicts an approved rule of an overlapping scope is
// refused with the rule in the way; other scopes do not count.
func TestApproveConflicts(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)
	propose := func(n int, scope, content string) string {
		t.Helper()
		r, err := alice.Propose(ctx, Rule{ID: uuidN(n), Scope: scope, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	base := propose(1, "team language:go", "always wrap database errors with the query that failed")
	if _, err := bob.Approve(ctx, base); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		scope   string
		content string
		repeats bool
		ok      bool
	}{
		{"repeat", "team language:go", "always wrap database errors with the query that failed", true, false},
		{"contradiction", "team language:go", "never wrap database errors with the query that failed", false, false},
		{"contradiction from the whole team", "team", "never wrap database errors with the query that failed", false, false},
		{"another language", "team language:python", "never wrap database errors with the query that failed", false, true},
		{"unrelated", "team language:go", "keep handlers free of SQL", false, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := propose(10+i, tt.scope, tt.content)
			r, err := bob.Approve(ctx, id)
			if tt.ok {
				if err != nil || r.Status != StatusApproved {
					t.Fatalf("approve: %+v, %v; want approved", r, err)
				}
				return
			}
			var ce *ConflictError
			if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.RuleID != base || ce.Repeats != tt.repeats {
				t.Fatalf("approve: %v; want a conflict with %s (repeats %v)", err, base, tt.repeats)
			}
			if got, err := alice.Changes(ctx, 0); err != nil {
				t.Fatal(err)
			} else {
				for _, g := range got {
					if g.ID == id && g.Status != StatusProposed {
						t.Fatalf("a refused approval changed the rule: %+v", g)
					}
				}
			}
		})
	}
	// An edit of an approved rule into a contradiction is refused too.
	other := propose(30, "team language:go", "log the request id in every handler")
	if _, err := bob.Approve(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Edit(ctx, other, "never wrap database errors with the query that failed", ""); !errors.Is(err, ErrConflict) {
		t.Fatalf("editing into a contradiction: %v; want ErrConflict", err)
	}
}

// TestConcurrentApprovalsOneWins has two approvers, on two connections,
// approve two contradicting rules at the same moment, many times: each
// time exactly one wins and the other gets ErrConflict.
func TestConcurrentApprovalsOneWins(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	bob := open(t, td.approverURL)
	carolURL, _ := td.db.Login(t, "carol", RoleApprover)
	carol := open(t, carolURL)

	const rounds = 30
	for round := range rounds {
		// Each round in a project scope of its own, so rounds do not
		// conflict with each other.
		scope := fmt.Sprintf("team project:round%d", round)
		a, err := alice.Propose(ctx, Rule{Scope: scope, Content: "always use tabs for indentation in generated files"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := alice.Propose(ctx, Rule{Scope: scope, Content: "never use tabs for indentation in generated files"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for i, approve := range []func() error{
			func() error { _, err := bob.Approve(ctx, a.ID); return err },
			func() error { _, err := carol.Approve(ctx, b.ID); return err },
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = approve()
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrConflict):
				t.Fatalf("round %d: %v; want success or ErrConflict", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d approvals won (errors %v); want exactly 1", round, won, errs)
		}
	}
	all, err := alice.Changes(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	approved := 0
	for _, r := range all {
		if r.Status == StatusApproved {
			approved++
		}
	}
	if approved != rounds {
		t.Fatalf("%d rules approved; want %d (one per round)", approved, rounds)
	}
}
