package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/team"
)

// teamTimeout bounds one command's wait for the team database: a
// command that cannot reach it says so and leaves the outbox to send
// later, rather than hanging.
const teamTimeout = 30 * time.Second

func newMemoryTeamCmd(m *memoryFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "The team's rules, shared through PostgreSQL: init, status, pull, list, propose, approve, reject, retire, edit, audit",
		Long: `A team keeps one set of approved rules in a PostgreSQL database (the setting
memory.team.url: --team-url, $` + config.TeamURLEnv + ` or the settings file). Every
member may propose a rule; members with the role anchorage_approver approve,
reject, edit or retire them, and the database enforces it. Each member keeps
a cache of the team's rules in their own memory database, so that hovers,
lenses and injection work offline; the language server keeps it up to date
as the team changes, and "anchorage memory team pull" does it once.

A proposal or decision made while the database cannot be reached waits in
the outbox and is sent, once, when it can.`,
	}
	cmd.AddCommand(newTeamInitCmd(m), newTeamStatusCmd(m), newTeamPullCmd(m), newTeamListCmd(m), newTeamProposeCmd(m),
		newTeamDecideCmd(m, memory.TeamActionApprove), newTeamDecideCmd(m, memory.TeamActionReject),
		newTeamDecideCmd(m, memory.TeamActionRetire), newTeamDecideCmd(m, memory.TeamActionEdit), newTeamAuditCmd(m))
	return cmd
}

// teamURL returns the team database's URL in force, or an error saying
// how to set one.
func (m *memoryFlags) teamURL() (string, error) {
	if m.settings != nil && m.settings.Settings.TeamURL != "" {
		return m.settings.Settings.TeamURL, nil
	}
	return "", fmt.Errorf("no team database: give --team-url, set $%s, or memory.team.url in %s", config.TeamURLEnv, config.RelPath)
}

// openTeam opens the memory and the team of this command's session.
func (m *memoryFlags) openTeam(ctx context.Context) (*memory.Store, *session.Session, *session.Team, error) {
	if _, err := m.teamURL(); err != nil {
		return nil, nil, nil, err
	}
	st, sess, err := m.openMemory(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	tm := sess.Team()
	if tm == nil { // cannot happen: the URL is set
		sess.Close()
		return nil, nil, nil, errors.New("no team database configured")
	}
	return st, sess, tm, nil
}

func newTeamInitCmd(m *memoryFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create or upgrade the team schema and roles in a PostgreSQL database (an admin's connection)",
		Long: `Creates (or upgrades) the schema "anchorage" in the database of --team-url,
with the group roles anchorage_member and anchorage_approver, their grants,
row-level security, the audit table and the notifications. It needs a
connection of the database's owner or an admin, and is safe to run again.

Then give each person a login role in one of the groups, for example:

  CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE anchorage_member;
  CREATE ROLE bob   LOGIN PASSWORD '…' IN ROLE anchorage_member, anchorage_approver;`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := m.teamURL()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*teamTimeout)
			defer cancel()
			if err := team.Install(ctx, url); err != nil {
				return fmt.Errorf("team init: %s", config.Redact(err.Error()))
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, map[string]any{"installed": true, "url": config.RedactURL(url)})
			}
			fmt.Fprintf(w, "The team schema is installed in %s.\n", config.RedactURL(url))
			fmt.Fprintf(w, "Give each member a login role: CREATE ROLE name LOGIN PASSWORD '…' IN ROLE %s; approvers also IN ROLE %s.\n",
				team.RoleMember, team.RoleApprover)
			return nil
		},
	}
}

// teamStatusOutput is what anchorage memory team status prints.
type teamStatusOutput struct {
	session.TeamStatus
	// Pending are the team proposals waiting for an approver, from the
	// cache.
	Pending []memory.TeamRule `json:"pending"`
}

func newTeamStatusCmd(m *memoryFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the team database (URL without password), you as a member, the cache and the outbox",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, sess, tm, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), teamTimeout)
			defer cancel()
			_, reachErr := tm.Member(ctx)
			out := teamStatusOutput{}
			if out.TeamStatus, err = tm.Status(cmd.Context()); err != nil {
				return err
			}
			if reachErr != nil {
				out.Reachable, out.Known, out.Error = false, true, config.Redact(reachErr.Error())
			} else {
				out.Reachable, out.Known = true, true
			}
			if out.Pending, err = st.TeamRules(cmd.Context(), memory.TeamProposed); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, out)
			}
			fmt.Fprintf(w, "Team database: %s\n", out.URL)
			if out.Reachable {
				role := "member"
				if out.Approver {
					role = "member and approver"
				}
				fmt.Fprintf(w, "Reachable:     yes, as %s (%s)\n", out.Member, role)
			} else {
				fmt.Fprintf(w, "Reachable:     no: %s\n", out.Error)
			}
			c := out.Cache
			fmt.Fprintf(w, "Cache:         %d team rules (%d approved, %d proposed), up to change %d", c.Cached, c.Approved, c.Proposed, c.LastSeq)
			if !c.SyncedAt.IsZero() {
				fmt.Fprintf(w, ", synced %s", c.SyncedAt.Local().Format(time.DateTime))
			}
			fmt.Fprintln(w)
			fmt.Fprintf(w, "Outbox:        %d waiting to be sent\n", c.Outbox)
			for _, p := range out.Pending {
				fmt.Fprintf(w, "  proposed %s %s (%s, by %s)\n", shortTeamID(p.ID), p.Content, p.Scope, p.ProposedBy)
			}
			return nil
		},
	}
}

// shortTeamID is the first 8 characters of a team id: commands take a
// unique prefix.
func shortTeamID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// teamPullOutput is what anchorage memory team pull prints.
type teamPullOutput struct {
	Applied int              `json:"applied"`
	LastSeq int64            `json:"last_seq"`
	Cache   memory.TeamState `json:"cache"`
	Anchors []anchorOutcome  `json:"anchors,omitempty"`
}

func newTeamPullCmd(m *memoryFlags) *cobra.Command {
	var noAnchor bool
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Send the outbox and bring the cache of team rules up to date, anchoring new rules in --root",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, sess, tm, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), teamTimeout)
			applied, err := tm.Pull(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("team pull: %s", config.Redact(err.Error()))
			}
			out := teamPullOutput{Applied: applied.Applied, LastSeq: applied.LastSeq}
			if !noAnchor && len(applied.Unanchored) > 0 {
				out.Anchors, err = anchorTeamRules(cmd.Context(), cmd, m, sess, st, applied.Unanchored)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "anchorage: pulled, but anchoring failed (run anchorage memory reanchor in the workspace): %v\n", err)
				}
			}
			if out.Cache, err = st.TeamState(cmd.Context()); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, out)
			}
			fmt.Fprintf(w, "%d team change(s) applied; the cache has %d approved and %d proposed team rules, up to change %d.\n",
				out.Applied, out.Cache.Approved, out.Cache.Proposed, out.LastSeq)
			for _, a := range out.Anchors {
				if a.Anchor != nil {
					fmt.Fprintf(w, "  rule %d anchored at %s %s\n", a.Rule, a.Anchor.File, a.Anchor.Symbol)
				} else if a.Note != "" {
					fmt.Fprintf(w, "  rule %d: %s\n", a.Rule, a.Note)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noAnchor, "no-anchor", false, "do not anchor new team rules in the --root workspace")
	return cmd
}

// anchorTeamRules anchors the local copies of approved team rules in the
// --root workspace: at the proposer's example when this checkout defines
// it, else at the best example found.
func anchorTeamRules(ctx context.Context, cmd *cobra.Command, m *memoryFlags, sess *session.Session, st *memory.Store, trs []memory.TeamRule) ([]anchorOutcome, error) {
	as, err := openAnchorSession(ctx, cmd, m, sess)
	if err != nil {
		return nil, err
	}
	defer as.close()
	var out []anchorOutcome
	for _, tr := range trs {
		r, err := st.Rule(ctx, tr.RuleID)
		if err != nil {
			return out, err
		}
		if tr.ExampleSymbol != "" {
			res, err := as.a.Choose(ctx, r.Content, tr.ExampleSymbol, tr.ExampleFile, 0)
			if err == nil {
				res.Scope = r.Scope
				if ra := res.RuleAnchor(as.a.Searcher.Index.Root(), as.a.ProjectName()); ra != nil {
					if err := st.SetAnchor(ctx, r.ID, *ra); err != nil {
						return out, err
					}
					out = append(out, anchorOutcome{Rule: r.ID, Scope: r.Scope, Text: r.Content, Anchor: ra, Manual: true})
					continue
				}
			}
		}
		o, err := anchorOne(ctx, as.a, st, r)
		if err != nil {
			return out, fmt.Errorf("anchor rule %d: %w", r.ID, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func newTeamListCmd(m *memoryFlags) *cobra.Command {
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the cached team rules (--status proposed|approved|rejected|retired)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch status {
			case "", memory.TeamProposed, memory.TeamApproved, memory.TeamRejected, memory.TeamRetired:
			default:
				return fmt.Errorf("--status %q: want proposed, approved, rejected or retired", status)
			}
			st, sess, _, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			rules, err := st.TeamRules(cmd.Context(), status)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, map[string]any{"team_rules": rules})
			}
			if len(rules) == 0 {
				fmt.Fprintln(w, "No team rules in the cache (anchorage memory team pull).")
				return nil
			}
			for _, r := range rules {
				fmt.Fprintf(w, "%s %-8s %s (%s, by %s)\n", shortTeamID(r.ID), r.Status, r.Content, r.Scope, r.ProposedBy)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only team rules of this status")
	return cmd
}

func newTeamProposeCmd(m *memoryFlags) *cobra.Command {
	var (
		fromProposal, fromRule int64
		scope, rationale       string
		keep                   bool
	)
	cmd := &cobra.Command{
		Use:   "propose [TEXT]",
		Short: "Propose a rule to the team: a text, a pending proposal of yours (--proposal) or one of your rules (--rule)",
		Long: `Proposes a rule to the team, for an approver to approve. The rule is one of
  --proposal N   your pending proposal N (rejected locally once proposed, unless --keep)
  --rule N       your rule N, promoted to the team (your rule stays)
  TEXT           a rule's text, with --scope and --rationale
--scope is team (the default), team language:<lang> or team project:<name>;
a personal scope given (language:go) becomes the team's (team language:go).
The proposal says which of your rules or the team's it repeats or
contradicts. While the team database cannot be reached it is queued and
sent, once, when it can.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.TrimSpace(strings.Join(args, " "))
			given := 0
			for _, b := range []bool{fromProposal != 0, fromRule != 0, text != ""} {
				if b {
					given++
				}
			}
			if given != 1 {
				return errors.New("team propose: give one of TEXT, --proposal N or --rule N")
			}
			_, sess, tm, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), teamTimeout)
			defer cancel()
			p, err := tm.ProposeFrom(ctx, session.TeamProposalSource{Proposal: fromProposal, Keep: keep, Rule: fromRule,
				Text: text, Scope: scope, Rationale: rationale, Who: currentUser()})
			if err != nil {
				return errors.New(config.Redact(err.Error()))
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, p)
			}
			if p.Queued {
				fmt.Fprintf(w, "Queued team proposal %s: the team database cannot be reached; it is sent when it can (anchorage memory team pull, or the language server).\n", shortTeamID(p.Rule.ID))
			} else {
				fmt.Fprintf(w, "Proposed team rule %s (%s): %s\n", shortTeamID(p.Rule.ID), p.Rule.Scope, p.Rule.Content)
			}
			if p.Conflict != "" {
				fmt.Fprintf(w, "Note: it %s\n", p.Conflict)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&fromProposal, "proposal", 0, "propose your pending proposal N")
	cmd.Flags().Int64Var(&fromRule, "rule", 0, "promote your rule N")
	cmd.Flags().StringVar(&scope, "scope", "", "team, team language:<lang> or team project:<name> (default: the proposal's or rule's scope for the team, else team)")
	cmd.Flags().StringVar(&rationale, "rationale", "", "why the team should keep the rule")
	cmd.Flags().BoolVar(&keep, "keep", false, "with --proposal: keep your personal proposal pending")
	return cmd
}

// currentUser names the person proposing, for the proposal's origin.
func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

func newTeamDecideCmd(m *memoryFlags, action string) *cobra.Command {
	var content, rationale string
	short := map[string]string{
		memory.TeamActionApprove: "Approve a team proposal (approvers only)",
		memory.TeamActionReject:  "Reject a team proposal (approvers only)",
		memory.TeamActionRetire:  "Retire an approved team rule: every member's cache drops it (approvers only)",
		memory.TeamActionEdit:    "Edit a team rule's text or rationale (approvers only)",
	}[action]
	cmd := &cobra.Command{
		Use:   action + " ID",
		Short: short,
		Long: short + `. ID is the team rule's id, a unique start of it (as
"anchorage memory team list" shows), or the number of its local rule. The
database refuses a member without the role anchorage_approver; while it
cannot be reached, the decision is queued and sent, once, when it can.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if action == memory.TeamActionEdit && content == "" {
				return errors.New("team edit: give the new text with --content")
			}
			_, sess, tm, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), teamTimeout)
			defer cancel()
			r, queued, err := tm.Decide(ctx, action, args[0], content, rationale)
			if err != nil {
				return errors.New(config.Redact(err.Error()))
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, map[string]any{"rule": r, "queued": queued})
			}
			if queued {
				fmt.Fprintf(w, "Queued: the team database cannot be reached; the %s is sent when it can.\n", action)
				return nil
			}
			fmt.Fprintf(w, "Team rule %s is %s: %s\n", shortTeamID(r.ID), r.Status, r.Content)
			return nil
		},
	}
	if action == memory.TeamActionEdit {
		cmd.Flags().StringVar(&content, "content", "", "the rule's new text")
		cmd.Flags().StringVar(&rationale, "rationale", "", "the rule's new rationale")
	}
	return cmd
}

func newTeamAuditCmd(m *memoryFlags) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the team's latest changes: who proposed, approved, rejected, edited or retired what, when",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > 10000 {
				return fmt.Errorf("--limit %d: want 1 to 10000", limit)
			}
			_, sess, tm, err := m.openTeam(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), teamTimeout)
			defer cancel()
			entries, err := tm.Audit(ctx, limit)
			if err != nil {
				return fmt.Errorf("team audit: %s", config.Redact(err.Error()))
			}
			w := cmd.OutOrStdout()
			if m.json {
				if entries == nil {
					entries = []team.AuditEntry{}
				}
				return writeJSON(w, map[string]any{"audit": entries})
			}
			printAudit(w, entries)
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "how many entries, newest first")
	return cmd
}

func printAudit(w io.Writer, entries []team.AuditEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "No team changes yet.")
		return
	}
	for _, e := range entries {
		fmt.Fprintf(w, "%s  %-8s %-8s %s", e.At.Local().Format(time.DateTime), e.Actor, e.Action, shortTeamID(e.RuleID))
		if e.Detail != "" {
			fmt.Fprintf(w, "  %s", e.Detail)
		}
		fmt.Fprintln(w)
	}
}
