package analysis

import (
	"bytes"
	"sort"
	"strings"

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
	i := sort.Search(len(comments), func(i int) bool { return int(comments[i].end) > def }) - 1
	if i < 0 || !startsLine(src, int(comments[i].start)) || !isDocGap(src[commentEnd(src, comments[i]):def]) {
		return ""
	}
	first := i
	for first > 0 {
		prev := comments[first-1]
		gap := src[commentEnd(src, prev):comments[first].start]
		if bytes.Count(gap, []byte("\n")) != 1 || len(bytes.TrimSpace(gap)) != 0 || !startsLine(src, int(prev.start)) {
			break
		}
		first--
	}
	parts := make([]string, 0, i-first+1)
	for _, c := range comments[first : i+1] {
		parts = append(parts, string(src[c.start:c.end]))
	}
	return strings.Join(parts, "\n")
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
// only leading keywords before it. It stops at the first line that breaks
// the rule, so a long gap costs little.
func isDocGap(gap []byte) bool {
	nl := bytes.IndexByte(gap, '\n')
	if nl < 0 || len(bytes.TrimSpace(gap[:nl])) != 0 {
		return false
	}
	rest := gap[nl+1:]
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		l := bytes.TrimSpace(rest[:nl])
		if !(bytes.HasPrefix(l, []byte("@")) || bytes.HasPrefix(l, []byte("#["))) {
			return false
		}
		rest = rest[nl+1:]
	}
	for _, w := range strings.Fields(string(rest)) {
		switch w {
		case "export", "default", "declare", "type", "abstract", "public", "private", "protected",
			"static", "async", "pub", "const", "let", "var", "final", "unsafe", "extern":
		default:
			return false
		}
	}
	return true
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
