// Package team is the team store: rules shared by a whole team, kept in
// a PostgreSQL database (schema "anchorage") that every member connects
// to. Anyone with the role anchorage_member may read the rules and
// propose new ones; only anchorage_approver may approve, reject, edit or
// retire them. The database itself enforces the roles (grants and
// row-level security), audits every change by a trigger, and announces
// each change on the channel anchorage_team with its sequence number.
//
// Members do not read the team database on every hover: each keeps a
// local cache, brought up to date with Changes (every rule whose Seq is
// above the last one seen) when Listen reports a change and periodically.
// Seq numbers are drawn under one lock and so commit in order: a cache
// that has every change up to N misses nothing by asking for Seq > N.
//
// Install creates or migrates the schema (an owner's or admin's
// connection); Open connects a member.
package team

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Rule statuses.
const (
	StatusProposed = "proposed"
	StatusApproved = "approved"
	StatusRejected = "rejected"
	StatusRetired  = "retired"
)

// Audit actions.
const (
	ActionPropose = "propose"
	ActionApprove = "approve"
	ActionReject  = "reject"
	ActionEdit    = "edit"
	ActionRetire  = "retire"
)

// ScopeTeam is the scope of a rule for the whole team; "team
// language:go" and "team project:NAME" narrow it.
const ScopeTeam = "team"

// MaxContent is the longest rule text, in bytes after trimming.
const MaxContent = 4096

// Channel is the PostgreSQL notification channel of team changes; the
// payload is the change's Seq.
const Channel = "anchorage_team"

// Errors. Each error returned wraps one of them (test with errors.Is)
// and says what was being done.
var (
	// ErrUnreachable: no connection to the server (nothing listening, a
	// timeout, the connection lost).
	ErrUnreachable = errors.New("team database unreachable")
	// ErrAuth: the server refused the user or password.
	ErrAuth = errors.New("team database refused the login")
	// ErrNoDatabase: the server has no database of that name.
	ErrNoDatabase = errors.New("team database does not exist")
	// ErrNotTeamDB: the database holds another application's tables and
	// no anchorage schema.
	ErrNotTeamDB = errors.New("not a team database")
	// ErrNewer: the schema was installed by a newer Anchorage.
	ErrNewer = errors.New("team database schema is newer than this anchorage")
	// ErrNotSchema: the anchorage schema is missing or older (run
	// `anchorage memory team init`, which calls Install).
	ErrNotSchema = errors.New("team schema not installed")
	// ErrForbidden: the user's roles do not allow it.
	ErrForbidden = errors.New("not allowed by the team roles")
	// ErrConflict: the change contradicts the team's rules or the rule's
	// state (see ConflictError).
	ErrConflict = errors.New("conflict")
	// ErrInvalid: bad input (a rule text too long or empty, a bad scope,
	// id or URL).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound: no rule of that id.
	ErrNotFound = errors.New("no such team rule")
)

// Rule is a team rule as the team database holds it.
type Rule struct {
	// ID is a UUID chosen by the proposer: proposing twice with one ID
	// is one rule. Propose chooses one when it is empty.
	ID string `json:"id"`
	// Seq is the change sequence number of the rule's last change
	// (team-wide, increasing in commit order).
	Seq int64 `json:"seq"`
	// Status is StatusProposed, StatusApproved, StatusRejected or
	// StatusRetired.
	Status string `json:"status"`
	// Category is as memory.Rule.Category.
	Category string `json:"category"`
	// Scope is "team", "team language:<lang>" or "team project:<name>".
	Scope string `json:"scope"`
	// Content is the rule text (at most MaxContent bytes).
	Content   string `json:"content"`
	Rationale string `json:"rationale"`
	// The proposer's example; each member re-anchors it in their own
	// checkout.
	ExampleFile        string `json:"example_file"`
	ExampleSymbol      string `json:"example_symbol"`
	ExampleFingerprint string `json:"example_fingerprint"`
	// Correction says what the rule came from, e.g. "correction:42@alice".
	Correction string `json:"correction"`
	// ProposedBy and DecidedBy are PostgreSQL role names, set by the
	// database (session_user). DecidedBy is "" until a decision.
	ProposedBy string    `json:"proposed_by"`
	DecidedBy  string    `json:"decided_by"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// AuditEntry is one change of a team rule, as the database's trigger
// recorded it.
type AuditEntry struct {
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`
	// Actor is the PostgreSQL role that made the change.
	Actor string `json:"actor"`
	// Action is ActionPropose, ActionApprove, ActionReject, ActionEdit
	// or ActionRetire (or "delete"/"reopen" for an owner's plain SQL).
	Action string `json:"action"`
	RuleID string `json:"rule_id"`
	// Detail is the correction a proposal came from, or what a change
	// replaced.
	Detail string `json:"detail"`
}

// Member is the connected user.
type Member struct {
	// Name is the PostgreSQL role (session_user).
	Name string `json:"name"`
	// Approver reports membership of anchorage_approver.
	Approver bool `json:"approver"`
}

// ConflictError is the ErrConflict of an approval or edit that repeats or
// contradicts an approved rule.
type ConflictError struct {
	// RuleID is the approved rule in the way.
	RuleID string
	// Repeats is true for a repetition, false for a contradiction.
	Repeats bool
	// Content is the approved rule's text.
	Content string
}

func (e *ConflictError) Error() string {
	how := "contradicts"
	if e.Repeats {
		how = "repeats"
	}
	return fmt.Sprintf("conflict: %s approved team rule %s %q", how, e.RuleID, shortText(e.Content))
}

// Is makes a ConflictError match ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Store is a connection pool to a team database. Its methods are safe for
// concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	password string // to scrub from errors
}

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout.
const defaultConnectTimeout = 10 * time.Second

// parseConfig parses a URL or DSN into a pool configuration.
func parseConfig(rawURL string) (*pgxpool.Config, error) {
	if strings.TrimSpace(rawURL) == "" {
		return nil, fmt.Errorf("%w: team database URL is empty", ErrInvalid)
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: team database URL %s: %s", ErrInvalid, RedactURL(rawURL), scrubText(parseErrorText(err), ""))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "anchorage"
	}
	return cfg, nil
}

// parseErrorText is a parse error's message without the connection
// string pgconn repeats in it.
func parseErrorText(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		if u := pe.Unwrap(); u != nil {
			return u.Error()
		}
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// Open connects to the team database at url (a libpq URL or key=value
// DSN; TLS options such as sslmode and sslrootcert pass through) and
// checks its schema. Errors never contain the password. It returns
// ErrUnreachable, ErrAuth or ErrNoDatabase when it cannot connect,
// ErrNotTeamDB for a database of another application, ErrNotSchema when
// the schema must be installed (Install) and ErrNewer when it is newer
// than this version knows.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := parseConfig(url)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, classify(fmt.Errorf("connecting to the team database %s: %w", RedactURL(url), err), cfg.ConnConfig.Password)
	}
	s := &Store{pool: pool, password: cfg.ConnConfig.Password}
	if err := s.checkSchema(ctx, url); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

// checkSchema refuses a database without the team schema, of another
// application, or of a newer schema version.
func (s *Store) checkSchema(ctx context.Context, url string) error {
	what := "reading the team schema version of " + RedactURL(url)
	var hasSchema bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('anchorage.schema_version') IS NOT NULL`).Scan(&hasSchema); err != nil {
		return s.wrap(what, err)
	}
	if !hasSchema {
		var other int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_tables
			WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&other); err != nil {
			return s.wrap(what, err)
		}
		if other > 0 {
			return fmt.Errorf("%w: %s has %d tables of another application and no anchorage schema; give the team its own database", ErrNotTeamDB, RedactURL(url), other)
		}
		return fmt.Errorf("%w: %s has no anchorage schema; an owner runs `anchorage memory team init` to install it", ErrNotSchema, RedactURL(url))
	}
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM anchorage.schema_version`).Scan(&v); err != nil {
		return s.wrap(what, err)
	}
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("%w: %s has team schema version %d; this anchorage knows up to %d: upgrade anchorage", ErrNewer, RedactURL(url), v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w: %s has team schema version %d, older than %d; an owner runs `anchorage memory team init` to migrate it", ErrNotSchema, RedactURL(url), v, SchemaVersion)
	}
	return nil
}

// Install creates or migrates the schema anchorage, the NOLOGIN group
// roles anchorage_member and anchorage_approver (approver is a member),
// their grants and the row-level security policies. It needs an owner's
// or admin's connection (the right to create schemas, and roles when
// they do not exist yet). It is idempotent, and two installers of one
// database at once are serialised by an advisory lock. A schema newer
// than this version is left alone: ErrNewer.
func Install(ctx context.Context, url string) error {
	cfg, err := parseConfig(url)
	if err != nil {
		return err
	}
	pw := cfg.ConnConfig.Password
	what := "installing the team schema in " + RedactURL(url)
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return classify(fmt.Errorf("%s: %w", what, err), pw)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := ensureRoles(ctx, conn); err != nil {
		return classify(fmt.Errorf("%s: creating the roles %s and %s: %w", what, RoleMember, RoleApprover, err), pw)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(installLockKey)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS anchorage;
			CREATE TABLE IF NOT EXISTS anchorage.schema_version (version integer NOT NULL)`); err != nil {
			return err
		}
		var v int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM anchorage.schema_version`).Scan(&v); err != nil {
			return err
		}
		if v > SchemaVersion {
			return fmt.Errorf("%w: the database has team schema version %d; this anchorage knows up to %d: upgrade anchorage", ErrNewer, v, SchemaVersion)
		}
		for i := v; i < SchemaVersion; i++ {
			if _, err := tx.Exec(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migrating to version %d: %w", i+1, err)
			}
		}
		if v < SchemaVersion {
			if _, err := tx.Exec(ctx, `DELETE FROM anchorage.schema_version;
				INSERT INTO anchorage.schema_version (version) VALUES (`+strconv.Itoa(SchemaVersion)+`)`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, grantsSQL)
		return err
	})
	if err != nil {
		return classify(fmt.Errorf("%s: %w", what, err), pw)
	}
	return nil
}

// ensureRoles creates the group roles when they are missing. Roles are
// cluster-wide, so installers of two databases may race: a role made by
// the other is as good.
func ensureRoles(ctx context.Context, conn *pgx.Conn) error {
	for _, role := range []string{RoleMember, RoleApprover} {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return err
		}
		if exists {
			continue
		}
		_, err := conn.Exec(ctx, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" NOLOGIN")
		var pe *pgconn.PgError
		if err != nil && !(errors.As(err, &pe) && (pe.Code == "42710" || pe.Code == "23505")) { // duplicate_object, unique_violation
			return err
		}
	}
	var granted bool
	if err := conn.QueryRow(ctx, `SELECT pg_has_role($1, $2, 'MEMBER')`, RoleApprover, RoleMember).Scan(&granted); err != nil {
		return err
	}
	if !granted {
		if _, err := conn.Exec(ctx, "GRANT "+RoleMember+" TO "+RoleApprover); err != nil {
			return err
		}
	}
	return nil
}

// Me returns the connected user and whether they may approve. A user
// who is not a member of anchorage_member gets ErrForbidden.
func (s *Store) Me(ctx context.Context) (Member, error) {
	return retry(ctx, s.pool, func() (Member, error) { return s.meOnce(ctx) })
}

// meOnce is Me without the retry.
func (s *Store) meOnce(ctx context.Context) (Member, error) {
	var m Member
	var member bool
	err := s.pool.QueryRow(ctx, `SELECT session_user,
		pg_has_role(session_user, $1, 'MEMBER'), pg_has_role(session_user, $2, 'MEMBER')`,
		RoleMember, RoleApprover).Scan(&m.Name, &member, &m.Approver)
	if err != nil {
		return Member{}, s.wrap("reading the team member", err)
	}
	if !member {
		return m, fmt.Errorf("%w: role %s is not a member of %s; an owner grants it (GRANT %s TO %s)", ErrForbidden, m.Name, RoleMember, RoleMember, pgx.Identifier{m.Name}.Sanitize())
	}
	return m, nil
}

// ruleColumns is the select list scanned by scanRule.
const ruleColumns = `id::text, seq, status, category, scope, content, rationale,
	example_file, example_symbol, example_fingerprint, correction,
	proposed_by, coalesce(decided_by, ''), created_at, updated_at`

func scanRule(row pgx.Row) (Rule, error) {
	var r Rule
	err := row.Scan(&r.ID, &r.Seq, &r.Status, &r.Category, &r.Scope, &r.Content, &r.Rationale,
		&r.ExampleFile, &r.ExampleSymbol, &r.ExampleFingerprint, &r.Correction,
		&r.ProposedBy, &r.DecidedBy, &r.CreatedAt, &r.UpdatedAt)
	return r, err
}

// Propose stores r as a proposal (any member may). ID, Category, Scope,
// Content, Rationale, the example and Correction are the caller's; the
// rest is set by the database. An empty ID gets a new UUID, an empty
// Category "rule", an empty Scope "team". Proposing an ID that exists
// returns the stored rule unchanged, so a retry after a lost reply
// proposes once.
func (s *Store) Propose(ctx context.Context, r Rule) (Rule, error) {
	if err := normalizeProposal(&r); err != nil {
		return Rule{}, err
	}
	return retry(ctx, s.pool, func() (Rule, error) { return s.proposeOnce(ctx, r) })
}

// proposeOnce stores a checked proposal.
func (s *Store) proposeOnce(ctx context.Context, r Rule) (Rule, error) {
	what := fmt.Sprintf("proposing team rule %s", r.ID)
	row := s.pool.QueryRow(ctx, `INSERT INTO anchorage.rules (id, status, category, scope, content, rationale,
			example_file, example_symbol, example_fingerprint, correction)
		VALUES ($1, 'proposed', $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO NOTHING
		RETURNING `+ruleColumns,
		r.ID, r.Category, r.Scope, r.Content, r.Rationale, r.ExampleFile, r.ExampleSymbol, r.ExampleFingerprint, r.Correction)
	got, err := scanRule(row)
	if errors.Is(err, pgx.ErrNoRows) {
		// Proposed before: the stored rule.
		got, err = get(ctx, s.pool, r.ID)
	}
	if err != nil {
		return Rule{}, s.wrap(what, err)
	}
	return got, nil
}

// normalizeProposal checks and completes a proposal.
func normalizeProposal(r *Rule) error {
	if r.ID == "" {
		r.ID = newUUID()
	}
	id, err := normalizeID(r.ID)
	if err != nil {
		return err
	}
	r.ID = id
	if r.Category = strings.TrimSpace(r.Category); r.Category == "" {
		r.Category = memory.CategoryRule
	}
	if len(r.Category) > 64 || !utf8.ValidString(r.Category) {
		return fmt.Errorf("%w: category %q", ErrInvalid, shortText(r.Category))
	}
	if r.Scope, err = NormalizeScope(r.Scope); err != nil {
		return err
	}
	if r.Content, err = checkContent(r.Content); err != nil {
		return err
	}
	r.Rationale = strings.TrimSpace(r.Rationale)
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"rationale", &r.Rationale, MaxContent},
		{"example file", &r.ExampleFile, 4096},
		{"example symbol", &r.ExampleSymbol, 1024},
		{"example fingerprint", &r.ExampleFingerprint, 256},
		{"correction", &r.Correction, 1024},
	} {
		if len(*f.v) > f.max {
			return fmt.Errorf("%w: %s is %d bytes; the limit is %d", ErrInvalid, f.name, len(*f.v), f.max)
		}
		if !utf8.ValidString(*f.v) || strings.ContainsRune(*f.v, 0) {
			return fmt.Errorf("%w: %s is not valid UTF-8 text", ErrInvalid, f.name)
		}
	}
	return nil
}

// checkContent trims a rule text and refuses an empty or too long one.
func checkContent(content string) (string, error) {
	content = strings.TrimSpace(content)
	switch {
	case content == "":
		return "", fmt.Errorf("%w: empty rule text", ErrInvalid)
	case len(content) > MaxContent:
		return "", fmt.Errorf("%w: rule text is %d bytes; the limit is %d", ErrInvalid, len(content), MaxContent)
	case !utf8.ValidString(content) || strings.ContainsRune(content, 0):
		return "", fmt.Errorf("%w: rule text is not valid UTF-8 text", ErrInvalid)
	}
	return content, nil
}

// NormalizeScope checks and normalises a team scope: "team", "team
// language:<lang>" or "team project:<name>" (the part after "team" as
// memory.NormalizeScope takes it). An empty scope is "team".
func NormalizeScope(scope string) (string, error) {
	s := strings.TrimSpace(scope)
	if s == "" {
		return ScopeTeam, nil
	}
	head, rest, _ := strings.Cut(s, " ")
	if !strings.EqualFold(head, ScopeTeam) {
		return "", fmt.Errorf("%w: scope %q is not a team scope (want team, team language:<lang> or team project:<name>)", ErrInvalid, shortText(scope))
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return ScopeTeam, nil
	}
	sub, err := memory.NormalizeScope(rest)
	if err != nil || sub == memory.ScopeUniversal {
		return "", fmt.Errorf("%w: scope %q (want team, team language:<lang> or team project:<name>)", ErrInvalid, shortText(scope))
	}
	return ScopeTeam + " " + sub, nil
}

// memoryScope is a team scope as memory's relation detection takes it:
// "team" is universal among team rules.
func memoryScope(scope string) string {
	if _, rest, ok := strings.Cut(scope, " "); ok {
		return rest
	}
	return memory.ScopeUniversal
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// normalizeID checks a rule id: a UUID, in lower case.
func normalizeID(id string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(id))
	if !uuidPattern.MatchString(n) {
		return "", fmt.Errorf("%w: team rule id %q is not a UUID", ErrInvalid, shortText(id))
	}
	return n, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewID returns a new rule id, for a proposer that records it before
// proposing (so that a retry proposes the same rule).
func NewID() string { return newUUID() }

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// get reads one rule.
func get(ctx context.Context, q querier, id string) (Rule, error) {
	r, err := scanRule(q.QueryRow(ctx, `SELECT `+ruleColumns+` FROM anchorage.rules WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Rule{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, err
}

// Approve approves a proposed rule (approvers only: ErrForbidden
// otherwise). It checks that no approved rule of an overlapping scope
// repeats or contradicts it (a *ConflictError, ErrConflict, otherwise),
// decided in the transaction that approves it, serialised with every
// other change of the team's rules. Approving an approved rule is a no-op
// that returns it, so a retry after a lost reply neither fails nor audits
// twice; a rejected or retired rule cannot be approved (ErrConflict).
func (s *Store) Approve(ctx context.Context, id string) (Rule, error) {
	return s.decide(ctx, id, "approving", decision{
		check: func(r Rule) (string, bool) { return r.Content, r.Status == StatusProposed },
		apply: func(ctx context.Context, tx pgx.Tx, r Rule) (Rule, bool, error) {
			switch r.Status {
			case StatusApproved:
				return r, false, nil
			case StatusProposed:
			default:
				return r, false, fmt.Errorf("%w: the rule is %s; propose it again to have it approved", ErrConflict, r.Status)
			}
			r, err := scanRule(tx.QueryRow(ctx, `UPDATE anchorage.rules SET status = 'approved' WHERE id = $1 RETURNING `+ruleColumns, r.ID))
			return r, true, err
		},
	})
}

// Reject rejects a proposed rule (approvers only). Rejecting a rejected
// rule is a no-op; an approved or retired rule cannot be rejected
// (ErrConflict: retire it).
func (s *Store) Reject(ctx context.Context, id string) (Rule, error) {
	return s.decide(ctx, id, "rejecting", decision{apply: func(ctx context.Context, tx pgx.Tx, r Rule) (Rule, bool, error) {
		switch r.Status {
		case StatusRejected:
			return r, false, nil
		case StatusProposed:
		default:
			return r, false, fmt.Errorf("%w: the rule is %s, not proposed (retire an approved rule)", ErrConflict, r.Status)
		}
		r, err := scanRule(tx.QueryRow(ctx, `UPDATE anchorage.rules SET status = 'rejected' WHERE id = $1 RETURNING `+ruleColumns, r.ID))
		return r, true, err
	}})
}

// Retire retires an approved rule (approvers only): members' caches drop
// it. Retiring a retired rule is a no-op; a proposal cannot be retired
// (ErrConflict: reject it).
func (s *Store) Retire(ctx context.Context, id string) (Rule, error) {
	return s.decide(ctx, id, "retiring", decision{apply: func(ctx context.Context, tx pgx.Tx, r Rule) (Rule, bool, error) {
		switch r.Status {
		case StatusRetired:
			return r, false, nil
		case StatusApproved:
		default:
			return r, false, fmt.Errorf("%w: the rule is %s, not approved (reject a proposal)", ErrConflict, r.Status)
		}
		r, err := scanRule(tx.QueryRow(ctx, `UPDATE anchorage.rules SET status = 'retired' WHERE id = $1 RETURNING `+ruleColumns, r.ID))
		return r, true, err
	}})
}

// Edit replaces a rule's text and rationale (approvers only). An edit of
// an approved rule is checked against the other approved rules as an
// approval is. A retired rule cannot be edited (ErrConflict); an edit
// that changes nothing is a no-op.
func (s *Store) Edit(ctx context.Context, id, content, rationale string) (Rule, error) {
	content, err := checkContent(content)
	if err != nil {
		return Rule{}, err
	}
	rationale = strings.TrimSpace(rationale)
	if len(rationale) > MaxContent || !utf8.ValidString(rationale) || strings.ContainsRune(rationale, 0) {
		return Rule{}, fmt.Errorf("%w: rationale is not valid UTF-8 text of at most %d bytes", ErrInvalid, MaxContent)
	}
	return s.decide(ctx, id, "editing", decision{
		check: func(r Rule) (string, bool) {
			return content, r.Status == StatusApproved && r.Content != content
		},
		apply: func(ctx context.Context, tx pgx.Tx, r Rule) (Rule, bool, error) {
			if r.Status == StatusRetired {
				return r, false, fmt.Errorf("%w: the rule is retired", ErrConflict)
			}
			if r.Content == content && r.Rationale == rationale {
				return r, false, nil
			}
			r, err := scanRule(tx.QueryRow(ctx, `UPDATE anchorage.rules SET content = $2, rationale = $3 WHERE id = $1 RETURNING `+ruleColumns, r.ID, content, rationale))
			return r, true, err
		},
	})
}

// decision is one approver's change of a rule.
type decision struct {
	// check returns the text a rule would have after the change and
	// whether it must be checked against the approved rules (nil: no
	// check).
	check func(r Rule) (content string, need bool)
	// apply makes the change in the transaction holding the write lock;
	// it gets the rule as it is and returns it as it becomes, and whether
	// it changed.
	apply func(ctx context.Context, tx pgx.Tx, r Rule) (Rule, bool, error)
}

// decide makes a decision about rule id. The relation check against
// every approved rule costs time in proportion to their number
// (memory.Relate; BenchmarkTeamSync reports it), so it is made first
// without the write lock, against the approved rules as of Seq s0; then,
// holding the lock, only the rules changed since s0 are checked (a rule
// approved or edited later has a higher Seq), and the change is applied.
// The lock is held for the short part only, and the decision is still
// made in one transaction with the rules as they are when it commits.
func (s *Store) decide(ctx context.Context, id, verb string, d decision) (Rule, error) {
	nid, err := normalizeID(id)
	if err != nil {
		return Rule{}, fmt.Errorf("%s team rule: %w", verb, err)
	}
	return retry(ctx, s.pool, func() (Rule, error) { return s.decideOnce(ctx, nid, verb, d) })
}

// decideOnce is decide without the retry; nid is normalised.
func (s *Store) decideOnce(ctx context.Context, nid, verb string, d decision) (Rule, error) {
	what := fmt.Sprintf("%s team rule %s", verb, nid)
	if err := s.mayDecide(ctx, s.pool, verb); err != nil {
		return Rule{}, s.wrap(what, err)
	}
	// The check without the lock.
	var s0 int64 = -1 // the Seq checked up to; -1: nothing checked
	var checked string
	if d.check != nil {
		r, err := get(ctx, s.pool, nid)
		if err != nil {
			return Rule{}, s.wrap(what, err)
		}
		if content, need := d.check(r); need {
			if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM anchorage.rules`).Scan(&s0); err != nil {
				return Rule{}, s.wrap(what, err)
			}
			switch err := checkRelations(ctx, s.pool, nid, content, r.Scope, 0); {
			case errors.Is(err, ErrConflict):
				s0 = -1 // decided under the lock, against the rules as they are then
			case err != nil:
				return Rule{}, s.wrap(what, err)
			default:
				checked = content
			}
		}
	}
	var out Rule
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(writeLockKey)); err != nil {
			return err
		}
		r, err := get(ctx, tx, nid)
		if err != nil {
			return err
		}
		if d.check != nil {
			if content, need := d.check(r); need {
				since := int64(0)
				if s0 >= 0 && content == checked && r.Seq <= s0 {
					since = s0
				}
				if err := checkRelations(ctx, tx, nid, content, r.Scope, since); err != nil {
					return err
				}
			}
		}
		out, _, err = d.apply(ctx, tx, r)
		return err
	})
	if err != nil {
		return Rule{}, s.wrap(what, err)
	}
	return out, nil
}

// mayDecide refuses a user who is not an approver, with a message that
// says so (the database would refuse the UPDATE anyway).
func (s *Store) mayDecide(ctx context.Context, q querier, verb string) error {
	var who string
	var approver bool
	if err := q.QueryRow(ctx, `SELECT session_user, pg_has_role(session_user, $1, 'MEMBER')`, RoleApprover).Scan(&who, &approver); err != nil {
		return err
	}
	if !approver {
		return fmt.Errorf("%w: %s needs the role %s, which %s has not got", ErrForbidden, verb, RoleApprover, who)
	}
	return nil
}

// rowsQuerier is a pool or a transaction.
type rowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// checkRelations refuses content of scope that repeats or contradicts an
// approved rule other than id whose Seq is above since.
func checkRelations(ctx context.Context, q rowsQuerier, id, content, scope string, since int64) error {
	rows, err := q.Query(ctx, `SELECT id::text, scope, content FROM anchorage.rules
		WHERE status = 'approved' AND id <> $1 AND seq > $2`, id, since)
	if err != nil {
		return err
	}
	type approved struct{ id, content string }
	var ids []approved
	var rules []memory.Rule
	for rows.Next() {
		var a approved
		var sc string
		if err := rows.Scan(&a.id, &sc, &a.content); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, a)
		rules = append(rules, memory.Rule{ID: int64(len(ids)), Scope: memoryScope(sc), Content: a.content})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	dup, contra, _ := memory.Relate(content, memoryScope(scope), rules)
	switch {
	case dup > 0:
		a := ids[dup-1]
		return &ConflictError{RuleID: a.id, Repeats: true, Content: a.content}
	case contra > 0:
		a := ids[contra-1]
		return &ConflictError{RuleID: a.id, Content: a.content}
	}
	return nil
}

// Changes returns every rule changed after seq since (all statuses, so a
// cache learns of rejections and retirements), in Seq order.
func (s *Store) Changes(ctx context.Context, since int64) ([]Rule, error) {
	return retry(ctx, s.pool, func() ([]Rule, error) { return s.changesOnce(ctx, since) })
}

// changesOnce is Changes without the retry.
func (s *Store) changesOnce(ctx context.Context, since int64) ([]Rule, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+ruleColumns+` FROM anchorage.rules WHERE seq > $1 ORDER BY seq`, since)
	if err != nil {
		return nil, s.wrap("reading team rule changes", err)
	}
	defer rows.Close()
	var out []Rule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, s.wrap("reading team rule changes", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("reading team rule changes", err)
	}
	return out, nil
}

// DefaultAuditLimit is how many entries Audit returns for a limit of 0.
const DefaultAuditLimit = 100

// Audit returns the latest limit entries of the audit table, newest
// first (limit <= 0: DefaultAuditLimit).
func (s *Store) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	return retry(ctx, s.pool, func() ([]AuditEntry, error) { return s.auditOnce(ctx, limit) })
}

// auditOnce is Audit without the retry.
func (s *Store) auditOnce(ctx context.Context, limit int) ([]AuditEntry, error) {
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, at, actor, action, rule_id::text, detail
		FROM anchorage.audit ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, s.wrap("reading the team audit", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.Seq, &e.At, &e.Actor, &e.Action, &e.RuleID, &e.Detail); err != nil {
			return nil, s.wrap("reading the team audit", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("reading the team audit", err)
	}
	return out, nil
}

// ListenApplicationName is the application_name of Listen's connection
// (pg_stat_activity shows it).
const ListenApplicationName = "anchorage listen"

// Listen listens on the channel anchorage_team on a connection of its
// own and calls fn with the latest Seq announced: once as soon as it
// listens (with the latest Seq then, so that a caller running Changes in
// fn misses nothing made before), then after each notification. Calls
// are coalesced: notifications that arrive while fn runs make one more
// call, with the latest Seq, so a flood of notifications does not make a
// flood of calls. fn runs on one goroutine, never concurrently with
// itself. The Seq is a hint (anyone may NOTIFY the channel): use it to
// skip a Changes that would find nothing new, never as the next since.
//
// Listen blocks until ctx ends (it returns ctx's error) or the
// connection is lost (it returns an error wrapping ErrUnreachable), so
// the caller can reconnect. Notifications may be missed while no one
// listens: a caller also runs Changes periodically.
func (s *Store) Listen(ctx context.Context, fn func(seq int64)) error {
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = ListenApplicationName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return s.wrap("listening for team changes", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+Channel); err != nil {
		return s.wrap("listening for team changes", err)
	}
	var latest int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM anchorage.rules`).Scan(&latest); err != nil {
		return s.wrap("listening for team changes", err)
	}

	// The reader receives notifications as fast as they come and keeps
	// the highest Seq; the caller's goroutine (this one) calls fn with it
	// whenever it is free and something came.
	var (
		wake = make(chan struct{}, 1)
		done = make(chan error, 1)
		seq  atomic.Int64 // the highest Seq announced; written by the reader only
	)
	seq.Store(latest)
	// The reader waits without a context (a context makes each wait
	// arm and disarm a watcher, which a flood of notifications pays for
	// each one); the end of ctx closes the connection under it instead.
	stop := context.AfterFunc(ctx, func() { conn.PgConn().Conn().Close() })
	defer stop()
	go func() {
		for {
			n, err := conn.WaitForNotification(context.Background())
			if err != nil {
				done <- err
				return
			}
			// A payload that is not a Seq (anyone may NOTIFY any
			// channel) still wakes the caller, whose Changes finds what
			// there is.
			if v, err := strconv.ParseInt(strings.TrimSpace(n.Payload), 10, 64); err == nil && v > seq.Load() {
				seq.Store(v)
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	fn(latest)
	for {
		select {
		case <-wake:
			fn(seq.Load())
		case err := <-done:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.wrap("listening for team changes", err)
		case <-ctx.Done():
			<-done // WaitForNotification returns when ctx ends
			return ctx.Err()
		}
	}
}

// retry runs f again once when it failed on a connection the server had
// closed: pooled connections left over from before a restart of
// PostgreSQL fail on their first use, so the pool's connections are all
// closed (Reset) and f runs on a fresh one. Every
// call it wraps is idempotent — a proposal has its id, a decision made
// twice is a no-op — so a retry after a reply lost with the connection
// applies nothing twice. A failure to connect at all is not retried.
func retry[T any](ctx context.Context, pool *pgxpool.Pool, f func() (T, error)) (T, error) {
	v, err := f()
	var ce *pgconn.ConnectError
	if err != nil && ctx.Err() == nil && errors.Is(err, ErrUnreachable) && !errors.As(err, &ce) {
		pool.Reset()
		v, err = f()
	}
	return v, err
}

// wrap says what was being done and classifies err, without the
// password.
func (s *Store) wrap(what string, err error) error {
	return classify(fmt.Errorf("%s: %w", what, err), s.password)
}

// classify wraps err with the package error it is an instance of, and
// removes password from its text.
func classify(err error, password string) error {
	if err == nil {
		return nil
	}
	var kind error
	var pe *pgconn.PgError
	var ne net.Error
	var ce *pgconn.ConnectError
	switch {
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrAuth), errors.Is(err, ErrNoDatabase),
		errors.Is(err, ErrNotTeamDB), errors.Is(err, ErrNewer), errors.Is(err, ErrNotSchema),
		errors.Is(err, ErrForbidden), errors.Is(err, ErrConflict), errors.Is(err, ErrInvalid), errors.Is(err, ErrNotFound):
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &ce):
		// The caller's context, not the database.
	case errors.As(err, &pe):
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			kind = ErrAuth
		case pe.Code == "3D000":
			kind = ErrNoDatabase
		case pe.Code == "42501":
			kind = ErrForbidden
		case pe.Code == "23514" || pe.Code == "22P02" || pe.Code == "22001" || pe.Code == "22021" || pe.Code == "54000":
			kind = ErrInvalid
		case pe.Code == "23505" || pe.Code == "40001" || pe.Code == "40P01":
			kind = ErrConflict
		case pe.Code == "3F000" || pe.Code == "42P01":
			kind = ErrNotSchema
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300":
			kind = ErrUnreachable
		}
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err), isClosed(err):
		kind = ErrUnreachable
	}
	if kind != nil {
		err = &kindError{kind: kind, err: err}
	}
	return scrubError(err, password)
}

// isClosed reports an error of a connection that was closed under us.
func isClosed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "conn closed") || strings.Contains(s, "unexpected EOF") ||
		strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe")
}

// kindError adds a package error to an error's chain.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.kind.Error() + ": " + e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// scrubbedError is an error whose text has the password replaced.
type scrubbedError struct {
	text string
	err  error
}

func (e *scrubbedError) Error() string { return e.text }
func (e *scrubbedError) Unwrap() error { return e.err }

func scrubError(err error, password string) error {
	text := err.Error()
	clean := scrubText(text, password)
	if clean == text {
		return err
	}
	return &scrubbedError{text: clean, err: err}
}

// passwordInDSN matches a password=... in a key=value DSN.
var passwordInDSN = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// userinfoInURL matches the user:password@ of a URL.
var userinfoInURL = regexp.MustCompile(`(://[^:/@\s]*):[^@\s]*@`)

func scrubText(text, password string) string {
	if password != "" {
		text = strings.ReplaceAll(text, password, "xxxxx")
		if e := url.QueryEscape(password); e != password {
			text = strings.ReplaceAll(text, e, "xxxxx")
		}
	}
	text = userinfoInURL.ReplaceAllString(text, "$1:xxxxx@")
	return passwordInDSN.ReplaceAllString(text, "${1}xxxxx")
}

// RedactURL returns a team database URL or DSN fit for a message or a
// log: the password, in any form, is replaced by xxxxx.
func RedactURL(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return scrubText(rawURL, "")
}

// shortText cuts a text for a message.
func shortText(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
