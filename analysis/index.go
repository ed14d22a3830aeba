package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Options configure an Index.
type Options struct {
	// Root is the workspace directory.
	Root string
	// DBPath is the index database file.
	DBPath string
	// Exclude lists directory or file names and globs relative to the root
	// that are not indexed; nil means DefaultExclude.
	Exclude []string
	// MaxFileSize is the size above which files are skipped; 0 means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// Ignore lists patterns in .gitignore syntax, relative to the root (a
	// workspace settings file's exclusions). They are applied before
	// Exclude and the .gitignore files: a path they exclude is skipped, a
	// path a negated pattern ("!vendor/") matches is walked even when
	// Exclude or a .gitignore file would skip it.
	Ignore []string
	// Languages, when not empty, are the only languages indexed (names as
	// in Names); files in other languages are skipped.
	Languages []string
	// Workers is the number of files parsed at once; 0 means one per CPU.
	Workers int
	// Embedder, if set, computes a vector for each chunk (see
	// EmbedChunks).
	Embedder Embedder
	// NoChunks indexes the code graph alone, without chunks for semantic
	// search: for measuring what chunks cost.
	NoChunks bool
	// Check is how much of the database Open reads to find damage, which
	// rebuilds the index (Rebuilt) before any query meets it.
	Check CheckLevel
	// TermsInMemory ranks searches of the chunks from an in-memory copy
	// of their terms once the first search has loaded it (see
	// Index.KeepTermsInMemory): for servers, which search many times.
	TermsInMemory bool
}

// CheckLevel says how much of an index database Open reads.
type CheckLevel int

const (
	// CheckOpen reads what opening needs: the schema and the format.
	CheckOpen CheckLevel = iota
	// CheckRows also reads every row of the graph's tables (Index.Probe;
	// half a second for the Go standard library): for servers.
	CheckRows
	// CheckAll reads every page (Index.Check; ten seconds for the Go
	// standard library): once a query met damage.
	CheckAll
)

// Index is the code graph of one workspace: it scans and parses the
// workspace into its database (indexStore) and answers graph queries.
type Index struct {
	// store is the index database; Index exposes the queries others
	// need as its own methods (see index_query.go).
	store *indexStore
	root  string
	opts  Options
	langs *Languages
	// Rebuilt is set when the database was unreadable and was recreated.
	Rebuilt bool
	// dirty is set when files were written outside Update (open
	// documents), so that the next summary counts afresh.
	dirty atomic.Bool

	optsMu  sync.Mutex // guards opts.Exclude, opts.MaxFileSize, opts.Ignore and opts.Languages
	embedMu sync.Mutex // one EmbedChunks at a time

	// fg counts the open documents' parses in progress, which the
	// indexer's workers yield to.
	fg foreground

	// manifestHook, set by tests only, is called by an update after its
	// last write, right before it records its walk manifest.
	manifestHook func()
	// writeHook, set by tests only, is called by an update's writer
	// after each file it wrote, inside the transaction, with the number
	// of files of the batch left to write.
	writeHook func(rel string, left int)
}

// Configure changes what the next Update indexes: excluded names and globs
// (nil means DefaultExclude) and the file size cap (≤ 0 means the
// default).
func (ix *Index) Configure(exclude []string, maxFileSize int64) {
	ix.optsMu.Lock()
	defer ix.optsMu.Unlock()
	if exclude == nil {
		exclude = DefaultExclude()
	}
	if maxFileSize <= 0 {
		maxFileSize = DefaultMaxFileSize
	}
	ix.opts.Exclude, ix.opts.MaxFileSize = exclude, maxFileSize
}

// ConfigureFilters changes the .gitignore-style patterns and the languages
// the next Update honours (see Options.Ignore and Options.Languages).
func (ix *Index) ConfigureFilters(ignore, languages []string) {
	ix.optsMu.Lock()
	defer ix.optsMu.Unlock()
	ix.opts.Ignore, ix.opts.Languages = ignore, languages
}

// newWalker returns a walker with the index's current filters.
func (ix *Index) newWalker() *walker {
	ix.optsMu.Lock()
	defer ix.optsMu.Unlock()
	return newWalker(ix.root, ix.opts, ix.langs)
}

// Open opens the index of a workspace, creating the database if needed. A
// corrupt database is removed and rebuilt (the index derives from the
// files), which Rebuilt reports.
func Open(ctx context.Context, opts Options) (*Index, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	// The walk does not follow links, so a linked root is resolved first.
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("open index: %s is not a directory", root)
	}
	if opts.Exclude == nil {
		opts.Exclude = DefaultExclude()
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	ix := &Index{root: root, opts: opts, langs: NewLanguages()}
	ix.store, err = openStore(ctx, opts.DBPath)
	if err == nil && opts.Check != CheckOpen {
		check := ix.store.Probe
		if opts.Check == CheckAll {
			check = ix.store.Check
		}
		if err = check(ctx); err != nil {
			ix.store.Close()
		}
	}
	if errors.Is(err, ErrCorrupt) {
		ix.store, err = recreate(ctx, opts.DBPath)
		ix.Rebuilt = true
	}
	if err != nil {
		return nil, err
	}
	if opts.TermsInMemory {
		ix.store.KeepTermsInMemory()
	}
	return ix, nil
}

// recreate removes the database at path and creates an empty one.
func recreate(ctx context.Context, path string) (*indexStore, error) {
	if err := RemoveDatabase(path); err != nil {
		return nil, err
	}
	return openStore(ctx, path)
}

// CheckDatabase reads the whole index database at path through a
// connection of its own, so that pages another connection read before
// the file was damaged are read afresh (see Index.Check), and closes it.
// It returns an error wrapping ErrCorrupt if any of it cannot be read.
func CheckDatabase(ctx context.Context, path string) error {
	st, err := openStore(ctx, path)
	if err != nil {
		return err
	}
	err = st.Check(ctx)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("check index %s: %w", path, cerr)
	}
	return err
}

// RemoveDatabase removes an unreadable index database at path, with its
// write-ahead log, for the next Open to create it afresh. It is only for
// index databases, which derive from the files.
func RemoveDatabase(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the unreadable index: %w", err)
		}
	}
	return nil
}

// Rebuild replaces an unreadable database with an empty one (the next
// Update indexes the workspace again) and sets Rebuilt. It must not run
// while the index is in use by another goroutine.
func (ix *Index) Rebuild(ctx context.Context) error {
	ix.store.Close()
	st, err := recreate(ctx, ix.opts.DBPath)
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	ix.store = st
	ix.Rebuilt = true
	if ix.opts.TermsInMemory {
		st.KeepTermsInMemory()
	}
	return nil
}

// Embedder returns what embeds the index's chunks, or nil.
func (ix *Index) Embedder() Embedder { return ix.opts.Embedder }

// Root returns the workspace directory, absolute.
func (ix *Index) Root() string { return ix.root }

// Languages returns the languages the index parses.
func (ix *Index) Languages() *Languages { return ix.langs }

// Progress reports indexing progress: Done of Total files processed.
type Progress struct {
	Done, Total int
	Path        string
}

// Summary reports what an Update did and what the index holds.
type Summary struct {
	Root string `json:"root"`
	Stats
	Parsed    int `json:"parsed"`
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted"`
	// Bytes is the size of the files parsed.
	Bytes       int64          `json:"bytes_parsed"`
	Skipped     map[string]int `json:"skipped"`
	InvalidUTF8 int            `json:"invalid_utf8"`
	Problems    []Problem      `json:"problems,omitempty"`
	Seconds     float64        `json:"seconds"`
	// Timings says where the time went.
	Timings Timings `json:"timings"`
}

// Timings break an Update's time down by stage, in seconds. Parse,
// Queries, Assemble and Chunks are added up over the workers, which run at
// the same time; the others are spent by one goroutine.
type Timings struct {
	// Walk lists the workspace and reads what the index knows of it.
	Walk float64 `json:"walk"`
	// Parse is tree-sitter parsing (and freeing the trees).
	Parse float64 `json:"parse"`
	// Queries runs the tags queries over the trees.
	Queries float64 `json:"queries"`
	// Assemble numbers, nests and positions symbols and references.
	Assemble float64 `json:"assemble"`
	// Chunks cuts files into chunks and computes their search terms.
	Chunks float64 `json:"chunks"`
	// Store writes files' graphs and chunks, while workers parse.
	Store float64 `json:"store"`
	// Finish builds, after a first build, the indexes, name trigrams and
	// chunk callers deferred until every file was stored. The first
	// chunks are embedded meanwhile.
	Finish float64 `json:"finish"`
	// Vectors embeds the chunks that have no vector: the time it adds
	// after Finish.
	Vectors float64 `json:"vectors"`
}

// add adds the worker stages of o to t.
func (t *Timings) add(o Timings) {
	t.Parse += o.Parse
	t.Queries += o.Queries
	t.Assemble += o.Assemble
	t.Chunks += o.Chunks
}

// maxProblems caps the problems listed in a summary; all are counted in
// Skipped.
const maxProblems = 100

// fileResult is the outcome of reading and parsing one candidate.
type fileResult struct {
	c       candidate
	st      FileState
	graph   *FileGraph // nil when the content is unchanged
	skip    string
	detail  string
	badUTF8 bool
}

// Update brings the index up to date with the workspace: new and changed
// files are parsed in parallel, unchanged ones (same size and modification
// time, or same content hash) are left alone, and files that disappeared or
// became excluded lose their symbols and edges. Changes are committed in
// batches, so readers see progress while it runs. progress may be nil.
func (ix *Index) Update(ctx context.Context, progress func(Progress)) (*Summary, error) {
	return ix.UpdateExcept(ctx, nil, progress)
}

// UpdateExcept is Update leaving alone the files for which keep returns
// true (documents open in an editor, whose text is not the file's): they
// are neither parsed from disk nor removed. keep may be nil, and is asked
// again just before each write, so a file opened meanwhile is not
// overwritten.
func (ix *Index) UpdateExcept(ctx context.Context, keep func(rel string) bool, progress func(Progress)) (*Summary, error) {
	if keep == nil {
		keep = func(string) bool { return false }
	}
	start := time.Now()
	w := ix.newWalker()
	maxSize := w.maxSize
	filters := ix.filtersOf(w)
	if sum, ok, err := ix.upToDate(ctx, filters, start); ok || err != nil {
		return sum, err
	}
	token, err := ix.store.beginWalk(ctx)
	if err != nil {
		return nil, err
	}
	found, err := w.walk(ctx)
	if err != nil {
		return nil, err
	}
	var kept atomic.Bool // whether keep left a file alone: then no manifest
	keepOpen := keep
	keep = func(rel string) bool {
		if keepOpen(rel) {
			kept.Store(true)
			return true
		}
		return false
	}
	known, err := ix.store.FileStates(ctx)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Root: ix.root, Skipped: found.skipped, Problems: found.problems}
	sum.Timings.Walk = time.Since(start).Seconds()

	var todo []candidate
	present := make(map[string]bool, len(found.files))
	for _, c := range found.files {
		present[c.rel] = true
		if keep(c.rel) {
			continue
		}
		if old, ok := known[c.rel]; ok && old.Size == c.st.Size && old.Mtime == c.st.Mtime {
			sum.Unchanged++
			continue
		}
		c.st.Hash = known[c.rel].Hash // compared after reading; 0 if new
		todo = append(todo, c)
	}
	var gone []string
	for p := range known {
		if !present[p] && !keep(p) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		err := ix.store.Write(ctx, func(wr *indexWriter) error {
			wr.walk = token
			for _, p := range gone {
				if keep(p) {
					continue
				}
				if err := wr.DeleteFile(p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sum.Deleted = len(gone)
	}

	bulk := len(known) == 0 && len(todo) > bulkThreshold
	if bulk {
		if err := ix.store.DropIndexes(ctx); err != nil {
			return nil, err
		}
		defer ix.store.CreateIndexes(context.WithoutCancel(ctx))
		// Parsing allocates much short-lived memory; collect less often.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if err := ix.parseAll(ctx, token, todo, known, keep, maxSize, bulk, sum, progress); err != nil {
		return nil, err
	}
	// A first build finishes its indexes while the chunks are embedded:
	// the one is SQLite's writer alone, the other the workers'. Chunk
	// callers come first, as they are embedded.
	finish := time.Now()
	var finishErr error
	// Its last statements are a unit of work each (foreground.go): they
	// start in a pause of the typing or in the indexer's turn.
	if bulk {
		if !ix.fg.acquire(ctx) {
			return nil, ctx.Err()
		}
		finishErr = ix.store.nameBulkCallers(ctx)
		ix.fg.release()
	}
	if finishErr != nil {
		return nil, finishErr
	}
	var createIndexes func() error
	if bulk {
		createIndexes = func() error {
			if !ix.fg.acquire(ctx) {
				finishErr = ctx.Err()
				return finishErr
			}
			finishErr = ix.store.createIndexes(ctx)
			ix.fg.release()
			sum.Timings.Finish = time.Since(finish).Seconds()
			return finishErr
		}
	}
	err = ix.embedChunks(ctx, createIndexes)
	sum.Timings.Vectors = time.Since(finish).Seconds() - sum.Timings.Finish
	if finishErr != nil {
		return nil, finishErr
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The graph is indexed; the vectors wait for the next update.
		sum.Problems = append(sum.Problems, Problem{Reason: "embedding", Detail: err.Error()})
	}
	if len(sum.Problems) > maxProblems {
		sum.Problems = sum.Problems[:maxProblems]
	}
	sum.Stats, err = ix.store.cachedStats(ctx, sum.Parsed > 0 || sum.Deleted > 0 || sum.Unchanged != len(found.files) || ix.dirty.Swap(false))
	if err != nil {
		return nil, err
	}
	// What this update found is what the index holds now, unless an
	// open document was left alone or the vectors wait: the next update
	// may skip the walk while it stays so.
	if !kept.Load() && !hasProblem(sum.Problems, "embedding") {
		if m := newManifest(filters, found, start); m != nil {
			if ix.manifestHook != nil {
				ix.manifestHook()
			}
			// Recorded only when no one else changed files since the
			// walk started (an open document's Flush): the index may then
			// hold what the walk did not find.
			if _, err := ix.store.writeManifest(ctx, m, token); err != nil {
				return nil, err
			}
		}
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// filters fingerprints what an update with walker w indexes: the walk's
// settings, the chunk embedder's type and whether chunks are made.
func (ix *Index) filtersOf(w *walker) string {
	return fmt.Sprintf("%s\x00%T\x00%v", w.fingerprint(), ix.opts.Embedder, ix.opts.NoChunks)
}

// upToDate reports whether the index holds the workspace as it is, by
// the manifest of its last complete update (see manifest), and then
// returns the summary of an update that found nothing to do. filters
// fingerprints the walk's settings.
func (ix *Index) upToDate(ctx context.Context, filters string, start time.Time) (*Summary, bool, error) {
	m := ix.store.readManifest(ctx)
	if m == nil || m.filters != filters || !m.unchanged(ctx, ix.root) {
		return nil, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	sum := &Summary{Root: ix.root, Skipped: m.skipped, Problems: m.problems, Unchanged: len(m.files)}
	if len(sum.Problems) > maxProblems {
		sum.Problems = sum.Problems[:maxProblems]
	}
	sum.Timings.Walk = time.Since(start).Seconds()
	var err error
	if sum.Stats, err = ix.store.cachedStats(ctx, ix.dirty.Swap(false)); err != nil {
		return nil, false, err
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, true, nil
}

// hasProblem reports whether problems hold one of reason.
func hasProblem(problems []Problem, reason string) bool {
	for _, p := range problems {
		if p.Reason == reason {
			return true
		}
	}
	return false
}

// bulkThreshold is the number of files above which a first build drops
// the secondary indexes and creates them at the end.
const bulkThreshold = 2000

// batchFiles and batchDelay bound how much parsed work waits before it is
// committed. A first build commits less often: every commit flushes a
// segment of the text indexes, which FTS5 merges later.
const (
	batchFiles     = 512
	batchDelay     = 250 * time.Millisecond
	bulkBatchFiles = 1024
	bulkBatchDelay = time.Second
)

// parseAll reads and parses files on all workers and writes their graphs in
// batches from this goroutine, with the update's walk token.
func (ix *Index) parseAll(ctx context.Context, token string, todo []candidate, known map[string]FileState, keep func(string) bool, maxSize int64, bulk bool, sum *Summary, progress func(Progress)) error {
	if len(todo) == 0 {
		return nil
	}
	maxFiles, maxDelay := batchFiles, batchDelay
	if bulk {
		maxFiles, maxDelay = bulkBatchFiles, bulkBatchDelay
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan candidate)
	results := make(chan fileResult, 64)
	var wg sync.WaitGroup
	var spentMu sync.Mutex
	workers := min(ix.opts.Workers, len(todo))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewParser()
			p.NoChunks = ix.opts.NoChunks
			// A file's extraction waits for a keystroke between its
			// stages too (foreground.go).
			p.pause = func() { ix.fg.pause(ctx) }
			defer p.Close()
			defer func() {
				spentMu.Lock()
				sum.Timings.add(p.spent)
				spentMu.Unlock()
			}()
			for c := range jobs {
				// A keystroke goes first (foreground.go).
				if !ix.fg.acquire(ctx) {
					return
				}
				r := processFile(ctx, p, c, maxSize)
				ix.fg.release()
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, c := range todo {
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var batch []fileResult
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		start := time.Now()
		defer func() { sum.Timings.Store += time.Since(start).Seconds() }()
		// The written graphs are not kept for the next batch.
		defer func() {
			clear(batch)
			batch = batch[:0]
		}()
		// A write is one unit of work, from its transaction's start to its
		// commit. It waits for a keystroke's parse between files (the
		// index's writer is not the keystroke's: it only waits for its
		// turn); when a burst holds the indexer back, it commits the files
		// it wrote and waits for its next turn holding no transaction.
		return ix.writeInTurns(ctx, len(batch), 1,
			func(w *indexWriter) error {
				w.walk = token
				return nil
			},
			func(w *indexWriter, i int) error {
				ix.fg.wait(ctx)
				r := batch[i]
				var err error
				switch {
				case keep(r.c.rel):
				case r.skip != "":
					err = w.DeleteFile(r.c.rel)
				case r.graph == nil:
					err = w.Touch(r.c.rel, r.st)
				default:
					err = w.ReplaceFile(r.st, r.graph)
				}
				if err == nil && ix.writeHook != nil {
					ix.writeHook(r.c.rel, len(batch)-i-1)
				}
				return err
			})
	}
	done := 0
	last := time.Now()
	for r := range results {
		done++
		switch {
		case r.skip != "":
			sum.Skipped[r.skip]++
			sum.Problems = append(sum.Problems, Problem{Path: r.c.rel, Reason: r.skip, Detail: r.detail})
		case r.graph == nil:
			sum.Unchanged++
		default:
			sum.Parsed++
			sum.Bytes += r.st.Size
		}
		if r.badUTF8 {
			sum.InvalidUTF8++
		}
		if r.skip == "" || known[r.c.rel] != (FileState{}) {
			batch = append(batch, r)
		}
		if progress != nil {
			progress(Progress{Done: done, Total: len(todo), Path: r.c.rel})
		}
		if len(batch) >= maxFiles || time.Since(last) > maxDelay {
			if err := flush(); err != nil {
				return err
			}
			last = time.Now()
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return flush()
}

// processFile reads one file and parses it unless its content is unchanged.
func processFile(ctx context.Context, p *Parser, c candidate, maxSize int64) fileResult {
	res := fileResult{c: c, st: c.st}
	src, err := os.ReadFile(c.abs)
	if err != nil {
		res.skip, res.detail = SkipUnreadable, err.Error()
		return res
	}
	res.st.Size = int64(len(src))
	if res.st.Size > maxSize {
		res.skip, res.detail = SkipTooLarge, fmt.Sprintf("%d bytes, cap %d", res.st.Size, maxSize)
		return res
	}
	if isBinary(src) {
		res.skip = SkipBinary
		return res
	}
	res.st.Hash = xxhash.Sum64(src)
	if c.st.Hash != 0 && c.st.Hash == res.st.Hash {
		return res
	}
	res.badUTF8 = !utf8.Valid(src)
	g, err := p.Extract(ctx, c.lang, c.rel, src)
	if err != nil {
		res.skip, res.detail = SkipUnreadable, err.Error()
		return res
	}
	res.graph = g
	return res
}

// isBinary reports whether content looks binary: a NUL byte in its first
// 8000 bytes, as git decides.
func isBinary(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0
}

// writeInTurns writes n items, in order, in units of work: each unit is
// one write transaction, acquired as a unit from the foreground (see
// foreground.go), that calls begin and then item for the items not yet
// written. When a burst holds the indexer back (checked every
// yieldEvery items, never before a unit's first), the unit commits what
// it wrote and the next one waits for the indexer's turn holding no
// transaction. It returns ctx.Err() when no turn comes before ctx ends.
func (ix *Index) writeInTurns(ctx context.Context, n, yieldEvery int, begin func(w *indexWriter) error, item func(w *indexWriter, i int) error) error {
	for written := 0; written < n; {
		if !ix.fg.acquire(ctx) {
			return ctx.Err()
		}
		err := ix.store.Write(ctx, func(w *indexWriter) error {
			if err := begin(w); err != nil {
				return err
			}
			for i := 0; written < n; i++ {
				if i > 0 && i%yieldEvery == 0 && ix.fg.held() {
					return nil
				}
				if err := item(w, written); err != nil {
					return err
				}
				written++
			}
			return nil
		})
		ix.fg.release()
		if err != nil {
			return err
		}
	}
	return nil
}
