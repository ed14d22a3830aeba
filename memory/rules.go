package memory

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Categories of rules and proposals.
const (
	// CategoryPreference is a matter of taste or style ("keep summaries
	// concise").
	CategoryPreference = "preference"
	// CategoryRule is a directive about code ("never use panic in
	// production Go code").
	CategoryRule = "rule"
	// CategoryCorrection is a fact the assistant got wrong.
	CategoryCorrection = "correction"
)

// validCategory reports whether c is one of the categories.
func validCategory(c string) bool {
	return c == CategoryPreference || c == CategoryRule || c == CategoryCorrection
}

// DefaultPriority is the priority of a rule added without one.
const DefaultPriority = 3

// MaxRuleBytes caps a rule's content and rationale.
const MaxRuleBytes = MaxCorrectionBytes

// Rule is an approved coding rule: a row of memory_store.
type Rule struct {
	ID int64 `json:"id"`
	// Category is CategoryPreference, CategoryRule or
	// CategoryCorrection.
	Category string `json:"category"`
	// Scope is "universal", "language:<lang>" or "project:<name>".
	Scope string `json:"scope"`
	// Content is the rule, in the imperative.
	Content string `json:"content"`
	// Rationale says why the rule is kept.
	Rationale string `json:"rationale"`
	// Variants are the corrections the rule came from, as the user
	// worded them.
	Variants []string `json:"source_variants"`
	// Confidence is from 0 to 1.
	Confidence float64 `json:"confidence"`
	// Priority ranks rules: 1 is the most important.
	Priority int `json:"priority"`
	// Corrections is how many corrections the rule came from.
	Corrections int `json:"corrections"`
	// Anchor is the rule's code example, or nil.
	Anchor *RuleAnchor `json:"anchor"`
	// SupersededBy is the rule that replaced this one after the user
	// approved a contradicting proposal, or 0 for an active rule.
	SupersededBy int64 `json:"superseded_by,omitempty"`
	// CreatedAt is when the rule was stored, UpdatedAt when it last
	// changed (a merge, an edit, a new anchor).
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Team is the team id of a cached team rule (see TeamRule), "" for
	// a personal rule. A team rule changes only through the team
	// database: local edits and deletions are ErrTeamRule.
	Team string `json:"team,omitempty"`
}

// RuleAnchor is the code example of a rule: the anchor columns of
// memory_store. It names a symbol rather than a line, so that edits never
// leave it pointing at the wrong place.
type RuleAnchor struct {
	// File is the example's file.
	File string `json:"file"`
	// Symbol is the example's symbol (a qualified name), or "" for the
	// whole file.
	Symbol string `json:"symbol,omitempty"`
	// Score is the anchor's quality, from 0 to 1.
	Score float64 `json:"score"`
	// Metadata is a JSON value with whatever the anchor engine keeps
	// (relevance, size and recency scores, …), or nil.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// ruleColumns are the columns scanRule reads, in order.
const ruleColumns = `id, category, scope, content, rationale, source_variants, confidence, priority, corrections,
	superseded_by, anchor_file, anchor_symbol, anchor_score, anchor_metadata, created_at, updated_at, team_id`

// sqlRowScanner is a *sql.Row or *sql.Rows.
type sqlRowScanner interface{ Scan(...any) error }

// scanRule reads one row of ruleColumns.
func scanRule(row sqlRowScanner) (Rule, error) {
	var (
		r                Rule
		variants         string
		superseded       sql.NullInt64
		file, sym, meta  sql.NullString
		team             sql.NullString
		score            sql.NullFloat64
		created, updated int64
	)
	if err := row.Scan(&r.ID, &r.Category, &r.Scope, &r.Content, &r.Rationale, &variants, &r.Confidence, &r.Priority,
		&r.Corrections, &superseded, &file, &sym, &score, &meta, &created, &updated, &team); err != nil {
		return Rule{}, err
	}
	if err := json.Unmarshal([]byte(variants), &r.Variants); err != nil {
		return Rule{}, fmt.Errorf("rule %d: source_variants: %w", r.ID, err)
	}
	if r.Variants == nil {
		r.Variants = []string{}
	}
	r.SupersededBy = superseded.Int64
	r.Team = team.String
	if file.Valid {
		r.Anchor = &RuleAnchor{File: file.String, Symbol: sym.String, Score: score.Float64}
		if meta.Valid {
			r.Anchor.Metadata = json.RawMessage(meta.String)
		}
	}
	r.CreatedAt, r.UpdatedAt = fromUnixMillis(created), fromUnixMillis(updated)
	return r, nil
}

// checkRule validates and normalises the user-settable fields of r.
func checkRule(r Rule) (Rule, error) {
	if !validCategory(r.Category) {
		return r, fmt.Errorf("category %q (want %s, %s or %s)", r.Category, CategoryPreference, CategoryRule, CategoryCorrection)
	}
	scope, err := NormalizeScope(r.Scope)
	if err != nil {
		return r, err
	}
	r.Scope = scope
	r.Content = cleanStored(r.Content)
	r.Rationale = cleanStored(r.Rationale)
	switch {
	case r.Content == "":
		return r, errors.New("rule content is empty")
	case len(r.Content) > MaxRuleBytes || len(r.Rationale) > MaxRuleBytes:
		return r, fmt.Errorf("rule content or rationale longer than %d bytes", MaxRuleBytes)
	case math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1:
		return r, fmt.Errorf("confidence %v is not between 0 and 1", r.Confidence)
	case r.Priority < 0:
		return r, fmt.Errorf("priority %d is negative", r.Priority)
	case r.Corrections < 0:
		return r, fmt.Errorf("corrections %d is negative", r.Corrections)
	}
	if r.Priority == 0 {
		r.Priority = DefaultPriority
	}
	r.Variants = cleanVariants(r.Variants)
	return r, nil
}

// checkPersonalRule is checkRule for a rule of the user's own: a team
// scope is refused (team rules are proposed to the team database).
func checkPersonalRule(r Rule) (Rule, error) {
	r, err := checkRule(r)
	if err == nil && IsTeamScope(r.Scope) {
		return r, fmt.Errorf("%w: %s is a team scope: propose the rule to the team (anchorage memory team propose)", ErrInvalidScope, r.Scope)
	}
	return r, err
}

// cleanStored makes text fit for storing: valid UTF-8, trimmed.
func cleanStored(s string) string {
	return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
}

// cleanVariants cleans each variant and drops empty ones and repeats
// (ignoring case and surrounding space), keeping the first spelling.
func cleanVariants(vs []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, v := range vs {
		v = cleanStored(v)
		k := strings.ToLower(v)
		if v == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}

// jsonList encodes a list of strings or ids, which cannot fail.
func jsonList[T string | int64](v []T) string {
	if v == nil {
		return "[]"
	}
	b, _ := json.Marshal(v) // slices of strings and integers always encode
	return string(b)
}

// AddRule stores a new rule and returns it as stored, with its id. The
// anchor and SupersededBy of r are ignored: use SetAnchor. A zero
// Priority means DefaultPriority.
func (s *Store) AddRule(ctx context.Context, r Rule) (Rule, error) {
	r, err := checkPersonalRule(r)
	if err != nil {
		return Rule{}, fmt.Errorf("add rule: %w", err)
	}
	var out Rule
	err = s.withTx(ctx, "add rule", func(tx *sql.Tx) error {
		id, err := insertRule(ctx, tx, r, s.opts.now())
		if err != nil {
			return err
		}
		out, err = ruleByID(ctx, tx, id)
		return err
	})
	if err != nil {
		return Rule{}, err
	}
	s.rulesChanged(ctx, out.ID)
	return out, nil
}

// insertRule inserts a checked rule and returns its id.
func insertRule(ctx context.Context, tx *sql.Tx, r Rule, now time.Time) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO memory_store(category, scope, content, rationale, source_variants,
			confidence, priority, corrections, created_at, updated_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Category, r.Scope, r.Content, r.Rationale, jsonList(r.Variants), r.Confidence, r.Priority, r.Corrections,
		unixMillis(now), unixMillis(now))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// ruleByID reads one rule; a missing one is ErrUnknownRule.
func ruleByID(ctx context.Context, q sqlRowQueryer, id int64) (Rule, error) {
	r, err := scanRule(q.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM memory_store WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Rule{}, ErrUnknownRule
	}
	return r, err
}

// Rule returns the rule with the given id, superseded or not.
func (s *Store) Rule(ctx context.Context, id int64) (Rule, error) {
	r, err := ruleByID(ctx, s.db, id)
	if err != nil {
		return Rule{}, s.fail(fmt.Sprintf("read rule %d", id), err)
	}
	return r, nil
}

// UpdateRule replaces the category, scope, content, rationale, variants,
// confidence, priority and correction count of the rule r.ID, and returns
// it as stored. Its anchor and SupersededBy are left as they are.
func (s *Store) UpdateRule(ctx context.Context, r Rule) (Rule, error) {
	r, err := checkRule(r)
	if err != nil {
		return Rule{}, fmt.Errorf("update rule %d: %w", r.ID, err)
	}
	var out Rule
	err = s.withTx(ctx, fmt.Sprintf("update rule %d", r.ID), func(tx *sql.Tx) error {
		if err := checkNotTeam(ctx, tx, r.ID); err != nil {
			return err
		}
		if _, err := checkPersonalRule(r); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE memory_store SET category = ?, scope = ?, content = ?, rationale = ?,
				source_variants = ?, confidence = ?, priority = ?, corrections = ?, updated_at = ?
			WHERE id = ?`,
			r.Category, r.Scope, r.Content, r.Rationale, jsonList(r.Variants), r.Confidence, r.Priority, r.Corrections,
			unixMillis(s.opts.now()), r.ID)
		if err := oneRuleRow(res, err); err != nil {
			return err
		}
		out, err = ruleByID(ctx, tx, r.ID)
		return err
	})
	if err != nil {
		return Rule{}, err
	}
	s.rulesChanged(ctx, out.ID)
	return out, nil
}

// oneRuleRow checks that an update or delete of a rule touched a row.
func oneRuleRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrUnknownRule
	}
	return nil
}

// DeleteRule deletes a rule. Rules it superseded become active again, and
// proposals that named it no longer do.
func (s *Store) DeleteRule(ctx context.Context, id int64) error {
	changed := []int64{id}
	err := s.withTx(ctx, fmt.Sprintf("delete rule %d", id), func(tx *sql.Tx) error {
		if err := checkNotTeam(ctx, tx, id); err != nil {
			return err
		}
		revived, err := queryIDs(ctx, tx, `SELECT id FROM memory_store WHERE superseded_by = ?`, id)
		if err != nil {
			return err
		}
		changed = append(changed, revived...)
		res, err := tx.ExecContext(ctx, `DELETE FROM memory_store WHERE id = ?`, id)
		return oneRuleRow(res, err)
	})
	if err != nil {
		return err
	}
	s.rulesChanged(ctx, changed...)
	return nil
}

// queryIDs runs a query of one id column.
func queryIDs(ctx context.Context, q sqlQueryer, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// SetAnchor sets the code example of rule id.
func (s *Store) SetAnchor(ctx context.Context, id int64, a RuleAnchor) error {
	what := fmt.Sprintf("set anchor of rule %d", id)
	switch {
	case strings.TrimSpace(a.File) == "":
		return fmt.Errorf("%s: no file", what)
	case math.IsNaN(a.Score) || a.Score < 0 || a.Score > 1:
		return fmt.Errorf("%s: score %v is not between 0 and 1", what, a.Score)
	case a.Metadata != nil && !json.Valid(a.Metadata):
		return fmt.Errorf("%s: metadata is not valid JSON", what)
	}
	var meta, sym any
	if a.Metadata != nil {
		meta = string(a.Metadata)
	}
	if a.Symbol != "" {
		sym = a.Symbol
	}
	err := s.withTx(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE memory_store SET anchor_file = ?, anchor_symbol = ?, anchor_score = ?,
				anchor_metadata = ?, updated_at = ?
			WHERE id = ?`, a.File, sym, a.Score, meta, unixMillis(s.opts.now()), id)
		return oneRuleRow(res, err)
	})
	if err != nil {
		return err
	}
	s.rulesChanged(ctx, id)
	return nil
}

// ClearAnchor removes the code example of rule id (for example when its
// symbol disappeared and no other was found).
func (s *Store) ClearAnchor(ctx context.Context, id int64) error {
	err := s.withTx(ctx, fmt.Sprintf("clear anchor of rule %d", id), func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE memory_store SET anchor_file = NULL, anchor_symbol = NULL, anchor_score = NULL,
				anchor_metadata = NULL, updated_at = ?
			WHERE id = ?`, unixMillis(s.opts.now()), id)
		return oneRuleRow(res, err)
	})
	if err != nil {
		return err
	}
	s.rulesChanged(ctx, id)
	return nil
}

// RuleFilter selects rules for Rules. The zero value selects every active
// rule.
type RuleFilter struct {
	// Scopes keeps the rules of these scopes; an entry "language" or
	// "project" keeps every scope of that kind. Empty keeps all.
	Scopes []string
	// AnchorFile keeps the rules anchored in this file.
	AnchorFile string
	// Anchored keeps the rules that have an anchor.
	Anchored bool
	// IncludeSuperseded keeps superseded rules too.
	IncludeSuperseded bool
}

// Rules returns the rules f selects, most important first (by priority,
// then confidence, then age).
func (s *Store) Rules(ctx context.Context, f RuleFilter) ([]Rule, error) {
	var (
		where []string
		args  []any
	)
	if !f.IncludeSuperseded {
		where = append(where, "superseded_by IS NULL")
	}
	if len(f.Scopes) > 0 {
		var or []string
		for _, sc := range f.Scopes {
			switch k := strings.ToLower(strings.TrimSpace(sc)); k {
			case KindLanguage, KindProject:
				or = append(or, "scope LIKE ? ESCAPE '\\'")
				args = append(args, k+":%")
			case ScopeTeam:
				or = append(or, "team_id IS NOT NULL")
			default:
				n, err := NormalizeScope(sc)
				if err != nil {
					return nil, fmt.Errorf("list rules: %w", err)
				}
				or = append(or, "scope = ?")
				args = append(args, n)
			}
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	if f.AnchorFile != "" {
		where = append(where, "anchor_file = ?")
		args = append(args, f.AnchorFile)
	}
	if f.Anchored {
		where = append(where, "anchor_file IS NOT NULL")
	}
	q := `SELECT ` + ruleColumns + ` FROM memory_store`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY priority, confidence DESC, id"
	rules, err := queryRules(ctx, s.db, q, args...)
	if err != nil {
		return nil, s.fail("list rules", err)
	}
	return rules, nil
}

// RulesFor returns the active rules that apply to a file in language lang
// of project project: universal rules and those of the language and the
// project (either may be ""), and for a member of a team (WithTeam) the
// team rules of the same scopes.
func (s *Store) RulesFor(ctx context.Context, lang, project string) ([]Rule, error) {
	scopes := s.ScopesFor(lang, project)
	if !s.opts.team {
		return s.Rules(ctx, RuleFilter{Scopes: scopes})
	}
	// "team" as a filter is every team rule: ask for the scopes one by
	// one through their personal form and the team ones.
	rules, err := s.Rules(ctx, RuleFilter{Scopes: ScopesFor(lang, project)})
	if err != nil {
		return nil, err
	}
	team, err := s.Rules(ctx, RuleFilter{Scopes: []string{ScopeTeam}})
	if err != nil {
		return nil, err
	}
	for _, r := range team {
		if slices.Contains(scopes, r.Scope) {
			rules = append(rules, r)
		}
	}
	slices.SortStableFunc(rules, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.ID, b.ID))
	})
	return rules, nil
}

// sqlQueryer is a *sql.DB or a *sql.Tx.
type sqlQueryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// queryRules runs a query of ruleColumns.
func queryRules(ctx context.Context, q sqlQueryer, query string, args ...any) ([]Rule, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Rule{}
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
