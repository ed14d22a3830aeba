package analysis

import (
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
	if i := indexByte(src[start:end], '\n'); i >= 0 && body == nil {
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

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// precedingComments returns the comments directly above a definition, with
// no blank line between them and the definition. Decorators and attributes
// between the comments and the definition are passed over, and when the
// definition is wrapped (export statements, decorated definitions, Go type
// declarations) the comments above the wrapper count.
func precedingComments(n *sitter.Node, src []byte, lines *lineIndex) string {
	var prev *sitter.Node
	for {
		prev = n.PrevSibling()
		for prev != nil && isDecoration(prev) {
			prev = prev.PrevSibling()
		}
		if prev != nil && isComment(prev) {
			break
		}
		parent := n.Parent()
		if prev != nil || parent == nil || !isWrapper(parent) {
			return ""
		}
		n = parent
	}
	var parts []string
	// The comment must touch what follows it: the definition or the first
	// decorator above it.
	line := lines.position(int(prev.NextSibling().StartByte())).Line
	for ; prev != nil && isComment(prev); prev = prev.PrevSibling() {
		end := int(prev.EndByte())
		if end > int(prev.StartByte()) && src[end-1] == '\n' {
			end-- // Rust's line comments include their newline
		}
		if lines.position(end).Line < line-1 {
			break
		}
		parts = append(parts, string(src[prev.StartByte():prev.EndByte()]))
		line = lines.position(int(prev.StartByte())).Line
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "\n")
}

func isComment(n *sitter.Node) bool {
	return strings.Contains(n.Type(), "comment")
}

// isWrapper reports whether a node wraps a definition without being one:
// comments above the wrapper document the definition inside.
func isWrapper(n *sitter.Node) bool {
	switch n.Type() {
	case "decorated_definition", "export_statement", "type_declaration", "const_declaration", "var_declaration", "lexical_declaration", "variable_declarator", "ambient_declaration":
		return true
	}
	return false
}

// isDecoration reports whether a sibling before a definition belongs to it
// (decorators, attributes, keywords), so that comments above it still count.
func isDecoration(n *sitter.Node) bool {
	switch n.Type() {
	case "decorator", "attribute_item", "type", "export", "declare", "const", "let", "var", "modifiers", "annotation", "marker_annotation":
		return true
	}
	return !n.IsNamed()
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
