package keyword

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"
)

const (
	// snippetLen is about the longest Match.Text, in bytes.
	snippetLen = 200
	// blockLen is about the size of the blocks of lines that a regular
	// expression without a literal is run over.
	blockLen = 32 << 10
	// checkEvery is how many matches or candidate lines go by between two
	// looks at the context.
	checkEvery = 1024
)

// scratch is a worker's memory, reused from file to file.
type scratch struct {
	buf   []byte // the file read from disk
	lower []byte // an ASCII-lowered copy of part of it (see finder)
	norm  []byte // its copy without the '\r' of line terminators
}

// isBinary reports whether text has a NUL byte near its start.
func isBinary(text []byte) bool {
	return bytes.IndexByte(text[:min(len(text), binaryPrefix)], 0) >= 0
}

// isIdent reports whether c is an identifier character, [A-Za-z0-9_].
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// scan finds the matches in text and hands them to fs in order. It
// returns ctx's error when ctx is done.
func (s *searcher) scan(ctx context.Context, text []byte, sc *scratch, fs *fileScan) error {
	fs.text = text
	if len(s.lit) == 0 {
		return s.scanBlocks(ctx, text, sc, fs)
	}
	f := newFinder(text, s.lit, s.fold, &sc.lower)
	if s.direct {
		return s.scanDirect(ctx, text, f, fs)
	}
	return s.scanCandidates(ctx, text, f, fs)
}

// scanDirect reports the occurrences of s.lit that are matches.
func (s *searcher) scanDirect(ctx context.Context, text []byte, f *finder, fs *fileScan) error {
	n := len(s.lit)
	for p, seen := 0, 0; ; seen++ {
		if seen%checkEvery == checkEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		start := f.next(p)
		if start < 0 {
			return nil
		}
		end := start + n
		if s.litCR && (end == len(text) || text[end] == '\n') ||
			s.wholeWord && (start > 0 && isIdent(text[start-1]) || end < len(text) && isIdent(text[end])) {
			p = start + 1
			continue
		}
		fs.add(start, end)
		p = end
	}
}

// scanCandidates runs the regexp on the lines that have s.lit.
func (s *searcher) scanCandidates(ctx context.Context, text []byte, f *finder, fs *fileScan) error {
	for p, seen := 0, 0; p < len(text); seen++ {
		if seen%checkEvery == checkEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		at := f.next(p)
		if at < 0 {
			return nil
		}
		// p is a line start, so the line starts after the last '\n'
		// between p and at.
		start := p + bytes.LastIndexByte(text[p:at], '\n') + 1
		end, next := len(text), len(text)
		if j := bytes.IndexByte(text[at:], '\n'); j >= 0 {
			end, next = at+j, at+j+1
		}
		if end > start && text[end-1] == '\r' {
			end--
		}
		s.matchLines(text, start, end, fs)
		p = next
	}
	return nil
}

// scanBlocks runs the regexp over the whole text, a block of lines at a
// time.
func (s *searcher) scanBlocks(ctx context.Context, text []byte, sc *scratch, fs *fileScan) error {
	if bytes.IndexByte(text, '\r') >= 0 {
		sc.norm = withoutCR(sc.norm[:0], text)
		text = sc.norm
		fs.text = text
	}
	for from := 0; from < len(text); {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		to := min(from+blockLen, len(text))
		if j := bytes.IndexByte(text[to:], '\n'); j >= 0 {
			to += j
		} else {
			to = len(text)
		}
		s.matchLines(text, from, to, fs)
		from = to + 1
	}
	return nil
}

// matchLines reports the regexp's matches in text[from:to], which starts at
// a line start and ends at a line end.
func (s *searcher) matchLines(text []byte, from, to int, fs *fileScan) {
	if !s.wholeWord {
		for _, loc := range s.re.FindAllIndex(text[from:to], -1) {
			if loc[1] > loc[0] {
				fs.add(from+loc[0], from+loc[1])
			}
		}
		return
	}
	// The whole-word expressions find a match with the character before
	// it, so each search starts one byte before where a match may start
	// (at the start of the text, reWW0 lets \A stand for that byte).
	for q := from; q < to; {
		var loc []int
		base := 0
		if q == 0 {
			loc = s.reWW0.FindSubmatchIndex(text[:to])
		} else {
			base = q - 1
			loc = s.reWW.FindSubmatchIndex(text[base:to])
		}
		if loc == nil || loc[3] <= loc[2] {
			return
		}
		start, end := base+loc[2], base+loc[3]
		fs.add(start, end)
		q = end
	}
}

// withoutCR appends text to dst without the '\r' that ends a line.
func withoutCR(dst, text []byte) []byte {
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\r')
		if i < 0 {
			return append(dst, text...)
		}
		dst = append(dst, text[:i]...)
		if i+1 < len(text) && text[i+1] != '\n' {
			dst = append(dst, '\r')
		}
		text = text[i+1:]
	}
	return dst
}

// grow returns b with a length of at least n.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// fileScan turns the offsets of one file's matches, reported in order,
// into Matches, counting lines only up to them.
type fileScan struct {
	path    string
	text    []byte
	keep    int
	matches []Match
	count   int
	// pos is the offset of the last match kept, on line line, which starts
	// at lineStart; lineEnd is where it ends (its '\n' or the end of the
	// text), or 0 when not yet known (a line with a match is not empty),
	// and trimStart, trimEnd are its bounds without leading and trailing
	// space (and '\r').
	pos, line, lineStart        int
	lineEnd, trimStart, trimEnd int
}

// add records the match text[start:end].
func (fs *fileScan) add(start, end int) {
	fs.count++
	if len(fs.matches) >= fs.keep {
		return
	}
	if n := bytes.Count(fs.text[fs.pos:start], []byte{'\n'}); n > 0 {
		fs.line += n
		fs.lineStart = fs.pos + bytes.LastIndexByte(fs.text[fs.pos:start], '\n') + 1
		fs.lineEnd = 0
	}
	fs.pos = start
	if fs.lineEnd == 0 {
		fs.lineEnd = len(fs.text)
		if i := bytes.IndexByte(fs.text[fs.lineStart:], '\n'); i >= 0 {
			fs.lineEnd = fs.lineStart + i
		}
		fs.trimStart, fs.trimEnd = fs.lineStart, fs.lineEnd
		for fs.trimStart < fs.trimEnd && isSpace(fs.text[fs.trimStart]) {
			fs.trimStart++
		}
		for fs.trimEnd > fs.trimStart && isSpace(fs.text[fs.trimEnd-1]) {
			fs.trimEnd--
		}
	}
	fs.matches = append(fs.matches, Match{
		Path:      fs.path,
		Line:      fs.line,
		Column:    start - fs.lineStart + 1,
		EndColumn: end - fs.lineStart + 1,
		Text:      snippet(fs.text, min(fs.trimStart, start), max(fs.trimEnd, end), start, end),
	})
}

// isSpace reports whether c is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// snippet returns the text of the line text[from:to] around the match
// text[start:end]: all of it if it is short, else about snippetLen bytes
// with "…" where it is cut, as valid UTF-8.
func snippet(text []byte, from, to, start, end int) string {
	if to-from <= snippetLen {
		return strings.ToValidUTF8(string(text[from:to]), "\uFFFD")
	}
	ws, we := start, start+snippetLen
	if end-start < snippetLen {
		// A third of the room before the match, the rest after it.
		ws = max(from, start-(snippetLen-(end-start))/3)
		we = min(to, ws+snippetLen)
		ws = max(from, we-snippetLen)
	}
	// Cut at character boundaries.
	for ws > from && ws < start && !utf8.RuneStart(text[ws]) {
		ws++
	}
	for we < to && we > end && !utf8.RuneStart(text[we]) {
		we--
	}
	var b strings.Builder
	b.Grow(we - ws + 8)
	if ws > from {
		b.WriteString("…")
	}
	b.WriteString(strings.ToValidUTF8(string(text[ws:we]), "\uFFFD"))
	if we < to {
		b.WriteString("…")
	}
	return b.String()
}
