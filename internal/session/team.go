package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/team"
)

// DefaultTeamCatchUp is how often a member's cache reads the team's
// changes when no notification came (TeamOptions.CatchUp).
const DefaultTeamCatchUp = 30 * time.Second

// teamOpTimeout bounds one round trip to the team database (a sync, a
// send): a database that does not answer is unreachable, not a request
// that hangs.
const teamOpTimeout = 20 * time.Second

// maxTeamBackoff bounds the wait between two attempts to reach an
// unreachable team database.
const maxTeamBackoff = 30 * time.Second

// TeamOptions configure the team's rules (Options.Team). A zero value
// means no team: nothing of this file runs.
type TeamOptions struct {
	// URL is the team database's connection string (the setting
	// memory.team.url); "" means no team.
	URL string
	// CatchUp is how often changes are read without a notification; 0
	// means DefaultTeamCatchUp.
	CatchUp time.Duration
	// OnStatus, if set, is told when the team database is first reached
	// or not, when it goes away and when it is back: once per change,
	// on the sync goroutine.
	OnStatus func(TeamStatus)
	// OnApplied, if set, is called on the sync goroutine after changes
	// of team rules were applied to the cache (the memory store's change
	// hook has run already), for the owner to anchor the new rules in
	// its workspaces (memory.Anchors.AnchorTeamRule).
	OnApplied func(ctx context.Context, applied memory.TeamApplied)
	// OnNotice, if set, is told of what the user must know that is not
	// an answer to a request: a queued proposal or decision that the team
	// database refused when it was sent.
	OnNotice func(msg string)
}

// TeamStatus is the state of the team's rules as a member sees them.
type TeamStatus struct {
	// URL is the team database's connection string without its password.
	URL string `json:"url"`
	// Known is false until the first attempt to reach the database
	// ended; Reachable says whether the last one succeeded.
	Known     bool `json:"known"`
	Reachable bool `json:"reachable"`
	// Error is why the database cannot be used, without any password.
	Error string `json:"error,omitempty"`
	// Member is the PostgreSQL role connected; Approver says whether it
	// may approve (both as last known).
	Member   string `json:"member,omitempty"`
	Approver bool   `json:"approver"`
	// Cache is the state of the local cache and outbox.
	Cache memory.TeamState `json:"cache"`
}

// Team keeps a member's cache of the team's rules in step with the team
// database and sends what the member proposes or decides. It is owned by
// a Session (Session.Team); its methods are safe for concurrent use.
type Team struct {
	sess *Session
	opts TeamOptions
	url  string
	key  string // the team's name in the cache: the URL without credentials or options

	// sendMu makes one sync or send at a time in this process.
	sendMu sync.Mutex

	mu        sync.Mutex
	remote    *team.Store
	member    *team.Member
	known     bool
	reachable bool
	lastErr   string
	cacheSet  bool          // UseTeam ran
	changed   chan struct{} // closed and replaced after each applied sync
	kick      chan struct{}
	started   bool
	stop      context.CancelFunc
	done      chan struct{}
	closed    bool
}

// TeamKey returns the name of a team database in a member's cache: its
// host, port and database, without user, password or options, so that a
// new password or TLS option keeps the cache and another database does
// not.
func TeamKey(rawURL string) string {
	rawURL = strings.TrimSpace(rawURL)
	if strings.Contains(rawURL, "://") {
		u, err := url.Parse(rawURL)
		if err == nil {
			host := u.Host
			if host == "" {
				host = u.Query().Get("host")
			}
			return "postgres://" + host + "/" + strings.TrimPrefix(u.Path, "/")
		}
		return config.Redact(rawURL)
	}
	kv := map[string]string{}
	for _, f := range strings.Fields(rawURL) {
		k, v, _ := strings.Cut(f, "=")
		kv[strings.ToLower(k)] = strings.Trim(v, "'")
	}
	host := kv["host"]
	if p := kv["port"]; p != "" {
		host += ":" + p
	}
	return "postgres://" + host + "/" + kv["dbname"]
}

// Team returns the team's rules of this session, or nil when no team is
// configured (Options.Team.URL is ""). It connects to nothing: Start
// runs the sync goroutine (a server), Pull syncs once (a command).
func (s *Session) Team() *Team {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.Team.URL == "" || s.closed {
		return nil
	}
	if s.team == nil {
		s.team = &Team{sess: s, opts: s.opts.Team, url: s.opts.Team.URL, key: TeamKey(s.opts.Team.URL),
			changed: make(chan struct{}), kick: make(chan struct{}, 1)}
	}
	return s.team
}

// URL returns the team database's URL without its password.
func (t *Team) URL() string { return config.RedactURL(t.url) }

// store returns the member's memory, its cache being of this team.
func (t *Team) store(ctx context.Context) (*memory.Store, error) {
	st, err := t.sess.Memory(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	set := t.cacheSet
	t.mu.Unlock()
	if !set {
		if _, err := st.UseTeam(ctx, t.key); err != nil {
			return nil, err
		}
		t.mu.Lock()
		t.cacheSet = true
		t.mu.Unlock()
	}
	return st, nil
}

// connect returns the team store, opening it if needed.
func (t *Team) connect(ctx context.Context) (*team.Store, error) {
	t.mu.Lock()
	r := t.remote
	t.mu.Unlock()
	if r != nil {
		return r, nil
	}
	ctx, cancel := context.WithTimeout(ctx, teamOpTimeout)
	defer cancel()
	r, err := team.Open(ctx, t.url)
	if err != nil {
		return nil, err
	}
	me, err := r.Me(ctx)
	if err != nil {
		r.Close()
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		r.Close()
		return nil, ErrClosed
	}
	if t.remote != nil { // another caller connected meanwhile
		r.Close()
		return t.remote, nil
	}
	t.remote, t.member = r, &me
	return r, nil
}

// Start runs the sync goroutine, once: it brings the cache up to date,
// listens for the team's notifications, catches up periodically, and
// sends the outbox whenever the database can be reached. Close stops it.
func (t *Team) Start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started || t.closed {
		return
	}
	t.started = true
	ctx, cancel := context.WithCancel(context.Background())
	t.stop, t.done = cancel, make(chan struct{})
	go t.run(ctx)
}

// Kick asks the sync goroutine to sync now (a notification, a queued
// proposal).
func (t *Team) Kick() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// run is the sync goroutine.
func (t *Team) run(ctx context.Context) {
	defer close(t.done)
	every := t.opts.CatchUp
	if every <= 0 {
		every = DefaultTeamCatchUp
	}
	catchUp := time.NewTicker(every)
	defer catchUp.Stop()
	var (
		backoff    time.Duration
		listenDone chan error
		stopListen context.CancelFunc = func() {}
	)
	defer func() { stopListen() }()
	for {
		_, err := t.Pull(ctx)
		if ctx.Err() != nil {
			return
		}
		var (
			wait  <-chan time.Time
			timer *time.Timer
		)
		if err != nil {
			backoff = min(max(2*backoff, time.Second), maxTeamBackoff)
			timer = time.NewTimer(backoff)
			wait = timer.C
		} else {
			backoff = 0
			if listenDone == nil {
				if r := t.currentRemote(); r != nil {
					lctx, cancel := context.WithCancel(ctx)
					stopListen = cancel
					listenDone = make(chan error, 1)
					go func(ch chan error) {
						ch <- r.Listen(lctx, func(seq int64) { t.noticeSeq(ctx, seq) })
					}(listenDone)
				}
			}
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-t.kick:
		case <-catchUp.C:
		case <-wait:
		case err := <-listenDone:
			// The listening connection was lost: sync (which says
			// whether the database is still there) and listen again.
			listenDone = nil
			stopListen()
			if err != nil && ctx.Err() == nil {
				t.setReachable(false, err)
			}
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

func (t *Team) currentRemote() *team.Store {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.remote
}

// noticeSeq is Listen's callback: a change newer than the cache asks
// for a sync.
func (t *Team) noticeSeq(ctx context.Context, seq int64) {
	st, err := t.store(ctx)
	if err != nil {
		t.Kick()
		return
	}
	state, err := st.TeamState(ctx)
	if err != nil || seq > state.LastSeq {
		t.Kick()
	}
}

// Pull sends the outbox and brings the cache up to date with the team
// database, once. An unreachable database is reported to OnStatus (once
// per change) and returned; the cache keeps serving.
func (t *Team) Pull(ctx context.Context) (memory.TeamApplied, error) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	st, err := t.store(ctx)
	if err != nil {
		return memory.TeamApplied{}, err
	}
	applied, err := t.pullLocked(ctx, st)
	if err != nil && isUnreachable(err) && ctx.Err() == nil {
		// A pooled connection that the server closed (a restart) fails
		// once; the pool then dials afresh.
		applied, err = t.pullLocked(ctx, st)
	}
	if ctx.Err() != nil {
		return applied, err
	}
	t.setReachable(err == nil || !isUnreachable(err), err)
	return applied, err
}

func (t *Team) pullLocked(ctx context.Context, st *memory.Store) (memory.TeamApplied, error) {
	ctx, cancel := context.WithTimeout(ctx, teamOpTimeout)
	defer cancel()
	r, err := t.connect(ctx)
	if err != nil {
		return memory.TeamApplied{}, err
	}
	if err := t.flushLocked(ctx, st, r); err != nil {
		return memory.TeamApplied{}, err
	}
	state, err := st.TeamState(ctx)
	if err != nil {
		return memory.TeamApplied{}, err
	}
	changes, err := r.Changes(ctx, state.LastSeq)
	if err != nil {
		return memory.TeamApplied{}, err
	}
	cached := make([]memory.TeamRule, len(changes))
	for i, c := range changes {
		cached[i] = toCache(c)
	}
	applied, err := st.ApplyTeamChanges(ctx, t.key, cached)
	if err != nil {
		return memory.TeamApplied{}, fmt.Errorf("update the cache of team rules: %w", err)
	}
	if applied.Applied > 0 && t.opts.OnApplied != nil {
		t.opts.OnApplied(ctx, applied)
	}
	t.mu.Lock()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	return applied, nil
}

// flushLocked sends the outbox in order. An item the database refuses
// for good (forbidden, invalid, a conflict, an unknown rule) is removed
// and reported to OnNotice; an unreachable database stops the flush.
func (t *Team) flushLocked(ctx context.Context, st *memory.Store, r *team.Store) error {
	items, err := st.TeamOutbox(ctx, t.key)
	if err != nil {
		return err
	}
	for _, it := range items {
		_, err := send(ctx, r, it)
		switch {
		case err == nil:
		case isUnreachable(err) || ctx.Err() != nil:
			if ferr := st.TeamOutboxFailed(ctx, it.ID, config.Redact(err.Error())); ferr != nil && ctx.Err() == nil {
				return errors.Join(err, ferr)
			}
			return err
		default:
			if t.opts.OnNotice != nil {
				t.opts.OnNotice(fmt.Sprintf("The team database refused the queued %s of team rule %s: %s", it.Action, it.RuleID, config.Redact(err.Error())))
			}
		}
		if err := st.TeamOutboxDone(ctx, it.ID); err != nil {
			return err
		}
	}
	return nil
}

// send sends one outbox item; each is idempotent at the team database.
func send(ctx context.Context, r *team.Store, it memory.TeamOutboxItem) (team.Rule, error) {
	switch it.Action {
	case memory.TeamActionPropose:
		if it.Rule == nil {
			return team.Rule{}, fmt.Errorf("%w: queued proposal without a rule", team.ErrInvalid)
		}
		return r.Propose(ctx, fromCache(*it.Rule))
	case memory.TeamActionApprove:
		return r.Approve(ctx, it.RuleID)
	case memory.TeamActionReject:
		return r.Reject(ctx, it.RuleID)
	case memory.TeamActionRetire:
		return r.Retire(ctx, it.RuleID)
	case memory.TeamActionEdit:
		return r.Edit(ctx, it.RuleID, it.Content, it.Rationale)
	}
	return team.Rule{}, fmt.Errorf("%w: unknown action %q", team.ErrInvalid, it.Action)
}

// isUnreachable reports an error after which the database may come
// back: not reached, or the connection lost.
func isUnreachable(err error) bool {
	return errors.Is(err, team.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded)
}

// setReachable records the outcome of reaching the database and tells
// OnStatus of a change.
func (t *Team) setReachable(ok bool, err error) {
	msg := ""
	if err != nil {
		// One line: pgx lists each address tried on a line of its own.
		msg = strings.Join(strings.Fields(config.Redact(err.Error())), " ")
	}
	t.mu.Lock()
	changed := !t.known || t.reachable != ok
	t.known, t.reachable, t.lastErr = true, ok, msg
	t.mu.Unlock()
	if changed && t.opts.OnStatus != nil {
		t.opts.OnStatus(t.statusNoCache())
	}
}

func (t *Team) statusNoCache() TeamStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := TeamStatus{URL: config.RedactURL(t.url), Known: t.known, Reachable: t.reachable, Error: t.lastErr}
	if t.member != nil {
		s.Member, s.Approver = t.member.Name, t.member.Approver
	}
	return s
}

// Status returns the team's state as last known, with the cache's.
func (t *Team) Status(ctx context.Context) (TeamStatus, error) {
	s := t.statusNoCache()
	st, err := t.store(ctx)
	if err != nil {
		return s, err
	}
	s.Cache, err = st.TeamState(ctx)
	return s, err
}

// WaitSeq waits until the cache holds every change up to seq, or ctx
// ends.
func (t *Team) WaitSeq(ctx context.Context, seq int64) error {
	for {
		t.mu.Lock()
		ch := t.changed
		t.mu.Unlock()
		st, err := t.store(ctx)
		if err != nil {
			return err
		}
		state, err := st.TeamState(ctx)
		if err != nil {
			return err
		}
		if state.LastSeq >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("wait for team change %d (the cache has %d): %w", seq, state.LastSeq, ctx.Err())
		}
	}
}

// TeamProposal is what proposing a team rule did.
type TeamProposal struct {
	// Rule is the rule proposed, as the team database stored it, or as
	// queued.
	Rule memory.TeamRule `json:"rule"`
	// Queued is true when the database could not be reached: the
	// proposal waits in the outbox and is sent when it can be.
	Queued bool `json:"queued"`
	// Conflict says which personal or team rule the proposal repeats or
	// contradicts, "" for none.
	Conflict string `json:"conflict,omitempty"`
}

// Propose proposes a rule to the team. It is written to the outbox
// first, with its id (a new one when r has none), then sent: a
// proposal made while the database is unreachable is sent when it is
// back, and one sent twice is one rule. The answer says which personal
// or cached team rule it repeats or contradicts.
func (t *Team) Propose(ctx context.Context, r memory.TeamRule) (TeamProposal, error) {
	if strings.TrimSpace(r.ID) == "" {
		r.ID = team.NewID()
	}
	r, err := memory.CheckTeamRule(r)
	if err != nil {
		return TeamProposal{}, fmt.Errorf("propose a team rule: %w", err)
	}
	st, err := t.store(ctx)
	if err != nil {
		return TeamProposal{}, fmt.Errorf("propose a team rule: %w", err)
	}
	out := TeamProposal{Rule: r}
	if rules, err := st.Rules(ctx, memory.RuleFilter{}); err == nil {
		_, _, out.Conflict = memory.Relate(r.Content, r.Scope, rules)
	}
	it, err := st.EnqueueTeam(ctx, t.key, memory.TeamOutboxItem{Action: memory.TeamActionPropose, Rule: &r})
	if err != nil {
		return TeamProposal{}, fmt.Errorf("propose a team rule: %w", err)
	}
	got, queued, err := t.sendNow(ctx, st, it)
	if err != nil {
		return TeamProposal{}, fmt.Errorf("propose a team rule: %w", err)
	}
	out.Queued = queued
	if !queued {
		out.Rule = got
	}
	return out, nil
}

// Decide approves, rejects or retires the team rule id (memory's
// TeamAction constants), or edits it (content and rationale). id is a
// team rule's id, a unique prefix of one cached, or the number of its
// local rule. A member who is not an approver is refused at once when
// that is known; the database refuses otherwise. An unreachable database
// queues the decision.
func (t *Team) Decide(ctx context.Context, action, id, content, rationale string) (memory.TeamRule, bool, error) {
	what := fmt.Sprintf("%s team rule %s", action, strings.TrimSpace(id))
	switch action {
	case memory.TeamActionApprove, memory.TeamActionReject, memory.TeamActionRetire, memory.TeamActionEdit:
	default:
		return memory.TeamRule{}, false, fmt.Errorf("%s: unknown action", what)
	}
	st, err := t.store(ctx)
	if err != nil {
		return memory.TeamRule{}, false, fmt.Errorf("%s: %w", what, err)
	}
	full, err := t.resolveID(ctx, st, id)
	if err != nil {
		return memory.TeamRule{}, false, fmt.Errorf("%s: %w", what, err)
	}
	t.mu.Lock()
	member := t.member
	t.mu.Unlock()
	if member != nil && !member.Approver {
		return memory.TeamRule{}, false, fmt.Errorf("%s: %w: %s is not in the role %s", what, team.ErrForbidden, member.Name, "anchorage_approver")
	}
	it, err := st.EnqueueTeam(ctx, t.key, memory.TeamOutboxItem{Action: action, RuleID: full, Content: content, Rationale: rationale})
	if err != nil {
		return memory.TeamRule{}, false, fmt.Errorf("%s: %w", what, err)
	}
	got, queued, err := t.sendNow(ctx, st, it)
	if err != nil {
		return memory.TeamRule{}, false, fmt.Errorf("%s: %w", what, err)
	}
	return got, queued, nil
}

// resolveID finds the full team id of id: itself when cached or a UUID,
// a unique prefix of a cached id, or a local rule's number.
func (t *Team) resolveID(ctx context.Context, st *memory.Store, id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return "", errors.New("no team rule id given")
	}
	if tr, err := st.TeamRule(ctx, id); err == nil {
		return tr.ID, nil
	}
	rules, err := st.TeamRules(ctx, "")
	if err != nil {
		return "", err
	}
	var found []string
	for _, r := range rules {
		if strings.HasPrefix(r.ID, id) {
			found = append(found, r.ID)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("%q is the start of %d team rules' ids: give more of it", id, len(found))
	case len(id) == 36:
		return id, nil // not cached yet: the database knows
	}
	return "", fmt.Errorf("%w: no cached team rule has an id starting %q (anchorage memory team pull)", memory.ErrUnknownRule, id)
}

// sendNow sends one queued item, and the items queued before it, and
// syncs the cache. It returns queued when the database cannot be reached
// (the item stays in the outbox). An item the database refuses is
// removed from the outbox and its error returned.
func (t *Team) sendNow(ctx context.Context, st *memory.Store, it memory.TeamOutboxItem) (memory.TeamRule, bool, error) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	r, err := t.connect(ctx)
	if err != nil {
		if isUnreachable(err) {
			t.setReachable(false, err)
			t.Kick()
			return *orEmpty(it.Rule), true, nil
		}
		st.TeamOutboxDone(ctx, it.ID)
		return memory.TeamRule{}, false, err
	}
	sendCtx, cancel := context.WithTimeout(ctx, teamOpTimeout)
	got, err := send(sendCtx, r, it)
	if err != nil && isUnreachable(err) && ctx.Err() == nil {
		got, err = send(sendCtx, r, it) // a stale pooled connection fails once
	}
	cancel()
	switch {
	case err == nil:
	case isUnreachable(err):
		t.setReachable(false, err)
		st.TeamOutboxFailed(ctx, it.ID, config.Redact(err.Error()))
		t.Kick()
		return *orEmpty(it.Rule), true, nil
	default:
		st.TeamOutboxDone(ctx, it.ID)
		return memory.TeamRule{}, false, err
	}
	if err := st.TeamOutboxDone(ctx, it.ID); err != nil {
		return toCache(got), false, err
	}
	// The change is the database's now: bring the cache up to date (and
	// send what was queued before).
	if _, err := t.pullLocked(ctx, st); err != nil && !isUnreachable(err) {
		return toCache(got), false, nil
	}
	t.setReachable(true, nil)
	return toCache(got), false, nil
}

func orEmpty(r *memory.TeamRule) *memory.TeamRule {
	if r == nil {
		return &memory.TeamRule{}
	}
	return r
}

// Audit returns the latest limit entries of the team's audit (the
// database must be reachable).
func (t *Team) Audit(ctx context.Context, limit int) ([]team.AuditEntry, error) {
	r, err := t.connect(ctx)
	if err != nil {
		t.setReachable(!isUnreachable(err), err)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, teamOpTimeout)
	defer cancel()
	return r.Audit(ctx, limit)
}

// Member returns the connected role, connecting if needed.
func (t *Team) Member(ctx context.Context) (team.Member, error) {
	if _, err := t.connect(ctx); err != nil {
		return team.Member{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return *t.member, nil
}

// close stops the sync goroutine and closes the connection.
func (t *Team) close() {
	t.mu.Lock()
	t.closed = true
	stop, done := t.stop, t.done
	t.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.remote != nil {
		t.remote.Close()
		t.remote = nil
	}
}

// toCache converts a team database rule to the cache's.
func toCache(r team.Rule) memory.TeamRule {
	return memory.TeamRule{ID: r.ID, Seq: r.Seq, Status: r.Status, Category: r.Category, Scope: r.Scope,
		Content: r.Content, Rationale: r.Rationale, ExampleFile: r.ExampleFile, ExampleSymbol: r.ExampleSymbol,
		ExampleFingerprint: r.ExampleFingerprint, Correction: r.Correction, ProposedBy: r.ProposedBy,
		DecidedBy: r.DecidedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// fromCache converts a proposal of the cache to the team database's.
func fromCache(r memory.TeamRule) team.Rule {
	return team.Rule{ID: r.ID, Category: r.Category, Scope: r.Scope, Content: r.Content, Rationale: r.Rationale,
		ExampleFile: r.ExampleFile, ExampleSymbol: r.ExampleSymbol, ExampleFingerprint: r.ExampleFingerprint,
		Correction: r.Correction}
}

// TeamProposalSource is what a team proposal is made from: exactly one
// of a pending personal proposal, a personal rule, or a text.
type TeamProposalSource struct {
	// Proposal is a pending personal proposal's id; unless Keep, it is
	// rejected locally once proposed (or queued), so that it is not
	// offered twice.
	Proposal int64
	Keep     bool
	// Rule is a personal rule's id, promoted to the team (it stays).
	Rule int64
	// Text is a rule's text.
	Text string
	// Scope, if set, is the team scope (a personal one is made the
	// team's); else the proposal's or rule's scope for the team, else
	// "team". Rationale, if set, replaces theirs.
	Scope, Rationale string
	// Who names the person proposing, in the rule's origin
	// ("correction:3,4@alice").
	Who string
}

// ProposeFrom proposes a rule to the team from src (see Propose).
func (t *Team) ProposeFrom(ctx context.Context, src TeamProposalSource) (TeamProposal, error) {
	n := 0
	for _, set := range []bool{src.Proposal != 0, src.Rule != 0, strings.TrimSpace(src.Text) != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return TeamProposal{}, errors.New("propose a team rule: give one of a text, a proposal or a rule")
	}
	st, err := t.store(ctx)
	if err != nil {
		return TeamProposal{}, fmt.Errorf("propose a team rule: %w", err)
	}
	tr := memory.TeamRule{Scope: src.Scope, Rationale: src.Rationale, Content: strings.TrimSpace(src.Text), Category: memory.CategoryRule}
	who := cmpOr(src.Who, "unknown")
	switch {
	case src.Proposal != 0:
		p, err := st.Proposal(ctx, src.Proposal)
		if err != nil {
			return TeamProposal{}, fmt.Errorf("propose a team rule: proposal %d: %w", src.Proposal, err)
		}
		if p.Status != memory.StatusPending {
			return TeamProposal{}, fmt.Errorf("propose a team rule: proposal %d is %s, not pending: %w", p.ID, p.Status, memory.ErrAlreadyDecided)
		}
		tr.Content, tr.Category = p.Content, p.Category
		tr.Rationale = cmpOr(tr.Rationale, p.Rationale)
		tr.Scope = cmpOr(tr.Scope, memory.TeamScope(p.Scope))
		tr.ExampleFile, tr.ExampleSymbol = cmpOr(p.ExampleFile, p.File), p.ExampleSymbol
		ids := make([]string, len(p.CorrectionIDs))
		for i, id := range p.CorrectionIDs {
			ids[i] = fmt.Sprint(id)
		}
		tr.Correction = fmt.Sprintf("correction:%s@%s", strings.Join(ids, ","), who)
	case src.Rule != 0:
		r, err := st.Rule(ctx, src.Rule)
		if err != nil {
			return TeamProposal{}, fmt.Errorf("propose a team rule: rule %d: %w", src.Rule, err)
		}
		if r.Team != "" {
			return TeamProposal{}, fmt.Errorf("propose a team rule: rule %d is team rule %s already", r.ID, r.Team)
		}
		tr.Content, tr.Category = r.Content, r.Category
		tr.Rationale = cmpOr(tr.Rationale, r.Rationale)
		tr.Scope = cmpOr(tr.Scope, memory.TeamScope(r.Scope))
		if r.Anchor != nil {
			tr.ExampleFile, tr.ExampleSymbol = r.Anchor.File, r.Anchor.Symbol
		}
		tr.Correction = fmt.Sprintf("rule:%d@%s", r.ID, who)
	}
	p, err := t.Propose(ctx, tr)
	if err != nil {
		return TeamProposal{}, err
	}
	if src.Proposal != 0 && !src.Keep {
		if err := st.Reject(ctx, src.Proposal); err != nil {
			return p, fmt.Errorf("proposed to the team, but personal proposal %d stays pending: %w", src.Proposal, err)
		}
	}
	return p, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
