package memory

import (
	"context"
	"fmt"
)

// Stats sums up the memory.
type Stats struct {
	// Database is the database file.
	Database string `json:"database"`
	// Rules counts the active rules.
	Rules int `json:"rules"`
	// RulesByScope counts the active rules by scope.
	RulesByScope map[string]int `json:"rules_by_scope"`
	// Anchored counts the active rules with an anchor.
	Anchored int `json:"anchored"`
	// Superseded counts the rules replaced by a contradicting one.
	Superseded int `json:"superseded"`
	// Proposals counts the proposals by status.
	Proposals map[string]int `json:"proposals"`
	// Corrections counts the corrections.
	Corrections int `json:"corrections"`
	// OpenCorrections counts the corrections not yet in an approved or
	// rejected proposal.
	OpenCorrections int `json:"open_corrections"`
}

// Stats returns the numbers of rules, proposals and corrections.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{
		Database:     s.path,
		RulesByScope: map[string]int{},
		Proposals:    map[string]int{StatusPending: 0, StatusApproved: 0, StatusRejected: 0},
	}
	fail := func(err error) (Stats, error) { return Stats{}, s.fail("read memory statistics", err) }
	rows, err := s.db.QueryContext(ctx, `SELECT scope, COUNT(*), COUNT(anchor_file) FROM memory_store
		WHERE superseded_by IS NULL GROUP BY scope ORDER BY scope`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var scope string
		var n, anchored int
		if err := rows.Scan(&scope, &n, &anchored); err != nil {
			rows.Close()
			return fail(err)
		}
		st.RulesByScope[scope] = n
		st.Rules += n
		st.Anchored += anchored
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	rows, err = s.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM proposals GROUP BY status`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			rows.Close()
			return fail(err)
		}
		st.Proposals[status] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	err = s.db.QueryRowContext(ctx, `SELECT
			(SELECT COUNT(*) FROM memory_store WHERE superseded_by IS NOT NULL),
			(SELECT COUNT(*) FROM corrections),
			(SELECT COUNT(*) FROM corrections c LEFT JOIN proposals p ON p.id = c.proposal_id
				WHERE c.proposal_id IS NULL OR p.status = 'pending')`).Scan(&st.Superseded, &st.Corrections, &st.OpenCorrections)
	if err != nil {
		return fail(err)
	}
	return st, nil
}

// String summarises the statistics on one line.
func (st Stats) String() string {
	return fmt.Sprintf("%d rules (%d anchored, %d superseded), %d pending proposals, %d corrections (%d open)",
		st.Rules, st.Anchored, st.Superseded, st.Proposals[StatusPending], st.Corrections, st.OpenCorrections)
}
