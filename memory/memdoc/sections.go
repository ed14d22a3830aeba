package memdoc

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// MaxIDLen is the longest section id accepted, in bytes.
const MaxIDLen = 128

// A Section is one well-formed <!-- ANCHOR:id -->…<!-- /ANCHOR:id -->
// block of a document. Offsets are bytes into the whole file (front
// matter included); lines are 1-based.
type Section struct {
	// ID is the section's id, as written in its markers.
	ID string `json:"id"`
	// Start and End delimit the section, both markers included.
	Start int `json:"start"`
	End   int `json:"end"`
	// BodyStart and BodyEnd delimit the text between the markers.
	BodyStart int `json:"body_start"`
	BodyEnd   int `json:"body_end"`
	// StartLine is the line of the opening marker, EndLine that of the
	// closing marker.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// Parent is the index in the same slice of the section that encloses
	// this one, or -1 for a top-level section. A parent always comes
	// before its children.
	Parent int `json:"parent"`
}

// Body returns the text of s in content, between its markers and without
// the blank lines next to them.
func (s Section) Body(content string) string {
	if s.BodyStart < 0 || s.BodyEnd > len(content) || s.BodyStart > s.BodyEnd {
		return ""
	}
	return strings.Trim(content[s.BodyStart:s.BodyEnd], " \t\r\n")
}

// Kinds of Warning.
const (
	WarnUnclosed         = "unclosed"
	WarnMismatchedClose  = "mismatched-close"
	WarnDuplicateID      = "duplicate-id"
	WarnNestedSameID     = "nested-same-id"
	WarnCloseWithoutOpen = "close-without-open"
	WarnInvalidID        = "invalid-id"
	WarnFrontMatter      = "front-matter"
)

// A Warning is a problem in a document that does not stop it from
// loading: broken markers are left out of its sections, bad front matter
// is ignored. Positions are in the whole file.
type Warning struct {
	// Kind is one of the Warn* constants.
	Kind string `json:"kind"`
	// Message says what is wrong, for a person.
	Message string `json:"message"`
	// Start and End are the byte offsets of the text at fault.
	Start int `json:"start"`
	End   int `json:"end"`
	// Line and Column (1-based, column in bytes) locate Start.
	Line   int `json:"line"`
	Column int `json:"column"`
}

// String formats w as "line:column: message".
func (w Warning) String() string {
	return fmt.Sprintf("%d:%d: %s", w.Line, w.Column, w.Message)
}

// marker is one ANCHOR comment found by the scanner.
type marker struct {
	id         string
	close      bool
	start, end int // the whole comment
	line, col  int
}

// open is an entry of the scanner's stack of open sections.
type open struct {
	m       marker
	section int // index the section will take, reserved at the open
}

// ParseSections extracts the sections of content in one pass over the
// text (time linear in its length: no backtracking) and reports the
// markers that do not pair up. Markers inside fenced code blocks are
// text, not markers. Sections with different ids may nest; a close marker
// closes the innermost open section of its id, and the sections opened
// inside it that are still open are reported unclosed and dropped.
//
// An id is 1 to MaxIDLen ASCII letters, digits, '-', '_' and '.'. The
// marker keyword is ANCHOR in any case; spaces around it and the id are
// allowed: <!--anchor:summary-->, <!-- ANCHOR:summary -->.
func ParseSections(content string) ([]Section, []Warning) {
	return parseSections(content, 0)
}

// parseSections is ParseSections starting at byte from (the end of the
// front matter), which must be the start of a line.
func parseSections(content string, from int) ([]Section, []Warning) {
	p := parser{content: content}
	p.scan(from)
	for i := len(p.stack) - 1; i >= 0; i-- {
		m := p.stack[i].m
		p.warn(WarnUnclosed, m, "section %q is never closed", m.id)
	}
	// Drop the sections reserved by opens that never closed, keeping
	// parents' indexes right.
	sections := make([]Section, 0, len(p.sections))
	remap := make([]int, len(p.sections))
	for i, s := range p.sections {
		if s.End == 0 {
			remap[i] = -1
			continue
		}
		remap[i] = len(sections)
		sections = append(sections, s)
	}
	for i := range sections {
		for sections[i].Parent >= 0 && remap[sections[i].Parent] < 0 {
			sections[i].Parent = p.sections[sections[i].Parent].Parent
		}
		if sections[i].Parent >= 0 {
			sections[i].Parent = remap[sections[i].Parent]
		}
	}
	sortWarnings(p.warnings)
	return sections, p.warnings
}

type parser struct {
	content  string
	sections []Section
	warnings []Warning
	stack    []open
	// firstOpen is the line of the first open marker of each id.
	firstOpen map[string]int
	// opened is the line of each id open on the stack (an id is on the
	// stack at most once).
	opened map[string]int
}

func (p *parser) warn(kind string, m marker, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{
		Kind: kind, Message: fmt.Sprintf(format, args...),
		Start: m.start, End: m.end, Line: m.line, Column: m.col,
	})
}

// scan walks content line by line from byte from.
func (p *parser) scan(from int) {
	s := p.content
	line := 1 + strings.Count(s[:from], "\n")
	var fence byte // '`' or '~' while inside a fenced code block
	fenceLen := 0
	for pos := from; pos < len(s); line++ {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if end < 0 {
			end = len(s)
		} else {
			end += pos
			next = end + 1
		}
		text := s[pos:end]
		if c, n, ok := fenceLine(text); ok {
			switch {
			case fence == 0:
				fence, fenceLen = c, n
			case c == fence && n >= fenceLen && closingFence(text):
				fence = 0
			}
		} else if fence == 0 {
			p.scanLine(text, pos, line)
		}
		pos = next
	}
}

// fenceLine reports whether line opens or may close a fenced code block:
// up to three spaces, then three or more backticks or tildes.
func fenceLine(line string) (c byte, n int, ok bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, false
	}
	c = line[i]
	j := i
	for j < len(line) && line[j] == c {
		j++
	}
	if j-i < 3 {
		return 0, 0, false
	}
	if c == '`' && strings.IndexByte(line[j:], '`') >= 0 {
		return 0, 0, false // an info string cannot hold a backtick
	}
	return c, j - i, true
}

// closingFence reports whether a fence line has nothing after its fence
// characters but spaces.
func closingFence(line string) bool {
	t := strings.TrimLeft(line, " ")
	t = strings.TrimLeft(t, t[:1])
	return strings.TrimSpace(t) == ""
}

// scanLine finds the markers of one line, text, which starts at byte
// offset base of the content.
func (p *parser) scanLine(text string, base, line int) {
	for i := 0; ; {
		j := strings.Index(text[i:], "<!--")
		if j < 0 {
			return
		}
		i += j
		m, next, bad := readMarker(text, i)
		m.start += base
		m.end += base
		m.line, m.col = line, i+1
		switch {
		case bad != "":
			p.warn(WarnInvalidID, m, "invalid section id %q: use 1 to %d ASCII letters, digits, '-', '_' or '.'", bad, MaxIDLen)
		case m.id != "":
			p.handle(m)
		}
		i = next
	}
}

// readMarker reads an ANCHOR comment at text[i:], which starts "<!--".
// It returns the marker (id empty when the comment is no ANCHOR marker),
// the index to scan on from, and, for an ANCHOR marker whose id is not
// valid, the id as written.
func readMarker(text string, i int) (m marker, next int, bad string) {
	m.start, m.end = i, i+4
	k := skipSpace(text, i+4)
	if k < len(text) && text[k] == '/' {
		m.close = true
		k = skipSpace(text, k+1)
	}
	const kw = "anchor"
	if len(text)-k < len(kw) || !strings.EqualFold(text[k:k+len(kw)], kw) {
		return m, i + 4, ""
	}
	k = skipSpace(text, k+len(kw))
	if k >= len(text) || text[k] != ':' {
		return m, i + 4, ""
	}
	k = skipSpace(text, k+1)
	idStart := k
	for k < len(text) && isIDByte(text[k]) {
		if text[k] == '-' && strings.HasPrefix(text[k:], "-->") {
			break
		}
		k++
	}
	idEnd := k
	k = skipSpace(text, k)
	if strings.HasPrefix(text[k:], "-->") && idEnd > idStart && idEnd-idStart <= MaxIDLen {
		m.id = text[idStart:idEnd]
		m.end = k + 3
		return m, k + 3, ""
	}
	// An ANCHOR marker with a bad id: it runs to the end of the comment,
	// or of the line, or to the next comment, whichever comes first (so
	// that no byte is looked at more than a few times).
	end := len(text)
	if c := strings.Index(text[i+4:], "<!--"); c >= 0 {
		end = i + 4 + c
	}
	if c := strings.Index(text[idStart:end], "-->"); c >= 0 {
		end = idStart + c + 3
	}
	bad = strings.TrimSpace(strings.TrimSuffix(text[idStart:end], "-->"))
	m.end = end
	return m, end, quoteEmpty(bad)
}

// quoteEmpty returns id, or a placeholder for an empty one so that the
// caller can tell a bad marker from no marker.
func quoteEmpty(id string) string {
	if id == "" {
		return "(empty)"
	}
	if len(id) > 60 {
		return id[:60] + "…"
	}
	return id
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i
}

// isIDByte reports whether c may appear in a section id.
func isIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.'
}

// ValidID reports whether id is a valid section id.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isIDByte(id[i]) {
			return false
		}
	}
	return true
}

// handle pairs a marker with the stack of open sections.
func (p *parser) handle(m marker) {
	if p.opened == nil {
		p.opened = make(map[string]int)
		p.firstOpen = make(map[string]int)
	}
	if !m.close {
		if line, ok := p.opened[m.id]; ok {
			p.warn(WarnNestedSameID, m, "section %q opens again inside itself (opened on line %d); this marker is ignored", m.id, line)
			return
		}
		if first, ok := p.firstOpen[m.id]; ok {
			p.warn(WarnDuplicateID, m, "duplicate section id %q (first on line %d); the first one is selected", m.id, first)
		} else {
			p.firstOpen[m.id] = m.line
		}
		parent := -1
		if n := len(p.stack); n > 0 {
			parent = p.stack[n-1].section
		}
		p.sections = append(p.sections, Section{
			ID: m.id, Start: m.start, BodyStart: m.end, StartLine: m.line, Parent: parent,
		})
		p.stack = append(p.stack, open{m: m, section: len(p.sections) - 1})
		p.opened[m.id] = m.line
		return
	}
	k := -1
	if _, ok := p.opened[m.id]; ok {
		k = len(p.stack) - 1
		for p.stack[k].m.id != m.id {
			k--
		}
	}
	if k < 0 {
		if n := len(p.stack); n > 0 {
			top := p.stack[n-1].m
			p.warn(WarnMismatchedClose, m, "close of section %q, but the open section is %q (line %d); this marker is ignored", m.id, top.id, top.line)
		} else {
			p.warn(WarnCloseWithoutOpen, m, "close of section %q, which is not open", m.id)
		}
		return
	}
	if k < len(p.stack)-1 {
		top := p.stack[len(p.stack)-1].m
		p.warn(WarnMismatchedClose, m, "close of section %q while %q (line %d) inside it is still open", m.id, top.id, top.line)
		for i := len(p.stack) - 1; i > k; i-- {
			o := p.stack[i].m
			p.warn(WarnUnclosed, o, "section %q is not closed before its enclosing section %q closes on line %d", o.id, m.id, m.line)
		}
	}
	for _, o := range p.stack[k:] {
		delete(p.opened, o.m.id)
	}
	s := &p.sections[p.stack[k].section]
	s.BodyEnd, s.End, s.EndLine = m.start, m.end, m.line
	p.stack = p.stack[:k]
}

// sortWarnings orders warnings by position (stable, so that warnings at
// the same place keep the order they were found in).
func sortWarnings(ws []Warning) {
	slices.SortStableFunc(ws, func(a, b Warning) int { return cmp.Compare(a.Start, b.Start) })
}
