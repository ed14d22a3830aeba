package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// FileModTimes returns the modification times (Unix nanoseconds) of the
// indexed files, in no particular order.
func (s *indexStore) FileModTimes(ctx context.Context) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT mtime FROM files`)
	if err != nil {
		return nil, fmt.Errorf("read file times: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var ns int64
		if err := rows.Scan(&ns); err != nil {
			return nil, fmt.Errorf("read file times: %w", err)
		}
		out = append(out, ns)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read file times: %w", err)
	}
	return out, nil
}

// FileHash returns the content hash (xxhash64) of the indexed file at the
// root-relative path, and false when the file is not indexed.
func (s *indexStore) FileHash(ctx context.Context, path string) (uint64, bool, error) {
	var h int64
	err := s.db.QueryRowContext(ctx, `SELECT hash FROM files WHERE path = ?`, path).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("hash of %s: %w", path, err)
	}
	return uint64(h), true, nil
}

// DefinedNames returns which of lnames (lower-case symbol names) name a
// symbol of the workspace other than a module, each once, in no
// particular order.
func (s *indexStore) DefinedNames(ctx context.Context, lnames []string) ([]string, error) {
	if len(lnames) == 0 {
		return nil, nil
	}
	args := make([]any, len(lnames))
	for i, n := range lnames {
		args[i] = n
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT lname FROM nodes WHERE kind != 'module' AND lname IN (?`+
		strings.Repeat(",?", len(lnames)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("defined names: %w", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("defined names: %w", err)
		}
		found = append(found, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("defined names: %w", err)
	}
	return found, nil
}

// SymbolName is a symbol's id and name.
type SymbolName struct {
	ID   int64
	Name string
}

// SymbolNamesMatching returns at most limit symbols other than modules
// whose lower-case names match match, an FTS5 query over the names'
// trigrams (such as `("wrap" OR "wrp") AND ("err")`), in no particular
// order.
func (s *indexStore) SymbolNamesMatching(ctx context.Context, match string, limit int) ([]SymbolName, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.name FROM nodes n
		WHERE n.id IN (SELECT rowid FROM name_trigrams WHERE name_trigrams MATCH ?) AND n.kind != 'module'
		LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("names matching %s: %w", match, err)
	}
	defer rows.Close()
	var out []SymbolName
	for rows.Next() {
		var n SymbolName
		if err := rows.Scan(&n.ID, &n.Name); err != nil {
			return nil, fmt.Errorf("names matching %s: %w", match, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("names matching %s: %w", match, err)
	}
	return out, nil
}
