package retrieval

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Evidence is what a task description says about where its code is: the
// files, modules and code names it mentions, each weighted by how it is
// mentioned (a traceback frame says more than a word in prose). A
// task search resolves them through the code graph.
type Evidence struct {
	// Paths are file paths, as written (absolute, relative, or a bare
	// file name), that may name workspace files.
	Paths []Mention `json:"paths,omitempty"`
	// Modules are dotted module or package names ("astropy.io.fits").
	Modules []Mention `json:"modules,omitempty"`
	// Names are identifiers: functions, methods, types, with owners when
	// written so ("Card.fromstring").
	Names []Mention `json:"names,omitempty"`
}

// Mention is one thing a task names, with its weight: the sum over its
// mentions of the weight of each kind of mention.
type Mention struct {
	Text   string  `json:"text"`
	Weight float64 `json:"weight"`
	// Source is the strongest kind of mention: "traceback", "diff",
	// "code", "quoted" or "prose".
	Source string `json:"source"`
}

// Weights of the kinds of mention.
const (
	weightTraceback = 3.0
	weightDiff      = 3.0
	weightQuoted    = 1.5
	weightCode      = 1.0
	weightProse     = 0.7
)

// maxEvidenceText is how much of a text ExtractEvidence reads.
const maxEvidenceText = MaxTaskQuery

// evidencePatterns are the regular expressions ExtractEvidence reads a
// task with.
type evidencePatterns struct {
	pyFrame, atFrame, goFrame, rsPlace, diffFile, diffHunk, pathRe, dotted, identRe, backticks, fence, defRe, fromImport, plainImport *regexp.Regexp
}

// evidenceRes returns the patterns, compiled on first use: a process that
// reads no task (most commands) does not compile them.
var evidenceRes = sync.OnceValue(func() *evidencePatterns {
	return &evidencePatterns{
		// Python: File "/x/y.py", line 12, in parse
		pyFrame: regexp.MustCompile(`File "([^"\n]+)", line \d+(?:, in ([\w<>.]+))?`),
		// Java and JavaScript stack lines: at pkg.Class.method(File.java:12),
		// at fn (/x/y.js:1:2), at /x/y.js:1:2.
		atFrame: regexp.MustCompile(`(?m)^\s*at\s+(?:(?:async\s+)?([\w$.<>]+)\s*)?\(?([^\s()]+?\.(?:java|js|mjs|cjs|jsx|ts|tsx|kt|scala)):\d+(?::\d+)?\)?`),
		// Go: a frame's function line, then its file line (tab, path:line).
		goFrame: regexp.MustCompile(`(?m)^([\w./-]+?)\.((?:\(\*?\w+\)\.)?\w+)\(.*\)\n\s+([^\s:]+\.go):\d+`),
		// Rust: "at src/x.rs:12:5" and panics at a place.
		rsPlace: regexp.MustCompile(`([\w./-]+\.rs):\d+(?::\d+)?`),
		// A diff's file headers and hunk headers.
		diffFile: regexp.MustCompile(`(?m)^(?:diff --git a/(\S+) b/\S+|(?:---|\+\+\+) (?:[ab]/)?([^\s]+))`),
		diffHunk: regexp.MustCompile(`(?m)^@@ [^@]* @@\s*(.*)$`),
		// A path with a source extension, with or without folders.
		pathRe: regexp.MustCompile(`(?:[\w.\-]+/)*[\w\-]+(?:\.[\w\-]+)*\.(?:py|pyi|go|js|jsx|mjs|cjs|ts|tsx|mts|cts|rs|java)\b`),
		// Dotted names: modules, qualified names, attribute chains.
		dotted: regexp.MustCompile(`\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+\b`),
		// Identifiers in general.
		identRe: regexp.MustCompile(`[A-Za-z_][\w]*`),
		// Inline code in Markdown.
		backticks: regexp.MustCompile("`([^`\n]{1,200})`"),
		// Fenced code blocks in Markdown.
		fence: regexp.MustCompile("(?s)```[^\n]*\n(.*?)```"),
		// Definitions in code or a diff: def f, class C, func F, fn f.
		defRe: regexp.MustCompile(`\b(?:def|class|func|fn|function|interface|struct|enum|trait|type)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)`),
		// Python imports in snippets: from a.b import c, d; import a.b as c.
		fromImport:  regexp.MustCompile(`(?m)^\s*(?:>>>\s*)?from\s+([\w.]+)\s+import\s+\(?([\w, ]+)`),
		plainImport: regexp.MustCompile(`(?m)^\s*(?:>>>\s*)?import\s+([\w.]+)`),
	}
})

// evidenceStop lists names too common in code and prose to point at a
// definition: builtins, keywords and the words every traceback holds.
var evidenceStop = map[string]bool{
	"self": true, "cls": true, "None": true, "True": true, "False": true, "print": true, "len": true,
	"str": true, "int": true, "float": true, "list": true, "dict": true, "set": true, "tuple": true,
	"bool": true, "object": true, "type": true, "super": true, "range": true, "open": true, "isinstance": true,
	"module": true, "main": true, "init": true, "__init__": true, "__main__": true, "__name__": true,
	"Traceback": true, "File": true, "line": true, "in": true, "Error": true, "Exception": true,
	"return": true, "import": true, "from": true, "def": true, "class": true, "if": true, "else": true,
	"for": true, "while": true, "with": true, "as": true, "not": true, "and": true, "or": true, "is": true,
	"lambda": true, "yield": true, "raise": true, "try": true, "except": true, "pass": true, "func": true,
	"err": true, "nil": true, "var": true, "const": true, "this": true, "new": true, "null": true,
	"undefined": true, "function": true, "np": true, "pd": true, "plt": true, "os": true, "sys": true,
	"http": true, "https": true, "www": true, "com": true, "github": true, "org": true, "py": true,
	"numpy": true, "pandas": true, "matplotlib": true, "pyplot": true, "e.g": true, "i.e": true,
	"x": true, "y": true, "a": true, "b": true, "c": true, "i": true, "j": true, "k": true, "n": true,
	"foo": true, "bar": true, "baz": true, "test": true, "tmp": true, "args": true, "kwargs": true,
	"value": true, "values": true, "data": true, "name": true, "result": true, "obj": true,
}

// ExtractEvidence reads the files, modules and names a task description
// mentions: traceback frames (Python, Go, Java, JavaScript, Rust), diffs,
// paths, dotted names, Markdown code and code-shaped identifiers. It only
// reads text; resolving the mentions against a workspace is the caller's.
func ExtractEvidence(text string) Evidence {
	if len(text) > maxEvidenceText {
		text = text[:maxEvidenceText]
	}
	c := newCollector()

	for _, m := range evidenceRes().pyFrame.FindAllStringSubmatch(text, -1) {
		c.path(m[1], weightTraceback, "traceback")
		c.name(m[2], weightTraceback, "traceback")
	}
	for _, m := range evidenceRes().atFrame.FindAllStringSubmatch(text, -1) {
		c.path(m[2], weightTraceback, "traceback")
		if m[1] != "" {
			c.qualified(m[1], weightTraceback, "traceback")
		}
	}
	for _, m := range evidenceRes().goFrame.FindAllStringSubmatch(text, -1) {
		c.path(m[3], weightTraceback, "traceback")
		fn := strings.NewReplacer("(", "", ")", "", "*", "").Replace(m[2])
		c.qualified(fn, weightTraceback, "traceback")
	}
	for _, m := range evidenceRes().rsPlace.FindAllStringSubmatch(text, -1) {
		c.path(m[1], weightTraceback, "traceback")
	}
	for _, m := range evidenceRes().diffFile.FindAllStringSubmatch(text, -1) {
		p := m[1] + m[2]
		if p != "/dev/null" {
			c.path(p, weightDiff, "diff")
		}
	}
	for _, m := range evidenceRes().diffHunk.FindAllStringSubmatch(text, -1) {
		for _, d := range evidenceRes().defRe.FindAllStringSubmatch(m[1], -1) {
			c.name(d[1], weightDiff, "diff")
		}
	}
	for _, m := range evidenceRes().fromImport.FindAllStringSubmatch(text, -1) {
		c.module(m[1], weightCode, "code")
		for _, n := range strings.Split(m[2], ",") {
			if n = strings.TrimSpace(strings.Fields(n + " x")[0]); n != "x" {
				c.module(m[1]+"."+n, weightCode, "code")
				c.name(n, weightCode, "code")
			}
		}
	}
	for _, m := range evidenceRes().plainImport.FindAllStringSubmatch(text, -1) {
		c.module(m[1], weightCode, "code")
	}

	// Code: fenced blocks, inline code, and the indented or prompted lines
	// of a plain-text paste.
	var code, prose strings.Builder
	rest := evidenceRes().fence.ReplaceAllStringFunc(text, func(block string) string {
		code.WriteString(block)
		code.WriteByte('\n')
		return "\n"
	})
	// A diff's added and removed lines are code; elsewhere a line that
	// starts with a dash is a list item.
	isDiff := evidenceRes().diffHunk.MatchString(rest)
	for _, line := range strings.Split(rest, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(t, ">>>") ||
			strings.HasPrefix(t, "... ") || strings.HasPrefix(t, "$ ") ||
			isDiff && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")) {
			code.WriteString(line)
			code.WriteByte('\n')
			continue
		}
		prose.WriteString(line)
		prose.WriteByte('\n')
	}
	proseText := evidenceRes().backticks.ReplaceAllStringFunc(prose.String(), func(s string) string {
		c.codeText(s[1:len(s)-1], weightQuoted, "quoted")
		return " "
	})
	c.codeText(code.String(), weightCode, "code")
	c.proseText(proseText)
	return c.evidence()
}

// collector gathers mentions, summing the weights of repeated ones.
type collector struct {
	paths, modules, names map[string]*Mention
}

func newCollector() *collector {
	return &collector{paths: map[string]*Mention{}, modules: map[string]*Mention{}, names: map[string]*Mention{}}
}

var sourceRank = map[string]int{"prose": 0, "code": 1, "quoted": 2, "diff": 3, "traceback": 4}

func add(set map[string]*Mention, text string, w float64, source string) {
	m := set[text]
	if m == nil {
		m = &Mention{Text: text, Source: source}
		set[text] = m
	}
	// Repeats count, but less than a first mention: a name written ten
	// times is not ten times as telling.
	if m.Weight == 0 {
		m.Weight = w
	} else {
		m.Weight += w / 2
	}
	if sourceRank[source] > sourceRank[m.Source] {
		m.Source = source
	}
}

func (c *collector) path(p string, w float64, source string) {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" || len(p) > 400 || strings.HasPrefix(p, "<") {
		return
	}
	add(c.paths, p, w, source)
}

func (c *collector) module(m string, w float64, source string) {
	m = strings.Trim(m, ".")
	if m == "" || len(m) > 200 || !strings.Contains(m, ".") && evidenceStop[m] {
		return
	}
	add(c.modules, m, w, source)
}

func (c *collector) name(n string, w float64, source string) {
	n = strings.Trim(n, ".<>")
	if len(strings.Trim(n, "_")) < 3 || len(n) > 100 || evidenceStop[n] || !isIdent(n) {
		return
	}
	// Dunder names keep their underscores: __eq__ is a method name.
	add(c.names, n, w, source)
}

// qualified records Owner.name (and name alone) from a dotted name: the
// last two parts make a method's qualified name.
func (c *collector) qualified(d string, w float64, source string) {
	parts := strings.Split(strings.Trim(d, "."), ".")
	last := parts[len(parts)-1]
	if last == "" {
		return
	}
	c.name(last, w, source)
	if len(parts) >= 2 && !evidenceStop[parts[len(parts)-2]] && isIdent(parts[len(parts)-2]) {
		add(c.names, parts[len(parts)-2]+"."+last, w, source)
	}
}

// codeText collects from text known to be code: paths, dotted names,
// definitions and every identifier that is not a plain word.
func (c *collector) codeText(text string, w float64, source string) {
	for _, p := range evidenceRes().pathRe.FindAllString(text, -1) {
		c.path(p, w, source)
	}
	text = evidenceRes().pathRe.ReplaceAllString(text, " ")
	for _, d := range evidenceRes().defRe.FindAllStringSubmatch(text, -1) {
		c.name(d[1], w*1.5, source)
	}
	for _, d := range evidenceRes().dotted.FindAllString(text, -1) {
		c.dotted(d, w, source)
	}
	for _, id := range evidenceRes().identRe.FindAllString(evidenceRes().dotted.ReplaceAllString(text, " "), -1) {
		if codeShapedName(id) {
			c.name(id, w, source)
		} else if len(id) >= 4 {
			// A plain word inside code is still a name there (a call, a
			// variable), but a weak one.
			c.name(id, w/3, source)
		}
	}
}

// proseText collects from prose: paths, dotted names and identifiers that
// cannot be English words (inner capitals, underscores).
func (c *collector) proseText(text string) {
	for _, p := range evidenceRes().pathRe.FindAllString(text, -1) {
		c.path(p, weightProse*2, "prose")
	}
	text = evidenceRes().pathRe.ReplaceAllString(text, " ")
	for _, d := range evidenceRes().dotted.FindAllString(text, -1) {
		c.dotted(d, weightProse, "prose")
	}
	for _, id := range evidenceRes().identRe.FindAllString(evidenceRes().dotted.ReplaceAllString(text, " "), -1) {
		if codeShapedName(id) {
			c.name(id, weightProse, "prose")
		}
	}
}

// dotted records a dotted name as a module (when its parts are lower
// case, as module names are) and as a qualified name.
func (c *collector) dotted(d string, w float64, source string) {
	parts := strings.Split(d, ".")
	if isVersionOrHost(parts) {
		return
	}
	if len(parts) >= 2 {
		c.module(d, w, source)
	}
	c.qualified(d, w, source)
	// The first part of a chain is a module, a class or a variable.
	if codeShapedName(parts[0]) {
		c.name(parts[0], w/2, source)
	}
}

func (c *collector) evidence() Evidence {
	list := func(set map[string]*Mention) []Mention {
		out := make([]Mention, 0, len(set))
		for _, m := range set {
			out = append(out, *m)
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Weight != out[j].Weight {
				return out[i].Weight > out[j].Weight
			}
			return out[i].Text < out[j].Text
		})
		return out
	}
	return Evidence{Paths: list(c.paths), Modules: list(c.modules), Names: list(c.names)}
}

// isIdent reports whether s is one identifier, optionally Owner.name.
func isIdent(s string) bool {
	for i, r := range s {
		if r == '.' && i > 0 {
			continue
		}
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// codeShapedName reports whether an identifier cannot be an English word:
// it has an underscore, an inner capital, or a digit after letters.
func codeShapedName(s string) bool {
	if len(s) < 3 {
		return false
	}
	if strings.Contains(strings.Trim(s, "_"), "_") || strings.HasPrefix(s, "__") {
		return true
	}
	upper, lower := 0, 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
			if i > 0 {
				return lower > 0 || upper < len(s) // fooBar, HTTPServer
			}
		case unicode.IsLower(r):
			lower++
		}
	}
	return false
}

// isVersionOrHost reports whether dotted parts are a version (1.2.3), a
// host name or a file name rather than code.
func isVersionOrHost(parts []string) bool {
	last := strings.ToLower(parts[len(parts)-1])
	switch last {
	case "com", "org", "net", "io", "html", "txt", "md", "rst", "cfg", "toml", "ini", "json", "yaml", "yml", "csv", "png", "log":
		return len(parts) == 2 || last != "io"
	}
	for _, p := range parts {
		if p != "" && unicode.IsDigit(rune(p[0])) {
			return true
		}
	}
	return false
}
