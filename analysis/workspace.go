package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Workspace is the code graph of a workspace as an editor sees it: the
// index of the files on disk, overlaid with the documents open in the
// editor, which are the source of truth while they are open.
//
// Edits are applied to a document's text at once, in order, and cost no
// more than copying the text; the parse they call for is done later, once
// for all the edits made meanwhile, by the first reader of the document's
// graph (a request, or the writer below). A reader that comes while a
// parse is in progress answers from that parse, a few edits behind the
// text at most; one that comes when none is parses the newest text. A
// request therefore waits for one parse at most, never for each
// intermediate version, nor for a parse of edits made after it. Graphs are written to the index in batches,
// shortly after typing stops or before any query that reads the index
// (Flush); editing never waits for the index.
//
// A document larger than the index's size cap is kept as text only: it is
// never parsed, and its graph is empty (see Oversized). A Workspace is
// safe for concurrent use.
type Workspace struct {
	ix *Index

	mu      sync.Mutex
	docs    map[string]*openDoc
	pending map[string]bool // open documents whose graph is not in the index yet
	timer   *time.Timer
	// pendingSince is when the oldest change not written was made;
	// lastChange when the newest was.
	pendingSince, lastChange time.Time
	closed                   bool
	retired                  []*Document // parsed documents closed or replaced, released under parseMu
	// seq counts the changes to open documents; flushed is the count the
	// last successful Flush wrote (guarded by flushMu).
	seq     uint64
	flushed uint64

	// parseMu serialises parses: it guards parser and every openDoc's doc.
	parseMu sync.Mutex
	parser  *Parser

	// flushMu orders index writes of documents.
	flushMu sync.Mutex
	// committing holds the documents whose graphs a Flush is committing
	// to the index (guarded by mu); Close waits on committed for its
	// document to leave it, so that no closed editor's text reaches the
	// index after Close returns.
	committing map[string]bool
	committed  *sync.Cond

	// flushHook, set by tests only, is called by Flush inside its write
	// transaction, once the documents' rows are written and before the
	// transaction commits.
	flushHook func()
}

// openDoc is an open document: its newest text, and its parsed state with
// the edits not yet applied to it.
type openDoc struct {
	lang    *Language
	version int32
	text    []byte
	// owned says that text's array is referenced from here only, so that
	// edits may change it in place; handing text out clears it.
	owned bool
	// oversized is set when text is over the size cap: it is not parsed.
	oversized bool

	// queue holds the edits made since doc was parsed, in order; reset
	// says that doc is to be parsed afresh from text instead.
	queue []TextEdit
	reset bool
	// hint is where a line of text starts, for the next edit.
	hint lineHint

	// doc is the parsed state, guarded by the workspace's parseMu and
	// used by the goroutine that set parsing only (nil before the first
	// parse).
	doc *Document
	// pub is what doc's last parse published, guarded by the workspace's
	// mu: readers take it without parseMu.
	pub *parseResult
	// parsing is closed when the parse in progress ends; nil when none
	// is. waiters counts the readers waiting for it.
	parsing chan struct{}
	waiters int
}

// FlushDelay is how long after the last change an open document's graph
// is written to the index when nothing asks for it sooner.
const FlushDelay = 200 * time.Millisecond

// MaxFlushDelay bounds how long changes wait to be written while typing
// goes on without a pause of FlushDelay: a burst of edits is written once,
// or once every MaxFlushDelay, rather than after every pause. Writing a
// large file's graph takes a core for a tenth of a second (SQLite, the
// full-text index's merges) and makes garbage for the collector, which
// the keystrokes typed meanwhile share the machine with; the server's own
// queries write the pending graphs first (Flush) and do not wait for it,
// so it is as long as typingWindow: only other processes reading the
// index (the CLI, a separate MCP server) see the edits of a long burst of
// typing that late.
const MaxFlushDelay = typingWindow

// Errors of document operations, for the editor to report.
var (
	ErrNotOpen      = errors.New("document is not open")
	ErrStaleVersion = errors.New("document version is not newer than the current one")
	ErrOutsideRoot  = errors.New("file is outside the workspace")
	ErrUnsupported  = errors.New("file is in no supported language")
)

// NewWorkspace returns a workspace over an opened index.
func NewWorkspace(ix *Index) *Workspace {
	w := &Workspace{ix: ix, parser: NewParser(), docs: map[string]*openDoc{}, pending: map[string]bool{}, committing: map[string]bool{}}
	w.committed = sync.NewCond(&w.mu)
	return w
}

// Index returns the workspace's index.
func (w *Workspace) Index() *Index { return w.ix }

// Rel returns the path of an absolute file name relative to the root, with
// forward slashes, or ErrOutsideRoot.
func (w *Workspace) Rel(abs string) (string, error) {
	return RelPath(w.ix.root, abs)
}

// RelPath returns the path of file relative to root, with forward
// slashes, or ErrOutsideRoot when file is not inside root.
func RelPath(root, file string) (string, error) {
	rel, err := filepath.Rel(root, filepath.Clean(file))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s: %w", file, ErrOutsideRoot)
	}
	return filepath.ToSlash(rel), nil
}

// IsOpen reports whether a file (relative path) is open in the editor.
func (w *Workspace) IsOpen(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.docs[rel] != nil
}

// maxSize is the size cap above which documents are not parsed.
func (w *Workspace) maxSize() int {
	w.ix.optsMu.Lock()
	defer w.ix.optsMu.Unlock()
	return int(min(w.ix.opts.MaxFileSize, math.MaxInt))
}

// Open starts tracking a document with the editor's text. It does not
// parse it: the first reader of its graph does.
func (w *Workspace) Open(ctx context.Context, rel string, version int32, text []byte) error {
	lang, err := w.ix.langs.ForPath(rel)
	if err != nil {
		return err
	}
	if lang == nil {
		return fmt.Errorf("open %s: %w", rel, ErrUnsupported)
	}
	limit := w.maxSize()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("open %s: workspace is shut down", rel)
	}
	if old := w.docs[rel]; old != nil && old.doc != nil {
		w.retired = append(w.retired, old.doc) // old.doc is parseMu's: released there
	}
	w.docs[rel] = &openDoc{lang: lang, version: version, text: text, reset: true, oversized: len(text) > limit}
	w.seq++
	w.markPending(rel)
	return nil
}

// Change applies an editor's edits to an open document's text, in order
// (each in the coordinates of the text the previous one left). Positions
// out of range are clamped to the document, as editors expect. Versions
// must increase; a change with a version not newer than the document's is
// refused and changes nothing. The parse is left to the next reader of
// the document's graph.
func (w *Workspace) Change(ctx context.Context, rel string, version int32, edits []TextEdit) error {
	limit := w.maxSize()
	w.mu.Lock()
	defer w.mu.Unlock()
	od := w.docs[rel]
	if od == nil {
		return fmt.Errorf("change %s: %w", rel, ErrNotOpen)
	}
	if version <= od.version {
		return fmt.Errorf("change %s to version %d (at %d): %w", rel, version, od.version, ErrStaleVersion)
	}
	od.text, od.owned = applyEdits(od.text, od.owned, &od.hint, edits)
	od.version = version
	wasOversized := od.oversized
	od.oversized = len(od.text) > limit
	switch {
	case od.oversized:
		od.queue, od.reset = nil, true
	case wasOversized || od.reset:
		od.queue, od.reset = nil, true
	default:
		od.queue = append(od.queue, edits...)
	}
	w.seq++
	w.markPending(rel)
	// The user types: the indexer runs fewer units at once for a while.
	w.ix.fg.keystroke()
	return nil
}

// applyEdits returns text with edits applied in order, as Document.Apply
// applies them, and whether the result is owned (see openDoc.owned). A
// text that is not owned is not modified: readers of earlier versions
// may hold it. Edits arrive faster than requests read the text, so each
// costs a scan up to its line, not an index of every line — from the
// line of the edit before when it is on that line or after it (hint) —
// and a run of edits between two readers copies the text once: the copy
// has room to grow, and the next edits move only the text after them.
func applyEdits(text []byte, owned bool, hint *lineHint, edits []TextEdit) ([]byte, bool) {
	for _, e := range edits {
		if e.Range == nil {
			text, owned = []byte(e.Text), true
			*hint = lineHint{}
			continue
		}
		start, at := hint.offset(text, e.Range.StartLine, e.Range.StartColumn)
		end := start
		if e.Range.EndLine != e.Range.StartLine || e.Range.EndColumn != e.Range.StartColumn {
			var endAt lineHint
			if end, endAt = hint.offset(text, e.Range.EndLine, e.Range.EndColumn); end < start {
				start, end, at = end, start, endAt
			}
		}
		// The text before the edit does not change: where the line of its
		// start begins stays true.
		*hint = at
		n := len(text) - (end - start) + len(e.Text)
		if owned && n <= cap(text) {
			old := len(text)
			text = text[:max(n, old)]
			copy(text[start+len(e.Text):], text[end:old])
			copy(text[start:], e.Text)
			text = text[:n]
			continue
		}
		next := make([]byte, 0, n+n/8+64)
		text = append(append(append(next, text[:start]...), e.Text...), text[end:]...)
		owned = true
	}
	return text, owned
}

// lineHint is where a line of an open document's text starts (the zero
// value, line 0 at offset 0, holds for every text), so that an edit on
// that line or after it finds its line without scanning from the start:
// typing edits one line after another.
type lineHint struct {
	line, start int
}

// offset is offsetOf, scanning from the hint when the line is at or
// after it, and where the line of the offset (or the last line, when the
// position is past the end) starts.
func (h lineHint) offset(text []byte, line, col int) (int, lineHint) {
	if line < 0 {
		return 0, lineHint{}
	}
	at := lineHint{}
	if line >= h.line && h.start <= len(text) {
		at = h
	}
	for ; at.line < line; at.line++ {
		j := bytes.IndexByte(text[at.start:], '\n')
		if j < 0 {
			return len(text), at
		}
		at.start += j + 1
	}
	end := len(text)
	if j := bytes.IndexByte(text[at.start:], '\n'); j >= 0 {
		end = at.start + j
	}
	return columnOffset(text, at.start, end, col), at
}

// Oversized reports whether an open document is over the size cap, kept
// as text only, and its size.
func (w *Workspace) Oversized(rel string) (size int, over bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	od := w.docs[rel]
	if od == nil {
		return 0, false
	}
	return len(od.text), od.oversized
}

// MaxFileSize is the size cap above which files and open documents are
// not parsed.
func (w *Workspace) MaxFileSize() int64 { return int64(w.maxSize()) }

// Close stops tracking a document. The file returns to its content on
// disk with the next Refresh, which the caller runs when it suits it.
// Once Close returns, no Flush writes the editor's text of the document
// to the index: a Flush that is committing it is waited for (the commit
// only, never a parse or the index writer), and one that wrote it but
// has not reached its commit leaves it out.
func (w *Workspace) Close(rel string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.committing[rel] {
		w.committed.Wait()
	}
	od := w.docs[rel]
	if od == nil {
		return fmt.Errorf("close %s: %w", rel, ErrNotOpen)
	}
	if od.doc != nil {
		w.retired = append(w.retired, od.doc)
	}
	delete(w.docs, rel)
	delete(w.pending, rel)
	return nil
}

// Refresh brings the index up to date with the files on disk, leaving the
// open documents as the editor has them. It is what a changed, created or
// deleted file on disk calls for.
func (w *Workspace) Refresh(ctx context.Context, progress func(Progress)) (*Summary, error) {
	// A Flush that found a document open may still be writing the
	// editor's text of it when the document closes. The refresh that the
	// close calls for must read the index after that write: read before
	// it, the file looks unchanged on disk and the closed editor's text
	// would stay in the index until the next change.
	w.flushMu.Lock()
	w.flushMu.Unlock() // nothing to do under it: this waits for the Flush in progress
	return w.ix.UpdateExcept(ctx, w.IsOpen, progress)
}

// Snapshot returns an open document's text and the graph of that text, or
// false when the file is not open. The document is parsed first if it
// changed since its last parse. The graph of a document over the size cap
// is empty. The results must not be modified.
func (w *Workspace) Snapshot(rel string) (text []byte, g *FileGraph, version int32, ok bool) {
	return w.parsed(context.Background(), rel, true)
}

// Text returns an open document's newest text and its version, without
// waiting for a parse, or false when the file is not open. The text must
// not be modified.
func (w *Workspace) Text(rel string) (text []byte, version int32, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	od := w.docs[rel]
	if od == nil {
		return nil, 0, false
	}
	od.owned = false
	return od.text, od.version, true
}

// ParsedSymbols returns the symbols of an open document's newest finished
// parse, as FileSymbols does, without parsing or waiting for a parse in
// progress: they may be some edits behind the text. It is false when the
// document is not open or was never parsed. It suits work that follows
// the user (the working-memory slots) and must not compete with requests
// for the parser. The result must not be modified.
func (w *Workspace) ParsedSymbols(rel string) ([]SymbolInfo, bool) {
	w.mu.Lock()
	od := w.docs[rel]
	var pub *parseResult
	if od != nil {
		pub = od.pub
	}
	w.mu.Unlock()
	if pub == nil {
		return nil, false
	}
	return pub.snap.symbols(), true
}

// parsed returns an open document's text and graph: as of its version
// when called, or newer, when no parse is in progress or fresh is set;
// else the parse in progress's (see parsedResult). When the last parse is
// older, it parses the newest text, once for all the edits made since.
// Callers that queue up behind one parse are all served by it; edits made
// while they wait do not make each of them parse again.
func (w *Workspace) parsed(ctx context.Context, rel string, fresh bool) (text []byte, g *FileGraph, version int32, ok bool) {
	text, snap, version, ok := w.parsedSnapshot(ctx, rel, fresh)
	if !ok {
		return nil, nil, 0, false
	}
	return text, snap.full(), version, true
}

// parsedSnapshot is parsed, with the snapshot of the document's graph
// (empty for a document over the size cap or that failed to parse),
// whose references and search chunks the caller links and cuts after
// parseMu is released: a keystroke waits for neither.
func (w *Workspace) parsedSnapshot(ctx context.Context, rel string, fresh bool) (text []byte, snap *docSnapshot, version int32, ok bool) {
	p, ok := w.parsedResult(ctx, rel, fresh)
	if !ok {
		return nil, nil, 0, false
	}
	return p.text, p.snap, p.version, true
}

// parsedResult is parsedSnapshot's result. For a document over the size
// cap, or whose parse failed, it is made for the caller alone.
//
// Readers never queue on a lock held through a parse: the newest parse's
// result is published in the document's state, and a reader that finds it
// as new as the text it asks for takes it under w.mu alone. Otherwise one
// reader parses the newest text, under parseMu, and the others wait for
// its result. A reader that arrives while a parse is in progress answers
// from that parse when it ends, even if edits came after the text it
// parses: it waits for one parse at most, never for a parse of edits that
// came after it, and a flood of edits cannot keep it waiting. fresh asks
// for the text as it is at the call instead (the index writer's Flush,
// Snapshot): such a reader may wait for the parse in progress and then
// for a parse of the newest text.
// (Readers that each took parseMu in turn made a convoy under a flood of
// requests: every handoff waited for a goroutine to be scheduled.)
func (w *Workspace) parsedResult(ctx context.Context, rel string, fresh bool) (*parseResult, bool) {
	if wait, ok := ctx.Value(parseWaitKey{}).(*atomic.Int64); ok {
		start := time.Now()
		defer func() { wait.Add(int64(time.Since(start))) }()
		ctx = context.WithValue(ctx, parseWaitKey{}, nil) // counted once, here
	}
	w.mu.Lock()
	od := w.docs[rel]
	if od == nil {
		w.mu.Unlock()
		return nil, false
	}
	// The caller needs the text as it is now; a parse of a newer version,
	// made while it waited, serves it as well.
	want := od.version
	for {
		if w.docs[rel] != od {
			// Closed or opened again while the caller waited: it reads
			// the document as it is now.
			w.mu.Unlock()
			return w.parsedResult(ctx, rel, fresh)
		}
		if od.oversized {
			defer w.mu.Unlock()
			od.owned = false
			return &parseResult{text: od.text, snap: bareSnapshot(&FileGraph{Path: rel, Language: od.lang.Name}), version: od.version}, true
		}
		if p := od.pub; p != nil && (p.version >= want || od.parsing == nil && !od.reset && len(od.queue) == 0) {
			w.mu.Unlock()
			return p, true
		}
		if od.parsing == nil {
			break // the caller parses
		}
		wait := od.parsing
		od.waiters++
		w.mu.Unlock()
		// The parse runs to the end even if the caller gives up, as it
		// would if the caller ran it: waiting is not cancelled either, so
		// that a request's edits are parsed by someone.
		<-wait
		w.mu.Lock()
		od.waiters--
		if p := od.pub; !fresh && w.docs[rel] == od && p != nil {
			// The parse the caller waited for answers it (read under
			// w.mu: the next parse publishes its own there).
			w.mu.Unlock()
			return p, true
		}
	}
	done := make(chan struct{})
	od.parsing = done
	queue, reset, text, version, lang := od.queue, od.reset, od.text, od.version, od.lang
	od.queue, od.reset, od.owned = nil, false, false
	retired := w.retired
	w.retired = nil
	w.mu.Unlock()

	w.parseMu.Lock()
	for _, d := range retired {
		d.Close()
	}
	// od.doc is parseMu's; od.parsing makes this goroutine its only user
	// for now.
	doc := od.doc
	// The parse runs to the end even if the caller gives up: the edits it
	// takes are not given back.
	ctx = context.WithoutCancel(ctx)
	// The indexer's workers start no file meanwhile.
	w.ix.fg.enter()
	var err error
	if reset || doc == nil {
		if doc != nil {
			doc.Close()
		}
		doc, err = w.parser.OpenDocument(ctx, lang, rel, version, text)
	} else {
		// text is the edits' result, not modified any more (it is not
		// owned): the document keeps it instead of making it again.
		err = doc.apply(ctx, w.parser, version, coalesce(doc, text, queue), text)
	}
	w.ix.fg.leave()
	var pub *parseResult
	if err == nil {
		pub = &parseResult{text: doc.Text(), snap: doc.snap, version: doc.Version}
	}
	w.parseMu.Unlock()

	w.mu.Lock()
	od.parsing = nil
	close(done)
	if w.docs[rel] != od || err != nil {
		// Closed or opened again meanwhile, or the parse failed (then the
		// next reader parses afresh).
		if w.docs[rel] == od {
			od.doc, od.pub, od.queue, od.reset = nil, nil, nil, true
		} else {
			od.doc = nil
		}
		od = w.docs[rel]
		var p *parseResult
		if od != nil {
			od.owned = false
			p = &parseResult{text: od.text, snap: bareSnapshot(&FileGraph{Path: rel, Language: od.lang.Name}), version: od.version}
		}
		w.mu.Unlock()
		if doc != nil {
			w.parseMu.Lock()
			doc.Close()
			w.parseMu.Unlock()
		}
		return p, od != nil
	}
	od.doc, od.pub = doc, pub
	w.mu.Unlock()
	return pub, true
}

// parseWaitKey is the context key of WithParseWait's counter.
type parseWaitKey struct{}

// WithParseWait returns a context under which the time readers of open
// documents spend on parses (waiting for another reader's, or running
// their own) is added to *wait, in nanoseconds. It is for measurements:
// without it nothing is measured.
func WithParseWait(ctx context.Context, wait *atomic.Int64) context.Context {
	return context.WithValue(ctx, parseWaitKey{}, wait)
}

// parseResult is what a parse of an open document published: the text
// parsed and its graph, never modified, and what Memo made of them.
type parseResult struct {
	text    []byte
	snap    *docSnapshot
	version int32
	memo    sync.Map
}

// Memo returns what fn makes of the symbols of an open document as the
// editor has it (as FileSymbols returns them, not to be modified), made
// once for each parse and key: the callers that read the same parse share
// it, so fn's result must not be modified either. It is false when the
// document is not open. It suits answers an editor asks again and again
// between edits (the outline), which are then made once per version.
func (w *Workspace) Memo(ctx context.Context, rel string, key any, fn func(syms []SymbolInfo) any) (any, bool) {
	p, ok := w.parsedResult(ctx, rel, false)
	if !ok {
		return nil, false
	}
	if v, ok := p.memo.Load(key); ok {
		return v, true
	}
	v, _ := p.memo.LoadOrStore(key, fn(p.snap.symbols()))
	return v, true
}

// coalesce returns queued edits as one: the part of text that differs
// from what doc last parsed, so that a burst of edits costs one edit of
// the syntax tree and one pass over the text. It returns the edits as
// they are when one edit cannot say the same exactly (a difference that
// starts or ends inside a character or a line break).
func coalesce(doc *Document, text []byte, queue []TextEdit) []TextEdit {
	if len(queue) <= 1 || doc.lines == nil {
		return queue
	}
	old := doc.text
	p := 0
	for p < len(old) && p < len(text) && old[p] == text[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(text)-p && old[len(old)-1-s] == text[len(text)-1-s] {
		s++
	}
	start, end := doc.lines.position(p), doc.lines.position(len(old)-s)
	if doc.lines.offset(start.Line, start.Column) != p || doc.lines.offset(end.Line, end.Column) != len(old)-s {
		return queue
	}
	return []TextEdit{{
		Range: &EditRange{StartLine: start.Line, StartColumn: start.Column, EndLine: end.Line, EndColumn: end.Column},
		Text:  string(text[p : len(text)-s]),
	}}
}

// releaseRetired releases the syntax trees of documents closed or
// replaced. w.parseMu and w.mu are held.
func (w *Workspace) releaseRetired() {
	for _, d := range w.retired {
		d.Close()
	}
	w.retired = nil
}

// markPending schedules the document's graph to be written. w.mu is held.
func (w *Workspace) markPending(rel string) {
	w.pending[rel] = true
	w.lastChange = time.Now()
	if w.timer == nil && !w.closed {
		w.pendingSince = w.lastChange
		w.timer = time.AfterFunc(FlushDelay, w.flushLater)
	}
}

// flushLater writes the pending graphs once typing has paused for
// FlushDelay, or has gone on for MaxFlushDelay since the oldest change
// not written.
func (w *Workspace) flushLater() {
	w.mu.Lock()
	if w.closed || w.timer == nil {
		w.mu.Unlock()
		return
	}
	now := time.Now()
	if quiet := now.Sub(w.lastChange); quiet < FlushDelay && now.Sub(w.pendingSince) < MaxFlushDelay {
		w.timer.Reset(FlushDelay - quiet)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	w.Flush(context.Background())
}

// Flush writes the graphs of changed open documents to the index, in one
// transaction, parsing those not parsed yet. Queries that read the index
// call it first, so they see every edit made before them. A document over
// the size cap is removed from the index while it is open.
func (w *Workspace) Flush(ctx context.Context) error {
	w.mu.Lock()
	target := w.seq
	w.mu.Unlock()
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	if w.flushed >= target {
		return nil // a Flush that ran while this one waited wrote every change made before it
	}
	w.mu.Lock()
	seq := w.seq
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	rels := make([]string, 0, len(w.pending))
	for rel := range w.pending {
		rels = append(rels, rel)
	}
	clear(w.pending)
	w.mu.Unlock()
	if len(rels) == 0 {
		w.flushed = seq
		return nil
	}
	type item struct {
		g         *FileGraph
		st        FileState
		oversized bool
	}
	var items []item
	for _, rel := range rels {
		text, snap, _, ok := w.parsedSnapshot(ctx, rel, true)
		if !ok {
			continue
		}
		// Linked and cut outside parseMu: keystrokes do not wait for it.
		g := snap.withChunks()
		_, over := w.Oversized(rel)
		// Mtime -1 never matches a file on disk: when the document closes,
		// the next refresh reads the file (and skips parsing it if its
		// content hashes the same).
		items = append(items, item{g, FileState{Size: int64(len(text)), Mtime: -1, Hash: xxhash.Sum64(text)}, over})
	}
	var err error
	for {
		var written []string
		err = w.ix.store.Write(ctx, func(wr *indexWriter) error {
			for _, it := range items {
				if !w.IsOpen(it.g.Path) {
					continue // closed meanwhile: the disk's version wins
				}
				written = append(written, it.g.Path)
				if it.oversized {
					if err := wr.DeleteFile(it.g.Path); err != nil {
						return err
					}
					continue
				}
				if err := wr.ReplaceFile(it.st, it.g); err != nil {
					return err
				}
			}
			if w.flushHook != nil {
				w.flushHook()
			}
			wr.beforeCommit = func() (func(), error) { return w.commitOpen(written) }
			return nil
		})
		if !errors.Is(err, errClosedWhileWriting) {
			break
		}
		// A document closed while its graph was written: the
		// transaction is rolled back, and written again without it.
		items = slices.DeleteFunc(items, func(it item) bool { return !w.IsOpen(it.g.Path) })
		if len(items) == 0 {
			err = nil
			break
		}
	}
	if err != nil {
		// Nothing is lost: the documents are still in memory; try again.
		w.mu.Lock()
		for _, it := range items {
			if w.docs[it.g.Path] != nil {
				w.markPending(it.g.Path)
			}
		}
		w.mu.Unlock()
		return fmt.Errorf("write open documents: %w", err)
	}
	w.ix.dirty.Store(true)
	if err := w.ix.EmbedChunks(ctx); err != nil {
		return fmt.Errorf("write open documents: %w", err)
	}
	w.flushed = seq
	return nil
}

// errClosedWhileWriting rolls back a Flush's transaction that wrote the
// graph of a document closed before the commit.
var errClosedWhileWriting = errors.New("a document closed while its graph was written")

// commitOpen is called by Flush right before it commits the graphs of the
// open documents at paths: when one of them closed meanwhile, the editor's
// text it wrote must not reach the index (the refresh that the close
// called for may have read the index already), and it returns
// errClosedWhileWriting. Otherwise the documents are committing until
// the returned function runs, after the commit: Close waits for it.
func (w *Workspace) commitOpen(paths []string) (func(), error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range paths {
		if w.docs[p] == nil {
			return nil, errClosedWhileWriting
		}
	}
	for _, p := range paths {
		w.committing[p] = true
	}
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		clear(w.committing)
		w.committed.Broadcast()
	}, nil
}

// Shutdown writes pending graphs and releases the documents; the index
// stays open for its owner to close.
func (w *Workspace) Shutdown(ctx context.Context) error {
	err := w.Flush(ctx)
	w.parseMu.Lock()
	defer w.parseMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	for _, od := range w.docs {
		if od.doc != nil {
			od.doc.Close()
		}
	}
	w.releaseRetired()
	w.docs = map[string]*openDoc{}
	w.parser.Close()
	return err
}

// FileSymbols returns the symbols of a file as the editor sees it: from the
// open document's newest parse when it is open (waiting for one parse at
// most: see Workspace), else from the index; in source order, the
// module first. For an open document, IDs and parents number the symbols
// of this answer only, and every caller reading one version of the
// document shares them: the result must not be modified.
func (w *Workspace) FileSymbols(ctx context.Context, rel string) ([]SymbolInfo, error) {
	if _, snap, _, ok := w.parsedSnapshot(ctx, rel, false); ok {
		return snap.symbols(), nil
	}
	return w.ix.SymbolsInFile(ctx, rel)
}

// OutlineNode is a symbol with the symbols it contains.
type OutlineNode struct {
	Symbol   SymbolInfo
	Children []*OutlineNode
}

// Outline nests a file's symbols (as FileSymbols returns them) under their
// parents; the module's children are the roots.
func Outline(syms []SymbolInfo) []*OutlineNode {
	nodes := make(map[int64]*OutlineNode, len(syms))
	for _, s := range syms {
		nodes[s.ID] = &OutlineNode{Symbol: s}
	}
	var roots []*OutlineNode
	for _, s := range syms {
		if s.Kind == KindModule {
			continue
		}
		n := nodes[s.ID]
		if p := nodes[s.Parent]; p != nil && p.Symbol.Kind != KindModule {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// SymbolAt returns the innermost symbol of a file containing a position
// (0-based line, UTF-16 column), other than the module, or false.
func SymbolAt(syms []SymbolInfo, line, col int) (SymbolInfo, bool) {
	var best SymbolInfo
	found := false
	for _, s := range syms {
		if s.Kind == KindModule || !contains(s.Range, line, col) {
			continue
		}
		if !found || s.Range.Start.Offset >= best.Range.Start.Offset && s.Range.End.Offset <= best.Range.End.Offset {
			best, found = s, true
		}
	}
	return best, found
}

func contains(r Range, line, col int) bool {
	after := line > r.Start.Line || line == r.Start.Line && col >= r.Start.Column
	before := line < r.End.Line || line == r.End.Line && col <= r.End.Column
	return after && before
}
