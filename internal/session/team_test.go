package session

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/team"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// teamCtx bounds one test's waits generously: CI is a busy machine, and
// the tests wait for events, not for time.
func teamCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// statusLog records the statuses a Team reports.
type statusLog struct {
	mu  sync.Mutex
	all []TeamStatus
	ch  chan TeamStatus
}

func newStatusLog() *statusLog { return &statusLog{ch: make(chan TeamStatus, 64)} }

func (l *statusLog) record(s TeamStatus) {
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
	l.ch <- s
}

// next waits for the next status.
func (l *statusLog) next(t *testing.T, ctx context.Context) TeamStatus {
	t.Helper()
	select {
	case s := <-l.ch:
		return s
	case <-ctx.Done():
		t.Fatalf("no team status came: %v", ctx.Err())
	}
	return TeamStatus{}
}

// teamMember is one member's session over the team database.
type teamMember struct {
	sess   *Session
	team   *Team
	status *statusLog
}

func newTeamMember(t *testing.T, url string) teamMember {
	t.Helper()
	log := newStatusLog()
	sess, _ := newSession(t, Options{Team: TeamOptions{URL: url, OnStatus: log.record}})
	tm := sess.Team()
	if tm == nil {
		t.Fatal("a session with a team URL has no Team")
	}
	return teamMember{sess: sess, team: tm, status: log}
}

// newTeamDB returns a team database with the schema installed, and the
// URLs of a member and of an approver.
func newTeamDB(t *testing.T) (db *pgtest.DB, memberURL, approverURL string) {
	t.Helper()
	db = pgtest.Start(t)
	if err := team.Install(teamCtx(t), db.URL); err != nil {
		t.Fatalf("Install: %v", err)
	}
	memberURL, _ = db.Login(t, "alice", team.RoleMember)
	approverURL, _ = db.Login(t, "bob", team.RoleMember, team.RoleApprover)
	return db, memberURL, approverURL
}

// TestTeamNone checks that without a team URL nothing of the team runs:
// no Team, no goroutine, no row in the team tables.
func TestTeamNone(t *testing.T) {
	ctx := t.Context()
	s, _ := newSession(t, Options{})
	if tm := s.Team(); tm != nil {
		t.Fatal("a session without a team URL has a Team")
	}
	st, err := s.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Team() {
		t.Error("the memory of a session without a team includes team scopes")
	}
	if _, err := st.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: "universal", Content: "Keep functions short", Confidence: 0.8}); err != nil {
		t.Fatal(err)
	}
	db, err := s.Database(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"team_sync", "team_rules", "team_outbox"} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows, %v; want none", table, n, err)
		}
	}
	s.mu.Lock()
	started := s.team != nil
	s.mu.Unlock()
	if started {
		t.Error("a team sync was made without a URL")
	}
}

// TestTeamSync walks a rule through two members' sessions: proposed by
// a member, approved and then retired by an approver, each change
// reaching the other member's cache through a notification.
func TestTeamSync(t *testing.T) {
	ctx := teamCtx(t)
	_, memberURL, approverURL := newTeamDB(t)
	alice, bob := newTeamMember(t, memberURL), newTeamMember(t, approverURL)
	alice.team.Start()
	bob.team.Start()
	for _, m := range []teamMember{alice, bob} {
		if s := m.status.next(t, ctx); !s.Reachable || s.Member == "" || strings.Contains(s.URL, "@") && !strings.Contains(s.URL, "xxxxx") {
			t.Fatalf("first status %+v; want reachable, a member, no password", s)
		}
	}

	const content = "Wrap database errors with the query that failed"
	p, err := alice.team.Propose(ctx, memory.TeamRule{Scope: "team language:go", Content: content,
		ExampleFile: "users/repo.go", ExampleSymbol: "UserRepository.FindByID", Correction: "correction:1@alice"})
	if err != nil || p.Queued || p.Rule.Seq == 0 || p.Rule.Status != memory.TeamProposed {
		t.Fatalf("Propose: %+v, %v", p, err)
	}
	if _, _, err := alice.team.Decide(ctx, memory.TeamActionApprove, p.Rule.ID, "", ""); !errors.Is(err, team.ErrForbidden) {
		t.Fatalf("a member approving: %v; want ErrForbidden", err)
	}
	if err := bob.team.WaitSeq(ctx, p.Rule.Seq); err != nil {
		t.Fatal(err)
	}
	proposed, err := mustMemory(t, bob.sess).TeamRules(ctx, memory.TeamProposed)
	if err != nil || len(proposed) != 1 || proposed[0].ID != p.Rule.ID {
		t.Fatalf("bob's cached proposals: %+v, %v", proposed, err)
	}

	// bob approves by a prefix of the id; alice's cache learns it.
	a, queued, err := bob.team.Decide(ctx, memory.TeamActionApprove, p.Rule.ID[:8], "", "")
	if err != nil || queued || a.Status != memory.TeamApproved {
		t.Fatalf("approve: %+v, %v, %v", a, queued, err)
	}
	if err := alice.team.WaitSeq(ctx, a.Seq); err != nil {
		t.Fatal(err)
	}
	rules, err := mustMemory(t, alice.sess).RulesFor(ctx, "go", "app")
	if err != nil || len(rules) != 1 || rules[0].Content != content || rules[0].Team != p.Rule.ID || rules[0].Scope != "team language:go" {
		t.Fatalf("alice's rules after the approval: %+v, %v", rules, err)
	}

	// A second proposal of the same text says it repeats the rule.
	again, err := alice.team.Propose(ctx, memory.TeamRule{Scope: "team", Content: content})
	if err != nil || !strings.Contains(again.Conflict, "repeats") {
		t.Errorf("proposing the approved text again: %+v, %v; want a conflict that says it repeats", again, err)
	}

	r, _, err := bob.team.Decide(ctx, memory.TeamActionRetire, p.Rule.ID, "", "")
	if err != nil || r.Status != memory.TeamRetired {
		t.Fatalf("retire: %+v, %v", r, err)
	}
	if err := alice.team.WaitSeq(ctx, r.Seq); err != nil {
		t.Fatal(err)
	}
	if rules, err := mustMemory(t, alice.sess).RulesFor(ctx, "go", "app"); err != nil || len(rules) != 0 {
		t.Fatalf("alice's rules after the retirement: %+v, %v", rules, err)
	}
	audit, err := bob.team.Audit(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range audit {
		if e.RuleID == p.Rule.ID {
			actions = append(actions, e.Action)
		}
	}
	if strings.Join(actions, ",") != "retire,approve,propose" {
		t.Errorf("audit of the rule, newest first: %v", actions)
	}
}

// TestTeamOffline stops PostgreSQL under a running member: the cache
// keeps serving, the member is told once, a proposal made meanwhile is
// queued and arrives once when PostgreSQL is back.
func TestTeamOffline(t *testing.T) {
	ctx := teamCtx(t)
	db, memberURL, approverURL := newTeamDB(t)
	if !db.Cluster().Own() {
		t.Skip("the cluster is not this test's to stop ($ANCHORAGE_TEST_PGURL)")
	}
	alice, bob := newTeamMember(t, memberURL), newTeamMember(t, approverURL)
	// The rule alice will hover on, approved before PostgreSQL stops.
	p, err := alice.team.Propose(ctx, memory.TeamRule{Scope: "team", Content: "Never log passwords"})
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := bob.team.Decide(ctx, memory.TeamActionApprove, p.Rule.ID, "", "")
	if err != nil {
		t.Fatal(err)
	}
	alice.team.Start()
	if s := alice.status.next(t, ctx); !s.Reachable {
		t.Fatalf("first status %+v", s)
	}
	if err := alice.team.WaitSeq(ctx, a.Seq); err != nil {
		t.Fatal(err)
	}

	if err := db.Cluster().Stop(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			db.Cluster().Start(context.Background())
		}
	})
	queued, err := alice.team.Propose(ctx, memory.TeamRule{Scope: "team language:go", Content: "Close every rows object you open"})
	if err != nil || !queued.Queued {
		t.Fatalf("a proposal while PostgreSQL is down: %+v, %v; want it queued", queued, err)
	}
	if s := alice.status.next(t, ctx); s.Reachable || s.Error == "" {
		t.Fatalf("status after the stop %+v; want unreachable with the reason", s)
	}
	// The cache serves.
	if rules, err := mustMemory(t, alice.sess).RulesFor(ctx, "go", ""); err != nil || len(rules) != 1 || rules[0].Content != "Never log passwords" {
		t.Fatalf("alice's rules while PostgreSQL is down: %+v, %v", rules, err)
	}
	if st, err := alice.team.Status(ctx); err != nil || st.Cache.Outbox != 1 || st.Reachable {
		t.Fatalf("status while down: %+v, %v", st, err)
	}

	if err := db.Cluster().Start(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	alice.team.Kick()
	if s := alice.status.next(t, ctx); !s.Reachable {
		t.Fatalf("status after the restart %+v; want reachable", s)
	}
	if st, err := alice.team.Status(ctx); err != nil || st.Cache.Outbox != 0 {
		t.Fatalf("status after the restart: %+v, %v; want the outbox sent", st, err)
	}
	// Exactly once: one rule with that id, proposed once.
	if _, err := bob.team.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := mustMemory(t, bob.sess).TeamRule(ctx, queued.Rule.ID)
	if err != nil || got.Status != memory.TeamProposed || got.Content != "Close every rows object you open" {
		t.Fatalf("the queued proposal at bob's: %+v, %v", got, err)
	}
	audit, err := bob.team.Audit(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range audit {
		if e.RuleID == queued.Rule.ID && e.Action == "propose" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the queued proposal was proposed %d times, want once", n)
	}
	// Sending the outbox again (another process, a retry) changes
	// nothing: the id makes it a no-op.
	st := mustMemory(t, alice.sess)
	if _, err := st.EnqueueTeam(ctx, TeamKey(memberURL), memory.TeamOutboxItem{Action: memory.TeamActionPropose, Rule: &queued.Rule}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.team.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if audit2, _ := bob.team.Audit(ctx, 50); len(audit2) != len(audit) {
		t.Errorf("a resent proposal made %d audit entries, want 0", len(audit2)-len(audit))
	}
	alice.status.mu.Lock()
	unreachable := 0
	for _, s := range alice.status.all {
		if !s.Reachable {
			unreachable++
		}
	}
	alice.status.mu.Unlock()
	if unreachable != 1 {
		t.Errorf("told %d times that the team database is unreachable, want once", unreachable)
	}
}

// TestTeamUnreachableAtStart checks a member whose database is not there
// at all: proposals are queued, the cache serves, the error names no
// password.
func TestTeamUnreachableAtStart(t *testing.T) {
	ctx := teamCtx(t)
	url := "postgres://alice:s3cret@127.0.0.1:1/anchorage?connect_timeout=5"
	m := newTeamMember(t, url)
	p, err := m.team.Propose(ctx, memory.TeamRule{Content: "Prefer table-driven tests"})
	if err != nil || !p.Queued {
		t.Fatalf("Propose: %+v, %v; want queued", p, err)
	}
	s := m.status.next(t, ctx)
	if s.Reachable || s.Error == "" || strings.Contains(s.Error, "s3cret") || strings.Contains(s.URL, "s3cret") {
		t.Fatalf("status %+v; want unreachable, with a reason and no password", s)
	}
	if _, err := m.team.Pull(ctx); !errors.Is(err, team.ErrUnreachable) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Pull: %v; want ErrUnreachable without the password", err)
	}
	if st, err := m.team.Status(ctx); err != nil || st.Cache.Outbox != 1 {
		t.Errorf("status %+v, %v; want one queued", st, err)
	}
}

func TestTeamKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://alice:pw@db.example:5432/anchorage?sslmode=verify-full", "postgres://db.example:5432/anchorage"},
		{"postgresql://bob@db.example:5432/anchorage", "postgres://db.example:5432/anchorage"},
		{"host=db.example port=5432 dbname=anchorage user=alice password='x y'", "postgres://db.example:5432/anchorage"},
	}
	for _, tt := range tests {
		if got := TeamKey(tt.in); got != tt.want {
			t.Errorf("TeamKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func mustMemory(t *testing.T, s *Session) *memory.Store {
	t.Helper()
	st, err := s.Memory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
