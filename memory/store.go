// Package memory keeps the coding rules Anchorage learns from a user's
// corrections, in the user's database (state.Dirs.MemoryPath), so that
// universal and language rules follow the user across projects.
//
// The life of a rule:
//
//  1. The user corrects the assistant: RecordCorrection stores the text,
//     with the file, range, language and project it was made in.
//  2. Propose clusters the open corrections by similarity (normalised
//     words, synonyms and negation: "avoid panic()" joins "don't panic"
//     but never "always panic") and turns the strongest clusters, at most
//     MaxProposals of them ordered by frequency × confidence, into
//     proposals: by an optional LLM (an Ollama-compatible server) whose
//     JSON answer is validated, else by a deterministic fallback that
//     infers the scope (universal, language:<lang> or project:<name>) and
//     the category from the words.
//  3. The user approves (Approve, ApproveAll, optionally choosing the
//     scope) or rejects (Reject) each proposal. An approved proposal
//     becomes a Rule; one that repeats an active rule merges into it, and
//     one that contradicts an active rule is flagged first and, approved
//     anyway, supersedes it (see Approve).
//  4. Another part of this package anchors rules to code examples through
//     SetAnchor and ClearAnchor (the Anchorer finds them; Anchors places
//     them among the open workspaces, as live, lost, elsewhere or
//     pending), and injects them into an assistant's context (RulesFor).
//
// Corrections carry a session label (WithSession): the language server
// labels its own, and Propose works from one session's corrections or
// from all of them. WithOnChange reports every committed change to
// rules.
//
// The database is shared with other components (package
// retrieval/feedback): this package versions only its own tables, in the
// row "memory" of schema_versions(component, version), and leaves PRAGMA
// user_version alone. Its tables are memory_store (rules), proposals and
// corrections.
//
// A Store is safe for concurrent use, and several processes (the language
// server and the command line) may use the same database: it runs in WAL
// mode, waits for locks, and commits every user action before returning.
// A database that is corrupt or not SQLite is reported as ErrCorrupt and
// left as it is; one that stays locked is reported as ErrLocked.
package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anchorage-dev/anchorage/state"
)

// Component is this package's row in schema_versions.
const Component = "memory"

// DefaultBusyTimeout is how long an operation waits for another
// connection's lock before failing with ErrLocked.
const DefaultBusyTimeout = state.DefaultBusyTimeout

// Errors reported by a Store; test for them with errors.Is.
var (
	// ErrCorrupt reports a database file that SQLite cannot read. The
	// file holds the user's memories: it is never removed or rewritten.
	// It is the storage layer's state.ErrCorrupt.
	ErrCorrupt = state.ErrCorrupt
	// ErrLocked reports a database that another connection kept locked
	// for longer than the busy timeout: state.ErrLocked.
	ErrLocked = state.ErrLocked
	// ErrUnknownProposal reports a proposal id that does not exist (or
	// no longer does: pending proposals are replaced by Propose).
	ErrUnknownProposal = errors.New("no such proposal")
	// ErrUnknownRule reports a rule id that does not exist.
	ErrUnknownRule = errors.New("no such rule")
	// ErrAlreadyDecided reports a proposal that was already approved or
	// rejected.
	ErrAlreadyDecided = errors.New("proposal already decided")
	// ErrEmptyCorrection reports a correction without text.
	ErrEmptyCorrection = errors.New("correction text is empty")
	// ErrCorrectionTooLong reports a correction over MaxCorrectionBytes.
	ErrCorrectionTooLong = errors.New("correction text is too long")
	// ErrInvalidSession reports a session label that is not one line of
	// printable text of at most MaxSessionBytes.
	ErrInvalidSession = errors.New("invalid session label")
	// ErrInvalidScope reports a scope that is not universal,
	// language:<lang> or project:<name>, or a scope kind ("language",
	// "project") whose name is not known.
	ErrInvalidScope = errors.New("invalid scope")
)

// Store is the user's memory: rules, proposals and corrections, in one
// database file.
type Store struct {
	db   *state.DB
	path string
	opts storeOptions
	// owned is set when Open opened db, for Close to close it.
	owned bool
}

// Option configures a Store.
type Option func(*storeOptions)

type storeOptions struct {
	llm          LLM
	session      string
	project      string
	maxProposals int
	busyTimeout  time.Duration
	onChange     func(ctx context.Context, ruleIDs []int64)
	team         bool
	now          func() time.Time
}

// WithLLM makes Propose ask llm to phrase each proposal. Without it, or
// when it fails, the deterministic fallback runs.
func WithLLM(llm LLM) Option { return func(o *storeOptions) { o.llm = llm } }

// WithSession labels the corrections this Store records with session and
// makes Propose consider only that session's corrections. Without it,
// corrections are unlabelled and Propose considers every open correction,
// which suits a command line whose every call is a new process.
func WithSession(session string) Option {
	return func(o *storeOptions) {
		o.session = strings.TrimSpace(session)
		if o.session == AllSessions {
			o.session = ""
		}
	}
}

// AllSessions, given to WithSession (or as a Correction's Session), means
// no session: Propose considers every open correction, and corrections
// are recorded unlabelled.
const AllSessions = "*"

// MaxSessionBytes is the longest session label accepted.
const MaxSessionBytes = 200

// SessionEnv is the environment variable naming the session of the
// command line's corrections and proposals when --session is not given.
const SessionEnv = "ANCHORAGE_SESSION"

// Session returns the session set with WithSession, or "" for all.
func (s *Store) Session() string { return s.opts.session }

// WithProject sets the project of corrections recorded without one, and
// the project that project scopes name (see ProjectName).
func WithProject(name string) Option { return func(o *storeOptions) { o.project = name } }

// WithMaxProposals sets how many proposals Propose makes at most; n ≤ 0
// means MaxProposals.
func WithMaxProposals(n int) Option { return func(o *storeOptions) { o.maxProposals = n } }

// WithOnChange makes the Store call fn after every committed write that
// adds, changes (including setting or clearing an anchor), supersedes or
// deletes rules, with the ids of the rules concerned, ascending: a new or
// merged rule, the rules it superseded, a deleted rule and the rules its
// deletion made active again. fn runs on the writer's goroutine after the
// commit, once per write, and must not call back into a write of the
// same Store while holding a lock that write needs; a failed write does
// not call it.
func WithOnChange(fn func(ctx context.Context, ruleIDs []int64)) Option {
	return func(o *storeOptions) { o.onChange = fn }
}

// WithTeam says the user is a member of a team (a team database is
// configured): RulesFor and injection include the team scopes
// (TeamScopesFor), whose rules the cache of team rules holds.
func WithTeam(member bool) Option { return func(o *storeOptions) { o.team = member } }

// Team reports whether WithTeam(true) was given.
func (s *Store) Team() bool { return s.opts.team }

// ScopesFor returns the scopes whose rules apply to a file in language
// lang of project project: ScopesFor, or TeamScopesFor for a member of a
// team (WithTeam).
func (s *Store) ScopesFor(lang, project string) []string {
	if s.opts.team {
		return TeamScopesFor(lang, project)
	}
	return ScopesFor(lang, project)
}

// WithBusyTimeout sets how long operations wait for other connections'
// locks; d ≤ 0 means DefaultBusyTimeout.
func WithBusyTimeout(d time.Duration) Option { return func(o *storeOptions) { o.busyTimeout = d } }

// Open opens the memory database at path, creating it and its directory
// if needed, and brings this component's tables up to date. A file that is
// not a readable SQLite database is reported as ErrCorrupt and left
// untouched.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := storeOptions{maxProposals: MaxProposals, busyTimeout: DefaultBusyTimeout, now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.maxProposals <= 0 {
		o.maxProposals = MaxProposals
	}
	if o.busyTimeout <= 0 {
		o.busyTimeout = DefaultBusyTimeout
	}
	if o.project != "" {
		p, err := checkProjectName(o.project)
		if err != nil {
			return nil, fmt.Errorf("open memory %s: %w", path, err)
		}
		o.project = p
	}
	db, err := state.Open(ctx, path, state.User, state.Options{BusyTimeout: o.busyTimeout})
	if err != nil {
		return nil, fmt.Errorf("open memory: %w", err)
	}
	s, err := newStore(ctx, db, o)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns the Store of the memory tables in db, a user database that
// other components share (see state.Open), and brings the tables up to
// date. Close leaves db open: its owner closes it. WithBusyTimeout has no
// effect: db has its own.
func New(ctx context.Context, db *state.DB, opts ...Option) (*Store, error) {
	o := storeOptions{maxProposals: MaxProposals, busyTimeout: db.BusyTimeout(), now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.maxProposals <= 0 {
		o.maxProposals = MaxProposals
	}
	o.busyTimeout = db.BusyTimeout()
	if o.project != "" {
		p, err := checkProjectName(o.project)
		if err != nil {
			return nil, fmt.Errorf("open memory %s: %w", db.Path(), err)
		}
		o.project = p
	}
	return newStore(ctx, db, o)
}

func newStore(ctx context.Context, db *state.DB, o storeOptions) (*Store, error) {
	s := &Store{db: db, path: db.Path(), opts: o}
	if err := s.migrate(ctx); err != nil {
		return nil, s.fail("open memory", err)
	}
	return s, nil
}

// With returns a Store on the same database with opts applied over s's
// options: a language server keeps one open Store and asks, say, one
// Propose with the LLM and session a request names. WithBusyTimeout has
// no effect on an open database. The two Stores share the connection
// pool, which s owns: closing the Store With returns does nothing.
func (s *Store) With(opts ...Option) (*Store, error) {
	o := s.opts
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	o.busyTimeout = s.opts.busyTimeout
	if o.maxProposals <= 0 {
		o.maxProposals = MaxProposals
	}
	if o.project != "" && o.project != s.opts.project {
		p, err := checkProjectName(o.project)
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", s.path, err)
		}
		o.project = p
	}
	return &Store{db: s.db, path: s.path, opts: o}, nil // not owned: s closes db
}

// fail wraps err, from doing what, with ErrCorrupt or ErrLocked when it
// is one of those (see state.DB.Wrap).
func (s *Store) fail(what string, err error) error {
	return s.db.Wrap(what, err)
}

// migrations returns this component's schema versions, applied in order;
// schema_versions records how many have run.
func migrations() []string {
	return []string{schemaV1, schemaV2, schemaV3, schemaV4}
}

// schemaV3 lets a pending proposal name another pending proposal it
// contradicts.
const schemaV3 = `ALTER TABLE proposals ADD COLUMN contradicts_proposal INTEGER REFERENCES proposals(id) ON DELETE SET NULL;`

// schemaV2 drops the index on anchor files: it repeated every anchor's
// path, a third of what anchors added to the database, to speed up a
// lookup among a user's rules (hundreds, at most thousands) that a scan
// answers in about a millisecond for a thousand rules (see
// TestAnchorColumnsSize and BenchmarkRulesByAnchorFile).
const schemaV2 = `DROP INDEX IF EXISTS memory_store_anchor_file;`

// schemaV1 creates the tables. Times are Unix milliseconds; JSON columns
// hold arrays or objects as documented on the Go types.
const schemaV1 = `CREATE TABLE memory_store(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		category TEXT NOT NULL,
		scope TEXT NOT NULL,
		content TEXT NOT NULL,
		rationale TEXT NOT NULL DEFAULT '',
		source_variants TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
		confidence REAL NOT NULL,
		priority INTEGER NOT NULL,
		corrections INTEGER NOT NULL DEFAULT 0, -- how many corrections it came from
		superseded_by INTEGER REFERENCES memory_store(id) ON DELETE SET NULL,
		anchor_file TEXT,
		anchor_symbol TEXT,
		anchor_score REAL,
		anchor_metadata TEXT, -- JSON
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE INDEX memory_store_scope ON memory_store(scope);
	CREATE INDEX memory_store_anchor_file ON memory_store(anchor_file) WHERE anchor_file IS NOT NULL;
	CREATE TABLE proposals(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		status TEXT NOT NULL DEFAULT 'pending' CHECK(status IN ('pending', 'approved', 'rejected')),
		category TEXT NOT NULL,
		scope TEXT NOT NULL,
		content TEXT NOT NULL,
		rationale TEXT NOT NULL DEFAULT '',
		source_variants TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
		confidence REAL NOT NULL,
		priority INTEGER NOT NULL,
		frequency INTEGER NOT NULL, -- corrections in the cluster
		cohesion REAL NOT NULL, -- mean similarity within the cluster
		origin TEXT NOT NULL, -- 'llm' or 'fallback'
		note TEXT NOT NULL DEFAULT '',
		project TEXT NOT NULL DEFAULT '',
		language TEXT NOT NULL DEFAULT '',
		file TEXT NOT NULL DEFAULT '', -- where the corrections were made
		"range" TEXT, -- JSON Range in file
		example_file TEXT, -- candidate example, once known
		example_symbol TEXT,
		duplicate_of INTEGER REFERENCES memory_store(id) ON DELETE SET NULL,
		contradicts INTEGER REFERENCES memory_store(id) ON DELETE SET NULL,
		conflict TEXT NOT NULL DEFAULT '', -- human message about duplicate_of / contradicts
		rule_id INTEGER REFERENCES memory_store(id) ON DELETE SET NULL, -- once approved
		created_at INTEGER NOT NULL,
		decided_at INTEGER
	);
	CREATE INDEX proposals_status ON proposals(status);
	CREATE TABLE corrections(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		text TEXT NOT NULL,
		file TEXT NOT NULL DEFAULT '',
		"range" TEXT, -- JSON Range
		language TEXT NOT NULL DEFAULT '',
		project TEXT NOT NULL DEFAULT '',
		session TEXT NOT NULL DEFAULT '',
		proposal_id INTEGER REFERENCES proposals(id) ON DELETE SET NULL,
		created_at INTEGER NOT NULL
	);
	CREATE INDEX corrections_proposal ON corrections(proposal_id);`

// sqlRowQueryer is a *sql.DB or a *sql.Tx.
type sqlRowQueryer interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// migrate brings this component's tables up to date (see state.Migrate).
func (s *Store) migrate(ctx context.Context) error {
	return s.db.Migrate(ctx, Component, migrations())
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Project returns the default project set with WithProject, or "".
func (s *Store) Project() string { return s.opts.project }

// Close closes the database if Open opened it; a Store of New leaves it
// to its owner.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// rulesChanged reports committed changes to rules to the WithOnChange
// function, if any.
func (s *Store) rulesChanged(ctx context.Context, ids ...int64) {
	if s.opts.onChange == nil || len(ids) == 0 {
		return
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	s.opts.onChange(ctx, slices.Compact(out))
}

// unixMillis converts a time to the stored Unix milliseconds.
func unixMillis(t time.Time) int64 { return t.UnixMilli() }

// fromUnixMillis converts stored Unix milliseconds to a time.
func fromUnixMillis(ms int64) time.Time { return time.UnixMilli(ms) }

// withTx runs fn in an immediate transaction and commits it; what names
// the operation in errors.
func (s *Store) withTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return s.fail(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(what, err)
	}
	return nil
}
