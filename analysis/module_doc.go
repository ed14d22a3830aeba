package analysis

import (
	"bytes"
	"sort"
	"strings"
)

// moduleDoc returns the doc of a file's module, cleaned (see cleanDoc):
// the comment above a Go file's package clause ("Package syntax implements
// a parser for Go source files.") or a Python module's docstring. It says
// what every definition of the file is about, in words a definition's own
// doc does not repeat. Other languages have none. comments are the file's
// comment spans, sorted.
func moduleDoc(language string, src []byte, comments []span) string {
	switch language {
	case "go":
		at := firstCode(src, comments)
		if !bytes.HasPrefix(src[at:], []byte("package")) {
			return ""
		}
		return cleanDoc(docComment(src, comments, at))
	case "python":
		return cleanDoc(pythonDocstring(src[firstCode(src, comments):]))
	}
	return ""
}

// firstCode returns the offset of the first byte of src that is neither
// blank nor inside a comment.
func firstCode(src []byte, comments []span) int {
	at := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) { // a byte order mark
		at = 3
	}
	for {
		for at < len(src) && isASCIISpace(src[at]) {
			at++
		}
		k := sort.Search(len(comments), func(i int) bool { return int(comments[i].end) > at })
		if k == len(comments) || int(comments[k].start) > at {
			return at
		}
		at = int(comments[k].end)
	}
}

// pythonDocstring returns the string literal that src starts with,
// quotes included, or "" when it starts with anything else. Only the
// literal forms of a docstring count: an optional r or u prefix, then
// three or one quote.
func pythonDocstring(src []byte) string {
	body := src
	if len(body) > 0 && strings.IndexByte("rRuU", body[0]) >= 0 {
		body = body[1:]
	}
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if !bytes.HasPrefix(body, []byte(q)) {
			continue
		}
		end := bytes.Index(body[len(q):], []byte(q))
		if end < 0 {
			return ""
		}
		text := body[len(q) : len(q)+end]
		if len(q) == 1 && bytes.IndexByte(text, '\n') >= 0 {
			return ""
		}
		return string(text)
	}
	return ""
}
