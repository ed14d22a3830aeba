package lsp

import (
	"context"
	"errors"
	"os/user"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/team"
)

// TeamSettings configure the team's rules (memory.team).
type TeamSettings struct {
	// URL is the team database's PostgreSQL connection string; "" means
	// the --team-url flag's, $ANCHORAGE_TEAM_URL's or the first folder's
	// settings file's, if any.
	URL string `json:"url,omitempty"`
}

// teamState is what the server knows of the team database.
type teamState struct {
	mu sync.Mutex
	// last is the last status the sync reported; told is set while the
	// user was told the database is away.
	last session.TeamStatus
	told bool
	// url is the URL the session's team was made with; warnedURL the
	// last other value the user was told needs a restart.
	url, warnedURL string
}

// teamURL returns the team database's URL in force: the editor's
// memory.team.url, else Options.TeamURL (--team-url,
// $ANCHORAGE_TEAM_URL), else the first folder's settings file's.
func (s *Server) teamURL() string {
	s.mu.Lock()
	u := strings.TrimSpace(s.settings.Memory.Team.URL)
	s.mu.Unlock()
	if u != "" {
		return u
	}
	if u = strings.TrimSpace(s.opts.TeamURL); u != "" {
		return u
	}
	for _, f := range sortedFolders(s.snapshotFolders()) {
		if file := f.file.Load(); file != nil && file.Settings.TeamURL != "" {
			return file.Settings.TeamURL
		}
	}
	return ""
}

// teamOptions are the session's TeamOptions: the URL in force, with
// the server's reports. A URL that is not a PostgreSQL connection string
// is reported and means no team.
func (s *Server) teamOptions() session.TeamOptions {
	u := s.teamURL()
	if u == "" {
		return session.TeamOptions{}
	}
	if err := config.CheckTeamURL(u); err != nil {
		s.warn("memory.team.url ignored: %v", err)
		return session.TeamOptions{}
	}
	s.team.mu.Lock()
	s.team.url = u
	s.team.mu.Unlock()
	return session.TeamOptions{URL: u, OnStatus: s.teamStatusChanged, OnApplied: s.teamApplied, OnNotice: s.teamNotice}
}

// startTeam starts the sync of the team's rules, when a team is
// configured; nothing otherwise.
func (s *Server) startTeam() {
	if s.teamURL() == "" {
		return
	}
	sess, err := s.session()
	if err != nil {
		s.warn("team rules: %v", err)
		return
	}
	if tm := sess.Team(); tm != nil {
		tm.Start()
		return
	}
	s.warn("memory.team.url was set after the server started: restart it to use the team's rules")
}

// teamStatusChanged is told by the sync when the database is reached
// or not: the user is told once when it goes away and once when it is
// back.
func (s *Server) teamStatusChanged(st session.TeamStatus) {
	s.team.mu.Lock()
	s.team.last = st
	wasTold := s.team.told
	if !st.Reachable {
		s.team.told = true
	} else {
		s.team.told = false
	}
	s.team.mu.Unlock()
	switch {
	case !st.Reachable:
		s.log.Warn("team database unreachable", zap.String("url", st.URL), zap.String("error", st.Error))
		s.showMessage(protocol.MessageTypeWarning, "Anchorage team rules: the team database "+st.URL+" cannot be reached ("+st.Error+
			"). Hovers, lenses and injection use the local cache; team proposals and decisions wait and are sent when it is back.")
	case wasTold:
		s.info("the team database %s is reachable again", st.URL)
		s.showMessage(protocol.MessageTypeInfo, "Anchorage team rules: the team database "+st.URL+" is reachable again; the team's rules are up to date.")
	default:
		s.info("team database %s reached as %s", st.URL, st.Member)
	}
}

// teamNotice shows what the sync must tell the user.
func (s *Server) teamNotice(msg string) {
	s.log.Warn(msg)
	s.showMessage(protocol.MessageTypeWarning, "Anchorage: "+msg)
}

// teamApplied anchors the new team rules in the folders and refreshes
// the editor: the sync applied changes of the team's rules.
func (s *Server) teamApplied(ctx context.Context, applied memory.TeamApplied) {
	s.goBackground(func(ctx context.Context) {
		s.anchorTeamRules(ctx, applied.Unanchored)
		s.memoryChanged(ctx)
	})
}

// anchorTeamRules anchors approved team rules without an anchor in the
// folders (all of them when trs is nil), each at the proposer's example
// when this checkout defines it.
func (s *Server) anchorTeamRules(ctx context.Context, trs []memory.TeamRule) {
	s.team.mu.Lock()
	member := s.team.url != ""
	s.team.mu.Unlock()
	if !member {
		return // no team: the memory is not even opened
	}
	st := s.editorMemory(ctx)
	if st == nil || !st.Team() {
		return
	}
	if trs == nil {
		var err error
		if trs, err = st.UnanchoredTeamRules(ctx); err != nil {
			s.log.Info("team rules", zap.Error(err))
			return
		}
	}
	if len(trs) == 0 {
		return
	}
	x := s.anchors(st)
	for _, tr := range trs {
		if _, note := x.AnchorTeamRule(ctx, tr); note != "" {
			s.log.Info("team rule not anchored", zap.String("id", tr.ID), zap.String("note", note))
		}
	}
}

// currentTeam returns the session's team, or an InvalidParams error
// saying how to configure one.
func (s *Server) currentTeam(cmd command.Name) (*session.Team, error) {
	sess, err := s.session()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", cmd, err)
	}
	tm := sess.Team()
	if tm == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no team database: set memory.team.url (editor settings, --team-url, $%s or %s)", cmd, config.TeamURLEnv, config.RelPath)
	}
	return tm, nil
}

// teamError turns a team error into the protocol's: what the user gave
// wrong is InvalidParams; the text never holds a password.
func (s *Server) teamError(cmd command.Name, err error) error {
	msg := config.Redact(err.Error())
	switch {
	case errors.Is(err, team.ErrForbidden), errors.Is(err, team.ErrInvalid), errors.Is(err, team.ErrNotFound),
		errors.Is(err, team.ErrConflict), errors.Is(err, memory.ErrUnknownRule), errors.Is(err, memory.ErrUnknownProposal),
		errors.Is(err, memory.ErrAlreadyDecided), errors.Is(err, memory.ErrInvalidScope), errors.Is(err, memory.ErrEmptyRule),
		errors.Is(err, memory.ErrRuleTooLong):
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s", cmd, msg)
	}
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %s", cmd, msg)
}

// teamStatus runs anchorage.memory.team.status.
func (s *Server) teamStatus(ctx context.Context, _ command.NoArgs) (command.TeamStatusResult, error) {
	name := command.MemoryTeamStatus.Name()
	tm, err := s.currentTeam(name)
	if err != nil {
		return command.TeamStatusResult{}, err
	}
	st, err := tm.Status(ctx)
	if err != nil {
		return command.TeamStatusResult{}, s.teamError(name, err)
	}
	pending := []memory.TeamRule{}
	if mem := s.editorMemory(ctx); mem != nil {
		if pending, err = mem.TeamRules(ctx, memory.TeamProposed); err != nil {
			return command.TeamStatusResult{}, s.teamError(name, err)
		}
		if pending == nil {
			pending = []memory.TeamRule{}
		}
	}
	return command.TeamStatusResult{Status: st, Pending: pending}, nil
}

// teamPull runs anchorage.memory.team.pull.
func (s *Server) teamPull(ctx context.Context, _ command.NoArgs) (command.TeamPullResult, error) {
	name := command.MemoryTeamPull.Name()
	tm, err := s.currentTeam(name)
	if err != nil {
		return command.TeamPullResult{}, err
	}
	applied, err := tm.Pull(ctx)
	if err != nil {
		return command.TeamPullResult{}, s.teamError(name, err)
	}
	st, err := tm.Status(ctx)
	if err != nil {
		return command.TeamPullResult{}, s.teamError(name, err)
	}
	return command.TeamPullResult{Applied: applied.Applied, Status: st}, nil
}

// teamPropose runs anchorage.memory.team.propose.
func (s *Server) teamPropose(ctx context.Context, a command.TeamProposeArgs) (command.TeamProposalResult, error) {
	name := command.MemoryTeamPropose.Name()
	tm, err := s.currentTeam(name)
	if err != nil {
		return command.TeamProposalResult{}, err
	}
	who := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	p, err := tm.ProposeFrom(ctx, session.TeamProposalSource{Proposal: a.Proposal, Rule: a.Rule, Text: a.Text,
		Scope: a.Scope, Rationale: a.Rationale, Who: who})
	if err != nil {
		return command.TeamProposalResult{}, s.teamError(name, err)
	}
	s.memoryChanged(ctx) // a personal proposal it came from is no longer pending
	return command.TeamProposalResult{TeamProposal: p}, nil
}

// teamDecide returns the handler of a team decision command.
func (s *Server) teamDecide(def command.Def[command.TeamIDArgs, command.TeamDecisionResult], action string) func(context.Context, command.TeamIDArgs) (command.TeamDecisionResult, error) {
	return func(ctx context.Context, a command.TeamIDArgs) (command.TeamDecisionResult, error) {
		name := def.Name()
		tm, err := s.currentTeam(name)
		if err != nil {
			return command.TeamDecisionResult{}, err
		}
		r, queued, err := tm.Decide(ctx, action, a.ID, "", "")
		if err != nil {
			return command.TeamDecisionResult{}, s.teamError(name, err)
		}
		s.memoryChanged(ctx)
		return command.TeamDecisionResult{Rule: r, Queued: queued}, nil
	}
}

// teamActions are the code actions on team proposals whose example is
// in the document, offered to approvers: approve or reject each.
func (s *Server) teamActions(ctx context.Context, p *protocol.CodeActionParams) []protocol.CodeAction {
	if !kindWanted(p.Context.Only, protocol.QuickFix) {
		return nil
	}
	s.team.mu.Lock()
	approver := s.team.last.Approver
	s.team.mu.Unlock()
	if !approver {
		return nil
	}
	_, rel, err := s.folderFor(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	st := s.editorMemory(ctx)
	if st == nil || !st.Team() {
		return nil
	}
	actions, err := feature.TeamActionsIn(ctx, st, rel)
	if err != nil {
		s.log.Info("team proposals", zap.Error(err))
		return nil
	}
	var out []protocol.CodeAction
	for _, a := range actions {
		cmd := command.MemoryTeamApprove.Name()
		if a.Op == feature.TeamOpReject {
			cmd = command.MemoryTeamReject.Name()
		}
		out = append(out, protocol.CodeAction{Title: a.Title, Kind: protocol.QuickFix, IsPreferred: a.Preferred,
			Command: &protocol.Command{Title: a.Title, Command: string(cmd), Arguments: []any{command.TeamIDArgs{ID: a.ID}}}})
	}
	return out
}

// teamSettingChanged tells the user, once per new value, that a
// memory.team.url changed after the team's sync started takes effect
// when the server starts again (the cache and the sync are of one team
// per session).
func (s *Server) teamSettingChanged() {
	u := s.teamURL()
	s.team.mu.Lock()
	started, warned := s.team.url, s.team.warnedURL
	s.team.mu.Unlock()
	if started == "" && u != "" && u != warned {
		s.team.mu.Lock()
		s.team.warnedURL = u
		s.team.mu.Unlock()
		s.startTeam() // a team named after the start: used if the session is not made yet
		return
	}
	s.team.mu.Lock()
	changed := started != "" && u != started && u != warned
	if changed {
		s.team.warnedURL = u
	}
	s.team.mu.Unlock()
	if !changed {
		return
	}
	if u == "" {
		s.showMessage(protocol.MessageTypeInfo, "Anchorage: memory.team.url was removed; the team's rules stay until the server restarts.")
		return
	}
	s.showMessage(protocol.MessageTypeInfo, "Anchorage: memory.team.url changed to "+config.RedactURL(u)+"; restart the server (reload the window) to use that team's rules.")
}
