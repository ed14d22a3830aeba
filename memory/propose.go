package memory

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MaxProposals is how many proposals Propose makes at most, so as not to
// overwhelm the user.
const MaxProposals = 5

// Proposal statuses.
const (
	// StatusPending is a proposal waiting for the user.
	StatusPending = "pending"
	// StatusApproved is a proposal that became (or merged into) a rule.
	StatusApproved = "approved"
	// StatusRejected is a proposal the user turned down.
	StatusRejected = "rejected"
)

// Proposal origins.
const (
	// OriginLLM marks a proposal phrased by the LLM.
	OriginLLM = "llm"
	// OriginFallback marks a proposal made by the deterministic
	// fallback: the cluster's canonical correction, with an inferred
	// scope and category.
	OriginFallback = "fallback"
)

// relatedThreshold is the least word overlap (proseOverlap) at which a
// proposal repeats or contradicts a rule. It is higher than the
// clustering threshold: a merge or a supersession acts on an approved
// rule, so it needs more than a shared word.
const relatedThreshold = 0.75

// Proposal is a rule proposed from a cluster of corrections, for the user
// to approve or reject.
type Proposal struct {
	ID int64 `json:"id"`
	// Status is StatusPending, StatusApproved or StatusRejected.
	Status string `json:"status"`
	// Category, Scope, Content and Rationale are those of the rule it
	// proposes.
	Category  string `json:"category"`
	Scope     string `json:"scope"`
	Content   string `json:"content"`
	Rationale string `json:"rationale"`
	// Variants are the corrections' texts, canonical first.
	Variants []string `json:"source_variants"`
	// Frequency is how many corrections the cluster holds.
	Frequency int `json:"frequency"`
	// Cohesion is the mean similarity of the cluster's corrections.
	Cohesion float64 `json:"cohesion"`
	// Confidence is from 0 to 1.
	Confidence float64 `json:"confidence"`
	// Priority is the proposal's rank when proposed: 1 is the strongest.
	Priority int `json:"priority"`
	// Origin is OriginLLM or OriginFallback.
	Origin string `json:"origin"`
	// Note explains the origin: why the scope was chosen, or why the
	// LLM's answer was not used.
	Note string `json:"note,omitempty"`
	// Project and Language are the corrections' (or the inferred)
	// project and language, for scope overrides.
	Project  string `json:"project,omitempty"`
	Language string `json:"language,omitempty"`
	// File and Range are where the corrections were made, if known.
	File  string `json:"file,omitempty"`
	Range *Range `json:"range,omitempty"`
	// ExampleFile and ExampleSymbol are a candidate code example, once
	// known (SetProposalExample).
	ExampleFile   string `json:"example_file,omitempty"`
	ExampleSymbol string `json:"example_symbol,omitempty"`
	// DuplicateOf is an active rule the proposal repeats: approving it
	// merges into that rule.
	DuplicateOf int64 `json:"duplicate_of,omitempty"`
	// Contradicts is an active rule the proposal contradicts ("Use X"
	// against "Never use X").
	Contradicts int64 `json:"contradicts,omitempty"`
	// ContradictsProposal is another pending proposal this pending one
	// contradicts: approve one and reject the other.
	ContradictsProposal int64 `json:"contradicts_proposal,omitempty"`
	// Conflict says, for people, what DuplicateOf, Contradicts and
	// ContradictsProposal mean for approval.
	Conflict string `json:"conflict,omitempty"`
	// RuleID is the rule an approved proposal became or merged into.
	RuleID int64 `json:"rule_id,omitempty"`
	// CorrectionIDs are the corrections of the cluster.
	CorrectionIDs []int64 `json:"corrections"`
	// CreatedAt is when the proposal was made.
	CreatedAt time.Time `json:"created_at"`
	// DecidedAt is when it was approved or rejected, or nil.
	DecidedAt *time.Time `json:"decided_at,omitempty"`
}

// proposalColumns are the columns scanProposal reads, in order.
const proposalColumns = `id, status, category, scope, content, rationale, source_variants, frequency, cohesion,
	confidence, priority, origin, note, project, language, file, "range", example_file, example_symbol,
	duplicate_of, contradicts, contradicts_proposal, conflict, rule_id, created_at, decided_at`

// scanProposal reads one row of proposalColumns.
func scanProposal(row sqlRowScanner) (Proposal, error) {
	var (
		p                  Proposal
		variants           string
		rng, exFile, exSym sql.NullString
		dup, contra, rule  sql.NullInt64
		contraProp         sql.NullInt64
		created            int64
		decided            sql.NullInt64
	)
	if err := row.Scan(&p.ID, &p.Status, &p.Category, &p.Scope, &p.Content, &p.Rationale, &variants, &p.Frequency,
		&p.Cohesion, &p.Confidence, &p.Priority, &p.Origin, &p.Note, &p.Project, &p.Language, &p.File, &rng,
		&exFile, &exSym, &dup, &contra, &contraProp, &p.Conflict, &rule, &created, &decided); err != nil {
		return Proposal{}, err
	}
	if err := json.Unmarshal([]byte(variants), &p.Variants); err != nil {
		return Proposal{}, fmt.Errorf("proposal %d: source_variants: %w", p.ID, err)
	}
	if p.Variants == nil {
		p.Variants = []string{}
	}
	if rng.Valid {
		var r Range
		if json.Unmarshal([]byte(rng.String), &r) == nil {
			p.Range = &r
		}
	}
	p.ExampleFile, p.ExampleSymbol = exFile.String, exSym.String
	p.DuplicateOf, p.Contradicts, p.RuleID = dup.Int64, contra.Int64, rule.Int64
	p.ContradictsProposal = contraProp.Int64
	p.CreatedAt = fromUnixMillis(created)
	if decided.Valid {
		t := fromUnixMillis(decided.Int64)
		p.DecidedAt = &t
	}
	p.CorrectionIDs = []int64{}
	return p, nil
}

// proposalByID reads one proposal with its corrections; a missing one is
// ErrUnknownProposal.
func proposalByID(ctx context.Context, q interface {
	sqlRowQueryer
	sqlQueryer
}, id int64) (Proposal, error) {
	p, err := scanProposal(q.QueryRowContext(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Proposal{}, ErrUnknownProposal
	}
	if err != nil {
		return Proposal{}, err
	}
	ps := []Proposal{p}
	if err := fillCorrectionIDs(ctx, q, ps); err != nil {
		return Proposal{}, err
	}
	return ps[0], nil
}

// fillCorrectionIDs sets the CorrectionIDs of ps.
func fillCorrectionIDs(ctx context.Context, q sqlQueryer, ps []Proposal) error {
	if len(ps) == 0 {
		return nil
	}
	byID := map[int64]*Proposal{}
	ids := make([]int64, len(ps))
	for i := range ps {
		byID[ps[i].ID] = &ps[i]
		ids[i] = ps[i].ID
	}
	rows, err := q.QueryContext(ctx, `SELECT proposal_id, id FROM corrections WHERE proposal_id IN (`+sqlIDList(ids)+`) ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pid, cid int64
		if err := rows.Scan(&pid, &cid); err != nil {
			return err
		}
		byID[pid].CorrectionIDs = append(byID[pid].CorrectionIDs, cid)
	}
	return rows.Err()
}

// queryProposals runs a query of proposalColumns and fills in the
// corrections.
func queryProposals(ctx context.Context, q sqlQueryer, query string, args ...any) ([]Proposal, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []Proposal{}
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	if err := fillCorrectionIDs(ctx, q, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Proposal returns the proposal with the given id.
func (s *Store) Proposal(ctx context.Context, id int64) (Proposal, error) {
	p, err := proposalByID(ctx, s.db, id)
	if err != nil {
		return Proposal{}, s.fail(fmt.Sprintf("read proposal %d", id), err)
	}
	return p, nil
}

// Proposals returns the proposals of a status (StatusPending, …; "" for
// all): pending ones by priority, decided ones newest first.
func (s *Store) Proposals(ctx context.Context, status string) ([]Proposal, error) {
	q := `SELECT ` + proposalColumns + ` FROM proposals`
	var args []any
	switch status {
	case "":
	case StatusPending, StatusApproved, StatusRejected:
		q += ` WHERE status = ?`
		args = append(args, status)
	default:
		return nil, fmt.Errorf("list proposals: unknown status %q", status)
	}
	q += ` ORDER BY status != 'pending', CASE WHEN status = 'pending' THEN priority ELSE -decided_at END, id`
	ps, err := queryProposals(ctx, s.db, q, args...)
	if err != nil {
		return nil, s.fail("list proposals", err)
	}
	return ps, nil
}

// SetProposalExample records a candidate code example of a pending or
// decided proposal (for the editor, which shows pending proposals there);
// an empty file clears it.
func (s *Store) SetProposalExample(ctx context.Context, id int64, file, symbol string) error {
	var f, sym any
	if file != "" {
		f = file
		if symbol != "" {
			sym = symbol
		}
	}
	return s.withTx(ctx, fmt.Sprintf("set example of proposal %d", id), func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE proposals SET example_file = ?, example_symbol = ? WHERE id = ?`, f, sym, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrUnknownProposal
		}
		return nil
	})
}

// proposalDraft is a proposal before it is stored.
type proposalDraft struct {
	cluster                               *correctionCluster
	key                                   string // the cluster's correction ids
	category, scope, content, rationale   string
	origin, note, project, language, file string
	rng                                   *Range
}

// Propose turns the open corrections (see OpenCorrections) into at most
// MaxProposals (or WithMaxProposals) proposals and returns the pending
// proposals, strongest first.
//
// The corrections are clustered by similarity (see clusterCorrections)
// and the clusters ranked by frequency × confidence. A cluster whose
// corrections are exactly those of a pending proposal keeps that proposal
// (and its id), unless an LLM is configured and the proposal was made by
// the fallback; the others are phrased by the LLM (WithLLM), or by the
// deterministic fallback when there is none, when it fails (after a
// transport failure or a timeout the LLM is not asked again during this
// call), or when its answer does not match LLMAnswerSchema. Pending
// proposals whose corrections went into other clusters are replaced.
// Each proposal is checked against the active rules: one that repeats a
// rule names it in DuplicateOf, one that contradicts a rule in
// Contradicts, both explained in Conflict.
func (s *Store) Propose(ctx context.Context) ([]Proposal, error) {
	cs, err := openCorrections(ctx, s.db, s.opts.session, maxClustered)
	if err != nil {
		return nil, s.fail("propose", err)
	}
	clusters := clusterCorrections(cs)
	if len(clusters) > s.opts.maxProposals {
		clusters = clusters[:s.opts.maxProposals]
	}
	pending, err := pendingByCorrections(ctx, s.db)
	if err != nil {
		return nil, s.fail("propose", err)
	}
	drafts := make([]proposalDraft, len(clusters))
	var llmDown error // set after a transport failure
	for i, c := range clusters {
		key := sqlIDList(c.correctionIDs())
		// Keep a pending proposal of the same corrections, unless an
		// LLM could now phrase what the fallback did.
		if p, ok := pending[key]; ok && (s.opts.llm == nil || p.origin == OriginLLM) {
			drafts[i] = proposalDraft{cluster: c, key: key}
			continue
		}
		d := s.fallbackDraft(c)
		d.key = key
		switch {
		case s.opts.llm == nil:
		case llmDown != nil:
			d.note = fmt.Sprintf("LLM not asked after it failed (%v); deterministic fallback: %s", llmDown, d.note)
		default:
			ans, err := s.askLLM(ctx, c, d.project)
			switch {
			case err == nil:
				d = applyLLMAnswer(d, ans)
			case ctx.Err() != nil:
				return nil, fmt.Errorf("propose: %w", ctx.Err())
			case errors.Is(err, errBadAnswer):
				d.note = fmt.Sprintf("LLM answer rejected (%v); deterministic fallback: %s", err, d.note)
			default:
				llmDown = err
				d.note = fmt.Sprintf("LLM failed (%v); deterministic fallback: %s", err, d.note)
			}
		}
		drafts[i] = d
	}

	considered := map[int64]bool{}
	for _, c := range cs {
		considered[c.ID] = true
	}
	var ids []int64
	err = s.withTx(ctx, "propose", func(tx *sql.Tx) error {
		ids, err = s.storeDrafts(ctx, tx, drafts, considered)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Proposal, 0, len(ids))
	for _, id := range ids {
		p, err := proposalByID(ctx, s.db, id)
		if err != nil {
			return nil, s.fail("propose", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// storeDrafts writes the drafts (strongest first) in tx: it keeps the
// pending proposals that match a draft's corrections, inserts the others
// whose corrections are all still open, deletes the pending proposals
// that have corrections among considered and were not kept, and flags
// repeats and contradictions of active rules. It returns the ids of the
// resulting proposals, strongest first.
func (s *Store) storeDrafts(ctx context.Context, tx *sql.Tx, drafts []proposalDraft, considered map[int64]bool) ([]int64, error) {
	pending, err := pendingByCorrections(ctx, tx)
	if err != nil {
		return nil, err
	}
	now := unixMillis(s.opts.now())
	var ids []int64
	keep := map[int64]bool{}
	for _, d := range drafts {
		priority := len(ids) + 1
		p, ok := pending[d.key]
		if d.content != "" && ok && (s.opts.llm == nil || p.origin == OriginLLM) {
			// Another Propose stored this cluster meanwhile: keep
			// its proposal rather than replace it.
			d.content = ""
		}
		if d.content == "" { // keep the pending proposal
			if !ok {
				// Another process decided or replaced it
				// meanwhile: leave these corrections for next
				// time.
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE proposals SET priority = ? WHERE id = ?`, priority, p.id); err != nil {
				return nil, err
			}
			keep[p.id] = true
			ids = append(ids, p.id)
			continue
		}
		cids := d.cluster.correctionIDs()
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM corrections c LEFT JOIN proposals p ON p.id = c.proposal_id
			WHERE c.id IN (`+sqlIDList(cids)+`) AND (c.proposal_id IS NULL OR p.status = 'pending')`).Scan(&open); err != nil {
			return nil, err
		}
		if open != len(cids) {
			continue // another process took some of them meanwhile
		}
		c := d.cluster
		var rng any
		if d.rng != nil {
			b, _ := json.Marshal(d.rng) // a struct of integers always encodes
			rng = string(b)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO proposals(status, category, scope, content, rationale, source_variants,
				confidence, priority, frequency, cohesion, origin, note, project, language, file, "range", created_at)
			VALUES('pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.category, d.scope, d.content, d.rationale, jsonList(c.variants()), c.confidence, priority, c.frequency(),
			c.cohesion, d.origin, d.note, d.project, d.language, d.file, rng, now)
		if err != nil {
			return nil, err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE corrections SET proposal_id = ? WHERE id IN (`+sqlIDList(cids)+`)`, id); err != nil {
			return nil, err
		}
		keep[id] = true
		ids = append(ids, id)
	}
	// Replace the pending proposals whose corrections were reclustered.
	stale, err := staleProposals(ctx, tx, keep, considered)
	if err != nil {
		return nil, err
	}
	if len(stale) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM proposals WHERE id IN (`+sqlIDList(stale)+`)`); err != nil {
			return nil, err
		}
	}
	if err := relatePending(ctx, tx); err != nil {
		return nil, err
	}
	return ids, nil
}

// relatePending flags, on every pending proposal, the active rules it
// repeats or contradicts and the other pending proposals it contradicts,
// and explains them in its conflict text. It runs whenever proposals or
// rules change through proposing, approving or rejecting.
func relatePending(ctx context.Context, tx *sql.Tx) error {
	rules, err := queryRules(ctx, tx, `SELECT `+ruleColumns+` FROM memory_store WHERE superseded_by IS NULL ORDER BY id`)
	if err != nil {
		return err
	}
	ps, err := queryProposals(ctx, tx, `SELECT `+proposalColumns+` FROM proposals WHERE status = 'pending' ORDER BY priority, id`)
	if err != nil {
		return err
	}
	against := pendingContradictions(ps)
	for _, p := range ps {
		rel := relateToRules(p.Content, p.Scope, rules)
		msg := rel.message(p.Scope)
		var first int64
		for _, q := range against[p.ID] {
			if first == 0 {
				first = q.ID
			}
			part := fmt.Sprintf("contradicts pending proposal %d (%s) %q: approve one and reject the other", q.ID, q.Scope, shortRuleText(q.Content))
			if msg != "" {
				msg += "; "
			}
			msg += part
		}
		if _, err := tx.ExecContext(ctx, `UPDATE proposals SET duplicate_of = ?, contradicts = ?, contradicts_proposal = ?, conflict = ?
			WHERE id = ?`, nullID(rel.duplicateID()), nullID(rel.contradictionID()), nullID(first), msg, p.ID); err != nil {
			return err
		}
	}
	return nil
}

// pendingContradictions maps each proposal of ps to the others it
// contradicts, most similar first: those of an overlapping scope whose
// text or variants share at least relatedThreshold of its words with the
// opposite polarity (and less of them with the same).
func pendingContradictions(ps []Proposal) map[int64][]Proposal {
	feats := make([][]proseFeatures, len(ps))
	for i, p := range ps {
		for _, text := range append([]string{p.Content}, p.Variants...) {
			feats[i] = append(feats[i], analyzeProse(text))
		}
	}
	// relation returns the best same- and opposite-polarity overlap of
	// proposal i's content with proposal j's texts.
	relation := func(i, j int) (same, opposite float64) {
		f := feats[i][0]
		for _, g := range feats[j] {
			sim := proseOverlap(f.tokens, g.tokens)
			if g.negative == f.negative {
				same = max(same, sim)
			} else {
				opposite = max(opposite, sim)
			}
		}
		return same, opposite
	}
	type scored struct {
		p   Proposal
		sim float64
	}
	found := map[int64][]scored{}
	for i := range ps {
		for j := i + 1; j < len(ps); j++ {
			if !scopesOverlap(ps[i].Scope, ps[j].Scope) {
				continue
			}
			s1, o1 := relation(i, j)
			s2, o2 := relation(j, i)
			same, opposite := max(s1, s2), max(o1, o2)
			if opposite >= relatedThreshold && opposite > same {
				found[ps[i].ID] = append(found[ps[i].ID], scored{ps[j], opposite})
				found[ps[j].ID] = append(found[ps[j].ID], scored{ps[i], opposite})
			}
		}
	}
	out := make(map[int64][]Proposal, len(found))
	for id, list := range found {
		slices.SortStableFunc(list, func(a, b scored) int { return cmp.Compare(b.sim, a.sim) })
		for _, s := range list {
			out[id] = append(out[id], s.p)
		}
	}
	return out
}

// pendingRef is a pending proposal, for matching clusters.
type pendingRef struct {
	id     int64
	origin string
}

// pendingByCorrections maps the correction ids (sqlIDList, ascending) of
// each pending proposal to it.
func pendingByCorrections(ctx context.Context, q sqlQueryer) (map[string]pendingRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT p.id, p.origin, c.id FROM proposals p JOIN corrections c ON c.proposal_id = p.id
		WHERE p.status = 'pending' ORDER BY p.id, c.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byProposal := map[pendingRef][]int64{}
	for rows.Next() {
		var p pendingRef
		var cid int64
		if err := rows.Scan(&p.id, &p.origin, &cid); err != nil {
			return nil, err
		}
		byProposal[p] = append(byProposal[p], cid)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[string]pendingRef{}
	for p, cids := range byProposal {
		out[sqlIDList(cids)] = p
	}
	return out, nil
}

// staleProposals returns the pending proposals not in keep that have no
// corrections left or one among considered.
func staleProposals(ctx context.Context, tx *sql.Tx, keep, considered map[int64]bool) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT p.id, c.id FROM proposals p LEFT JOIN corrections c ON c.proposal_id = p.id
		WHERE p.status = 'pending'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	stale := map[int64]bool{}
	for rows.Next() {
		var pid int64
		var cid sql.NullInt64
		if err := rows.Scan(&pid, &cid); err != nil {
			return nil, err
		}
		if !keep[pid] && (!cid.Valid || considered[cid.Int64]) {
			stale[pid] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(stale))
	for id := range stale {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

// nullID is id, or NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// fallbackDraft phrases a cluster without an LLM: its canonical text, with
// the scope and category inferred from its words.
func (s *Store) fallbackDraft(c *correctionCluster) proposalDraft {
	project := c.project()
	if project == "" {
		project = s.opts.project
	}
	g := inferScope(c.texts(), c.languageCounts(), project)
	lang := g.language
	if lang == "" {
		lang = c.language()
	}
	file := c.file()
	return proposalDraft{
		cluster:   c,
		category:  inferCategory(c.corrections[c.canonical].Text),
		scope:     g.scope,
		content:   c.canonicalText(),
		rationale: fallbackRationale(c),
		origin:    OriginFallback,
		note:      "scope " + g.scope + ": " + g.reason,
		project:   project,
		language:  lang,
		file:      file,
		rng:       c.fileRange(file),
	}
}

// fallbackRationale says how often the user made the correction.
func fallbackRationale(c *correctionCluster) string {
	n := c.frequency()
	var r string
	if n == 1 {
		r = "You made this correction once"
	} else {
		r = fmt.Sprintf("You made this correction %d times", n)
	}
	if f := c.file(); f != "" {
		r += " (in " + f + ")"
	}
	return r
}

// askLLM asks the Store's LLM to phrase cluster c of project.
func (s *Store) askLLM(ctx context.Context, c *correctionCluster, project string) (llmAnswer, error) {
	text, err := s.opts.llm.Generate(ctx, buildProposalPrompt(c, project))
	if err != nil {
		return llmAnswer{}, err
	}
	return parseLLMAnswer(text)
}

// applyLLMAnswer replaces the phrasing of d by a validated answer. As in
// the reference, a project scope becomes the corrections' project (an
// LLM cannot know its name), or universal when there is none.
func applyLLMAnswer(d proposalDraft, a llmAnswer) proposalDraft {
	d.category, d.content, d.origin, d.note = a.Category, a.Content, OriginLLM, ""
	if a.Rationale != "" {
		d.rationale = a.Rationale
	}
	switch scopeKind(a.Scope) {
	case KindProject:
		if d.project != "" {
			d.scope = KindProject + ":" + d.project
		} else {
			d.scope = ScopeUniversal
			d.note = "the LLM chose a project scope, but no project is known: universal"
		}
	case KindLanguage:
		d.scope = a.Scope
		d.language = scopeName(a.Scope)
	default:
		d.scope = ScopeUniversal
	}
	return d
}

// ruleRelation is how a proposal relates to the active rules.
type ruleRelation struct {
	// duplicate is the most similar rule of the same polarity, if any.
	duplicate *Rule
	// contradictions are the rules of the opposite polarity, most
	// similar first.
	contradictions []Rule
}

func (r ruleRelation) duplicateID() int64 {
	if r.duplicate == nil {
		return 0
	}
	return r.duplicate.ID
}

func (r ruleRelation) contradictionID() int64 {
	if len(r.contradictions) == 0 {
		return 0
	}
	return r.contradictions[0].ID
}

// message explains the relation for a proposal of scope.
func (r ruleRelation) message(scope string) string {
	var parts []string
	if d := r.duplicate; d != nil {
		parts = append(parts, fmt.Sprintf("repeats rule %d (%s) %q: approving merges into it", d.ID, d.Scope, shortRuleText(d.Content)))
	}
	for _, c := range r.contradictions {
		if scopeCovers(scope, c.Scope) {
			parts = append(parts, fmt.Sprintf("contradicts rule %d (%s) %q: approving supersedes it", c.ID, c.Scope, shortRuleText(c.Content)))
		} else {
			parts = append(parts, fmt.Sprintf("contradicts rule %d (%s) %q: approving keeps both, this one for %s", c.ID, c.Scope, shortRuleText(c.Content), scope))
		}
	}
	return strings.Join(parts, "; ")
}

// shortRuleText cuts a rule's text for a message.
func shortRuleText(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// relateToRules finds the active rules (of scopes overlapping scope) that
// content repeats or contradicts: those whose content or one of whose
// variants shares at least relatedThreshold of its words, of the same
// polarity for a repeat and of the opposite one for a contradiction.
func relateToRules(content, scope string, rules []Rule) ruleRelation {
	f := analyzeProse(content)
	var rel ruleRelation
	bestDup := 0.0
	type scored struct {
		rule Rule
		sim  float64
	}
	var contra []scored
	for _, r := range rules {
		if r.SupersededBy != 0 || !scopesOverlap(scope, r.Scope) {
			continue
		}
		same, opposite := 0.0, 0.0
		for _, text := range append([]string{r.Content}, r.Variants...) {
			rf := analyzeProse(text)
			sim := proseOverlap(f.tokens, rf.tokens)
			if rf.negative == f.negative {
				same = max(same, sim)
			} else {
				opposite = max(opposite, sim)
			}
		}
		if same >= relatedThreshold && same > bestDup {
			r := r
			rel.duplicate, bestDup = &r, same
		}
		if opposite >= relatedThreshold && opposite > same {
			contra = append(contra, scored{r, opposite})
		}
	}
	slices.SortStableFunc(contra, func(a, b scored) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return 0
	})
	for _, c := range contra {
		if rel.duplicate == nil || c.rule.ID != rel.duplicate.ID {
			rel.contradictions = append(rel.contradictions, c.rule)
		}
	}
	return rel
}
