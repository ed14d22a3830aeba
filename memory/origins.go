package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// RuleCorrections returns the corrections rule id came from: those of the
// proposals approved as the rule or merged into it, oldest first.
func (s *Store) RuleCorrections(ctx context.Context, id int64) ([]Correction, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+correctionColumns+` FROM corrections c
		JOIN proposals p ON p.id = c.proposal_id
		WHERE p.rule_id = ? ORDER BY c.created_at, c.id`, id)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("read the corrections of rule %d", id), err)
	}
	defer rows.Close()
	var out []Correction
	for rows.Next() {
		c, err := scanCorrection(rows)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("read the corrections of rule %d", id), err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Sprintf("read the corrections of rule %d", id), err)
	}
	return out, nil
}

// RuleOrigins returns where rule id's corrections were made (see
// AnchorOptions.Origins): the files and first lines of its corrections and
// of the proposals approved as it, each once.
func (s *Store) RuleOrigins(ctx context.Context, id int64) ([]AnchorOrigin, error) {
	var o originSet
	rows, err := s.db.QueryContext(ctx, `SELECT file, "range" FROM proposals WHERE rule_id = ? AND file != ''`, id)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("read the origins of rule %d", id), err)
	}
	for rows.Next() {
		var file string
		var rng *string
		if err := rows.Scan(&file, &rng); err != nil {
			rows.Close()
			return nil, s.fail(fmt.Sprintf("read the origins of rule %d", id), err)
		}
		var r *Range
		if rng != nil {
			var x Range
			if json.Unmarshal([]byte(*rng), &x) == nil {
				r = &x
			}
		}
		o.add(file, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Sprintf("read the origins of rule %d", id), err)
	}
	cs, err := s.RuleCorrections(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		o.add(c.File, c.Range)
	}
	return o.list, nil
}

// ProposalOrigins returns where a proposal's corrections were made.
func (s *Store) ProposalOrigins(ctx context.Context, p Proposal) ([]AnchorOrigin, error) {
	var o originSet
	o.add(p.File, p.Range)
	rows, err := s.db.QueryContext(ctx, `SELECT `+correctionColumns+` FROM corrections c WHERE c.proposal_id = ?`, p.ID)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("read the corrections of proposal %d", p.ID), err)
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanCorrection(rows)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("read the corrections of proposal %d", p.ID), err)
		}
		o.add(c.File, c.Range)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Sprintf("read the corrections of proposal %d", p.ID), err)
	}
	return o.list, nil
}

// originSet gathers origins once each; a file with a line replaces the
// same file without one.
type originSet struct{ list []AnchorOrigin }

func (o *originSet) add(file string, r *Range) {
	file = strings.TrimSpace(file)
	if file == "" || filepath.IsAbs(file) {
		return
	}
	file = path.Clean(filepath.ToSlash(file))
	line := 0
	if r != nil {
		line = r.Start.Line + 1
	}
	for i, x := range o.list {
		if x.File != file {
			continue
		}
		if x.Line == line || line == 0 {
			return
		}
		if x.Line == 0 {
			o.list[i].Line = line
			return
		}
	}
	o.list = append(o.list, AnchorOrigin{File: file, Line: line})
}
