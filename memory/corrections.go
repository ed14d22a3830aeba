package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// MaxCorrectionBytes is the longest correction text accepted, in bytes.
// A correction is a sentence or two; a longer text is most likely a paste
// by mistake, and is refused rather than cut.
const MaxCorrectionBytes = 10 << 10

// Position is a place in a file: a zero-based line and character offset,
// as the Language Server Protocol counts them.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a file, end exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// valid reports whether r has no negative numbers and does not end
// before it starts.
func (r Range) valid() bool {
	s, e := r.Start, r.End
	if s.Line < 0 || s.Character < 0 || e.Line < 0 || e.Character < 0 {
		return false
	}
	return s.Line < e.Line || s.Line == e.Line && s.Character <= e.Character
}

// Correction is something the user told the assistant it got wrong.
type Correction struct {
	ID int64 `json:"id"`
	// Text is the correction as the user wrote it.
	Text string `json:"text"`
	// File is the file the correction was made in, if any.
	File string `json:"file,omitempty"`
	// Range is the span of File it was about, if known.
	Range *Range `json:"range,omitempty"`
	// Language is the language of File; RecordCorrection infers it from
	// File's extension when empty.
	Language string `json:"language,omitempty"`
	// Project is the project it was made in; RecordCorrection uses the
	// Store's project (WithProject) when empty.
	Project string `json:"project,omitempty"`
	// Session labels the session; RecordCorrection uses the Store's
	// session (WithSession) when empty.
	Session string `json:"session,omitempty"`
	// ProposalID is the proposal the correction went into, if any.
	ProposalID int64 `json:"proposal_id,omitempty"`
	// CreatedAt is when it was recorded.
	CreatedAt time.Time `json:"created_at"`
}

// RecordCorrection stores a correction and returns it as stored, with its
// id. It is committed when RecordCorrection returns. Empty text is
// ErrEmptyCorrection; text over MaxCorrectionBytes is
// ErrCorrectionTooLong.
func (s *Store) RecordCorrection(ctx context.Context, c Correction) (Correction, error) {
	if n := len(c.Text); n > MaxCorrectionBytes {
		return Correction{}, fmt.Errorf("record correction: %w: %d bytes, the limit is %d", ErrCorrectionTooLong, n, MaxCorrectionBytes)
	}
	c.Text = cleanStored(c.Text)
	if c.Text == "" {
		return Correction{}, fmt.Errorf("record correction: %w", ErrEmptyCorrection)
	}
	if c.Range != nil && !c.Range.valid() {
		return Correction{}, fmt.Errorf("record correction: invalid range %+v", *c.Range)
	}
	c.File = cleanStored(c.File)
	if c.Language != "" {
		c.Language = NormalizeLanguage(c.Language)
	} else {
		c.Language = LanguageOfFile(c.File)
	}
	if c.Project == "" {
		c.Project = s.opts.project
	} else {
		p, err := checkProjectName(c.Project)
		if err != nil {
			return Correction{}, fmt.Errorf("record correction: %w", err)
		}
		c.Project = p
	}
	c.Session = cleanStored(c.Session)
	switch c.Session {
	case AllSessions:
		c.Session = ""
	case "":
		c.Session = s.opts.session
	}
	if len(c.Session) > MaxSessionBytes || strings.IndexFunc(c.Session, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return Correction{}, fmt.Errorf("record correction: %w: %.40q (at most %d bytes of printable text)", ErrInvalidSession, c.Session, MaxSessionBytes)
	}
	c.ProposalID = 0
	c.CreatedAt = fromUnixMillis(unixMillis(s.opts.now()))
	var rng any
	if c.Range != nil {
		b, err := json.Marshal(c.Range)
		if err != nil {
			return Correction{}, fmt.Errorf("record correction: %w", err)
		}
		rng = string(b)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO corrections(text, file, "range", language, project, session, created_at)
		VALUES(?, ?, ?, ?, ?, ?, ?)`, c.Text, c.File, rng, c.Language, c.Project, c.Session, unixMillis(c.CreatedAt))
	if err != nil {
		return Correction{}, s.fail("record correction", err)
	}
	if c.ID, err = res.LastInsertId(); err != nil {
		return Correction{}, s.fail("record correction", err)
	}
	return c, nil
}

// correctionColumns are the columns scanCorrection reads, in order.
const correctionColumns = `c.id, c.text, c.file, c."range", c.language, c.project, c.session, c.proposal_id, c.created_at`

// scanCorrection reads one row of correctionColumns.
func scanCorrection(row sqlRowScanner) (Correction, error) {
	var (
		c       Correction
		rng     sql.NullString
		prop    sql.NullInt64
		created int64
	)
	if err := row.Scan(&c.ID, &c.Text, &c.File, &rng, &c.Language, &c.Project, &c.Session, &prop, &created); err != nil {
		return Correction{}, err
	}
	if rng.Valid {
		var r Range
		if err := json.Unmarshal([]byte(rng.String), &r); err == nil {
			c.Range = &r
		}
	}
	c.ProposalID = prop.Int64
	c.CreatedAt = fromUnixMillis(created)
	return c, nil
}

// openCorrectionsQuery selects the corrections not yet decided: in no
// proposal, or in a pending one.
const openCorrectionsQuery = `SELECT ` + correctionColumns + ` FROM corrections c
	LEFT JOIN proposals p ON p.id = c.proposal_id
	WHERE (c.proposal_id IS NULL OR p.status = 'pending')`

// OpenCorrections returns the corrections Propose considers: those of the
// Store's session (all, without WithSession) that are in no proposal yet
// or in a pending one, oldest first.
func (s *Store) OpenCorrections(ctx context.Context) ([]Correction, error) {
	cs, err := openCorrections(ctx, s.db, s.opts.session, 0)
	if err != nil {
		return nil, s.fail("list open corrections", err)
	}
	return cs, nil
}

// openCorrections returns the open corrections of session (all for ""),
// oldest first; limit > 0 keeps the newest limit of them.
func openCorrections(ctx context.Context, q sqlQueryer, session string, limit int) ([]Correction, error) {
	query := openCorrectionsQuery
	var args []any
	if session != "" {
		query += ` AND c.session = ?`
		args = append(args, session)
	}
	query += ` ORDER BY c.id DESC`
	if limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Correction{}
	for rows.Next() {
		c, err := scanCorrection(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Oldest first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// sqlIDList formats ids for an SQL IN list; ids are integers, so this is
// safe to splice into a query.
func sqlIDList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}
