package analysis

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// SymbolInfo is a stored symbol with the file that defines it.
type SymbolInfo struct {
	ID            int64  `json:"-"`
	Parent        int64  `json:"-"`
	Kind          Kind   `json:"kind"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Module        string `json:"module"`
	Path          string `json:"path"`
	Language      string `json:"language"`
	Range         Range  `json:"-"`
	NameRange     Range  `json:"-"`
	Signature     string `json:"signature,omitempty"`
	Doc           string `json:"doc,omitempty"`
}

// MarshalJSON writes a symbol with 1-based line and column numbers.
func (s SymbolInfo) MarshalJSON() ([]byte, error) {
	type plain SymbolInfo
	return json.Marshal(struct {
		plain
		Line    int `json:"line"`
		Column  int `json:"column"`
		EndLine int `json:"end_line"`
	}{plain(s), s.Range.Start.Line + 1, s.Range.Start.Column + 1, s.Range.End.Line + 1})
}

// Owner returns the type a method belongs to ("UserRepository" for
// UserRepository.FindByID), or "" for symbols that are not members.
func (s SymbolInfo) Owner() string {
	if s.Kind != KindMethod {
		return ""
	}
	q := strings.TrimSuffix(s.QualifiedName, "."+s.Name)
	if q == s.QualifiedName {
		return ""
	}
	return lastIdentifier(q)
}

const symbolColumns = `n.id, coalesce(n.parent, 0), n.kind, n.name, n.qualified_name, n.module, f.path, f.language,
	n.start_line, n.start_col, n.start_byte, n.end_line, n.end_col, n.end_byte, n.signature, n.doc,
	n.name_line, n.name_col, n.name_end_line, n.name_end_col`

func scanSymbol(rows interface{ Scan(...any) error }) (SymbolInfo, error) {
	var s SymbolInfo
	var kind string
	err := rows.Scan(&s.ID, &s.Parent, &kind, &s.Name, &s.QualifiedName, &s.Module, &s.Path, &s.Language,
		&s.Range.Start.Line, &s.Range.Start.Column, &s.Range.Start.Offset,
		&s.Range.End.Line, &s.Range.End.Column, &s.Range.End.Offset, &s.Signature, &s.Doc,
		&s.NameRange.Start.Line, &s.NameRange.Start.Column, &s.NameRange.End.Line, &s.NameRange.End.Column)
	s.Kind = Kind(kind)
	return s, err
}

func (s *indexStore) querySymbols(ctx context.Context, where string, args ...any) ([]SymbolInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+symbolColumns+` FROM nodes n JOIN files f ON f.id = n.file_id WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SymbolInfo
	for rows.Next() {
		sym, err := scanSymbol(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sym)
	}
	return out, rows.Err()
}

// Symbol returns the symbol with the given id.
func (s *indexStore) Symbol(ctx context.Context, id int64) (SymbolInfo, bool, error) {
	syms, err := s.querySymbols(ctx, `n.id = ?`, id)
	if err != nil || len(syms) == 0 {
		return SymbolInfo{}, false, err
	}
	return syms[0], true, nil
}

// Lookup finds the definitions a user means by a symbol argument: a name
// (FindByID), a qualified name (UserRepository.FindByID, users.NewService)
// or a module-qualified member (users.UserRepository.FindByID). Names match
// exactly, ignoring case only when nothing matches with case.
func (s *indexStore) Lookup(ctx context.Context, symbol string) ([]SymbolInfo, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" || len(symbol) > MaxNameQuery {
		return nil, nil
	}
	name := symbol
	if i := strings.LastIndexAny(symbol, ".:"); i >= 0 {
		name = symbol[i+1:]
	}
	cands, err := s.querySymbols(ctx, `n.lname = ? AND n.kind != 'module' ORDER BY f.path, n.start_byte`, foldName(name))
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", symbol, err)
	}
	if name != symbol {
		cands = filter(cands, func(c SymbolInfo) bool {
			return strings.EqualFold(c.QualifiedName, symbol) ||
				strings.EqualFold(c.Module+"."+c.QualifiedName, symbol) ||
				strings.HasSuffix(strings.ToLower(c.QualifiedName), "."+strings.ToLower(symbol))
		})
	}
	exact := filter(cands, func(c SymbolInfo) bool { return c.Name == name })
	if len(exact) > 0 {
		return exact, nil
	}
	return cands, nil
}

func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// MatchKind says how a symbol matched a search, best first.
type MatchKind int

// Match kinds, in rank order.
const (
	MatchExact MatchKind = iota
	MatchPrefix
	MatchInitials
	MatchSubstring
)

func (m MatchKind) String() string {
	return [...]string{"exact", "prefix", "initials", "substring"}[m]
}

// MarshalText makes match kinds readable in JSON.
func (m MatchKind) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// SymbolMatch is a symbol found by Symbols, with how it matched.
type SymbolMatch struct {
	SymbolInfo
	Match MatchKind `json:"match"`
}

// MarshalJSON writes the symbol with how it matched.
func (m SymbolMatch) MarshalJSON() ([]byte, error) {
	sym, err := m.SymbolInfo.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(append(sym[:len(sym)-1], `,"match":"`...), m.Match.String()+`"}`...), nil
}

// MaxNameQuery is the longest symbol name Lookup and Symbols look for:
// longer queries (a pasted file, a runaway client) find nothing, and are
// answered before any of them reaches the database.
const MaxNameQuery = 4096

// Symbols searches symbol names: exact matches first, then prefixes, then
// camel-case or snake-case initials (FBI finds FindByID), then substrings;
// all ignoring case, capped at limit (≤ 0 means 200). A query longer than
// MaxNameQuery finds nothing.
func (s *indexStore) Symbols(ctx context.Context, query string, limit int) ([]SymbolMatch, error) {
	query = strings.TrimSpace(query)
	if len(query) > MaxNameQuery {
		return nil, nil
	}
	q := foldName(query)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = 200
	}
	var out []SymbolMatch
	seen := map[int64]bool{}
	add := func(kind MatchKind, where string, args ...any) error {
		if len(out) >= limit {
			return nil
		}
		syms, err := s.querySymbols(ctx, where+fmt.Sprintf(` AND n.kind != 'module' LIMIT %d`, limit*2), args...)
		if err != nil {
			return fmt.Errorf("search symbols %q: %w", query, err)
		}
		var tier []SymbolMatch
		for _, sym := range syms {
			if !seen[sym.ID] {
				seen[sym.ID] = true
				tier = append(tier, SymbolMatch{sym, kind})
			}
		}
		sortTier(tier, query)
		if len(tier) > limit-len(out) {
			tier = tier[:limit-len(out)]
		}
		out = append(out, tier...)
		return nil
	}
	upper := q + "\U0010FFFF"
	if err := add(MatchExact, `n.lname = ?`, q); err != nil {
		return nil, err
	}
	if err := add(MatchPrefix, `n.lname > ? AND n.lname < ?`, q, upper); err != nil {
		return nil, err
	}
	if isWord(q) {
		if err := add(MatchInitials, `n.initials >= ? AND n.initials < ?`, q, upper); err != nil {
			return nil, err
		}
	}
	// Substrings of three characters or more come from the trigram index;
	// shorter ones need a scan.
	substring := `instr(n.lname, ?) > 1`
	args := []any{q}
	if utf8.RuneCountInString(q) >= 3 {
		substring = `n.id IN (SELECT rowid FROM name_trigrams WHERE name_trigrams MATCH ?) AND ` + substring
		args = []any{`"` + strings.ReplaceAll(q, `"`, `""`) + `"`, q}
	}
	if err := add(MatchSubstring, substring, args...); err != nil {
		return nil, err
	}
	return out, nil
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// sortTier orders symbols of one match tier: names matching the query's
// case first, then shorter names, types and functions before members, then
// by path and position.
func sortTier(tier []SymbolMatch, query string) {
	sort.SliceStable(tier, func(i, j int) bool {
		a, b := tier[i], tier[j]
		ac, bc := strings.HasPrefix(a.Name, query), strings.HasPrefix(b.Name, query)
		if ac != bc {
			return ac
		}
		if len(a.Name) != len(b.Name) {
			return len(a.Name) < len(b.Name)
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Range.Start.Offset < b.Range.Start.Offset
	})
}

// CallSite is one call from a caller to a callee, at a line of the
// caller's file.
type CallSite struct {
	// Caller is the symbol making the call (a module for top-level code).
	Caller SymbolInfo `json:"caller"`
	// Callee is the definition called; nil when the called name is defined
	// nowhere in the workspace.
	Callee *SymbolInfo `json:"callee,omitempty"`
	// Name and Qualifier are the call as written (repo.FindByID).
	Name      string `json:"name"`
	Qualifier string `json:"qualifier,omitempty"`
	// Path, Line and Column locate the call, 1-based.
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Ambiguous is set when several definitions fit the call equally well
	// and the call is listed for each of them.
	Ambiguous bool `json:"ambiguous,omitempty"`
}

// edgeRow is a stored reference with its source symbol.
type edgeRow struct {
	source    SymbolInfo
	kind      EdgeKind
	name      string
	qualifier string
	subject   string
	line, col int
}

func (s *indexStore) queryEdges(ctx context.Context, where string, args ...any) ([]edgeRow, error) {
	// The source's signature and doc are left out: edge queries can return
	// thousands of rows and their callers do not show them. The rows are
	// read through SQLite's own statement rather than database/sql, whose
	// Scan costs more than the query for a common name.
	query := `SELECT n.id, coalesce(n.parent, 0), n.kind, n.name, n.qualified_name, n.module, f.path, f.language,
		n.start_line, n.start_col, n.start_byte, n.end_line, n.end_col, n.end_byte,
		n.name_line, n.name_col, n.name_end_line, n.name_end_col, e.kind, e.dst_name, e.qualifier, e.subject, e.line, e.col
		FROM edges e JOIN nodes n ON n.id = e.src JOIN files f ON f.id = n.file_id WHERE ` + where
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var out []edgeRow
	err = conn.Raw(func(dc any) error {
		raw := dc.(interface{ Raw() *sqlite3.Conn }).Raw()
		defer raw.SetInterrupt(raw.SetInterrupt(ctx))
		stmt, _, err := raw.Prepare(query)
		if err != nil {
			return err
		}
		defer stmt.Close()
		if err := bindArgs(stmt, args); err != nil {
			return err
		}
		// Paths and languages repeat from row to row: one string each.
		paths := map[string]string{}
		text := func(col int) string {
			b := stmt.ColumnRawText(col)
			if p, ok := paths[string(b)]; ok {
				return p
			}
			p := string(b)
			paths[p] = p
			return p
		}
		for stmt.Step() {
			var e edgeRow
			src := &e.source
			src.ID, src.Parent, src.Kind = stmt.ColumnInt64(0), stmt.ColumnInt64(1), Kind(text(2))
			src.Name, src.QualifiedName, src.Module = stmt.ColumnText(3), stmt.ColumnText(4), text(5)
			src.Path, src.Language = text(6), text(7)
			src.Range.Start = Position{Line: stmt.ColumnInt(8), Column: stmt.ColumnInt(9), Offset: stmt.ColumnInt(10)}
			src.Range.End = Position{Line: stmt.ColumnInt(11), Column: stmt.ColumnInt(12), Offset: stmt.ColumnInt(13)}
			src.NameRange.Start = Position{Line: stmt.ColumnInt(14), Column: stmt.ColumnInt(15)}
			src.NameRange.End = Position{Line: stmt.ColumnInt(16), Column: stmt.ColumnInt(17)}
			e.kind, e.name, e.qualifier, e.subject = EdgeKind(text(18)), text(19), text(20), text(21)
			e.line, e.col = stmt.ColumnInt(22)+1, stmt.ColumnInt(23)+1 // stored 0-based, reported 1-based
			out = append(out, e)
		}
		return stmt.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// definitionsNamed returns the definitions with exactly the given name.
func (s *indexStore) definitionsNamed(ctx context.Context, name string) ([]SymbolInfo, error) {
	syms, err := s.querySymbols(ctx, `n.lname = ? AND n.kind != 'module'`, foldName(name))
	if err != nil {
		return nil, err
	}
	return filter(syms, func(c SymbolInfo) bool { return c.Name == name }), nil
}

// Callers returns the calls that reach def.
func (s *indexStore) Callers(ctx context.Context, def SymbolInfo) ([]CallSite, error) {
	// What resolution would drop anyway is not fetched: calls from other
	// language families, and bare calls where a method needs a receiver
	// (Go's append(…) never calls some type's append method).
	where := `e.dst_name = ? AND e.kind = 'calls' AND f.language IN (` + familyLanguages(def.Language) + `)`
	if def.Kind == KindMethod && !implicitReceiver(languageFamily(def.Language)) {
		where += ` AND e.qualifier != ''`
	}
	edges, err := s.queryEdges(ctx, where, def.Name)
	if err != nil {
		return nil, fmt.Errorf("callers of %s: %w", def.QualifiedName, err)
	}
	cands, err := s.definitionsNamed(ctx, def.Name)
	if err != nil {
		return nil, fmt.Errorf("callers of %s: %w", def.QualifiedName, err)
	}
	res := newResolver(cands)
	var out []CallSite
	for _, e := range edges {
		if ok, fits := res.reaches(e, def.ID); ok {
			callee := def
			out = append(out, CallSite{
				Caller: e.source, Callee: &callee, Name: e.name, Qualifier: e.qualifier,
				Path: e.source.Path, Line: e.line, Column: e.col, Ambiguous: fits > 1,
			})
		}
	}
	// Sorted here rather than in SQL: most rows of a common name are
	// dropped by resolution. Calls that reach def alone come first, then
	// the ambiguous ones (conn.setState's 7 real callers before 28
	// same-name methods of other types).
	slices.SortFunc(out, func(a, b CallSite) int {
		return cmp.Or(compareBool(a.Ambiguous, b.Ambiguous), strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out, nil
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// MaxAmbiguousCallers is the most ambiguous call sites an answer about
// callers lists after the resolved ones (see CapAmbiguous).
const MaxAmbiguousCallers = 10

// CapAmbiguous keeps every call site that is not ambiguous and the first
// max ambiguous ones, in order, and returns how many it left out.
func CapAmbiguous(sites []CallSite, max int) ([]CallSite, int) {
	out := make([]CallSite, 0, len(sites))
	omitted := 0
	for _, c := range sites {
		if c.Ambiguous {
			if max <= 0 {
				omitted++
				continue
			}
			max--
		}
		out = append(out, c)
	}
	return out, omitted
}

// Callees returns the calls made by def, each resolved to the definitions
// it may reach (one call site per definition; unresolved calls once, with no
// callee).
func (s *indexStore) Callees(ctx context.Context, def SymbolInfo) ([]CallSite, error) {
	edges, err := s.queryEdges(ctx, `e.src = ? AND e.kind = 'calls' ORDER BY e.line, e.col`, def.ID)
	if err != nil {
		return nil, fmt.Errorf("callees of %s: %w", def.QualifiedName, err)
	}
	resolvers := map[string]*resolver{}
	var out []CallSite
	for _, e := range edges {
		res, ok := resolvers[e.name]
		if !ok {
			cands, err := s.definitionsNamed(ctx, e.name)
			if err != nil {
				return nil, fmt.Errorf("callees of %s: %w", def.QualifiedName, err)
			}
			res = newResolver(cands)
			resolvers[e.name] = res
		}
		site := CallSite{Caller: e.source, Name: e.name, Qualifier: e.qualifier, Path: e.source.Path, Line: e.line, Column: e.col}
		best := res.resolve(e)
		if len(best) == 0 {
			out = append(out, site)
			continue
		}
		for _, b := range best {
			b := b
			site.Callee, site.Ambiguous = &b, len(best) > 1
			out = append(out, site)
		}
	}
	return out, nil
}

// Relation is a symbol related to another through an edge, found at a
// distance of Depth edges.
type Relation struct {
	Symbol SymbolInfo `json:"symbol"`
	// Via is the kind of the edge that reached Symbol.
	Via EdgeKind `json:"via"`
	// From is the qualified name of the symbol the edge came from.
	From  string `json:"from,omitempty"`
	Depth int    `json:"depth"`
	// Name is the name as written when Symbol is unresolved (a base type
	// defined outside the workspace); Symbol is then zero.
	Name string `json:"name,omitempty"`
	// Line is the 1-based line of the edge in its file.
	Line int `json:"line"`
}

// Inheritance returns what def extends, implements or embeds (bases) and
// what extends, implements or embeds def (derived), each walked up to depth
// levels (≤ 0 means 1).
func (s *indexStore) Inheritance(ctx context.Context, def SymbolInfo, depth int) (bases, derived []Relation, err error) {
	if depth <= 0 {
		depth = 1
	}
	bases, err = s.walk(ctx, def, depth, 0, s.baseTypes)
	if err != nil {
		return nil, nil, fmt.Errorf("inheritance of %s: %w", def.QualifiedName, err)
	}
	derived, err = s.walk(ctx, def, depth, 0, s.derivedTypes)
	if err != nil {
		return nil, nil, fmt.Errorf("inheritance of %s: %w", def.QualifiedName, err)
	}
	return bases, derived, nil
}

// BlastRadius returns everything that may be affected by a change to def: a
// breadth-first walk over reverse calls (callers) and reverse inheritance
// (derived types), with the depth at which each symbol is first reached.
func (s *indexStore) BlastRadius(ctx context.Context, def SymbolInfo, depth int) ([]Relation, error) {
	return s.BlastRadiusLimit(ctx, def, depth, 0)
}

// BlastRadiusLimit is BlastRadius stopping once it has found limit symbols
// (all of them when limit ≤ 0): the nearest, since the walk is breadth
// first. A search that shows ten results need not walk ten thousand.
func (s *indexStore) BlastRadiusLimit(ctx context.Context, def SymbolInfo, depth, limit int) ([]Relation, error) {
	if depth <= 0 {
		depth = 3
	}
	rels, err := s.walk(ctx, def, depth, limit, func(ctx context.Context, sym SymbolInfo) ([]Relation, error) {
		derived, err := s.derivedTypes(ctx, sym)
		if err != nil {
			return nil, err
		}
		calls, err := s.Callers(ctx, sym)
		if err != nil {
			return nil, err
		}
		for _, c := range calls {
			derived = append(derived, Relation{Symbol: c.Caller, Via: EdgeCalls, Line: c.Line})
		}
		return derived, nil
	})
	if err != nil {
		return nil, fmt.Errorf("blast radius of %s: %w", def.QualifiedName, err)
	}
	return rels, nil
}

// walk runs a breadth-first search from def over the relations that next
// returns, up to depth levels, and returns each symbol once with the depth
// it was first reached at; with limit > 0, it stops after limit symbols.
// Unresolved relations are kept but not followed.
func (s *indexStore) walk(ctx context.Context, def SymbolInfo, depth, limit int, next func(context.Context, SymbolInfo) ([]Relation, error)) ([]Relation, error) {
	seen := map[int64]bool{def.ID: true}
	seenName := map[string]bool{}
	frontier := []SymbolInfo{def}
	var out []Relation
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var nextFrontier []SymbolInfo
		for _, sym := range frontier {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rels, err := next(ctx, sym)
			if err != nil {
				return nil, err
			}
			for _, r := range rels {
				r.Depth, r.From = d, sym.QualifiedName
				if r.Symbol.ID == 0 {
					if !seenName[r.Name] {
						seenName[r.Name] = true
						out = append(out, r)
					}
					continue
				}
				if seen[r.Symbol.ID] {
					continue
				}
				seen[r.Symbol.ID] = true
				out = append(out, r)
				nextFrontier = append(nextFrontier, r.Symbol)
			}
			if limit > 0 && len(out) >= limit {
				return out[:limit], nil
			}
		}
		frontier = nextFrontier
	}
	return out, nil
}

const inheritanceKinds = `('inherits', 'implements', 'embeds')`

// baseTypes returns the types sym directly extends, implements or embeds.
func (s *indexStore) baseTypes(ctx context.Context, sym SymbolInfo) ([]Relation, error) {
	edges, err := s.queryEdges(ctx, `e.src = ? AND e.kind IN `+inheritanceKinds+` ORDER BY e.line`, sym.ID)
	if err != nil {
		return nil, err
	}
	subjectEdges, err := s.queryEdges(ctx, `e.subject = ? AND e.kind IN `+inheritanceKinds+` ORDER BY f.path, e.line`, sym.Name)
	if err != nil {
		return nil, err
	}
	for _, e := range subjectEdges {
		if languageFamily(e.source.Language) == languageFamily(sym.Language) {
			edges = append(edges, e)
		}
	}
	var out []Relation
	for _, e := range edges {
		cands, err := s.definitionsNamed(ctx, e.name)
		if err != nil {
			return nil, err
		}
		best := newResolver(cands).resolve(e)
		if len(best) == 0 {
			out = append(out, Relation{Via: e.kind, Name: e.name, Line: e.line})
		}
		for _, b := range best {
			out = append(out, Relation{Symbol: b, Via: e.kind, Line: e.line})
		}
	}
	return out, nil
}

// derivedTypes returns the types that directly extend, implement or embed
// sym.
func (s *indexStore) derivedTypes(ctx context.Context, sym SymbolInfo) ([]Relation, error) {
	if !sym.Kind.IsType() {
		return nil, nil
	}
	edges, err := s.queryEdges(ctx, `e.dst_name = ? AND e.kind IN `+inheritanceKinds+` ORDER BY f.path, e.line`, sym.Name)
	if err != nil {
		return nil, err
	}
	cands, err := s.definitionsNamed(ctx, sym.Name)
	if err != nil {
		return nil, err
	}
	res := newResolver(cands)
	var out []Relation
	for _, e := range edges {
		if ok, _ := res.reaches(e, sym.ID); !ok {
			continue
		}
		if e.subject == "" {
			out = append(out, Relation{Symbol: e.source, Via: e.kind, Line: e.line})
			continue
		}
		// impl Trait for Type where Type is defined in another file.
		subjects, err := s.definitionsNamed(ctx, e.subject)
		if err != nil {
			return nil, err
		}
		subjects = filter(subjects, func(c SymbolInfo) bool {
			return c.Kind.IsType() && languageFamily(c.Language) == languageFamily(sym.Language)
		})
		if len(subjects) == 0 {
			out = append(out, Relation{Via: e.kind, Name: e.subject, Line: e.line})
		}
		for _, t := range subjects {
			out = append(out, Relation{Symbol: t, Via: e.kind, Line: e.line})
		}
	}
	if sym.Language == "go" && sym.Kind == KindInterface {
		impls, err := s.goImplementers(ctx, sym)
		if err != nil {
			return nil, err
		}
		for _, t := range impls {
			if !containsRelation(out, t.ID) {
				out = append(out, Relation{Symbol: t, Via: EdgeImplements, Line: t.Range.Start.Line + 1})
			}
		}
	}
	return out, nil
}

// goImplementers returns the Go types whose methods include every method
// of the interface iface, by name: Go types implement interfaces without
// saying so. Methods are matched by name only (no signatures), and an
// interface that only embeds others has no methods of its own to match.
func (s *indexStore) goImplementers(ctx context.Context, iface SymbolInfo) ([]SymbolInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT name FROM nodes WHERE parent = ? AND kind = 'method'`, iface.ID)
	if err != nil {
		return nil, fmt.Errorf("methods of %s: %w", iface.QualifiedName, err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(names) == 0 {
		return nil, err
	}
	args := make([]any, 0, 2*len(names)+1)
	marks := strings.TrimSuffix(strings.Repeat("?,", len(names)), ",")
	for _, n := range names {
		args = append(args, foldName(n))
	}
	for _, n := range names {
		args = append(args, n)
	}
	args = append(args, len(names))
	// A method's owner is its qualified name without the method's name
	// (the receiver type, in Go), wherever in the package it is declared.
	owners, err := s.db.QueryContext(ctx, `SELECT n.module,
			substr(n.qualified_name, 1, length(n.qualified_name) - length(n.name) - 1) AS owner
		FROM nodes n JOIN files f ON f.id = n.file_id
		WHERE n.lname IN (`+marks+`) AND n.name IN (`+marks+`) AND n.kind = 'method' AND f.language = 'go'
		GROUP BY n.module, owner HAVING count(DISTINCT n.name) = ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("implementers of %s: %w", iface.QualifiedName, err)
	}
	type owner struct{ module, name string }
	var found []owner
	for owners.Next() {
		var o owner
		if err := owners.Scan(&o.module, &o.name); err != nil {
			owners.Close()
			return nil, err
		}
		found = append(found, o)
	}
	owners.Close()
	if err := owners.Err(); err != nil {
		return nil, err
	}
	var out []SymbolInfo
	for _, o := range found {
		if o.name == "" || strings.Contains(o.name, ".") {
			continue
		}
		defs, err := s.querySymbols(ctx, `n.lname = ? AND n.name = ? AND n.module = ? AND f.language = 'go'
			AND n.kind IN ('struct', 'type', 'class', 'enum')`, foldName(o.name), o.name, o.module)
		if err != nil {
			return nil, fmt.Errorf("implementers of %s: %w", iface.QualifiedName, err)
		}
		out = append(out, defs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Range.Start.Line < out[j].Range.Start.Line
	})
	return out, nil
}

func containsRelation(rels []Relation, id int64) bool {
	for _, r := range rels {
		if r.Symbol.ID == id {
			return true
		}
	}
	return false
}

// Import is one import statement.
type Import struct {
	// Path is the importing file.
	Path string `json:"path"`
	// Name is the imported module as written.
	Name string `json:"name"`
	// Line is 1-based.
	Line int `json:"line"`
	// Target is the workspace file or directory the import resolves to, if
	// any. In the imports of a file it is set for a possible submodule
	// only (Python's from a.b import c as a.b.c).
	Target string `json:"target,omitempty"`
}

// Imports returns what the files matching target import, and which files
// import them. target is a path relative to the root (a file or a
// directory, which stands for a Go or Java package) or a module name.
//
// A name imported from a module that may be one of its submodules
// (Python's "from a.b import c", stored as a.b and as a.b.c qualified by
// a.b: Ref.Qualifier) is listed among the imports only when an indexed
// file is that submodule, with that file as its Target: "from dataclasses
// import dataclass" lists dataclasses alone. It imports a file as any
// other import does.
func (s *indexStore) Imports(ctx context.Context, target string) (files []string, imports, importedBy []Import, err error) {
	files, err = s.filesFor(ctx, target)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("imports of %s: %w", target, err)
	}
	all, err := s.queryEdges(ctx, `e.kind = 'imports' ORDER BY f.path, e.line`)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("imports of %s: %w", target, err)
	}
	isTarget := map[string]bool{}
	for _, f := range files {
		isTarget[f] = true
	}
	packages, err := s.pythonPackages(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("imports of %s: %w", target, err)
	}
	var byKey map[string][]string // the indexed files, once a submodule is looked for
	for _, e := range all {
		imp := Import{Path: e.source.Path, Name: e.name, Line: e.line}
		if isTarget[e.source.Path] {
			if e.qualifier != "" {
				if byKey == nil {
					if byKey, err = s.filesByImportKey(ctx); err != nil {
						return nil, nil, nil, fmt.Errorf("imports of %s: %w", target, err)
					}
				}
				if imp.Target = resolveImport(byKey, packages, e.source.Path, e.source.Language, e.name); imp.Target == "" {
					continue // a name defined in the module, or a module outside the workspace
				}
			}
			imports = append(imports, imp)
			continue
		}
		for _, f := range files {
			if importReaches(e.source.Path, e.source.Language, e.name, f, packages) {
				imp.Target = f
				importedBy = append(importedBy, imp)
				break
			}
		}
	}
	return files, imports, importedBy, nil
}

// filesByImportKey returns the indexed files by the last segment of the
// imports that may reach them: a file's name without its extension and,
// for a file that stands for its directory (__init__.py, index.js,
// mod.rs), the directory's name.
func (s *indexStore) filesByImportKey(ctx context.Context) (map[string][]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM files ORDER BY path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(path.Base(p), path.Ext(p))
		out[base] = append(out[base], p)
		if isIndexFile("", p) && path.Dir(p) != "." {
			dir := path.Base(path.Dir(p))
			out[dir] = append(out[dir], p)
		}
	}
	return out, rows.Err()
}

// resolveImport returns the first indexed file (byKey, from
// filesByImportKey) that a possible submodule imported in file from
// reaches, or "". Such a file's name, or its directory's for a package's
// __init__.py, is the import's last segment.
func resolveImport(byKey map[string][]string, packages map[string]bool, from, lang, name string) string {
	segs := importSegments(name)
	if len(segs) == 0 {
		return ""
	}
	for _, p := range byKey[segs[len(segs)-1]] {
		if importReaches(from, lang, name, p, packages) {
			return p
		}
	}
	return ""
}

// pythonPackages returns the directories that hold an indexed
// __init__.py: Python packages.
func (s *indexStore) pythonPackages(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM files WHERE language = 'python' AND path LIKE '%\_\_init\_\_.py%' ESCAPE '\'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		if isIndexFile("python", p) {
			out[path.Dir(p)] = true
		}
	}
	return out, rows.Err()
}

// filesFor returns the indexed files a target names: the file itself, the
// files of a directory, or the files whose module has the target's name.
func (s *indexStore) filesFor(ctx context.Context, target string) ([]string, error) {
	target = strings.Trim(path.Clean(strings.ReplaceAll(target, "\\", "/")), "/")
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT f.path FROM files f LEFT JOIN nodes n ON n.file_id = f.id AND n.kind = 'module'
		WHERE f.path = ?1 OR f.path LIKE ?2 ESCAPE '\' AND f.path NOT LIKE ?3 ESCAPE '\' OR n.name = ?1 OR n.qualified_name = ?1 ORDER BY f.path`,
		target, likeEscape(target)+"/%", likeEscape(target)+"/%/%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// importReaches reports whether an import written in file from reaches the
// workspace file target: relative imports (./api, .jobs) are resolved from
// the importing file; others match when their segments end the target's
// path or its directory (a Go or Java package), so
// example.com/sampleapp/users reaches users/repo.go and
// com.example.users.UserService reaches …/com/example/users/UserService.java.
// A Python package is its __init__.py, not its directory: import importlib
// reaches importlib/__init__.py only, and import importlib.metadata
// reaches importlib/metadata.py or importlib/metadata/__init__.py. A
// Python import is absolute, so the directory its first segment is found
// in must not be a package (one of packages, the directories with an
// __init__.py; nil when unknown): import abc does not reach
// importlib/abc.py, and import users.repo reaches src/users/repo.py
// unless src has an __init__.py.
func importReaches(from, lang, name, target string, packages map[string]bool) bool {
	noExt := strings.TrimSuffix(target, path.Ext(target))
	if strings.HasPrefix(name, ".") {
		var rel string
		if lang == "python" {
			dots := len(name) - len(strings.TrimLeft(name, "."))
			rel = strings.Repeat("../", dots-1) + strings.ReplaceAll(name[dots:], ".", "/")
		} else {
			rel = name
		}
		p := path.Join(path.Dir(from), rel)
		return p == noExt || p == path.Dir(target) && isIndexFile(lang, target) || p == target
	}
	segs := importSegments(name)
	if len(segs) == 0 {
		return false
	}
	// users.repo reaches users/repo.py and com.example.users reaches
	// …/com/example/users/X.java (the import ends the path); Go's
	// example.com/app/internal/db reaches internal/db/db.go (the package
	// directory ends the import, which starts with the module path).
	file, dir := strings.Split(noExt, "/"), strings.Split(path.Dir(target), "/")
	if lang == "python" {
		var base []string // the directory the import's first segment is in
		switch {
		case hasSuffixSegs(file, segs):
			base = file[:len(file)-len(segs)]
		case isIndexFile(lang, target) && hasSuffixSegs(dir, segs):
			base = dir[:len(dir)-len(segs)]
		default:
			return false
		}
		if len(base) == 0 || len(base) == 1 && base[0] == "." {
			return !packages["."]
		}
		return !packages[strings.Join(base, "/")]
	}
	return hasSuffixSegs(file, segs) || hasSuffixSegs(dir, segs) ||
		lang == "go" && path.Dir(target) != "." && hasSuffixSegs(segs, dir)
}

// isIndexFile reports whether p is the file that stands for its directory
// in an import written in lang: a Python package's __init__.py; for
// others a JavaScript index.js, a Rust mod.rs (or any of the three).
func isIndexFile(lang, p string) bool {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if lang == "python" {
		return base == "__init__"
	}
	switch base {
	case "index", "__init__", "mod":
		return true
	}
	return false
}

// importSegments splits an import path into its parts, dropping a final
// wildcard (com.example.*, crate::x::*) and Rust's crate/self/super roots.
// Spaces around a separator (Python's "from a . b import c") are not part
// of a segment.
func importSegments(name string) []string {
	name = strings.NewReplacer("::", "/", "\\", "/").Replace(name)
	var segs []string
	for _, s := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '.' }) {
		switch s = strings.TrimSpace(s); s {
		case "", "*", "crate", "self", "super", "{", "}":
			continue
		}
		segs = append(segs, s)
	}
	return segs
}

func hasSuffixSegs(p, suffix []string) bool {
	if len(suffix) > len(p) {
		return false
	}
	off := len(p) - len(suffix)
	for i, s := range suffix {
		if p[off+i] != s {
			return false
		}
	}
	return true
}

// Stats counts what the index holds.
type Stats struct {
	Files       int            `json:"files"`
	ByLanguage  map[string]int `json:"files_by_language"`
	Symbols     int            `json:"symbols"`
	Edges       int            `json:"edges"`
	Unresolved  int            `json:"unresolved_calls"`
	ParseErrors int            `json:"files_with_syntax_errors"`
}

// Stats counts files by language, symbols, edges (references plus
// containment) and calls whose name is defined nowhere.
func (s *indexStore) Stats(ctx context.Context) (Stats, error) {
	st := Stats{ByLanguage: map[string]int{}}
	rows, err := s.db.QueryContext(ctx, `SELECT language, count(*), sum(parse_errors > 0) FROM files GROUP BY language`)
	if err != nil {
		return st, fmt.Errorf("index stats: %w", err)
	}
	for rows.Next() {
		var lang string
		var n, withErrors int
		if err := rows.Scan(&lang, &n, &withErrors); err != nil {
			rows.Close()
			return st, fmt.Errorf("index stats: %w", err)
		}
		st.ByLanguage[lang] = n
		st.Files += n
		st.ParseErrors += withErrors
	}
	rows.Close()
	var refs, contains int
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges), (SELECT count(*) FROM nodes WHERE parent IS NOT NULL),
		(SELECT coalesce(sum(c), 0) FROM (SELECT dst_name, count(*) c FROM edges WHERE kind = 'calls' GROUP BY dst_name) g
			WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.lname = lower(g.dst_name) AND n.name = g.dst_name))`).
		Scan(&st.Symbols, &refs, &contains, &st.Unresolved)
	if err != nil && err != sql.ErrNoRows {
		return st, fmt.Errorf("index stats: %w", err)
	}
	st.Edges = refs + contains
	return st, nil
}

// LastStats returns the counts saved by the last update (cheap; they may
// lag behind an update in progress), or computes them when there are none.
func (s *indexStore) LastStats(ctx context.Context) (Stats, error) {
	return s.cachedStats(ctx, false)
}

// statsKey is the meta key under which the last computed Stats are kept.
const statsKey = "stats"

// cachedStats returns the Stats saved by the last update that changed the
// index, computing and saving them when there are none.
func (s *indexStore) cachedStats(ctx context.Context, changed bool) (Stats, error) {
	var st Stats
	if !changed {
		var raw string
		err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, statsKey).Scan(&raw)
		if err == nil && json.Unmarshal([]byte(raw), &st) == nil {
			return st, nil
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		return st, err
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return st, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, statsKey, string(raw)); err != nil {
		return st, fmt.Errorf("save index stats: %w", err)
	}
	return st, nil
}

// SampleSymbols returns up to n callable symbols picked at random by r, for
// benchmarks.
func (s *indexStore) SampleSymbols(ctx context.Context, n int, r interface{ IntN(int) int }) ([]SymbolInfo, error) {
	var maxID int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM nodes`).Scan(&maxID); err != nil {
		return nil, fmt.Errorf("sample symbols: %w", err)
	}
	var out []SymbolInfo
	for tries := 0; len(out) < n && tries < n*20 && maxID > 0; tries++ {
		syms, err := s.querySymbols(ctx, `n.id >= ? AND n.kind IN ('function', 'method') LIMIT 1`, r.IntN(int(maxID))+1)
		if err != nil {
			return nil, fmt.Errorf("sample symbols: %w", err)
		}
		out = append(out, syms...)
	}
	return out, nil
}

// SymbolsInFile returns the symbols of an indexed file in source order,
// the module first.
func (s *indexStore) SymbolsInFile(ctx context.Context, path string) ([]SymbolInfo, error) {
	syms, err := s.querySymbols(ctx, `f.path = ? ORDER BY n.start_byte, n.end_byte DESC`, path)
	if err != nil {
		return nil, fmt.Errorf("symbols of %s: %w", path, err)
	}
	return syms, nil
}

// FindSymbol returns the symbol of a file with a qualified name, the one
// starting nearest to line (0-based) when there are several, or false.
func (s *indexStore) FindSymbol(ctx context.Context, path, qualifiedName string, line int) (SymbolInfo, bool, error) {
	syms, err := s.querySymbols(ctx, `f.path = ? AND n.qualified_name = ?`, path, qualifiedName)
	if err != nil {
		return SymbolInfo{}, false, fmt.Errorf("find %s in %s: %w", qualifiedName, path, err)
	}
	sym, ok := NearestSymbol(syms, qualifiedName, line)
	return sym, ok, nil
}

// NearestSymbol returns the symbol of syms (other than a module) with a
// qualified name, the one starting nearest to a 0-based line when there
// are several (the first for a negative line).
func NearestSymbol(syms []SymbolInfo, qualifiedName string, line int) (SymbolInfo, bool) {
	var best SymbolInfo
	found := false
	for _, c := range syms {
		if c.Kind == KindModule || c.QualifiedName != qualifiedName {
			continue
		}
		if !found || abs(c.Range.Start.Line-line) < abs(best.Range.Start.Line-line) {
			best, found = c, true
		}
	}
	return best, found
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// LargestFile returns the largest indexed file of a language, or "".
func (s *indexStore) LargestFile(ctx context.Context, language string) (string, error) {
	var p string
	err := s.db.QueryRowContext(ctx, `SELECT path FROM files WHERE language = ? ORDER BY size DESC LIMIT 1`, language).Scan(&p)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("largest %s file: %w", language, err)
	}
	return p, nil
}
