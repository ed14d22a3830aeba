// Package keyword is the exact-text backend of the search router: it finds
// every occurrence of a literal or a regular expression in a list of
// workspace files, in process, with the file, line, column and a snippet of
// each.
//
// Matching is line by line, as in grep: a match never spans lines, and a
// line is its text without its terminator ("\n" or "\r\n"; a final "\r"
// without "\n" is dropped too). Within a line the matches are the
// successive non-overlapping leftmost ones; a regular expression picks among
// its alternatives as Go's regexp does (leftmost-first, RE2 syntax), and
// its ^, $, \A and \z anchor at line ends. Patterns that contain a line
// break, and regular expressions that can match the empty string (a*, ^,
// \b), are refused with a *PatternError. Binary files, with a NUL byte in
// their first 8000 bytes, are skipped.
//
// Search reads the files in parallel. A literal is looked for over the
// whole file by scanning for its rarest byte with bytes.IndexByte; line
// numbers are counted only up to the matches. A regular expression is run
// only on the lines that contain a literal that every one of its matches
// must contain (" *Reader) Read" for `func \(\w+ \*Reader\) Read`), or,
// when it has none, over the whole file a block of lines at a time.
package keyword

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Limits and defaults.
const (
	// DefaultMaxMatches is the number of matches kept when
	// Options.MaxMatches is 0.
	DefaultMaxMatches = 10000
	// DefaultMaxFileSize is the largest file searched when
	// Options.MaxFileSize is 0.
	DefaultMaxFileSize = 64 << 20
	// MaxErrors is the number of messages kept in Result.Errors.
	MaxErrors = 100
	// binaryPrefix is how much of a file is looked at for a NUL byte.
	binaryPrefix = 8000
	// window is how many files the workers may run ahead of the first one
	// not finished, which bounds the matches held out of order.
	window = 256
)

// File is one file to search.
type File struct {
	// Path names the file in matches and in Options.Overlay: relative to
	// the workspace root, with '/' separators.
	Path string
	// Abs is where the file is read from when no overlay gives its text.
	Abs string
}

// Options control a search. The zero value searches for a literal with
// smart case.
type Options struct {
	// Regex makes the pattern a Go regular expression (RE2 syntax, see
	// regexp/syntax); else it is literal text.
	Regex bool
	// IgnoreCase forces case-insensitive (true) or case-sensitive (false)
	// matching. Nil is smart case: insensitive unless the pattern has an
	// upper-case letter (for a regular expression, letters in escapes such
	// as \S or \p{Lu} and in group names do not count). Case folding is
	// Unicode simple folding, as in regexp's (?i).
	IgnoreCase *bool
	// WholeWord keeps only the matches that have no identifier character
	// ([A-Za-z0-9_]) just before or just after them. For a regular
	// expression the match kept at a place is the first alternative, in
	// regexp's order, that satisfies this.
	WholeWord bool
	// MaxMatches is how many matches Result.Matches keeps: 0 means
	// DefaultMaxMatches, a negative number none. Every occurrence is
	// counted in Result.Total whatever this is.
	MaxMatches int
	// MaxFileSize is the size in bytes above which a file is skipped and
	// reported: 0 means DefaultMaxFileSize. It does not apply to overlays.
	MaxFileSize int64
	// Workers is the number of files searched at once: 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Overlay, if set, gives the text of a file that is open in an editor,
	// by File.Path; ok false reads the file from disk. It is called from
	// several goroutines at once. Search neither modifies nor keeps the
	// text, which must not change until Search returns.
	Overlay func(path string) (text []byte, ok bool)
}

// Match is one occurrence of the pattern.
type Match struct {
	// Path is File.Path of the file it is in.
	Path string `json:"path"`
	// Line is its 1-based line number.
	Line int `json:"line"`
	// Column is the 1-based byte offset of its first byte in the line, and
	// EndColumn that of the byte just after it: the match is
	// line[Column-1 : EndColumn-1].
	Column    int `json:"column"`
	EndColumn int `json:"end_column"`
	// Text is the line for display: trimmed of leading and trailing
	// spaces, cut to at most 200 of its bytes around the match with "…"
	// where it was cut, and made valid UTF-8: each run of invalid bytes
	// becomes U+FFFD, so Text may be longer than what it shows of the line.
	Text string `json:"text"`
}

// Result is what a search found.
type Result struct {
	// Matches are the first matches kept (Options.MaxMatches), in the
	// order of the files given, then by line, then by column.
	Matches []Match `json:"matches"`
	// Total counts every occurrence, including those not kept.
	Total int `json:"total"`
	// Truncated is true when Total is more than len(Matches).
	Truncated bool `json:"truncated"`
	// FilesSearched counts the files read and searched, FilesMatched those
	// with at least one match, FilesSkipped the binary files and those
	// over the size limit.
	FilesSearched int `json:"files_searched"`
	FilesMatched  int `json:"files_matched"`
	FilesSkipped  int `json:"files_skipped"`
	// Errors says, as "path: reason", which files could not be searched
	// (unreadable, not a regular file, over the size limit), up to
	// MaxErrors of them; ErrorCount counts them all.
	Errors     []string `json:"errors,omitempty"`
	ErrorCount int      `json:"error_count"`
}

// Search finds pattern in files. It returns an error, and no result, only
// when the pattern is invalid (a *PatternError) or ctx is done; a file that
// cannot be read is reported in Result.Errors and the search goes on.
func Search(ctx context.Context, files []File, pattern string, opts Options) (*Result, error) {
	s, err := compile(pattern, opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("keyword search for %q: %w", pattern, err)
	}
	keep := opts.MaxMatches
	switch {
	case keep == 0:
		keep = DefaultMaxMatches
	case keep < 0:
		keep = 0
	}
	maxSize := opts.MaxFileSize
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(files)))

	c := &collector{done: make([]*fileResult, len(files)), res: &Result{Matches: []Match{}}, keep: keep}
	c.cond.L = &c.mu
	c.room.Store(int64(keep))
	stop := context.AfterFunc(ctx, c.wake)
	defer stop()

	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := worker{ctx: ctx, s: s, overlay: opts.Overlay, maxSize: maxSize}
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) || !c.waitTurn(ctx, i) {
					return
				}
				fr := w.searchFile(files[i], int(c.room.Load()))
				if fr == nil {
					return
				}
				c.commit(i, fr)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("keyword search for %q: %w", pattern, err)
	}
	c.res.Truncated = c.res.Total > len(c.res.Matches)
	return c.res, nil
}

// fileResult is what the search of one file found.
type fileResult struct {
	matches  []Match
	count    int
	searched bool
	skipped  bool
	err      string
}

// collector puts the files' results together in the files' order.
type collector struct {
	mu   sync.Mutex
	cond sync.Cond
	// done holds the results of the files finished out of order; those
	// before next are in res.
	done []*fileResult
	next int
	res  *Result
	keep int
	// room is how many more matches res can keep: a file needs no more.
	room atomic.Int64
}

// waitTurn waits until file i is within the window of files that may be
// searched, and reports whether to search it (false once ctx is done).
func (c *collector) waitTurn(ctx context.Context, i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i >= c.next+window && ctx.Err() == nil {
		c.cond.Wait()
	}
	return ctx.Err() == nil
}

// wake wakes the workers waiting for their turn.
func (c *collector) wake() {
	c.mu.Lock()
	c.cond.Broadcast()
	c.mu.Unlock()
}

// commit records the result of file i and adds to the result every
// finished file that now follows the ones already added.
func (c *collector) commit(i int, fr *fileResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done[i] = fr
	if i != c.next {
		return
	}
	res := c.res
	for c.next < len(c.done) && c.done[c.next] != nil {
		fr := c.done[c.next]
		c.done[c.next] = nil
		c.next++
		res.Total += fr.count
		if fr.searched {
			res.FilesSearched++
		}
		if fr.count > 0 {
			res.FilesMatched++
		}
		if fr.skipped {
			res.FilesSkipped++
		}
		if fr.err != "" {
			res.ErrorCount++
			if len(res.Errors) < MaxErrors {
				res.Errors = append(res.Errors, fr.err)
			}
		}
		n := min(len(fr.matches), c.keep-len(res.Matches))
		res.Matches = append(res.Matches, fr.matches[:n]...)
	}
	c.room.Store(int64(c.keep - len(res.Matches)))
	c.cond.Broadcast()
}

// worker searches files one at a time, reusing its memory.
type worker struct {
	ctx     context.Context
	s       *searcher
	overlay func(string) ([]byte, bool)
	maxSize int64
	sc      scratch
}

// errTooLarge is wrapped by load's error for a file over the size limit.
var errTooLarge = errors.New("file too large")

// searchFile searches f, keeping at most keep matches. It returns nil when
// the context is done.
func (w *worker) searchFile(f File, keep int) *fileResult {
	text, err := w.load(f)
	switch {
	case errors.Is(err, errTooLarge):
		return &fileResult{skipped: true, err: fmt.Sprintf("%s: skipped: %v", f.Path, err)}
	case err != nil:
		return &fileResult{err: fmt.Sprintf("%s: %v", f.Path, err)}
	case isBinary(text):
		return &fileResult{skipped: true}
	}
	fs := fileScan{path: f.Path, keep: keep, line: 1}
	if err := w.s.scan(w.ctx, text, &w.sc, &fs); err != nil {
		return nil
	}
	return &fileResult{searched: true, matches: fs.matches, count: fs.count}
}

// load returns the text of f: the overlay's, or the file read into the
// worker's buffer (valid until the next load).
func (w *worker) load(f File) ([]byte, error) {
	if w.overlay != nil {
		if text, ok := w.overlay(f.Path); ok {
			return text, nil
		}
	}
	if f.Abs == "" {
		return nil, errors.New("no file name to read")
	}
	buf, err := readFile(f.Abs, w.sc.buf, w.maxSize)
	w.sc.buf = buf[:0]
	return buf, err
}

// readAll reads a file of the given size (0 when not known, as in /proc)
// into buf with read, which returns 0 at the end of the file. It reads to
// the end, or size bytes: a file that grew meanwhile is cut there.
func readAll(buf []byte, size, maxSize int64, read func([]byte) (int, error)) ([]byte, error) {
	if size > maxSize {
		return buf, fmt.Errorf("%w: %d bytes, over the limit of %d", errTooLarge, size, maxSize)
	}
	buf = buf[:0]
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, max(size+1, 4096))
	}
	for size == 0 || int64(len(buf)) < size {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= maxSize {
				return buf, fmt.Errorf("%w: over the limit of %d bytes", errTooLarge, maxSize)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(buf[len(buf):cap(buf)])
		if err != nil {
			return buf, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}
