package lsp

import (
	"context"
	"os"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// Memory documents (package memdoc) in the editor: their validation
// warnings are diagnostics, published when one is opened, changed or
// saved and after each scan of its folder; their sections are document
// symbols and folding ranges. The documents of a folder are synced into
// the memory database after each scan and on each save, so that memory
// search sees them.

// memoryDocumentCode is the code of the diagnostics of memory documents.
const memoryDocumentCode = "memory-document"

// memoryDocuments is the server's state for memory documents.
type memoryDocuments struct {
	mu sync.Mutex
	// text holds the open memory documents' text, as the editor has it.
	text map[protocol.DocumentURI]string

	// pubMu orders publications of diagnostics, which merge the
	// proposal diagnostics (diagnostics.go) and the memory document
	// warnings of each document; it guards proposals and warnings.
	pubMu     sync.Mutex
	proposals map[protocol.DocumentURI][]protocol.Diagnostic
	warnings  map[protocol.DocumentURI][]protocol.Diagnostic
}

// memoryDocumentGlobs returns a folder's memory document globs: the
// editor's memory.documents setting, else the folder's settings file's
// memory_documents, else nil for memdoc's defaults.
func (s *Server) memoryDocumentGlobs(f *folder) []string {
	if globs := s.memorySettings().Documents; globs != nil {
		return globs
	}
	if f == nil {
		return nil
	}
	if file := f.file.Load(); file != nil && file.Settings.MemoryDocuments != nil {
		return file.Settings.MemoryDocuments
	}
	return nil
}

// memoryDocumentOf returns the folder and relative path of a memory
// document, or false for any other document.
func (s *Server) memoryDocumentOf(u protocol.DocumentURI) (*folder, string, bool) {
	if !strings.HasPrefix(string(u), "file:") {
		return nil, "", false
	}
	f, rel, err := s.folderFor(u)
	if err != nil || !memdoc.Match(s.memoryDocumentGlobs(f), rel) {
		return nil, "", false
	}
	return f, rel, true
}

// memoryDocumentText returns a memory document's text: the editor's when
// it is open, else the file's (false when it cannot be read or is over
// memdoc.MaxFileSize).
func (s *Server) memoryDocumentText(u protocol.DocumentURI) (string, bool) {
	s.docs.mu.Lock()
	text, ok := s.docs.text[u]
	s.docs.mu.Unlock()
	if ok {
		return text, true
	}
	path, err := filePath(u)
	if err != nil {
		return "", false
	}
	return readMemoryDocument(path)
}

// readMemoryDocument reads a memory document from disk, unless it is too
// large or not text.
func readMemoryDocument(path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > memdoc.MaxFileSize {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil || memdoc.CheckText(data) != nil {
		return "", false
	}
	return string(data), true
}

// parseMemoryDocument parses a memory document as the editor sees it.
func (s *Server) parseMemoryDocument(u protocol.DocumentURI) (*memdoc.Document, bool) {
	f, rel, ok := s.memoryDocumentOf(u)
	if !ok {
		return nil, false
	}
	text, ok := s.memoryDocumentText(u)
	if !ok {
		return nil, false
	}
	return memdoc.Parse(f.root(), rel, text), true
}

// memoryDocumentOpened records an opened memory document's text and
// publishes its warnings. Other documents are left alone.
func (s *Server) memoryDocumentOpened(u protocol.DocumentURI, text string) {
	if _, _, ok := s.memoryDocumentOf(u); !ok {
		return
	}
	s.docs.mu.Lock()
	if s.docs.text == nil {
		s.docs.text = map[protocol.DocumentURI]string{}
	}
	s.docs.text[u] = text
	s.docs.mu.Unlock()
	s.publishMemoryDocument(u)
}

// didChangeDocument applies a change, then, for a memory document,
// updates its text and publishes its warnings.
func (s *Server) didChangeDocument(ctx context.Context, p *didChangeParams) error {
	err := s.didChange(ctx, p)
	u := p.TextDocument.URI
	s.docs.mu.Lock()
	text, open := s.docs.text[u]
	if open {
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text = c.Text
				continue
			}
			start, end := offsetOf(text, c.Range.Start), offsetOf(text, c.Range.End)
			if end < start {
				start, end = end, start
			}
			text = text[:start] + c.Text + text[end:]
		}
		s.docs.text[u] = text
	}
	s.docs.mu.Unlock()
	if open {
		s.publishMemoryDocument(u)
	}
	return err
}

// didSaveDocument saves a document; a saved memory document is synced
// into the memory database, in the background.
func (s *Server) didSaveDocument(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	err := s.didSave(ctx, p)
	if f, _, ok := s.memoryDocumentOf(p.TextDocument.URI); ok {
		u := p.TextDocument.URI
		if p.Text != "" {
			s.docs.mu.Lock()
			if _, open := s.docs.text[u]; open {
				s.docs.text[u] = p.Text
			}
			s.docs.mu.Unlock()
		}
		s.publishMemoryDocument(u)
		s.goBackground(func(ctx context.Context) { s.syncMemoryDocuments(ctx, f) })
	}
	return err
}

// didCloseDocument closes a document; a closed memory document shows the
// warnings of the file on disk.
func (s *Server) didCloseDocument(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	err := s.didClose(ctx, p)
	u := p.TextDocument.URI
	s.docs.mu.Lock()
	_, open := s.docs.text[u]
	delete(s.docs.text, u)
	s.docs.mu.Unlock()
	if open {
		s.publishMemoryDocument(u)
	}
	return err
}

// publishMemoryDocument publishes the warnings of one memory document
// (none when it cannot be read).
func (s *Server) publishMemoryDocument(u protocol.DocumentURI) {
	var diags []protocol.Diagnostic
	if d, ok := s.parseMemoryDocument(u); ok {
		diags = memoryDocumentDiagnostics(d)
	}
	if err := s.publishMerged(u, nil, diags); err != nil {
		s.log.Debug("publishing memory document warnings", zap.String("uri", string(u)), zap.Error(err))
	}
}

// scanMemoryDocuments publishes the warnings of every memory document of
// a folder, clears those of documents that no longer have any, and
// syncs the folder's documents into the memory database. It runs after
// each scan of the folder.
func (s *Server) scanMemoryDocuments(ctx context.Context, f *folder) {
	files, skipped, err := memdoc.Discover(ctx, f.root(), s.memoryDocumentGlobs(f))
	if err != nil {
		if ctx.Err() == nil {
			s.log.Debug("discovering memory documents", zap.String("folder", f.root()), zap.Error(err))
		}
		return
	}
	for _, sk := range skipped {
		s.warn("memory.documents: %s: %s", sk.Path, sk.Reason)
	}
	seen := map[protocol.DocumentURI]bool{}
	for _, rel := range files {
		if ctx.Err() != nil {
			return
		}
		u := f.fileURI(rel)
		if !s.owns(f, rel) {
			continue
		}
		seen[u] = true
		s.publishMemoryDocument(u)
	}
	// Clear documents of this folder that had warnings and are no longer
	// memory documents (deleted, or the globs changed).
	s.docs.pubMu.Lock()
	var stale []protocol.DocumentURI
	for u := range s.docs.warnings {
		if owner, _, err := s.folderFor(u); err == nil && owner == f && !seen[u] {
			stale = append(stale, u)
		}
	}
	s.docs.pubMu.Unlock()
	for _, u := range stale {
		if err := s.publishMerged(u, nil, nil); err != nil {
			s.log.Debug("clearing memory document warnings", zap.String("uri", string(u)), zap.Error(err))
		}
	}
	if len(files) > 0 {
		s.syncMemoryDocuments(ctx, f)
	} else if path, err := s.memoryPath(); err == nil {
		// Remove the documents of a folder that has none left, but do
		// not create a memory database for a folder that never had any.
		if _, err := os.Stat(path); err == nil {
			s.syncMemoryDocuments(ctx, f)
		}
	}
}

// syncMemoryDocuments brings the memory database's documents of a folder
// up to date with the files on disk.
func (s *Server) syncMemoryDocuments(ctx context.Context, f *folder) {
	st, err := s.memoryDocumentStore(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.warn("memory documents of %s not stored: %v", f.root(), err)
		}
		return
	}
	sum, err := st.Sync(ctx, f.root(), s.memoryDocumentGlobs(f))
	if err != nil {
		if ctx.Err() == nil {
			s.warn("memory documents of %s not stored: %v", f.root(), err)
		}
		return
	}
	for _, sk := range sum.Skipped {
		s.log.Info("memory document skipped", zap.String("path", sk.Path), zap.String("reason", sk.Reason))
	}
	if sum.Changed() {
		s.log.Info("memory documents synced", zap.String("folder", f.root()),
			zap.Int("added", len(sum.Added)), zap.Int("updated", len(sum.Updated)), zap.Int("removed", len(sum.Removed)))
	}
}

// publishMerged publishes the diagnostics of u: the proposal diagnostics
// and the memory document warnings. A nil proposals keeps the proposal
// diagnostics last published for u; a nil warnings with proposals set
// keeps the warnings. Called with both nil, it clears the warnings. A
// document without warnings before or after (and no proposal change) is
// not published, so that a folder scan sends only what changed.
func (s *Server) publishMerged(u protocol.DocumentURI, proposals, warnings []protocol.Diagnostic) error {
	s.docs.pubMu.Lock()
	defer s.docs.pubMu.Unlock()
	if s.docs.proposals == nil {
		s.docs.proposals = map[protocol.DocumentURI][]protocol.Diagnostic{}
		s.docs.warnings = map[protocol.DocumentURI][]protocol.Diagnostic{}
	}
	if proposals == nil && len(warnings) == 0 {
		if _, had := s.docs.warnings[u]; !had {
			return nil // nothing shown, nothing to show
		}
	}
	switch {
	case proposals != nil:
		if len(proposals) == 0 {
			delete(s.docs.proposals, u)
		} else {
			s.docs.proposals[u] = proposals
		}
		if warnings != nil {
			s.setWarnings(u, warnings)
		}
	default:
		s.setWarnings(u, warnings)
	}
	all := make([]protocol.Diagnostic, 0, len(s.docs.proposals[u])+len(s.docs.warnings[u]))
	all = append(all, s.docs.proposals[u]...)
	all = append(all, s.docs.warnings[u]...)
	return s.sendDiagnostics(u, all)
}

// setWarnings records the warnings of u; s.docs.pubMu is held.
func (s *Server) setWarnings(u protocol.DocumentURI, warnings []protocol.Diagnostic) {
	if len(warnings) == 0 {
		delete(s.docs.warnings, u)
		return
	}
	s.docs.warnings[u] = warnings
}

// memoryDocumentDiagnostics converts a document's warnings.
func memoryDocumentDiagnostics(d *memdoc.Document) []protocol.Diagnostic {
	if len(d.Warnings) == 0 {
		return nil
	}
	li := newTextLines(d.Content)
	out := make([]protocol.Diagnostic, 0, len(d.Warnings))
	for _, w := range d.Warnings {
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: li.position(w.Start), End: li.position(w.End)},
			Severity: protocol.DiagnosticSeverityWarning,
			Source:   diagnosticSource,
			Code:     memoryDocumentCode + "/" + w.Kind,
			Message:  w.Message,
		})
	}
	return out
}

// memoryDocumentSymbols returns the sections of a memory document as
// document symbols, nested as in the file; false for other documents.
func (s *Server) memoryDocumentSymbols(u protocol.DocumentURI) ([]protocol.DocumentSymbol, bool) {
	d, ok := s.parseMemoryDocument(u)
	if !ok {
		return nil, false
	}
	li := newTextLines(d.Content)
	children := make([][]int, len(d.Sections))
	var top []int
	for i, sec := range d.Sections {
		if sec.Parent >= 0 {
			children[sec.Parent] = append(children[sec.Parent], i)
		} else {
			top = append(top, i)
		}
	}
	var build func(idx []int) []protocol.DocumentSymbol
	build = func(idx []int) []protocol.DocumentSymbol {
		out := make([]protocol.DocumentSymbol, 0, len(idx))
		for _, i := range idx {
			sec := d.Sections[i]
			out = append(out, protocol.DocumentSymbol{
				Name:           sec.ID,
				Detail:         sectionDetail(sec.Body(d.Content)),
				Kind:           protocol.SymbolKindNamespace,
				Range:          protocol.Range{Start: li.position(sec.Start), End: li.position(sec.End)},
				SelectionRange: protocol.Range{Start: li.position(sec.Start), End: li.position(sec.BodyStart)},
				Children:       build(children[i]),
			})
		}
		return out
	}
	return build(top), true
}

// sectionDetail is the first line of text of a section's body, cut to
// about 60 characters.
func sectionDetail(body string) string {
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "<!--") {
			continue
		}
		line = strings.TrimLeft(line, "#>*- ")
		if r := []rune(line); len(r) > 60 {
			line = string(r[:59]) + "…"
		}
		return line
	}
	return ""
}

// memoryDocumentFolds returns one folding range per section of a memory
// document that spans lines; false for other documents.
func (s *Server) memoryDocumentFolds(u protocol.DocumentURI) ([]protocol.FoldingRange, bool) {
	d, ok := s.parseMemoryDocument(u)
	if !ok {
		return nil, false
	}
	out := []protocol.FoldingRange{}
	for _, sec := range d.Sections {
		if sec.EndLine > sec.StartLine {
			out = append(out, protocol.FoldingRange{
				StartLine: uint32(sec.StartLine - 1),
				EndLine:   uint32(sec.EndLine - 1),
				Kind:      protocol.RegionFoldingRange,
			})
		}
	}
	return out, true
}

// textLines maps byte offsets of a text to protocol positions (0-based
// lines, UTF-16 columns).
type textLines struct {
	text   string
	starts []int
}

func newTextLines(text string) *textLines {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &textLines{text: text, starts: starts}
}

// position returns the position of a byte offset (clamped to the text).
func (l *textLines) position(offset int) protocol.Position {
	offset = max(0, min(offset, len(l.text)))
	lo, hi := 0, len(l.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l.starts[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return protocol.Position{Line: uint32(lo), Character: uint32(utf16Units(l.text[l.starts[lo]:offset]))}
}

// utf16Units returns the length of s in UTF-16 code units (a byte that is
// not UTF-8 counts one).
func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// offsetOf returns the byte offset in text of a protocol position,
// clamped: a line past the end is the end of the text, a column past the
// end of its line the end of the line, a column inside a surrogate pair
// the start of its character.
func offsetOf(text string, p protocol.Position) int {
	start := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return len(text)
		}
		start += i + 1
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	units, col := 0, int(p.Character)
	for i, r := range text[start:end] {
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > col {
			return start + i // at col, or inside a surrogate pair
		}
		units += n
	}
	return end
}
