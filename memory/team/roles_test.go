package team

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRolesEnforcedByDatabase connects with plain SQL, as a user with
// psql would, and checks that the database itself refuses what the role
// may not do — and audits what it may.
func TestRolesEnforcedByDatabase(t *testing.T) {
	td := newTeamDB(t)
	ctx := testCtx(t)
	alice := open(t, td.memberURL)
	p, err := alice.Propose(ctx, Rule{ID: uuidN(1), Content: "name test helpers after what they check"})
	if err != nil {
		t.Fatal(err)
	}
	member := sqlConn(t, td.memberURL)
	approver := sqlConn(t, td.approverURL)
	outsider := sqlConn(t, td.outsiderURL)

	tests := []struct {
		name string
		sql  string
		args []any
	}{
		{"member approves", `UPDATE anchorage.rules SET status = 'approved'`, nil},
		{"member edits", `UPDATE anchorage.rules SET content = 'x' WHERE id = $1`, []any{p.ID}},
		{"member inserts an approved rule", `INSERT INTO anchorage.rules (id, status, content) VALUES ($1, 'approved', 'use tabs')`, []any{uuidN(2)}},
		{"member inserts as someone else", `INSERT INTO anchorage.rules (id, content, proposed_by) VALUES ($1, 'use tabs', 'bob')`, []any{uuidN(3)}},
		{"member sets the seq", `INSERT INTO anchorage.rules (id, content, seq) VALUES ($1, 'use tabs', 999999)`, []any{uuidN(4)}},
		{"member deletes a rule", `DELETE FROM anchorage.rules`, nil},
		{"member writes the audit", `INSERT INTO anchorage.audit (seq, action, rule_id) VALUES (1, 'approve', $1)`, []any{p.ID}},
		{"member rewrites the audit", `UPDATE anchorage.audit SET actor = 'nobody'`, nil},
		{"member deletes the audit", `DELETE FROM anchorage.audit`, nil},
		{"member changes the schema version", `UPDATE anchorage.schema_version SET version = 0`, nil},
		{"member calls the trigger function", `SELECT anchorage.rules_before()`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := member.Exec(ctx, tt.sql, tt.args...)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42501" {
				t.Fatalf("%s: %v; want insufficient_privilege (42501) from the database", tt.sql, err)
			}
		})
	}
	for _, sql := range []string{`UPDATE anchorage.audit SET actor = 'nobody'`, `DELETE FROM anchorage.audit`, `DELETE FROM anchorage.rules`,
		`UPDATE anchorage.rules SET proposed_by = 'nobody'`} {
		var pe *pgconn.PgError
		if _, err := approver.Exec(ctx, sql); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("approver: %s: %v; want insufficient_privilege", sql, err)
		}
	}
	var pe *pgconn.PgError
	if _, err := outsider.Exec(ctx, `SELECT * FROM anchorage.rules`); !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("a role of neither group reading rules: %v; want insufficient_privilege", err)
	}
	if _, err := Open(ctx, td.outsiderURL); !errors.Is(err, ErrForbidden) {
		t.Errorf("Open as a role of neither group: %v; want ErrForbidden", err)
	}

	// Nothing of the refused statements happened.
	if rules, err := alice.Changes(ctx, 0); err != nil || len(rules) != 1 || rules[0].Status != StatusProposed || rules[0].Seq != p.Seq {
		t.Fatalf("after the refused statements: %+v, %v; want the one proposal unchanged", rules, err)
	}

	// A member's plain INSERT of a proposal is allowed, and the database
	// says who made it, whatever the statement would like.
	if _, err := member.Exec(ctx, `INSERT INTO anchorage.rules (id, content) VALUES ($1, 'keep functions short')`, uuidN(5)); err != nil {
		t.Fatalf("a member's plain proposal: %v", err)
	}
	// An approver's plain SQL is allowed and audited by the trigger.
	if _, err := approver.Exec(ctx, `UPDATE anchorage.rules SET status = 'approved' WHERE id = $1`, p.ID); err != nil {
		t.Fatalf("an approver's plain approval: %v", err)
	}
	log, err := alice.Audit(ctx, 2)
	if err != nil || len(log) != 2 {
		t.Fatalf("audit: %+v, %v", log, err)
	}
	if log[0].Action != ActionApprove || log[0].Actor != td.approverRole || log[0].RuleID != p.ID ||
		log[1].Action != ActionPropose || log[1].Actor != td.memberRole || log[1].RuleID != uuidN(5) {
		t.Fatalf("audit of plain SQL: %+v", log)
	}
	rules, err := alice.Changes(ctx, p.Seq)
	if err != nil || len(rules) != 2 || rules[0].ProposedBy != td.memberRole || rules[1].DecidedBy != td.approverRole {
		t.Fatalf("changes after plain SQL: %+v, %v", rules, err)
	}
	if !strings.HasPrefix(td.memberRole, td.db.Name) {
		t.Fatalf("role %s", td.memberRole)
	}
}
