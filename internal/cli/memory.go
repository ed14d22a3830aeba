package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/state"
)

// memoryFlags are the flags of every memory command.
type memoryFlags struct {
	*globalFlags
	// project overrides the project name (the base name of --root).
	project string
}

func newMemoryCmd(g *globalFlags) *cobra.Command {
	m := &memoryFlags{globalFlags: g}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Coding rules learned from your corrections: record, propose, approve, show",
		Long: `Anchorage keeps coding rules learned from your corrections in the user's
database (see --data-dir), so that universal and language rules follow you
across projects. Record corrections, turn them into at most five proposals
(phrased by an optional LLM, else by a deterministic fallback), and approve
or reject each one; an approved rule is stored with its scope: universal,
language:<lang> or project:<name>.`,
	}
	cmd.PersistentFlags().StringVar(&m.project, "project", "", "project name for project scopes (default: the base name of --root)")
	cmd.AddCommand(
		newMemoryCorrectCmd(m),
		newMemoryProposeCmd(m),
		newMemoryApproveCmd(m),
		newMemoryRejectCmd(m),
		newMemoryShowCmd(m),
		newMemoryStatsCmd(m),
		newMemoryAnchorTestCmd(g),
		newMemoryAnchorCmd(m),
		newMemoryReanchorCmd(m),
		newMemoryInjectCmd(m),
		newMemoryDocsCmd(m),
		newMemorySearchCmd(m),
		newMemoryTeamCmd(m),
	)
	return cmd
}

// projectName returns --project, or the base name of --root.
func (m *memoryFlags) projectName() string {
	if p := strings.TrimSpace(m.project); p != "" {
		return p
	}
	return memory.ProjectName(m.root)
}

// memoryGlobs returns the globs of the workspace's memory documents: the
// flag's, else the settings file's, else memdoc.DefaultGlobs.
func (m *memoryFlags) memoryGlobs() []string {
	if m.settings != nil && len(m.settings.Settings.MemoryDocuments) > 0 {
		return m.settings.Settings.MemoryDocuments
	}
	return memdoc.DefaultGlobs()
}

// memoryPath returns the user's memory database.
func (m *memoryFlags) memoryPath() (string, error) {
	dirs, err := state.Resolve(m.dataDir)
	if err != nil {
		return "", err
	}
	return dirs.MemoryPath(), nil
}

// openMemory opens (creating if needed) the user's memory database for
// the current project with opts, in the session of this command: closing
// the session closes the store.
func (m *memoryFlags) openMemory(ctx context.Context, opts ...memory.Option) (*memory.Store, *session.Session, error) {
	if p := m.projectName(); p != "" {
		opts = append([]memory.Option{memory.WithProject(p)}, opts...)
	}
	sess, err := openSession(ctx, m.globalFlags, analysis.CheckOpen, true, opts...)
	if err != nil {
		return nil, nil, err
	}
	s, err := sess.Memory(ctx)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return s, sess, nil
}

// openExistingMemory opens the memory database if it exists, as
// openMemory does: reading does not create it. It returns a nil store and
// session, and the path, when there is none.
func (m *memoryFlags) openExistingMemory(ctx context.Context) (*memory.Store, string, *session.Session, error) {
	path, err := m.memoryPath()
	if err != nil {
		return nil, "", nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil, nil
	} else if err != nil {
		return nil, path, nil, fmt.Errorf("memory: %w", err)
	}
	s, sess, err := m.openMemory(ctx)
	return s, path, sess, err
}

// addSessionFlag adds --session to a command that records or proposes.
func addSessionFlag(cmd *cobra.Command, session *string) {
	cmd.Flags().StringVar(session, "session", "", `label of the correction session (default: $`+memory.SessionEnv+`, else none: every open correction; "*" for all)`)
}

// sessionOption returns the session option of --session, or of
// $ANCHORAGE_SESSION when the flag is not given: with neither,
// corrections are unlabelled and proposals come from every open
// correction.
func sessionOption(cmd *cobra.Command, session string) memory.Option {
	if !cmd.Flags().Changed("session") {
		session = os.Getenv(memory.SessionEnv)
	}
	return memory.WithSession(session)
}

// workspaceFile returns --file, named relative to the current directory or
// to --root, relative to --root with slashes. Like memory inject and MCP,
// it refuses a file outside the workspace and one that does not exist.
func (m *memoryFlags) workspaceFile(file string) (string, error) {
	abs, err := injectFileArg(m.root, file)
	if err != nil || abs == "" {
		return "", err
	}
	root, err := filepath.Abs(m.root)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	return analysis.RelPath(root, abs)
}

func newMemoryCorrectCmd(m *memoryFlags) *cobra.Command {
	var file, session string
	cmd := &cobra.Command{
		Use:   "correct TEXT",
		Short: "Record a correction you made to an assistant",
		Long: fmt.Sprintf(`Records a correction ("never use panic in production Go code"), with the
file it was about (--file), the project and the session (--session, else
$%s). Corrections are turned into proposals by "anchorage memory
propose". The text may be at most %d bytes.`, memory.SessionEnv, memory.MaxCorrectionBytes),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rel, err := m.workspaceFile(file)
			if err != nil {
				return err
			}
			s, sess, err := m.openMemory(cmd.Context(), sessionOption(cmd, session))
			if err != nil {
				return err
			}
			defer sess.Close()
			c, err := s.RecordCorrection(cmd.Context(), memory.Correction{Text: strings.Join(args, " "), File: rel})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, c)
			}
			fmt.Fprintf(w, "Recorded correction %d", c.ID)
			if c.Project != "" {
				fmt.Fprintf(w, " (project %s)", c.Project)
			}
			if c.Session != "" {
				fmt.Fprintf(w, " in session %s", c.Session)
			}
			fmt.Fprintln(w, ". Run \"anchorage memory propose\" to turn corrections into rules.")
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "the file the correction was about (relative to the current directory or to --root)")
	addSessionFlag(cmd, &session)
	return cmd
}

// proposeOutput is what anchorage memory propose --json prints.
type proposeOutput struct {
	Database  string            `json:"database"`
	Proposals []memory.Proposal `json:"proposals"`
}

func newMemoryProposeCmd(m *memoryFlags) *cobra.Command {
	var cfg memory.OllamaConfig
	var session string
	cmd := &cobra.Command{
		Use:   "propose",
		Short: "Turn the open corrections into at most five rule proposals",
		Long: `Clusters the corrections not yet approved or rejected by similarity, and
proposes a rule for each of the strongest clusters (at most five, by
frequency × confidence). With --llm-model (and --llm-url for a server other
than a local Ollama), an Ollama-compatible LLM phrases each proposal; without
one, or when it fails, times out or answers garbage, a deterministic fallback
uses the corrections' words and infers the scope. Proposing again keeps
unchanged proposals and their ids.

With --session (else $ANCHORAGE_SESSION), only the corrections recorded in
that session are proposed from; without either, or with "*", every open
correction is. The language server labels its corrections with its own
session.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			llm, err := memory.LLMOption(cfg)
			switch {
			case errors.Is(err, memory.ErrLLMNoModel):
				return errors.New("memory propose: --llm-model is required with --llm-url")
			case err != nil:
				return fmt.Errorf("memory propose: %w", err)
			}
			s, sess, err := m.openMemory(cmd.Context(), llm, sessionOption(cmd, session))
			if err != nil {
				return err
			}
			defer sess.Close()
			ps, err := s.Propose(cmd.Context())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, proposeOutput{Database: s.Path(), Proposals: ps})
			}
			if len(ps) == 0 {
				fmt.Fprintln(w, "No proposals: no open corrections (record some with \"anchorage memory correct\").")
				return nil
			}
			fmt.Fprintf(w, "%d proposal(s):\n\n", len(ps))
			for i, p := range ps {
				writeProposal(w, i+1, p)
			}
			fmt.Fprintln(w, "Approve with \"anchorage memory approve ID|all [--scope universal|language|project]\", or \"anchorage memory reject ID\".")
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.URL, "llm-url", "", "URL of an Ollama-compatible server to phrase proposals (default with --llm-model: "+memory.DefaultOllamaURL+")")
	cmd.Flags().StringVar(&cfg.Model, "llm-model", "", "the LLM to phrase proposals with (default: no LLM, the deterministic fallback)")
	cmd.Flags().StringVar(&cfg.API, "llm-api", memory.APIGenerate, "the server's API: generate or chat")
	cmd.Flags().DurationVar(&cfg.Timeout, "llm-timeout", memory.DefaultLLMTimeout, "how long to wait for each LLM answer")
	addSessionFlag(cmd, &session)
	return cmd
}

// writeProposal prints a proposal for people.
func writeProposal(w io.Writer, n int, p memory.Proposal) {
	fmt.Fprintf(w, "[%d] %s (%s): proposal %d, confidence %.2f, from %d correction(s)\n",
		n, strings.ToUpper(p.Category), p.Scope, p.ID, p.Confidence, p.Frequency)
	fmt.Fprintf(w, "    Rule:   %s\n", p.Content)
	if p.Rationale != "" {
		fmt.Fprintf(w, "    Why:    %s\n", p.Rationale)
	}
	if len(p.Variants) > 0 {
		fmt.Fprintf(w, "    Source: %q", p.Variants[0])
		if len(p.Variants) > 1 {
			fmt.Fprintf(w, " (+%d similar)", len(p.Variants)-1)
		}
		if p.File != "" {
			fmt.Fprintf(w, " in %s", p.File)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "    By:     %s", p.Origin)
	if p.Note != "" {
		fmt.Fprintf(w, " (%s)", p.Note)
	}
	fmt.Fprintln(w)
	if p.Conflict != "" {
		fmt.Fprintf(w, "    ⚠ %s\n", p.Conflict)
	}
	fmt.Fprintln(w)
}

// approveOutput is what anchorage memory approve --json prints.
type approveOutput struct {
	Approvals []memory.Approval `json:"approvals"`
	// LeftPending are the proposals "approve all" left pending because
	// they contradict another pending proposal: the user chooses.
	LeftPending []memory.Proposal `json:"left_pending,omitempty"`
	// Anchors says where each approved rule was anchored.
	Anchors []anchorOutcome `json:"anchors,omitempty"`
	// AnchorError says why anchoring failed; the rules are stored all
	// the same.
	AnchorError string `json:"anchor_error,omitempty"`
}

// printLeftPending explains why "approve all" left proposals pending:
// each contradicts another pending one, and approving both would keep only
// the later.
func printLeftPending(w io.Writer, approved []memory.Approval, left []memory.Proposal) {
	if len(left) == 0 {
		return
	}
	if len(approved) == 0 {
		fmt.Fprintf(w, "Approved nothing: the %d pending proposal(s) contradict each other, so you choose which to keep.\n", len(left))
	} else {
		fmt.Fprintf(w, "Left %d proposal(s) pending: they contradict each other, so you choose which to keep.\n", len(left))
	}
	for _, p := range left {
		fmt.Fprintf(w, "  %d: %s", p.ID, p.Content)
		if p.ContradictsProposal != 0 {
			fmt.Fprintf(w, "  (contradicts proposal %d)", p.ContradictsProposal)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Approve one with \"anchorage memory approve ID\" and reject the other with \"anchorage memory reject ID\".")
}

func newMemoryApproveCmd(m *memoryFlags) *cobra.Command {
	var scope string
	var noAnchor bool
	cmd := &cobra.Command{
		Use:   "approve ID|all",
		Short: "Approve a proposal (or all pending ones) and store its rule",
		Long: `Approves a pending proposal and stores its rule in its scope, or in the
scope --scope gives: universal, language (the proposal's language), project
(this project), or language:<lang> / project:<name>. A proposal that repeats
a rule merges into it; one that contradicts a rule supersedes it when its
scope covers the rule's, and is kept beside it as an exception otherwise.
"all" approves every pending proposal, or none if one cannot be.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var id int64
			all := strings.EqualFold(args[0], "all")
			if !all {
				var err error
				if id, err = parseProposalID(args[0]); err != nil {
					return err
				}
			}
			s, sess, err := m.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			var as []memory.Approval
			var left []memory.Proposal // pending after approve all
			if all {
				if as, err = s.ApproveAll(cmd.Context(), scope); err != nil {
					return err
				}
				if left, err = s.Proposals(cmd.Context(), memory.StatusPending); err != nil {
					return err
				}
			} else {
				a, err := s.Approve(cmd.Context(), id, scope)
				if err != nil {
					return err
				}
				as = append(as, a)
			}
			// An approved rule is anchored at once in the workspace. The
			// rule is stored whether or not this works: a failure is said,
			// after what was approved.
			var anchored []anchorOutcome
			var anchorErr error
			if !noAnchor {
				var rules []memory.Rule
				for _, a := range as {
					rules = append(rules, a.Rule)
				}
				anchored, anchorErr = anchorRules(cmd.Context(), cmd, m, sess, s, rules, nil)
			}
			if anchorErr != nil {
				defer fmt.Fprintf(cmd.ErrOrStderr(), "anchorage: approved, but anchoring failed (run anchorage memory reanchor in the workspace): %v\n", anchorErr)
			}
			w := cmd.OutOrStdout()
			if m.json {
				out := approveOutput{Approvals: as, Anchors: anchored, LeftPending: nonNil(left)}
				if anchorErr != nil {
					out.AnchorError = anchorErr.Error()
				}
				return writeJSON(w, out)
			}
			defer printAnchorOutcomes(w, anchored)
			if len(as) == 0 && len(left) == 0 {
				fmt.Fprintln(w, "No pending proposals.")
			}
			defer printLeftPending(w, as, left)
			for _, a := range as {
				verb := "as rule"
				if a.Merged {
					verb = "merged into rule"
				}
				fmt.Fprintf(w, "Approved proposal %d %s %d (%s): %s\n", a.Proposal.ID, verb, a.Rule.ID, a.Rule.Scope, a.Rule.Content)
				for _, r := range a.Superseded {
					fmt.Fprintf(w, "  rule %d, which it contradicts, is superseded\n", r)
				}
				for _, r := range a.KeptConflicting {
					fmt.Fprintf(w, "  rule %d, which it contradicts, stays for its wider scope\n", r)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "store the rule in this scope: universal, language, project, language:<lang> or project:<name>")
	cmd.Flags().BoolVar(&noAnchor, "no-anchor", false, "do not look for the rule's example in the --root workspace now")
	return cmd
}

// parseProposalID reads a proposal id argument.
func parseProposalID(arg string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%q is not a proposal id (a positive number, as \"anchorage memory propose\" shows)", arg)
	}
	return id, nil
}

func newMemoryRejectCmd(m *memoryFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "reject ID",
		Short: "Reject a proposal: its corrections are not proposed again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseProposalID(args[0])
			if err != nil {
				return err
			}
			s, sess, err := m.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			defer sess.Close()
			if err := s.Reject(cmd.Context(), id); err != nil {
				return err
			}
			if m.json {
				return writeJSON(cmd.OutOrStdout(), struct {
					Rejected int64 `json:"rejected"`
				}{id})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Rejected proposal %d.\n", id)
			return nil
		},
	}
}

// showOutput is what anchorage memory show --json prints.
type showOutput struct {
	Database string        `json:"database"`
	Rules    []memory.Rule `json:"rules"`
	// Examples says, by rule ID, what became of each anchored rule's
	// example in the code as it is now (lost when its definition is
	// gone).
	Examples map[int64]memory.ExampleState `json:"examples,omitempty"`
}

func newMemoryShowCmd(m *memoryFlags) *cobra.Command {
	var (
		anchored bool
		scope    string
	)
	cmd := &cobra.Command{
		Use:   "show",
		Short: "List the active rules, most important first",
		Long: `Lists the active rules with their scope, category, anchor (the code example,
if one was found), rationale and how many corrections they came from.
--scope keeps one scope (universal, language:go, project:app) or one kind
(language, project); --scope team keeps the team's rules (marked [team …],
from the cache of the team database: see anchorage memory team).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := memory.RuleFilter{Anchored: anchored}
			if scope != "" {
				f.Scopes = []string{scope}
			}
			s, path, sess, err := m.openExistingMemory(cmd.Context())
			if err != nil {
				return err
			}
			out := showOutput{Database: path, Rules: []memory.Rule{}}
			if s != nil {
				defer sess.Close()
				if out.Rules, err = s.Rules(cmd.Context(), f); err != nil {
					return err
				}
				if out.Examples, err = showExamples(cmd.Context(), sess, m, s, out.Rules); err != nil {
					return err
				}
			} else if scope != "" {
				// Check the flag even without a database.
				if err := validShowScope(scope); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, out)
			}
			if len(out.Rules) == 0 {
				fmt.Fprintf(w, "No rules yet (%s).\n", out.Database)
				return nil
			}
			for _, r := range out.Rules {
				if r.Team != "" {
					fmt.Fprintf(w, "%d. [team %s] %s (%s, %s)\n", r.ID, shortTeamID(r.Team), r.Content, r.Scope, r.Category)
				} else {
					fmt.Fprintf(w, "%d. %s (%s, %s)\n", r.ID, r.Content, r.Scope, r.Category)
				}
				if r.Anchor != nil {
					printShowAnchor(w, r, out.Examples[r.ID])
				}
				if r.Rationale != "" {
					fmt.Fprintf(w, "   why: %s\n", r.Rationale)
				}
				fmt.Fprintf(w, "   from %d correction(s), confidence %.2f, priority %d, updated %s\n",
					r.Corrections, r.Confidence, r.Priority, r.UpdatedAt.Local().Format(time.DateOnly))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&anchored, "anchored", false, "only rules with a code example")
	cmd.Flags().StringVar(&scope, "scope", "", "only rules of this scope (universal, language:<lang>, project:<name>) or kind (language, project)")
	return cmd
}

// showExamples resolves the examples of the anchored rules in the code as
// it is now, through the workspace's index as it stands (not updated
// first: show stays quick), for show to tell a lost anchor from a live
// one. Without an index, the anchored files are parsed from disk.
func showExamples(ctx context.Context, sess *session.Session, m *memoryFlags, st *memory.Store, rules []memory.Rule) (map[int64]memory.ExampleState, error) {
	anchored := false
	for _, r := range rules {
		anchored = anchored || r.Anchor != nil
	}
	if !anchored {
		return nil, nil
	}
	deps := memory.InjectDeps{Store: st, Root: m.root}
	if ix, err := sess.Index(ctx, m.root); err == nil {
		deps.Index = ix
	}
	ex, err := memory.ResolveExamples(ctx, deps, m.projectName(), rules)
	if err != nil {
		return nil, fmt.Errorf("memory show: %w", err)
	}
	return ex, nil
}

// printShowAnchor prints a rule's anchor line: where its example is now,
// or that it is lost, with the command that chooses another.
func printShowAnchor(w io.Writer, r memory.Rule, ex memory.ExampleState) {
	a := r.Anchor
	name := a.File
	if a.Symbol != "" {
		name += " " + a.Symbol
	}
	switch {
	case ex.Status == memory.ExampleLost:
		fmt.Fprintf(w, "   ⚓ anchor lost: %s is gone from the code; choose another example with anchorage memory reanchor %d [--symbol NAME]\n", name, r.ID)
	case ex.Status == memory.ExampleShown && ex.Moved:
		now := ex.File
		if ex.Symbol != "" {
			now += " " + ex.Symbol
		}
		fmt.Fprintf(w, "   ⚓ %s (quality %.2f; anchored as %s)\n", now, a.Score, name)
	case ex.Status == memory.ExampleElsewhere:
		fmt.Fprintf(w, "   ⚓ %s (quality %.2f; in another project's workspace)\n", name, a.Score)
	default:
		fmt.Fprintf(w, "   ⚓ %s (quality %.2f)\n", name, a.Score)
	}
}

// validShowScope checks a --scope of show: a scope or a scope kind.
func validShowScope(scope string) error {
	switch strings.ToLower(strings.TrimSpace(scope)) {
	case memory.KindLanguage, memory.KindProject, memory.ScopeTeam:
		return nil
	}
	_, err := memory.NormalizeScope(scope)
	return err
}

func newMemoryStatsCmd(m *memoryFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count rules (by scope, anchored, superseded), proposals and corrections",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, path, sess, err := m.openExistingMemory(cmd.Context())
			if err != nil {
				return err
			}
			st := memory.Stats{Database: path, RulesByScope: map[string]int{},
				Proposals: map[string]int{memory.StatusPending: 0, memory.StatusApproved: 0, memory.StatusRejected: 0}}
			if s != nil {
				defer sess.Close()
				if st, err = s.Stats(cmd.Context()); err != nil {
					return err
				}
			}
			graph, err := recallMetrics(cmd.Context(), m)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if m.json {
				return writeJSON(w, struct {
					memory.Stats
					Graph *recall.Metrics `json:"graph,omitempty"`
				}{st, graph})
			}
			fmt.Fprintf(w, "Memory: %s\n", st.Database)
			fmt.Fprintf(w, "Rules: %d active (%d anchored), %d superseded\n", st.Rules, st.Anchored, st.Superseded)
			for _, scope := range slices.Sorted(maps.Keys(st.RulesByScope)) {
				fmt.Fprintf(w, "  %-24s %d\n", scope, st.RulesByScope[scope])
			}
			fmt.Fprintf(w, "Proposals: %d pending, %d approved, %d rejected\n",
				st.Proposals[memory.StatusPending], st.Proposals[memory.StatusApproved], st.Proposals[memory.StatusRejected])
			fmt.Fprintf(w, "Corrections: %d (%d open)\n", st.Corrections, st.OpenCorrections)
			if graph != nil {
				fmt.Fprintf(w, "Memory graph: %d memories, %d edges; %d searches: local hit rate %.1f%%, fallback rate %.1f%%, %.2f hops, %d anchor moves\n",
					graph.Nodes, graph.Edges, graph.Searches, 100*graph.LocalHitRate, 100*graph.FallbackRate, graph.AvgHops, graph.AnchorMoves)
			}
			return nil
		},
	}
}
