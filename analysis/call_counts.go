package analysis

import (
	"context"
	"fmt"
	"strings"
)

// CallName is a called name as written at call sites: Copy with the
// qualifier io for io.Copy(…), Qualifier "" for a bare call.
type CallName struct {
	Name, Qualifier string
}

// QualifiedCallCounts counts the call sites, in the whole workspace, of
// each of names written with a qualifier (pkg.Name, obj.Name), by name
// and qualifier. Bare calls are not counted.
func (s *indexStore) QualifiedCallCounts(ctx context.Context, names []string) (map[CallName]int, error) {
	out := map[CallName]int{}
	if len(names) == 0 {
		return out, nil
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	q := `SELECT dst_name, qualifier, count(*) FROM edges WHERE kind = ? AND qualifier != '' AND dst_name IN (?` +
		strings.Repeat(", ?", len(names)-1) + `) GROUP BY dst_name, qualifier`
	rows, err := s.db.QueryContext(ctx, q, append([]any{string(EdgeCalls)}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("count calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c CallName
		var n int
		if err := rows.Scan(&c.Name, &c.Qualifier, &n); err != nil {
			return nil, fmt.Errorf("count calls: %w", err)
		}
		out[c] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count calls: %w", err)
	}
	return out, nil
}
