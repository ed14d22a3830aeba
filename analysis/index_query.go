package analysis

// The queries of the index database that other packages use, as methods
// of Index: the database itself (indexStore: its writer, its bulk mode,
// its SQL) stays inside this package.

import "context"

// Ask answers a graph question (OpCallers, OpCallees, OpInheritance,
// OpBlastRadius) about every definition of symbol. depth ≤ 0 takes the
// operation's default.
func (ix *Index) Ask(ctx context.Context, op, symbol string, depth int) (*Answer, error) {
	return ix.store.Ask(ctx, op, symbol, depth)
}

// BlastRadius returns everything that may be affected by a change to def: a
// breadth-first walk over reverse calls (callers) and reverse inheritance
// (derived types), with the depth at which each symbol is first reached.
func (ix *Index) BlastRadius(ctx context.Context, def SymbolInfo, depth int) ([]Relation, error) {
	return ix.store.BlastRadius(ctx, def, depth)
}

// BlastRadiusLimit is BlastRadius stopping once it has found limit symbols
// (all of them when limit ≤ 0): the nearest, since the walk is breadth
// first. A search that shows ten results need not walk ten thousand.
func (ix *Index) BlastRadiusLimit(ctx context.Context, def SymbolInfo, depth, limit int) ([]Relation, error) {
	return ix.store.BlastRadiusLimit(ctx, def, depth, limit)
}

// Callees returns the calls made by def, each resolved to the definitions
// it may reach (one call site per definition; unresolved calls once, with no
// callee).
func (ix *Index) Callees(ctx context.Context, def SymbolInfo) ([]CallSite, error) {
	return ix.store.Callees(ctx, def)
}

// Callers returns the calls that reach def.
func (ix *Index) Callers(ctx context.Context, def SymbolInfo) ([]CallSite, error) {
	return ix.store.Callers(ctx, def)
}

// Check reads the whole database (PRAGMA quick_check: every page, table
// and index, in time proportional to its size) and returns an error
// wrapping ErrCorrupt if any of it cannot be read.
func (ix *Index) Check(ctx context.Context) error {
	return ix.store.Check(ctx)
}

// ChunkCount returns how many chunks are stored.
func (ix *Index) ChunkCount(ctx context.Context) (int, error) {
	return ix.store.ChunkCount(ctx)
}

// ChunkOf returns the first chunk of a symbol, by the symbol's id.
func (ix *Index) ChunkOf(ctx context.Context, symbolID int64) (ChunkInfo, bool, error) {
	return ix.store.ChunkOf(ctx, symbolID)
}

// ChunkVectors returns the vectors of all chunks that have one. The
// result is shared: callers must not modify it.
func (ix *Index) ChunkVectors(ctx context.Context) (*Vectors, error) {
	return ix.store.ChunkVectors(ctx)
}

// Chunks returns the chunks with the given ids, in that order; ids that
// no longer exist are left out.
func (ix *Index) Chunks(ctx context.Context, ids []int64) ([]ChunkInfo, error) {
	return ix.store.Chunks(ctx, ids)
}

// Close closes the database.
func (ix *Index) Close() error {
	return ix.store.Close()
}

// DefinitionsNamed returns the definitions (not modules) whose own name is
// exactly name, case included.
func (ix *Index) DefinitionsNamed(ctx context.Context, name string) ([]SymbolInfo, error) {
	return ix.store.DefinitionsNamed(ctx, name)
}

// DefinitionsOfNames returns, for each of names, the definitions (not
// modules) whose own name is exactly it, case included, in one query;
// names defined nowhere are left out.
func (ix *Index) DefinitionsOfNames(ctx context.Context, names []string) (map[string][]SymbolInfo, error) {
	return ix.store.DefinitionsOfNames(ctx, names)
}

// EnclosingSymbol returns the innermost symbol of a file whose range holds
// a 0-based line, other than the module.
func (ix *Index) EnclosingSymbol(ctx context.Context, path string, line int) (SymbolInfo, bool, error) {
	return ix.store.EnclosingSymbol(ctx, path, line)
}

// FilePaths returns the root-relative paths of the indexed files, sorted.
func (ix *Index) FilePaths(ctx context.Context) ([]string, error) {
	return ix.store.FilePaths(ctx)
}

// FindSymbol returns the symbol of a file with a qualified name, the one
// starting nearest to line (0-based) when there are several, or false.
func (ix *Index) FindSymbol(ctx context.Context, path, qualifiedName string, line int) (SymbolInfo, bool, error) {
	return ix.store.FindSymbol(ctx, path, qualifiedName, line)
}

// Imports returns what the files matching target import, and which files
// import them. target is a path relative to the root (a file or a
// directory, which stands for a Go or Java package) or a module name.
func (ix *Index) Imports(ctx context.Context, target string) (files []string, imports, importedBy []Import, err error) {
	return ix.store.Imports(ctx, target)
}

// Inheritance returns what def extends, implements or embeds (bases) and
// what extends, implements or embeds def (derived), each walked up to depth
// levels (≤ 0 means 1).
func (ix *Index) Inheritance(ctx context.Context, def SymbolInfo, depth int) (bases, derived []Relation, err error) {
	return ix.store.Inheritance(ctx, def, depth)
}

// LargestFile returns the largest indexed file of a language, or "".
func (ix *Index) LargestFile(ctx context.Context, language string) (string, error) {
	return ix.store.LargestFile(ctx, language)
}

// LastStats returns the counts saved by the last update (cheap; they may
// lag behind an update in progress), or computes them when there are none.
func (ix *Index) LastStats(ctx context.Context) (Stats, error) {
	return ix.store.LastStats(ctx)
}

// Lookup finds the definitions a user means by a symbol argument: a name
// (FindByID), a qualified name (UserRepository.FindByID, users.NewService)
// or a module-qualified member (users.UserRepository.FindByID). Names match
// exactly, ignoring case only when nothing matches with case.
func (ix *Index) Lookup(ctx context.Context, symbol string) ([]SymbolInfo, error) {
	return ix.store.Lookup(ctx, symbol)
}

// Path returns the database file's path.
func (ix *Index) Path() string {
	return ix.store.Path()
}

// Probe reads every row of the graph's tables (files, symbols, edges and
// chunks, not their indexes or the text index) and returns an error
// wrapping ErrCorrupt if one cannot be read: damage to most of a database
// is found in a fraction of Check's time (0.5 s for the Go standard
// library's index, against 10 s).
func (ix *Index) Probe(ctx context.Context) error {
	return ix.store.Probe(ctx)
}

// QualifiedCallCounts counts the call sites, in the whole workspace, of
// each of names written with a qualifier (pkg.Name, obj.Name), by name
// and qualifier. Bare calls are not counted.
func (ix *Index) QualifiedCallCounts(ctx context.Context, names []string) (map[CallName]int, error) {
	return ix.store.QualifiedCallCounts(ctx, names)
}

// SampleSymbols returns up to n callable symbols picked at random by r, for
// benchmarks.
func (ix *Index) SampleSymbols(ctx context.Context, n int, r interface{ IntN(int) int }) ([]SymbolInfo, error) {
	return ix.store.SampleSymbols(ctx, n, r)
}

// KeepTermsInMemory makes SearchChunks rank chunks from an in-memory copy
// of their terms, loaded in the background on the first search and kept
// up to date with the index (a change reads only the changed files'
// chunks again); until it is ready, and while it catches up with a
// change, searches ask SQLite's text index. The ranking is the same
// BM25; a search costs a fraction of SQLite's. It is for processes that
// serve many searches: a command that searches once would only pay for
// the load. The copy takes about as much memory as the chunks' text.
func (ix *Index) KeepTermsInMemory() {
	ix.opts.TermsInMemory = true // for a rebuilt database too
	ix.store.KeepTermsInMemory()
}

// LoadTermsInMemory keeps the chunks' terms in memory (KeepTermsInMemory)
// and loads or refreshes them now, returning once they match the index
// as it is.
func (ix *Index) LoadTermsInMemory(ctx context.Context) error {
	return ix.store.LoadTermsInMemory(ctx)
}

// SearchChunks ranks chunks by BM25 against terms (as AppendTerms makes
// them; any of them may match) and returns the best limit.
func (ix *Index) SearchChunks(ctx context.Context, terms []string, limit int) ([]ChunkHit, error) {
	return ix.store.SearchChunks(ctx, terms, limit)
}

// RankChunks is SearchChunks for callers that need only where the chunks
// are: the hits have no Text, Context or Callers, and cost a fraction of
// SearchChunks's to read.
func (ix *Index) RankChunks(ctx context.Context, terms []string, limit int) ([]ChunkHit, error) {
	return ix.store.RankChunks(ctx, terms, limit)
}

// Stats counts files by language, symbols, edges (references plus
// containment) and calls whose name is defined nowhere.
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	return ix.store.Stats(ctx)
}

// Symbol returns the symbol with the given id.
func (ix *Index) Symbol(ctx context.Context, id int64) (SymbolInfo, bool, error) {
	return ix.store.Symbol(ctx, id)
}

// Symbols searches symbol names: exact matches first, then prefixes, then
// camel-case or snake-case initials (FBI finds FindByID), then substrings;
// all ignoring case, capped at limit (≤ 0 means 200). A query longer than
// MaxNameQuery finds nothing.
func (ix *Index) Symbols(ctx context.Context, query string, limit int) ([]SymbolMatch, error) {
	return ix.store.cachedSymbols(ctx, query, limit)
}

// SymbolsInFile returns the symbols of an indexed file in source order,
// the module first.
func (ix *Index) SymbolsInFile(ctx context.Context, path string) ([]SymbolInfo, error) {
	return ix.store.SymbolsInFile(ctx, path)
}

// TermChunks returns how many chunks hold each of terms (search terms, as
// AppendTerms makes them); terms no chunk holds are left out.
func (ix *Index) TermChunks(ctx context.Context, terms []string) (map[string]int, error) {
	return ix.store.TermChunks(ctx, terms)
}

// TermStats returns how many chunks hold each of terms (as TermChunks
// does) and how many chunks there are, from memory until the chunks
// change.
func (ix *Index) TermStats(ctx context.Context, terms []string) (map[string]int, int, error) {
	return ix.store.TermStats(ctx, terms)
}

// RelatedTerm returns the search term of the chunk index closest to stem,
// a word's stem that no chunk holds as it is, with how many chunks hold
// it: the commonest term that begins with stem, else the longest of
// stem's prefixes (down to four letters, at most three letters shorter)
// that is a term. The light stemmer leaves some forms apart (decorator,
// decorat); this joins them. It returns "" when stem is shorter than five
// bytes or nothing is close.
func (ix *Index) RelatedTerm(ctx context.Context, stem string) (string, int, error) {
	return ix.store.RelatedTerm(ctx, stem)
}

// FileModTimes returns the modification times (Unix nanoseconds) of the
// indexed files, in no particular order.
func (ix *Index) FileModTimes(ctx context.Context) ([]int64, error) {
	return ix.store.FileModTimes(ctx)
}

// FileHash returns the content hash (xxhash64) of the indexed file at the
// root-relative path, and false when the file is not indexed.
func (ix *Index) FileHash(ctx context.Context, path string) (uint64, bool, error) {
	return ix.store.FileHash(ctx, path)
}

// DefinedNames returns which of lnames (lower-case symbol names) name a
// symbol of the workspace other than a module, each once, in no
// particular order.
func (ix *Index) DefinedNames(ctx context.Context, lnames []string) ([]string, error) {
	return ix.store.DefinedNames(ctx, lnames)
}

// SymbolNamesMatching returns at most limit symbols other than modules
// whose lower-case names match match, an FTS5 query over the names'
// trigrams, in no particular order.
func (ix *Index) SymbolNamesMatching(ctx context.Context, match string, limit int) ([]SymbolName, error) {
	return ix.store.SymbolNamesMatching(ctx, match, limit)
}
