package team

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestLockKeySQL(t *testing.T) {
	if got := strconv.FormatInt(writeLockKey, 10); got != lockKeySQL {
		t.Fatalf("lockKeySQL = %s; writeLockKey is %s", lockKeySQL, got)
	}
}

// TestProposeApproveFlow walks one rule through its life and checks the
// audit, Changes and the roles recorded by the database.
func TestProposeApproveFlow(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice, bob := open(t, td.memberURL), open(t, td.approverURL)

	if m, err := alice.Me(ctx); err != nil || m.Name != td.memberRole || m.Approver {
		t.Fatalf("alice.Me = %+v, %v; want %s, not an approver", m, err, td.memberRole)
	}
	if m, err := bob.Me(ctx); err != nil || m.Name != td.approverRole || !m.Approver {
		t.Fatalf("bob.Me = %+v, %v; want %s, an approver", m, err, td.approverRole)
	}

	id := uuidN(1)
	p, err := alice.Propose(ctx, Rule{ID: id, Scope: "team language:Go", Content: "  wrap database errors with the query that failed  ",
		Rationale: "so a log says which query", ExampleFile: "users/repo.go", ExampleSymbol: "UserRepository.FindByID",
		ExampleFingerprint: "abc123", Correction: "correction:42@alice"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != StatusProposed || p.ProposedBy != td.memberRole || p.DecidedBy != "" || p.Scope != "team language:go" ||
		p.Content != "wrap database errors with the query that failed" || p.Seq == 0 || p.Category != "rule" || p.ExampleSymbol != "UserRepository.FindByID" {
		t.Fatalf("proposed %+v", p)
	}
	// Proposing the same id again is the same rule, not a new change.
	again, err := alice.Propose(ctx, Rule{ID: strings.ToUpper(id), Content: "something else"})
	if err != nil || again.Seq != p.Seq || again.Content != p.Content {
		t.Fatalf("proposing again: %+v, %v; want the stored rule %+v", again, err, p)
	}

	if _, err := alice.Approve(ctx, id); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a member approving: %v; want ErrForbidden", err)
	}
	a, err := bob.Approve(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != StatusApproved || a.DecidedBy != td.approverRole || a.Seq <= p.Seq || a.ProposedBy != td.memberRole {
		t.Fatalf("approved %+v", a)
	}
	// A retry after a lost reply: success, no new change.
	if a2, err := bob.Approve(ctx, id); err != nil || a2.Seq != a.Seq {
		t.Fatalf("approving again: %+v, %v; want a no-op", a2, err)
	}
	e, err := bob.Edit(ctx, id, "wrap database errors with the failing query", "logs name the query")
	if err != nil || e.Content != "wrap database errors with the failing query" || e.Seq <= a.Seq || e.Status != StatusApproved {
		t.Fatalf("edit: %+v, %v", e, err)
	}
	if _, err := bob.Reject(ctx, id); !errors.Is(err, ErrConflict) {
		t.Fatalf("rejecting an approved rule: %v; want ErrConflict", err)
	}
	r, err := bob.Retire(ctx, id)
	if err != nil || r.Status != StatusRetired {
		t.Fatalf("retire: %+v, %v", r, err)
	}
	if _, err := bob.Approve(ctx, id); !errors.Is(err, ErrConflict) {
		t.Fatalf("approving a retired rule: %v; want ErrConflict", err)
	}
	if _, err := bob.Approve(ctx, uuidN(99)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("approving a missing rule: %v; want ErrNotFound", err)
	}

	// Changes: one row per rule, its last change; since filters.
	ch, err := alice.Changes(ctx, 0)
	if err != nil || len(ch) != 1 || ch[0].Status != StatusRetired || ch[0].Seq != r.Seq {
		t.Fatalf("Changes(0) = %+v, %v", ch, err)
	}
	if ch, err := alice.Changes(ctx, r.Seq); err != nil || len(ch) != 0 {
		t.Fatalf("Changes(last) = %+v, %v; want none", ch, err)
	}

	log, err := alice.Audit(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Action+" by "+strings.TrimPrefix(e.Actor, td.db.Name+"_"))
		if e.RuleID != id {
			t.Errorf("audit entry %+v: rule %s; want %s", e, e.RuleID, id)
		}
	}
	want := []string{"retire by bob", "edit by bob", "approve by bob", "propose by alice"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("audit, newest first: %v; want %v", got, want)
	}
	if log[3].Detail != "correction:42@alice" || !strings.Contains(log[1].Detail, "the query that failed") {
		t.Errorf("audit details: proposal %q, edit %q", log[3].Detail, log[1].Detail)
	}
}
