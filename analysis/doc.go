package analysis

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// maxSignature caps the length of a signature line.
const maxSignature = 240

// signature returns the head of a definition: its text up to the body,
// joined on one line ("func (r *Repo) FindByID(id string) (*User, error)").
// A definition bound to a variable (const f = () => {…}) ends at the body
// of its value. Without a body it is the definition's first line.
func signature(n *sitter.Node, src []byte) string {
	start, end := skipDecorations(n), n.EndByte()
	body := n.ChildByFieldName("body")
	if body == nil {
		if v := n.ChildByFieldName("value"); v != nil {
			body = v.ChildByFieldName("body")
		}
	}
	if body != nil && body.StartByte() > start {
		end = body.StartByte()
		// Comments between the head and the body are not part of it.
		for p := body.PrevSibling(); p != nil && isComment(p) && p.StartByte() > start; p = p.PrevSibling() {
			end = p.StartByte()
		}
	}
	if i := bytes.IndexByte(src[start:end], '\n'); i >= 0 && body == nil {
		end = start + uint32(i)
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(src[start:end]), "\uFFFD")), " ")
	s = strings.TrimSpace(strings.TrimRight(s, "{:=; "))
	if len(s) > maxSignature {
		s = strings.ToValidUTF8(s[:maxSignature], "") + "…"
	}
	return s
}

// skipDecorations returns where a definition's head starts once leading
// annotations, decorators and attributes are passed over.
func skipDecorations(n *sitter.Node) uint32 {
	start := n.StartByte()
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch c.Type() {
		case "modifiers":
			for j := 0; j < int(c.ChildCount()); j++ {
				m := c.Child(j)
				if t := m.Type(); t != "annotation" && t != "marker_annotation" {
					return m.StartByte()
				}
			}
			continue
		case "decorator", "attribute_item", "annotation", "marker_annotation":
			continue
		}
		if i == 0 {
			return start
		}
		return c.StartByte()
	}
	return start
}

// span is a byte range of a file.
type span struct{ start, end uint32 }

// docComment returns the comments directly above a definition that starts
// at offset def: a run of comments on consecutive lines, the last one on
// the line above the definition, or above its decorators and attributes
// (@Override, #[derive(…)], @cache) and leading keywords (export, type,
// pub). comments are sorted by start. It works on the text alone, which
// is much cheaper than walking siblings in the syntax tree.
func docComment(src []byte, comments []span, def int) string {
	first, i, ok := docCommentRun(src, comments, def)
	if !ok {
		return ""
	}
	parts := make([]string, 0, i-first+1)
	for _, c := range comments[first : i+1] {
		parts = append(parts, string(src[c.start:c.end]))
	}
	return strings.Join(parts, "\n")
}

// docCommentRun returns the indexes in comments of the first and last
// comment of the doc comment of a definition at offset def, or false when
// it has none (see docComment).
func docCommentRun(src []byte, comments []span, def int) (first, last int, ok bool) {
	i := sort.Search(len(comments), func(i int) bool { return int(comments[i].end) > def }) - 1
	if i < 0 || !startsLine(src, int(comments[i].start)) || !isDocGap(src[commentEnd(src, comments[i]):def]) {
		return 0, 0, false
	}
	first = i
	for first > 0 {
		prev := comments[first-1]
		if commentEnd(src, prev) > comments[first].start {
			// Comments that overlap document nothing together (see
			// toRealRaw: a comment joined over a damaged region).
			break
		}
		gap := src[commentEnd(src, prev):comments[first].start]
		if bytes.Count(gap, []byte("\n")) != 1 || len(bytes.TrimSpace(gap)) != 0 || !startsLine(src, int(prev.start)) {
			break
		}
		first--
	}
	return first, i, true
}

// commentEnd returns where a comment ends, before the newline that Rust's
// line comments include.
func commentEnd(src []byte, c span) uint32 {
	if c.end > c.start && src[c.end-1] == '\n' {
		return c.end - 1
	}
	return c.end
}

// startsLine reports whether only blanks precede offset on its line.
func startsLine(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}

// isDocGap reports whether the text between a comment and a definition
// keeps the comment attached: the comment ends its line, every line in
// between is a decorator or attribute, and the definition's own line holds
// only leading keywords before it. It stops at the first character that
// breaks the rule, so a long gap (a long line) costs little.
func isDocGap(gap []byte) bool {
	rest := skipBlanks(gap)
	if len(rest) == 0 || rest[0] != '\n' {
		return false // the comment does not end its line
	}
	rest = rest[1:]
	for {
		l := skipBlanks(rest)
		if !bytes.HasPrefix(l, []byte("@")) && !bytes.HasPrefix(l, []byte("#[")) {
			rest = l
			break
		}
		nl := bytes.IndexByte(l, '\n')
		if nl < 0 {
			rest = l
			break
		}
		rest = l[nl+1:]
	}
	// The definition's line: leading keywords only.
	for {
		rest = skipBlanks(rest)
		if len(rest) == 0 {
			return true
		}
		if rest[0] == '\n' {
			return false // a line that is neither a decorator nor the definition's
		}
		n := 0
		for n < len(rest) && n <= maxLeadingKeyword && !isSpaceAt(rest, n) {
			n++
		}
		switch string(rest[:n]) {
		case "export", "default", "declare", "type", "abstract", "public", "private", "protected",
			"static", "async", "pub", "const", "let", "var", "final", "unsafe", "extern":
			rest = rest[n:]
		default:
			return false
		}
	}
}

// maxLeadingKeyword is the length of the longest keyword isDocGap allows
// before a definition ("protected").
const maxLeadingKeyword = 9

// skipBlanks skips white space other than line breaks.
func skipBlanks(b []byte) []byte {
	for len(b) > 0 && b[0] != '\n' && isSpaceAt(b, 0) {
		_, size := utf8.DecodeRune(b)
		b = b[size:]
	}
	return b
}

// isSpaceAt reports whether the character at b[i] is white space, as
// bytes.TrimSpace and strings.Fields see it.
func isSpaceAt(b []byte, i int) bool {
	if c := b[i]; c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
	}
	r, _ := utf8.DecodeRune(b[i:])
	return unicode.IsSpace(r)
}

// cleanDoc strips comment markers and docstring quotes and joins the lines.
func cleanDoc(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(raw, q) && strings.HasSuffix(raw, q) && len(raw) >= 2*len(q) {
			raw = raw[len(q) : len(raw)-len(q)]
		}
	}
	var lines []string
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "/**"):
			l = strings.TrimPrefix(l, "/**")
		case strings.HasPrefix(l, "/*"):
			l = strings.TrimPrefix(l, "/*")
		case strings.HasPrefix(l, "///"), strings.HasPrefix(l, "//!"):
			l = l[3:]
		case strings.HasPrefix(l, "//"):
			l = l[2:]
		case strings.HasPrefix(l, "#"):
			l = strings.TrimLeft(l, "#")
		}
		l = strings.TrimSuffix(strings.TrimSpace(l), "*/")
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.ToValidUTF8(strings.Join(lines, "\n"), "\uFFFD")
}

func isComment(n *sitter.Node) bool {
	return strings.Contains(n.Type(), "comment")
}
