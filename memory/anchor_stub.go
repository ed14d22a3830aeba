package memory

import (
	"path"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
)

// anchorStub reports whether a function or method, whose source is
// text, declares behaviour without showing it: a Go or Java interface
// method (`Rename(from, to string) error`), a declaration whose body is
// elsewhere (assembly), a TypeScript overload, or a Python method whose
// body is only a docstring, pass, ... or raise NotImplementedError. A
// rule describes what code does; a signature cannot show it.
func anchorStub(sym analysis.SymbolInfo, text string) bool {
	switch sym.Kind {
	case analysis.KindFunction, analysis.KindMethod:
	default:
		return false
	}
	switch NormalizeLanguage(sym.Language) {
	case "python":
		return pythonStub(text)
	case "go", "java", "typescript", "javascript", "rust", "c", "cpp", "csharp":
		return !strings.Contains(text, "{")
	}
	return false
}

// pythonStub reports whether a Python def's body, after its header and
// docstring, is nothing or only pass, ..., or raise NotImplementedError.
func pythonStub(text string) bool {
	lines := strings.Split(text, "\n")
	// The header ends at the first line that ends with a colon (a
	// signature may span lines; a one-line def holds its body after it).
	body := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i := strings.Index(t, "#"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		if strings.HasSuffix(t, ":") {
			body = i + 1
			break
		}
		if strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") {
			if _, after, ok := strings.Cut(t, "):"); ok {
				return pythonStubStatement(strings.TrimSpace(after))
			}
			if _, after, ok := strings.Cut(t, ":"); ok && strings.Contains(t, "->") && !strings.Contains(after, "->") {
				return pythonStubStatement(strings.TrimSpace(after))
			}
		}
	}
	if body < 0 {
		return false
	}
	inDoc, quote := false, ""
	for _, l := range lines[body:] {
		t := strings.TrimSpace(l)
		if inDoc {
			if strings.Contains(t, quote) {
				inDoc = false
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if q := docQuote(t); q != "" {
			rest := strings.TrimPrefix(strings.TrimLeft(t, "rRbBuU"), q)
			if !strings.Contains(rest, q) {
				inDoc, quote = true, q
			}
			continue
		}
		if !pythonStubStatement(t) {
			return false
		}
	}
	return true
}

// docQuote returns the triple quote a line's string literal opens with.
func docQuote(t string) string {
	t = strings.TrimLeft(t, "rRbBuU")
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(t, q) {
			return q
		}
	}
	return ""
}

// pythonStubStatement reports whether a statement does nothing or only
// says that a subclass must do it.
func pythonStubStatement(t string) bool {
	switch {
	case t == "pass", t == "...":
		return true
	case strings.HasPrefix(t, "raise NotImplementedError"):
		return true
	}
	return false
}

// anchorPlatform reports whether a word of a file's name names an
// operating system whose own files hold a variant of code that the
// common platforms run elsewhere (Go's file name suffixes, Python's
// module names).
func anchorPlatform(word string) bool {
	switch word {
	case "windows", "win32", "win", "plan9", "wasip1", "wasm", "js",
		"darwin", "ios", "android", "solaris", "illumos", "aix",
		"zos", "netbsd", "openbsd", "freebsd", "dragonfly", "hurd":
		return true
	}
	return false
}

// platformOf returns the platform a file's base name says it is for
// (os_plan9.go: plan9; popen_spawn_win32.py: win32), or "".
func platformOf(file string) string {
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	base = strings.TrimSuffix(base, "_test")
	for _, part := range strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if p := strings.ToLower(part); anchorPlatform(p) {
			return p
		}
	}
	return ""
}
