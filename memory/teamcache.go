package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Team rules. A team keeps one set of rules in its database (package
// memory/team); each member's memory keeps a cache of them, so that
// hovers, lenses, injection and anchoring work offline and cost no round
// trip:
//
//   - team_rules holds every team rule the member has seen, with its team
//     id, change sequence number and status (ApplyTeamChanges);
//   - an approved team rule is also a row of memory_store, marked with its
//     team id (Rule.Team), so that every reader of rules finds it; it is
//     anchored in the member's own checkout like any rule, and cannot be
//     edited or deleted locally (ErrTeamRule);
//   - team_sync holds the team the cache is of and the last sequence
//     number seen;
//   - team_outbox holds proposals and decisions made while the team
//     database was unreachable, each with its idempotent id, until they
//     are sent (EnqueueTeam, TeamOutbox, TeamOutboxDone).

// Statuses of team rules.
const (
	TeamProposed = "proposed"
	TeamApproved = "approved"
	TeamRejected = "rejected"
	TeamRetired  = "retired"
)

// Actions of the team outbox, as the team database's audit names them.
const (
	TeamActionPropose = "propose"
	TeamActionApprove = "approve"
	TeamActionReject  = "reject"
	TeamActionEdit    = "edit"
	TeamActionRetire  = "retire"
)

// ErrTeamRule reports a local change to a cached team rule: team rules
// change only through the team database (anchorage memory team …).
var ErrTeamRule = errors.New("a team rule is changed through the team database, not locally")

// TeamRule is a team rule as a member's cache holds it (the team
// database's rule, see package memory/team).
type TeamRule struct {
	// ID is the team's id of the rule (a UUID chosen by its proposer).
	ID string `json:"id"`
	// Seq is the team-wide change number of its last change.
	Seq int64 `json:"seq"`
	// Status is TeamProposed, TeamApproved, TeamRejected or TeamRetired.
	Status    string `json:"status"`
	Category  string `json:"category"`
	Scope     string `json:"scope"`
	Content   string `json:"content"`
	Rationale string `json:"rationale,omitempty"`
	// ExampleFile, ExampleSymbol and ExampleFingerprint are the
	// proposer's example: a hint for anchoring in each member's checkout.
	ExampleFile        string `json:"example_file,omitempty"`
	ExampleSymbol      string `json:"example_symbol,omitempty"`
	ExampleFingerprint string `json:"example_fingerprint,omitempty"`
	// Correction says what the rule came from ("correction:42@alice").
	Correction string `json:"correction,omitempty"`
	// ProposedBy and DecidedBy are database role names.
	ProposedBy string    `json:"proposed_by,omitempty"`
	DecidedBy  string    `json:"decided_by,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	// RuleID is the local rule of an approved team rule, 0 for others.
	RuleID int64 `json:"rule_id,omitempty"`
}

// CheckTeamRule validates and normalises a team rule before it is
// proposed: a known category, a team scope ("team", "team language:X",
// "team project:P"; a personal scope is made the team one), content of
// at most MaxRuleBytes.
func CheckTeamRule(r TeamRule) (TeamRule, error) {
	if r.Category == "" {
		r.Category = CategoryRule
	}
	if !validCategory(r.Category) {
		return r, fmt.Errorf("category %q (want %s, %s or %s)", r.Category, CategoryPreference, CategoryRule, CategoryCorrection)
	}
	scope, err := NormalizeScope(r.Scope)
	if strings.TrimSpace(r.Scope) == "" {
		scope, err = ScopeTeam, nil
	}
	if err != nil {
		return r, err
	}
	r.Scope = TeamScope(scope)
	r.Content = cleanStored(r.Content)
	r.Rationale = cleanStored(r.Rationale)
	switch {
	case r.Content == "":
		return r, ErrEmptyRule
	case len(r.Content) > MaxRuleBytes || len(r.Rationale) > MaxRuleBytes:
		return r, fmt.Errorf("%w: %d bytes, the limit is %d", ErrRuleTooLong, max(len(r.Content), len(r.Rationale)), MaxRuleBytes)
	}
	return r, nil
}

// TeamState is the state of a member's cache of team rules.
type TeamState struct {
	// Team names the team database the cache is of (its URL without
	// credentials), "" before the first sync.
	Team string `json:"team"`
	// LastSeq is the highest change number applied.
	LastSeq int64 `json:"last_seq"`
	// Cached counts the team rules cached, Approved those approved (and
	// so rules in force), Proposed those waiting for an approver.
	Cached   int `json:"cached"`
	Approved int `json:"approved"`
	Proposed int `json:"proposed"`
	// Outbox counts the proposals and decisions waiting to be sent.
	Outbox int `json:"outbox"`
	// SyncedAt is when the cache last applied changes, zero if never.
	SyncedAt time.Time `json:"synced_at,omitzero"`
}

// schemaV4 adds the cache of team rules and the outbox.
const schemaV4 = `ALTER TABLE memory_store ADD COLUMN team_id TEXT;
	CREATE UNIQUE INDEX memory_store_team_id ON memory_store(team_id) WHERE team_id IS NOT NULL;
	CREATE TABLE team_rules(
		id TEXT PRIMARY KEY, -- the team's UUID
		seq INTEGER NOT NULL,
		status TEXT NOT NULL,
		category TEXT NOT NULL,
		scope TEXT NOT NULL,
		content TEXT NOT NULL,
		rationale TEXT NOT NULL DEFAULT '',
		example_file TEXT NOT NULL DEFAULT '',
		example_symbol TEXT NOT NULL DEFAULT '',
		example_fingerprint TEXT NOT NULL DEFAULT '',
		correction TEXT NOT NULL DEFAULT '',
		proposed_by TEXT NOT NULL DEFAULT '',
		decided_by TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE team_sync(
		one INTEGER PRIMARY KEY CHECK(one = 1),
		team TEXT NOT NULL,
		last_seq INTEGER NOT NULL DEFAULT 0,
		synced_at INTEGER
	);
	CREATE TABLE team_outbox(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		team TEXT NOT NULL,
		action TEXT NOT NULL CHECK(action IN ('propose', 'approve', 'reject', 'edit', 'retire')),
		rule_id TEXT NOT NULL, -- the team rule's id: retrying is a no-op
		payload TEXT NOT NULL DEFAULT '{}', -- JSON: the TeamRule proposed, or {content, rationale} of an edit
		created_at INTEGER NOT NULL,
		attempts INTEGER NOT NULL DEFAULT 0,
		last_error TEXT NOT NULL DEFAULT '',
		UNIQUE(team, action, rule_id)
	);`

const teamRuleColumns = `t.id, t.seq, t.status, t.category, t.scope, t.content, t.rationale, t.example_file, t.example_symbol,
	t.example_fingerprint, t.correction, t.proposed_by, t.decided_by, t.created_at, t.updated_at,
	(SELECT m.id FROM memory_store m WHERE m.team_id = t.id)`

func scanTeamRule(row sqlRowScanner) (TeamRule, error) {
	var (
		r                TeamRule
		created, updated int64
		local            sql.NullInt64
	)
	if err := row.Scan(&r.ID, &r.Seq, &r.Status, &r.Category, &r.Scope, &r.Content, &r.Rationale, &r.ExampleFile,
		&r.ExampleSymbol, &r.ExampleFingerprint, &r.Correction, &r.ProposedBy, &r.DecidedBy, &created, &updated, &local); err != nil {
		return TeamRule{}, err
	}
	r.CreatedAt, r.UpdatedAt, r.RuleID = fromUnixMillis(created), fromUnixMillis(updated), local.Int64
	return r, nil
}

// TeamState returns the state of the cache of team rules.
func (s *Store) TeamState(ctx context.Context) (TeamState, error) {
	var (
		st     TeamState
		synced sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx, `SELECT team, last_seq, synced_at FROM team_sync WHERE one = 1`).Scan(&st.Team, &st.LastSeq, &synced)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return TeamState{}, s.fail("read the team cache", err)
	}
	if synced.Valid {
		st.SyncedAt = fromUnixMillis(synced.Int64)
	}
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'approved'), COUNT(*) FILTER (WHERE status = 'proposed')
		FROM team_rules`).Scan(&st.Cached, &st.Approved, &st.Proposed)
	if err != nil {
		return TeamState{}, s.fail("read the team cache", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM team_outbox WHERE team = ?`, st.Team).Scan(&st.Outbox); err != nil {
		return TeamState{}, s.fail("read the team outbox", err)
	}
	return st, nil
}

// UseTeam makes the cache that of team (the team database's URL without
// credentials). A cache of another team is emptied first: its rules,
// their local copies and the last sequence number (its outbox is kept,
// and sent when that team is used again). It reports whether the cache
// was reset.
func (s *Store) UseTeam(ctx context.Context, team string) (reset bool, err error) {
	if strings.TrimSpace(team) == "" {
		return false, errors.New("use team cache: no team named")
	}
	var removed []int64
	err = s.withTx(ctx, "use team cache", func(tx *sql.Tx) error {
		var cur string
		err := tx.QueryRowContext(ctx, `SELECT team FROM team_sync WHERE one = 1`).Scan(&cur)
		switch {
		case err == nil && cur == team:
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		reset = err == nil
		if removed, err = queryIDs(ctx, tx, `SELECT id FROM memory_store WHERE team_id IS NOT NULL`); err != nil {
			return err
		}
		for _, q := range []string{
			`UPDATE memory_store SET superseded_by = NULL WHERE superseded_by IN (SELECT id FROM memory_store WHERE team_id IS NOT NULL)`,
			`DELETE FROM memory_store WHERE team_id IS NOT NULL`,
			`DELETE FROM team_rules`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO team_sync(one, team, last_seq) VALUES(1, ?, 0)
			ON CONFLICT(one) DO UPDATE SET team = excluded.team, last_seq = 0, synced_at = NULL`, team)
		return err
	})
	if err != nil {
		return false, err
	}
	s.rulesChanged(ctx, removed...)
	return reset, nil
}

// TeamApplied is what ApplyTeamChanges did.
type TeamApplied struct {
	// LastSeq is the cache's last sequence number now.
	LastSeq int64
	// Changed are the local rules added, changed or removed.
	Changed []int64
	// Unanchored are the approved team rules, as local rules, that have
	// no anchor yet: the caller anchors them in its workspaces (see
	// Anchors.AnchorTeamRule).
	Unanchored []TeamRule
	// Applied counts the changes newer than the cache.
	Applied int
}

// ApplyTeamChanges brings the cache of team up to date with changes from
// the team database (each rule as it is now, any status), in one
// transaction: a change no newer than the cached one is skipped, an
// approved rule becomes (or updates) its local rule, and a rule that is
// no longer approved loses its local rule. The last sequence number
// becomes the highest seen. The cache must be that of team (UseTeam).
func (s *Store) ApplyTeamChanges(ctx context.Context, team string, changes []TeamRule) (TeamApplied, error) {
	var out TeamApplied
	now := s.opts.now()
	err := s.withTx(ctx, "apply team changes", func(tx *sql.Tx) error {
		var cur string
		if err := tx.QueryRowContext(ctx, `SELECT team, last_seq FROM team_sync WHERE one = 1`).Scan(&cur, &out.LastSeq); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("the cache is of no team yet")
			}
			return err
		}
		if cur != team {
			return fmt.Errorf("the cache is of another team")
		}
		for _, c := range changes {
			if strings.TrimSpace(c.ID) == "" {
				return fmt.Errorf("a team rule without an id (seq %d)", c.Seq)
			}
			var seq int64
			err := tx.QueryRowContext(ctx, `SELECT seq FROM team_rules WHERE id = ?`, c.ID).Scan(&seq)
			switch {
			case err == nil && seq >= c.Seq:
				out.LastSeq = max(out.LastSeq, c.Seq)
				continue
			case err != nil && !errors.Is(err, sql.ErrNoRows):
				return err
			}
			changed, err := s.applyTeamRule(ctx, tx, c, now)
			if err != nil {
				return fmt.Errorf("team rule %s: %w", c.ID, err)
			}
			out.Changed = append(out.Changed, changed...)
			out.LastSeq = max(out.LastSeq, c.Seq)
			out.Applied++
		}
		_, err := tx.ExecContext(ctx, `UPDATE team_sync SET last_seq = ?, synced_at = ? WHERE one = 1`, out.LastSeq, unixMillis(now))
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+teamRuleColumns+` FROM team_rules t JOIN memory_store m ON m.team_id = t.id
			WHERE m.anchor_file IS NULL ORDER BY t.seq`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanTeamRule(rows)
			if err != nil {
				return err
			}
			out.Unanchored = append(out.Unanchored, r)
		}
		return rows.Err()
	})
	if err != nil {
		return TeamApplied{}, err
	}
	s.rulesChanged(ctx, out.Changed...)
	return out, nil
}

// applyTeamRule stores one change of a team rule in tx and returns the
// local rules it changed.
func (s *Store) applyTeamRule(ctx context.Context, tx *sql.Tx, c TeamRule, now time.Time) ([]int64, error) {
	scope, err := NormalizeScope(c.Scope)
	if err != nil {
		return nil, err
	}
	c.Scope = TeamScope(scope)
	if !validCategory(c.Category) {
		c.Category = CategoryRule
	}
	created, updated := c.CreatedAt, c.UpdatedAt
	if created.IsZero() {
		created = now
	}
	if updated.IsZero() {
		updated = now
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO team_rules(id, seq, status, category, scope, content, rationale, example_file,
			example_symbol, example_fingerprint, correction, proposed_by, decided_by, created_at, updated_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, status = excluded.status, category = excluded.category,
			scope = excluded.scope, content = excluded.content, rationale = excluded.rationale,
			example_file = excluded.example_file, example_symbol = excluded.example_symbol,
			example_fingerprint = excluded.example_fingerprint, correction = excluded.correction,
			proposed_by = excluded.proposed_by, decided_by = excluded.decided_by, updated_at = excluded.updated_at`,
		c.ID, c.Seq, c.Status, c.Category, c.Scope, c.Content, c.Rationale, c.ExampleFile, c.ExampleSymbol,
		c.ExampleFingerprint, c.Correction, c.ProposedBy, c.DecidedBy, unixMillis(created), unixMillis(updated)); err != nil {
		return nil, err
	}
	var local int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM memory_store WHERE team_id = ?`, c.ID).Scan(&local)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if c.Status != TeamApproved {
		if local == 0 {
			return nil, nil
		}
		revived, err := queryIDs(ctx, tx, `SELECT id FROM memory_store WHERE superseded_by = ?`, local)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_store WHERE id = ?`, local); err != nil {
			return nil, err
		}
		return append([]int64{local}, revived...), nil
	}
	r, err := checkRule(Rule{Category: c.Category, Scope: c.Scope, Content: c.Content, Rationale: c.Rationale,
		Confidence: teamConfidence, Priority: DefaultPriority})
	if err != nil {
		return nil, err
	}
	if local == 0 {
		res, err := tx.ExecContext(ctx, `INSERT INTO memory_store(category, scope, content, rationale, source_variants,
				confidence, priority, corrections, created_at, updated_at, team_id)
			VALUES(?, ?, ?, ?, '[]', ?, ?, 0, ?, ?, ?)`,
			r.Category, r.Scope, r.Content, r.Rationale, r.Confidence, r.Priority, unixMillis(created), unixMillis(now), c.ID)
		if err != nil {
			return nil, err
		}
		id, err := res.LastInsertId()
		return []int64{id}, err
	}
	// An edit keeps the member's anchor: it names a symbol of their
	// checkout, which the edited text is still about.
	if _, err := tx.ExecContext(ctx, `UPDATE memory_store SET category = ?, scope = ?, content = ?, rationale = ?, updated_at = ?
		WHERE id = ?`, r.Category, r.Scope, r.Content, r.Rationale, unixMillis(now), local); err != nil {
		return nil, err
	}
	return []int64{local}, nil
}

// teamConfidence is the confidence of a cached team rule: an approver
// approved it.
const teamConfidence = 0.9

// TeamRules returns the cached team rules of a status ("" for all),
// oldest change first.
func (s *Store) TeamRules(ctx context.Context, status string) ([]TeamRule, error) {
	q := `SELECT ` + teamRuleColumns + ` FROM team_rules t`
	var args []any
	if status != "" {
		q += ` WHERE t.status = ?`
		args = append(args, status)
	}
	q += ` ORDER BY t.seq`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.fail("list team rules", err)
	}
	defer rows.Close()
	out := []TeamRule{}
	for rows.Next() {
		r, err := scanTeamRule(rows)
		if err != nil {
			return nil, s.fail("list team rules", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list team rules", err)
	}
	return out, nil
}

// TeamRule returns the cached team rule with the team id id, or, when id
// is a number, the team rule of that local rule. One that is not cached
// is ErrUnknownRule.
func (s *Store) TeamRule(ctx context.Context, id string) (TeamRule, error) {
	id = strings.TrimSpace(id)
	q := `SELECT ` + teamRuleColumns + ` FROM team_rules t WHERE t.id = ?`
	r, err := scanTeamRule(s.db.QueryRowContext(ctx, q, id))
	if errors.Is(err, sql.ErrNoRows) {
		r, err = scanTeamRule(s.db.QueryRowContext(ctx, `SELECT `+teamRuleColumns+` FROM team_rules t
			WHERE t.id = (SELECT team_id FROM memory_store WHERE CAST(id AS TEXT) = ?)`, id))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return TeamRule{}, fmt.Errorf("team rule %s: %w", id, ErrUnknownRule)
	}
	if err != nil {
		return TeamRule{}, s.fail("read team rule "+id, err)
	}
	return r, nil
}

// TeamOutboxItem is a proposal or decision waiting to be sent to the team
// database.
type TeamOutboxItem struct {
	// ID orders the outbox.
	ID int64 `json:"id"`
	// Team is the team it is for.
	Team string `json:"team"`
	// Action is one of the TeamAction constants.
	Action string `json:"action"`
	// RuleID is the team rule's id; for a proposal, the id it was made
	// with, so that sending it again is a no-op.
	RuleID string `json:"rule_id"`
	// Rule is the rule proposed, for TeamActionPropose.
	Rule *TeamRule `json:"rule,omitempty"`
	// Content and Rationale are the new text of TeamActionEdit.
	Content   string    `json:"content,omitempty"`
	Rationale string    `json:"rationale,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Attempts counts failed sends; LastError is the last failure.
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error,omitempty"`
}

type outboxPayload struct {
	Rule      *TeamRule `json:"rule,omitempty"`
	Content   string    `json:"content,omitempty"`
	Rationale string    `json:"rationale,omitempty"`
}

// EnqueueTeam puts a proposal or decision in the outbox of team, to be
// sent when the team database can be reached. The same action on the
// same rule is queued once.
func (s *Store) EnqueueTeam(ctx context.Context, team string, it TeamOutboxItem) (TeamOutboxItem, error) {
	switch it.Action {
	case TeamActionPropose:
		if it.Rule == nil {
			return TeamOutboxItem{}, errors.New("queue a team proposal: no rule")
		}
		r, err := CheckTeamRule(*it.Rule)
		if err != nil {
			return TeamOutboxItem{}, fmt.Errorf("queue a team proposal: %w", err)
		}
		it.Rule, it.RuleID = &r, r.ID
	case TeamActionApprove, TeamActionReject, TeamActionEdit, TeamActionRetire:
	default:
		return TeamOutboxItem{}, fmt.Errorf("queue a team change: unknown action %q", it.Action)
	}
	if strings.TrimSpace(it.RuleID) == "" {
		return TeamOutboxItem{}, fmt.Errorf("queue a team %s: no rule id", it.Action)
	}
	b, err := json.Marshal(outboxPayload{Rule: it.Rule, Content: it.Content, Rationale: it.Rationale})
	if err != nil {
		return TeamOutboxItem{}, err
	}
	it.Team, it.CreatedAt = team, s.opts.now()
	err = s.withTx(ctx, "queue a team "+it.Action, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO team_outbox(team, action, rule_id, payload, created_at) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT(team, action, rule_id) DO UPDATE SET payload = excluded.payload`,
			team, it.Action, it.RuleID, string(b), unixMillis(it.CreatedAt))
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM team_outbox WHERE team = ? AND action = ? AND rule_id = ?`,
			team, it.Action, it.RuleID).Scan(&it.ID)
	})
	if err != nil {
		return TeamOutboxItem{}, err
	}
	return it, nil
}

// TeamOutbox returns what waits to be sent to team, oldest first.
func (s *Store) TeamOutbox(ctx context.Context, team string) ([]TeamOutboxItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, team, action, rule_id, payload, created_at, attempts, last_error
		FROM team_outbox WHERE team = ? ORDER BY id`, team)
	if err != nil {
		return nil, s.fail("read the team outbox", err)
	}
	defer rows.Close()
	out := []TeamOutboxItem{}
	for rows.Next() {
		var (
			it      TeamOutboxItem
			payload string
			created int64
			p       outboxPayload
		)
		if err := rows.Scan(&it.ID, &it.Team, &it.Action, &it.RuleID, &payload, &created, &it.Attempts, &it.LastError); err != nil {
			return nil, s.fail("read the team outbox", err)
		}
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			return nil, fmt.Errorf("read the team outbox: item %d: %w", it.ID, err)
		}
		it.Rule, it.Content, it.Rationale, it.CreatedAt = p.Rule, p.Content, p.Rationale, fromUnixMillis(created)
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("read the team outbox", err)
	}
	return out, nil
}

// TeamOutboxDone removes a sent item from the outbox.
func (s *Store) TeamOutboxDone(ctx context.Context, id int64) error {
	return s.withTx(ctx, "remove a sent team change", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM team_outbox WHERE id = ?`, id)
		return err
	})
}

// TeamOutboxFailed records a failed send of an item that stays queued.
func (s *Store) TeamOutboxFailed(ctx context.Context, id int64, msg string) error {
	return s.withTx(ctx, "record a failed team send", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE team_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?`, msg, id)
		return err
	})
}

// checkNotTeam refuses a local change of a cached team rule.
func checkNotTeam(ctx context.Context, q sqlRowQueryer, id int64) error {
	var team sql.NullString
	err := q.QueryRowContext(ctx, `SELECT team_id FROM memory_store WHERE id = ?`, id).Scan(&team)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrUnknownRule
	case err != nil:
		return err
	case team.Valid:
		return fmt.Errorf("rule %d is team rule %s: %w", id, team.String, ErrTeamRule)
	}
	return nil
}

// UnanchoredTeamRules returns the approved team rules whose local rule
// has no anchor, oldest change first.
func (s *Store) UnanchoredTeamRules(ctx context.Context) ([]TeamRule, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+teamRuleColumns+` FROM team_rules t JOIN memory_store m ON m.team_id = t.id
		WHERE m.anchor_file IS NULL ORDER BY t.seq`)
	if err != nil {
		return nil, s.fail("list unanchored team rules", err)
	}
	defer rows.Close()
	out := []TeamRule{}
	for rows.Next() {
		r, err := scanTeamRule(rows)
		if err != nil {
			return nil, s.fail("list unanchored team rules", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list unanchored team rules", err)
	}
	return out, nil
}
