package memory

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Approval is what approving a proposal did.
type Approval struct {
	// Proposal is the proposal, now approved.
	Proposal Proposal `json:"proposal"`
	// Rule is the rule it became, or the rule it merged into.
	Rule Rule `json:"rule"`
	// Merged is true when the proposal repeated Rule, an existing rule,
	// whose variants, confidence and correction count it updated.
	Merged bool `json:"merged"`
	// Superseded lists the rules the proposal contradicted that Rule now
	// replaces (Rule.SupersededBy is set on them).
	Superseded []int64 `json:"superseded,omitempty"`
	// KeptConflicting lists the rules the proposal contradicted that stay
	// active, because their scope is wider than or apart from Rule's:
	// Rule is the exception within its scope.
	KeptConflicting []int64 `json:"kept_conflicting,omitempty"`
}

// Approve approves a pending proposal and stores its rule. scope, if not
// "", overrides the proposal's scope: "universal", "language" (the
// proposal's language), "project" (its project, else the Store's), or a
// full "language:<lang>" or "project:<name>". The approval is committed
// when Approve returns.
//
// A proposal that repeats an active rule of an overlapping scope merges
// into it: the variants are joined, the confidences combined (1 − (1 −
// a)(1 − b)), the correction counts added, the better priority kept, and
// the rule's scope widened when the approved scope covers it. A proposal
// that contradicts an active rule ("Use X" against "Never use X"), which
// Propose flagged in Contradicts, is approved as the user's newer
// decision: the contradicted rule is superseded (kept, but inactive) when
// the new rule's scope covers its scope, and kept active otherwise (a
// project rule contradicting a universal one is an exception for that
// project, not a replacement everywhere).
//
// An unknown id is ErrUnknownProposal; a proposal already approved or
// rejected is ErrAlreadyDecided.
func (s *Store) Approve(ctx context.Context, id int64, scope string) (Approval, error) {
	var a Approval
	err := s.withTx(ctx, fmt.Sprintf("approve proposal %d", id), func(tx *sql.Tx) error {
		var err error
		if a, err = s.approveTx(ctx, tx, id, scope); err != nil {
			return err
		}
		return relatePending(ctx, tx)
	})
	if err != nil {
		return Approval{}, err
	}
	s.rulesChanged(ctx, a.changedRules()...)
	return a, nil
}

// changedRules are the rules an approval added, changed or superseded.
func (a Approval) changedRules() []int64 {
	return append([]int64{a.Rule.ID}, a.Superseded...)
}

// ApproveAll approves every pending proposal, strongest first, with the
// same scope override as Approve, all in one transaction: if one cannot
// be approved, none is. Proposals that contradict another pending
// proposal (ContradictsProposal) are left pending: approving both would
// keep only the later, so the user chooses. It returns the approvals in
// order.
func (s *Store) ApproveAll(ctx context.Context, scope string) ([]Approval, error) {
	out := []Approval{}
	err := s.withTx(ctx, "approve all proposals", func(tx *sql.Tx) error {
		ps, err := queryProposals(ctx, tx, `SELECT `+proposalColumns+` FROM proposals WHERE status = 'pending' ORDER BY priority, id`)
		if err != nil {
			return err
		}
		against := pendingContradictions(ps)
		for _, p := range ps {
			if len(against[p.ID]) > 0 {
				continue
			}
			a, err := s.approveTx(ctx, tx, p.ID, scope)
			if err != nil {
				return fmt.Errorf("proposal %d: %w", p.ID, err)
			}
			out = append(out, a)
		}
		return relatePending(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	var changed []int64
	for _, a := range out {
		changed = append(changed, a.changedRules()...)
	}
	s.rulesChanged(ctx, changed...)
	return out, nil
}

// Reject rejects a pending proposal; its corrections are not proposed
// again. An unknown id is ErrUnknownProposal; a proposal already approved
// or rejected is ErrAlreadyDecided.
func (s *Store) Reject(ctx context.Context, id int64) error {
	return s.withTx(ctx, fmt.Sprintf("reject proposal %d", id), func(tx *sql.Tx) error {
		p, err := proposalByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := checkPending(p); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE proposals SET status = 'rejected', contradicts_proposal = NULL, decided_at = ? WHERE id = ?`,
			unixMillis(s.opts.now()), id); err != nil {
			return err
		}
		return relatePending(ctx, tx)
	})
}

// checkPending returns ErrAlreadyDecided for a decided proposal.
func checkPending(p Proposal) error {
	switch p.Status {
	case StatusPending:
		return nil
	case StatusApproved:
		return fmt.Errorf("%w: it was approved as rule %d", ErrAlreadyDecided, p.RuleID)
	}
	return fmt.Errorf("%w: it was %s", ErrAlreadyDecided, p.Status)
}

// approvalScope resolves a scope override for proposal p.
func (s *Store) approvalScope(p Proposal, override string) (string, error) {
	switch k := strings.ToLower(strings.TrimSpace(override)); k {
	case "":
		return p.Scope, nil
	case KindLanguage:
		if p.Language == "" {
			return "", fmt.Errorf("%w: no language known for proposal %d: give language:<name>", ErrInvalidScope, p.ID)
		}
		return NormalizeScope(KindLanguage + ":" + p.Language)
	case KindProject:
		project := p.Project
		if project == "" {
			project = s.opts.project
		}
		if project == "" {
			return "", fmt.Errorf("%w: no project known for proposal %d: give project:<name>", ErrInvalidScope, p.ID)
		}
		return NormalizeScope(KindProject + ":" + project)
	}
	return NormalizeScope(override)
}

// approveTx approves proposal id in tx.
func (s *Store) approveTx(ctx context.Context, tx *sql.Tx, id int64, override string) (Approval, error) {
	p, err := proposalByID(ctx, tx, id)
	if err != nil {
		return Approval{}, err
	}
	if err := checkPending(p); err != nil {
		return Approval{}, err
	}
	scope, err := s.approvalScope(p, override)
	if err != nil {
		return Approval{}, err
	}
	if IsTeamScope(scope) {
		return Approval{}, fmt.Errorf("%w: %s is a team scope: propose the rule to the team (anchorage memory team propose)", ErrInvalidScope, scope)
	}
	now := s.opts.now()
	// Team rules change only through the team database: a personal
	// approval neither merges into nor supersedes one.
	rules, err := queryRules(ctx, tx, `SELECT `+ruleColumns+` FROM memory_store WHERE superseded_by IS NULL AND team_id IS NULL ORDER BY id`)
	if err != nil {
		return Approval{}, err
	}
	rel := relateToRules(p.Content, scope, rules)
	a := Approval{}
	var ruleID int64
	if d := rel.duplicate; d != nil {
		merged := *d
		merged.Variants = cleanVariants(append(append([]string{}, d.Variants...), p.Variants...))
		merged.Confidence = min(0.99, 1-(1-d.Confidence)*(1-p.Confidence))
		merged.Corrections = d.Corrections + p.Frequency
		merged.Priority = min(d.Priority, p.Priority)
		if scope != d.Scope && scopeCovers(scope, d.Scope) {
			merged.Scope = scope
		}
		if merged.Rationale == "" {
			merged.Rationale = p.Rationale
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_store SET scope = ?, rationale = ?, source_variants = ?, confidence = ?,
				priority = ?, corrections = ?, updated_at = ? WHERE id = ?`,
			merged.Scope, merged.Rationale, jsonList(merged.Variants), merged.Confidence, merged.Priority, merged.Corrections,
			unixMillis(now), d.ID); err != nil {
			return Approval{}, err
		}
		ruleID, a.Merged = d.ID, true
	} else {
		r, err := checkRule(Rule{
			Category: p.Category, Scope: scope, Content: p.Content, Rationale: p.Rationale, Variants: p.Variants,
			Confidence: p.Confidence, Priority: p.Priority, Corrections: p.Frequency,
		})
		if err != nil {
			return Approval{}, err
		}
		if ruleID, err = insertRule(ctx, tx, r, now); err != nil {
			return Approval{}, err
		}
	}
	finalScope := scope
	if a.Merged {
		var sc string
		if err := tx.QueryRowContext(ctx, `SELECT scope FROM memory_store WHERE id = ?`, ruleID).Scan(&sc); err != nil {
			return Approval{}, err
		}
		finalScope = sc
	}
	for _, c := range rel.contradictions {
		if c.ID == ruleID {
			continue
		}
		if scopeCovers(finalScope, c.Scope) {
			if _, err := tx.ExecContext(ctx, `UPDATE memory_store SET superseded_by = ?, updated_at = ? WHERE id = ?`,
				ruleID, unixMillis(now), c.ID); err != nil {
				return Approval{}, err
			}
			a.Superseded = append(a.Superseded, c.ID)
		} else {
			a.KeptConflicting = append(a.KeptConflicting, c.ID)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE proposals SET status = 'approved', scope = ?, rule_id = ?, decided_at = ?,
			duplicate_of = ?, contradicts = ?, contradicts_proposal = NULL, conflict = ? WHERE id = ?`,
		scope, ruleID, unixMillis(now), nullID(rel.duplicateID()), nullID(rel.contradictionID()), rel.message(scope), id); err != nil {
		return Approval{}, err
	}
	if a.Proposal, err = proposalByID(ctx, tx, id); err != nil {
		return Approval{}, err
	}
	if a.Rule, err = ruleByID(ctx, tx, ruleID); err != nil {
		return Approval{}, err
	}
	return a, nil
}
