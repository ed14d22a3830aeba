// Package retrieval answers questions about the code: a router classifies
// each query (semantic, structural, keyword or hybrid) and extracts what
// each search backend needs.
package retrieval

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Strategy is how a query is answered.
type Strategy string

// Strategies.
const (
	// Semantic searches code by meaning ("how are users loaded?").
	Semantic Strategy = "semantic"
	// Structural asks the code graph about a symbol ("what calls X?").
	Structural Strategy = "structural"
	// Keyword searches the text exactly ("lines containing 'API_KEY'").
	Keyword Strategy = "keyword"
	// Hybrid combines a semantic search with the graph around what it
	// finds ("the auth code and what depends on it").
	Hybrid Strategy = "hybrid"
)

// Structural operations.
const (
	OpCallers     = "callers"
	OpCallees     = "callees"
	OpInheritance = "inheritance"
	OpImports     = "imports"
	OpBlastRadius = "blast_radius"
	OpSearch      = "search"
)

// MaxQuery is the longest query classified; longer ones are cut.
const MaxQuery = 2000

// fragmentConfidence is the router's confidence that a query holding code
// is a fragment to find as written; a search that finds nothing for it
// falls back to a search by meaning.
const fragmentConfidence = 0.8

// Route is how a query is to be answered, with the parts each backend
// needs.
type Route struct {
	Strategy   Strategy `json:"strategy"`
	Confidence float64  `json:"confidence"`
	// Reasoning says in one line why the router chose the strategy.
	Reasoning string `json:"reasoning"`
	// SemanticQuery is the text a semantic search looks for.
	SemanticQuery string `json:"semantic_query"`
	// StructuralQuery is the symbol (or file, for imports) the graph is
	// asked about, and StructuralOperation what is asked.
	StructuralQuery     string `json:"structural_query"`
	StructuralOperation string `json:"structural_operation"`
	// KeywordQuery is the text or, when KeywordRegex, the regular
	// expression a keyword search looks for.
	KeywordQuery string `json:"keyword_query"`
	KeywordRegex bool   `json:"keyword_regex,omitempty"`
	// KeywordScope, when the query names where to look ("TODO in
	// net/http"), is the folder or file the keyword search is kept to.
	KeywordScope string `json:"keyword_scope,omitempty"`
	// InheritanceDirection, for an inheritance question, says which way it
	// looks: DirectionDown for subtypes and implementations of the symbol,
	// DirectionUp for what it extends or implements, "" when unsaid.
	InheritanceDirection string `json:"inheritance_direction,omitempty"`
	// Task is set when the query is a task description — a pasted issue,
	// a bug report with a traceback, a log, a diff — searched by meaning
	// and by the files and names it mentions (see ExtractEvidence). Its
	// strategy is Semantic.
	Task bool `json:"task,omitempty"`
}

// Directions of an inheritance question (Route.InheritanceDirection).
const (
	DirectionUp   = "up"
	DirectionDown = "down"
)

// Router classifies queries with hand-written rules: no model, and the
// same answer for the same query. A Router is safe for concurrent use.
type Router struct {
	rules      []structuralRule
	relations  []relationRule
	up, down   *regexp.Regexp
	scope      *regexp.Regexp
	everything *regexp.Regexp
	kwVerb     *regexp.Regexp
	markers    *regexp.Regexp
	constant   *regexp.Regexp
	quoted     *regexp.Regexp
	regexish   *regexp.Regexp
	conceptual *regexp.Regexp
	ident      *regexp.Regexp
}

// structuralRule is a phrasing of a structural question; the named group
// "sym" captures the symbol.
type structuralRule struct {
	op string
	re *regexp.Regexp
}

// relationRule is a phrasing that, after "and" or "with", asks for the
// graph around what a semantic search finds.
type relationRule struct {
	op string
	re *regexp.Regexp
}

// defaultRouter is the process's router, compiled on first use.
var defaultRouter = sync.OnceValue(NewRouter)

// DefaultRouter returns the process's router, compiling its rules (some
// sixty regular expressions) on the first call only: a process that
// routes no query does not compile them. A Router is safe for concurrent
// use.
func DefaultRouter() *Router { return defaultRouter() }

// NewRouter returns a router with its rules compiled. Most callers want
// DefaultRouter, which compiles them once per process.
func NewRouter() *Router {
	rule := func(op, pattern string) structuralRule {
		return structuralRule{op, regexp.MustCompile(`(?i)^` + pattern + `\s*[?.!]*$`)}
	}
	// X is what a rule captures as the symbol.
	const x = `(?P<sym>.+?)`
	// edit is a change to code, in any tense: "change", "changed", "changes".
	const edit = `(?:change[ds]?|modif(?:y|ies|ied)|remove[ds]?|delete[ds]?|rename[ds]?|touch(?:es|ed)?|refactor(?:s|ed)?)`
	const kinds = `(?:functions?|methods?|classes|class|types?|structs?|interfaces?|traits?|tests?|files?|modules?|packages?|code|components?)`
	return &Router{
		rules: []structuralRule{
			// Blast radius.
			rule(OpBlastRadius, `(?:show |what is |what's )?(?:the )?blast radius (?:of|for) (?:removing |changing |deleting |renaming )?`+x),
			rule(OpBlastRadius, `(?:what is |what's )?(?:the )?impact of (?:changing|removing|modifying|renaming|deleting) `+x),
			rule(OpBlastRadius, `what(?:'s| is| would be| will be)? (?:be )?affected (?:if (?:i|we) `+edit+`|by (?:changing|modifying|removing|deleting|renaming)) `+x),
			rule(OpBlastRadius, `what (?:breaks|would break|will break|could break|might break) if (?:i|we|you|someone) (?:were to )?`+edit+` (?:the signature of )?`+x),
			rule(OpBlastRadius, `if (?:i|we) (?:were to )?`+edit+` (?:the signature of )?`+x+`,? what (?:breaks|would break|will break|could break|might break)`),
			rule(OpBlastRadius, `is it safe to (?:delete|remove|change|rename|modify) `+x),
			rule(OpBlastRadius, `what depends on `+x),
			// Callees.
			rule(OpCallees, `(?:what|which) (?:functions |methods )?(?:does|do) `+x+` (?:call|invoke)(?: into)?`),
			rule(OpCallees, `(?:list |show |find )?(?:the |all )?(?:callees|outgoing calls|calls made) (?:of|for|from|by|in) `+x),
			rule(OpCallees, `(?:functions|methods|what is|what's|what gets) called (?:by|from|in) `+x),
			// Inheritance.
			rule(OpInheritance, `(?:list |show |find )?(?:all |the )?(?:subclasses|subtypes|implementations|implementers|implementors|derived classes|child classes|children) of `+x),
			rule(OpInheritance, `(?:what|who|which `+kinds+`)(?: that)? (?:extends?|implements?|inherits? from|derives? from|subclass(?:es)?|embeds?) `+x),
			rule(OpInheritance, kinds+` (?:that |which )?(?:extends?|implements?|implementing|extending|inherits? from|inheriting from|derives? from|deriving from|embeds?|embedding) `+x),
			rule(OpInheritance, `(?:the )?(?:base|parent|super) ?class(?:es)? (?:of|for) `+x),
			rule(OpInheritance, `(?:the )?(?:class|type) hierarchy (?:of|for) `+x),
			rule(OpInheritance, `what (?:interfaces|classes|traits|types) does `+x+` (?:implement|extend|inherit from)`),
			rule(OpInheritance, `what does `+x+` (?:extend|implement|inherit from|derive from)`),
			// Imports.
			rule(OpImports, `(?:the )?(?:imports|dependencies) (?:in|of|from) `+x),
			rule(OpImports, `what (?:packages |modules |files )?(?:does|do) (?:the )?`+x+` (?:import|require|depend on)`),
			rule(OpImports, `(?:what|who|which `+kinds+`) (?:imports?|requires?) `+x),
			rule(OpImports, `who depends on (?:the )?(?:module|package) `+x),
			rule(OpImports, `where is (?:the )?`+x+` (?:module |package )?(?:imported|required)`),
			// Callers.
			rule(OpCallers, `(?:what|who|which `+kinds+`|is anything|is anyone|anything|everything that|(?:show me )?everything that) (?:calls?|invokes?|uses?|references?|calling|using|referencing)(?: into)? `+x),
			rule(OpCallers, `who(?:'s| is) (?:calling|using|referencing) `+x),
			rule(OpCallers, `(?:list |show |find |get )?(?:me )?(?:all )?(?:the )?(?:callers|call sites|usages|uses|references|referrers|callsites) (?:of|for|to) `+x),
			rule(OpCallers, x+` (?:callers|usages|call sites|references)`),
			rule(OpCallers, `where(?:'s| is| are) `+x+` (?:called|used|invoked|referenced)(?: from)?(?: anywhere)?`),
			rule(OpCallers, `where do (?:we|i|you) (?:call|use|invoke) `+x),
			rule(OpCallers, `is `+x+` (?:still )?(?:used|called|referenced)(?: anywhere)?`),
			// Definitions.
			rule(OpSearch, `(?:where is|where's|where are) (?:the )?`+x+` (?:defined|declared|implemented)`),
			rule(OpSearch, `(?:go to |jump to |show me |show |find )?(?:the )?(?:definition|declaration|source) of `+x),
			rule(OpSearch, `(?:where's|where is) the (?:definition|declaration) of `+x),
			rule(OpSearch, `which file (?:defines|declares|contains the definition of) `+x),
			rule(OpSearch, `(?:find|locate|show me|show|open) (?:the )?(?:function|method|class|struct|type|interface|trait|enum|module|symbol) `+x),
			rule(OpSearch, `(?:find|locate|show me|show|open) (?:the )?`+x+` (?:function|method|class|struct|type|interface|trait|enum|symbol)`),
			rule(OpSearch, `(?:find|locate) `+x),
			rule(OpSearch, `(?:func|fn|def|class|struct|interface|type|trait|enum) `+x),
		},
		relations: []relationRule{
			{OpBlastRadius, regexp.MustCompile(`(?i)\b(?:depends? on (?:it|that|this)|dependents|(?:would|will|could) break|what breaks|is affected|be affected|impact)\b`)},
			{OpCallers, regexp.MustCompile(`(?i)\b(?:(?:what|who|which \w+|everything that|anything that) (?:calls|uses|invokes|references)(?: it| that| this)?|where (?:it|that|this)(?:'s| is) (?:used|called)|(?:its |their )?(?:callers|usages|call sites|users))\b`)},
			{OpInheritance, regexp.MustCompile(`(?i)\b(?:its|their) (?:subclasses|implementations|subtypes|children|base class(?:es)?)\b|\bsubclasses\b`)},
			{OpCallees, regexp.MustCompile(`(?i)\b(?:what (?:it|that) calls|its callees)\b`)},
			{OpImports, regexp.MustCompile(`(?i)\b(?:its|their) (?:dependencies|imports)\b|\bwhat (?:it|that) imports\b`)},
		},
		scope:      regexp.MustCompile(`(?i)\s(?:in|under|inside|within)\s+(?:the\s+)?(?:folder\s+|directory\s+|package\s+|file\s+)?([\w.\-]+(?:/[\w.\-]*)*)\s*[?.!]*$`),
		up:         regexp.MustCompile(`(?i)\b(?:base|parent|super) ?(?:class|type|interface|trait)|\bwhat (?:\w+ )?does \S+ (?:implement|extend|inherit|derive|embed)`),
		down:       regexp.MustCompile(`(?i)\b(?:subclass(?:es)?|subtypes?|implementations?|implement(?:er|or)s|derived|child(?:ren)?)\b|\b(?:implements?|extends?|inherits?|derives?|embeds?|implementing|extending|inheriting|deriving|embedding) \S+\s*[?.!]*$`),
		everything: regexp.MustCompile(`(?i)^(?:tell me |show me |give me )?(?:everything|all) (?:about|related to|touching|around|regarding|concerning|on|involving) (.+?)\s*[?.!]*$|^(?:the )?(?:full|whole|big) picture (?:of|for) (.+?)\s*[?.!]*$`),
		kwVerb:     regexp.MustCompile(`(?i)^(?:grep(?:\s+-\w+)*(?:\s+for)?|(?:find |show |list )?(?:all )?(?:lines|files|places)(?: that)? (?:containing|contain|matching|match|with|mentioning|mention|that mention)|(?:find |list )?(?:all )?(?:occurrences|mentions|instances) of(?: the (?:word|string|text|literal))?|(?:text|string|literal|full[- ]text) search(?: for)?|search (?:the )?(?:codebase |code |repo |files )?for(?: the (?:string|text|literal|word))?|exact match:?|files that mention|find (?:the )?(?:string|literal|text))\s+(.+?)\s*[?.!]*$`),
		markers:    regexp.MustCompile(`(?i)\b(TODO|FIXME|HACK|XXX|NOCOMMIT|DEPRECATED|BUG|OPTIMIZE)(?:s|es)?\b(\([\w.@-]+\))?`),
		constant:   regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`),
		// A single quote opens and closes only outside words: "the
		// request's values" and "isn't" quote nothing.
		quoted:     regexp.MustCompile(`"([^"]+)"|(?:^|[^\pL\pN])'([^']+)'(?:$|[^\pL\pN])`),
		regexish:   regexp.MustCompile(`\\[swdbWSDB.()\[\]{}|+*?^$]|\.\*|\.\+|\[\^|\(\?|\w\|\w`),
		conceptual: regexp.MustCompile(`(?i)^(?:how|why|when|explain|describe|walk me through|tell me|what is the (?:purpose|role|point)|what happens|what's the|what is the|show me how|where do we|where are|where is)\b`),
		ident:      regexp.MustCompile(`^[*&]?[A-Za-z_$][\w$]*(?:(?:\.|::|#|/|->)[A-Za-z_$][\w$]*)*(?:\(\))?$|^[\w./-]+\.(?:go|py|ts|tsx|js|jsx|rs|java|mjs|cjs|rb|c|h|cpp)$`),
	}
}

// Route classifies a query.
func (r *Router) Route(query string) Route {
	q, cut := clean(query)
	if q == "" {
		return Route{Strategy: Semantic, Reasoning: "empty query"}
	}
	if _, ok := r.forced(q); !ok {
		if why := taskShape(query); why != "" {
			rt := Route{Strategy: Semantic, Confidence: 0.9, SemanticQuery: q, Task: true,
				Reasoning: why + ": a task description, searched by meaning and by the files and names it mentions"}
			if len(query) > MaxTaskQuery {
				rt.Reasoning += fmt.Sprintf(" (cut to its first %d bytes)", MaxTaskQuery)
			}
			return rt
		}
	}
	rt := r.route(q)
	if cut {
		rt.Reasoning += fmt.Sprintf(" (query cut to its first %d bytes)", MaxQuery)
	}
	rt.Confidence = max(0, min(1, rt.Confidence))
	return rt
}

// clean makes a query valid UTF-8 without control characters, trims it and
// cuts it to MaxQuery bytes.
func clean(q string) (string, bool) {
	q = strings.ToValidUTF8(q, "\uFFFD")
	q = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, q)
	cut := false
	if len(q) > MaxQuery {
		q, cut = q[:MaxQuery], true
		for !utf8.ValidString(q) {
			q = q[:len(q)-1]
		}
	}
	return strings.TrimSpace(q), cut
}

func (r *Router) route(q string) Route {
	if rt, ok := r.forced(q); ok {
		return rt
	}
	if rt, ok := r.keyword(q); ok {
		r.keywordScope(q, &rt)
		return rt
	}
	if rt, ok := r.hybrid(q); ok {
		return rt
	}
	if rt, ok := r.structural(q); ok {
		return rt
	}
	if sym := symbolOf(q); r.isSymbol(sym) && codeShaped(sym) {
		return Route{Strategy: Structural, Confidence: 0.85, StructuralOperation: OpSearch, StructuralQuery: sym,
			Reasoning: "the query is an identifier: look up its definition"}
	}
	rt := Route{Strategy: Semantic, Confidence: 0.6, SemanticQuery: q, Reasoning: "a description of code: search by meaning"}
	if r.conceptual.MatchString(q) {
		rt.Confidence, rt.Reasoning = 0.8, "a conceptual question: search by meaning"
	} else if !strings.Contains(q, " ") {
		rt.Confidence, rt.Reasoning = 0.5, "a single word: search by meaning"
	}
	return rt
}

// Task descriptions: how many words make a query one, on one line or on
// several.
const (
	taskWordsOneLine = 40
	taskWordsLines   = 15
	taskLines        = 3
)

// taskMarkers are what only pasted tracebacks, logs and diffs hold.
var taskMarkers = []struct{ marker, what string }{
	{"Traceback (most recent call last)", "a Python traceback"},
	{"\ndiff --git ", "a diff"},
	{"\n@@ -", "a diff"},
	{"\ngoroutine ", "a Go stack trace"},
	{"\npanic: ", "a Go panic"},
	{"\tat ", "a stack trace"},
	{"\n    at ", "a stack trace"},
	{"Exception in thread ", "a Java stack trace"},
}

// taskShape says why a query is a task description rather than a search
// box query — a traceback, a diff, several lines of prose, or many words
// — or returns "".
func taskShape(q string) string {
	nl := "\n" + q
	for _, m := range taskMarkers {
		// Markers other than a traceback's header count in pasted text,
		// of several lines, only: "panic: " alone may be text to find.
		if strings.Contains(nl, m.marker) && (strings.Contains(q, "\n") || m.what == "a Python traceback") {
			return m.what
		}
	}
	if evidenceRes().pyFrame.MatchString(q) {
		return "a Python traceback"
	}
	words := 0
	for _, f := range strings.Fields(q) {
		if strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			words++
		}
	}
	lines := 0
	for _, l := range strings.Split(q, "\n") {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	switch {
	case words >= taskWordsOneLine:
		return fmt.Sprintf("%d words", words)
	case lines >= taskLines && words >= taskWordsLines:
		return fmt.Sprintf("%d lines", lines)
	}
	return ""
}

// forced handles the prefixes that choose a strategy: kw:, grep:, re:,
// sym:, struct:, sem:, hybrid:.
func (r *Router) forced(q string) (Route, bool) {
	prefix, rest, ok := strings.Cut(q, ":")
	if !ok || strings.ContainsAny(prefix, " ") {
		return Route{}, false
	}
	rest = strings.TrimSpace(rest)
	why := fmt.Sprintf("forced by the %q prefix", prefix+":")
	switch strings.ToLower(prefix) {
	case "kw", "key", "keyword", "grep":
		return Route{Strategy: Keyword, Confidence: 1, KeywordQuery: rest, Reasoning: why}, rest != ""
	case "re", "regex":
		return Route{Strategy: Keyword, Confidence: 1, KeywordQuery: rest, KeywordRegex: true, Reasoning: why}, rest != ""
	case "sem", "semantic":
		return Route{Strategy: Semantic, Confidence: 1, SemanticQuery: rest, Reasoning: why}, rest != ""
	case "hyb", "hybrid":
		return Route{Strategy: Hybrid, Confidence: 1, SemanticQuery: rest, StructuralOperation: OpBlastRadius, Reasoning: why}, rest != ""
	case "sym", "struct", "structural":
		if rest == "" {
			return Route{}, false
		}
		rt, ok := r.structural(rest)
		if !ok {
			rt = Route{StructuralOperation: OpSearch, StructuralQuery: symbolOf(rest)}
		}
		rt.Strategy, rt.Confidence, rt.Reasoning = Structural, 1, why
		return rt, true
	}
	return Route{}, false
}

// keywordScope finds where a keyword query asks to look: a trailing "in
// net/http", "under src/", "in main.go" or, after quoted text or a marker,
// "in the worker". The scope leaves the searched text.
func (r *Router) keywordScope(q string, rt *Route) {
	m := r.scope.FindStringSubmatchIndex(q)
	if m == nil {
		return
	}
	scope := strings.TrimRight(q[m[2]:m[3]], ".")
	suffix := strings.TrimSpace(q[m[0]:])
	pathLike := strings.Contains(scope, "/") || path.Ext(scope) != ""
	inTerm := strings.HasSuffix(rt.KeywordQuery, suffix)
	switch {
	case scope == "":
		return
	case !pathLike && (inTerm || genericPlace[strings.ToLower(scope)]):
		// "ErrNotFound in users" is ambiguous and "TODO in the code" says
		// nothing: search the words as written, everywhere.
		return
	}
	if inTerm {
		term := strings.TrimSpace(strings.TrimSuffix(rt.KeywordQuery, suffix))
		if term == "" {
			return
		}
		rt.KeywordQuery = term
	}
	rt.KeywordScope = scope
	rt.Reasoning += " in " + scope
}

// genericPlace lists words that name no particular place in a workspace.
var genericPlace = map[string]bool{
	"code": true, "codebase": true, "repo": true, "repository": true, "project": true, "workspace": true,
	"source": true, "sources": true, "files": true, "file": true, "comments": true, "tests": true, "app": true,
}

// keyword recognises exact-text searches: regular expressions, quoted
// text, grep-like verbs, comment markers, constants and code fragments.
func (r *Router) keyword(q string) (Route, bool) {
	kw := func(term string, conf float64, why string) (Route, bool) {
		return Route{Strategy: Keyword, Confidence: conf, KeywordQuery: term, Reasoning: why}, true
	}
	if len(q) > 2 && q[0] == '/' && q[len(q)-1] == '/' {
		rt, _ := kw(q[1:len(q)-1], 0.95, "a /regular expression/")
		rt.KeywordRegex = true
		return rt, true
	}
	if m := r.kwVerb.FindStringSubmatch(q); m != nil {
		term := strings.TrimSpace(m[1])
		if text, _, ok := r.quotation(term); ok {
			term = text
		}
		term = strings.Trim(term, "`")
		rt, _ := kw(term, 0.95, "asks for lines of text: exact search")
		rt.KeywordRegex = r.regexish.MatchString(term)
		return rt, true
	}
	if text, start, ok := r.quotation(q); ok && !quotesExample(q[:start]) && !describesAround(q, text) && !quotesLiteral(q, start) {
		return kw(text, 0.9, "quoted text: exact search")
	}
	if m := r.markers.FindStringSubmatch(q); m != nil && (isUpper(m[1]) || strings.Contains(strings.ToLower(q), "comment")) {
		return kw(strings.ToUpper(m[1])+m[2], 0.9, "a comment marker: exact search")
	}
	if m := r.constant.FindString(q); m != "" {
		return kw(m, 0.85, "a constant's name: exact search")
	}
	if strings.HasPrefix(q, "@") && !strings.Contains(q, " ") {
		return kw(q, 0.8, "an annotation: exact search")
	}
	if r.regexish.MatchString(q) && !strings.Contains(q, " ") || strings.HasPrefix(q, "^") {
		rt, _ := kw(q, 0.85, "looks like a regular expression")
		rt.KeywordRegex = true
		return rt, true
	}
	if isFragment(q) {
		return kw(q, fragmentConfidence, "a fragment of code: exact search")
	}
	return Route{}, false
}

// hybrid recognises a conceptual part joined to a relation ("the auth code
// and what depends on it") and requests for everything about a topic.
func (r *Router) hybrid(q string) (Route, bool) {
	if m := r.everything.FindStringSubmatch(q); m != nil {
		topic := strings.TrimSpace(m[1] + m[2])
		return Route{Strategy: Hybrid, Confidence: 0.85, SemanticQuery: topic, StructuralOperation: OpBlastRadius,
			Reasoning: "asks for everything about a topic: search by meaning, then follow the graph"}, true
	}
	lower := strings.ToLower(q)
	for _, sep := range []string{", and ", " and ", " plus ", " along with ", " together with ", " with its ", " with their "} {
		i := strings.Index(lower, sep)
		if i <= 0 {
			continue
		}
		first, second := q[:i], q[i+len(sep):]
		if strings.HasPrefix(sep, " with ") {
			second = strings.TrimPrefix(sep, " with ") + second
		}
		for _, rel := range r.relations {
			if rel.re.MatchString(second) {
				return Route{Strategy: Hybrid, Confidence: 0.85, SemanticQuery: topic(first), StructuralOperation: rel.op,
					Reasoning: fmt.Sprintf("a topic and its %s: search by meaning, then follow the graph", strings.ReplaceAll(rel.op, "_", " "))}, true
			}
		}
	}
	return Route{}, false
}

// structural matches the phrasings of graph questions. A question about a
// topic rather than a symbol ("what calls the database layer") is hybrid.
func (r *Router) structural(q string) (Route, bool) {
	for _, rule := range r.rules {
		m := rule.re.FindStringSubmatch(q)
		if m == nil {
			continue
		}
		raw := m[rule.re.SubexpIndex("sym")]
		sym := symbolOf(raw)
		if r.isSymbol(sym) && !(rule.op == OpSearch && !codeShaped(sym) && strings.HasPrefix(strings.ToLower(q), "find ")) {
			rt := Route{Strategy: Structural, Confidence: 0.9, StructuralOperation: rule.op, StructuralQuery: sym,
				Reasoning: fmt.Sprintf("asks for the %s of %s", strings.ReplaceAll(rule.op, "_", " "), sym)}
			if rule.op == OpInheritance {
				rt.InheritanceDirection = r.direction(q)
			}
			return rt, true
		}
		if rule.op != OpSearch && strings.Contains(strings.TrimSpace(sym), " ") {
			return Route{Strategy: Hybrid, Confidence: 0.75, SemanticQuery: topic(raw), StructuralOperation: rule.op,
				Reasoning: fmt.Sprintf("asks for the %s of a topic, not a symbol: search by meaning, then follow the graph", strings.ReplaceAll(rule.op, "_", " "))}, true
		}
	}
	return Route{}, false
}

// direction says which way an inheritance question looks.
func (r *Router) direction(q string) string {
	switch {
	case r.up.MatchString(q):
		return DirectionUp
	case r.down.MatchString(q):
		return DirectionDown
	}
	return ""
}

// symbolOf strips what surrounds a symbol in a question: quotes,
// backticks, articles, a trailing kind ("the Store interface"), call
// parentheses and punctuation.
func symbolOf(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`'\"?.!,:;"))
	s = strings.Trim(s, "`")
	words := strings.Fields(s)
	for len(words) > 1 {
		switch strings.ToLower(words[0]) {
		case "the", "a", "an", "this", "that", "our", "my", "removing", "changing", "deleting", "renaming", "modifying", "into", "module", "package":
			words = words[1:]
			continue
		}
		break
	}
	for len(words) > 1 {
		switch strings.ToLower(words[len(words)-1]) {
		case "function", "method", "class", "struct", "type", "interface", "trait", "enum", "module", "package", "file", "symbol", "constructor", "anywhere":
			words = words[:len(words)-1]
			continue
		}
		break
	}
	s = strings.Join(words, " ")
	s = strings.Trim(s, "`")
	s = strings.TrimSuffix(s, "()")
	return strings.TrimLeft(s, "*&")
}

// isSymbol reports whether s can name a symbol or file (one token).
func (r *Router) isSymbol(s string) bool {
	return s != "" && !strings.Contains(s, " ") && r.ident.MatchString(s)
}

// codeShaped reports whether a token looks like code rather than a word:
// inner capitals, underscores, dots, scopes, or call parentheses.
func codeShaped(s string) bool {
	if strings.ContainsAny(s, "_.:#$/") || strings.HasSuffix(s, "()") {
		return true
	}
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return len(s) > 1 && unicode.IsUpper(rune(s[0])) && !isUpper(s)
}

func isUpper(s string) bool {
	return s == strings.ToUpper(s) && s != strings.ToLower(s)
}

// isFragment reports whether a query is a piece of code: a call with
// arguments, an operator, braces or an unbalanced parenthesis.
func isFragment(q string) bool {
	if isProse(q) {
		return false // a sentence that quotes a little code
	}
	if strings.ContainsAny(q, "{};") || strings.Contains(q, "!=") || strings.Contains(q, "==") || strings.Contains(q, ":=") || strings.Contains(q, "=>") {
		return true
	}
	open, closed := strings.Count(q, "("), strings.Count(q, ")")
	if open != closed {
		return true
	}
	if i := strings.Index(q, "("); i > 0 && !strings.Contains(q[:i], " ") && strings.Index(q, ")") > i+1 {
		return true // f(args): a call as written
	}
	return false
}

// quotation returns the text of the first quotation in q, in double or
// single quotes, and the offset of its opening quote.
func (r *Router) quotation(q string) (text string, start int, ok bool) {
	if !strings.ContainsAny(q, `"'`) {
		return "", 0, false
	}
	loc := r.quoted.FindStringSubmatchIndex(q)
	switch {
	case loc == nil:
		return "", 0, false
	case loc[2] >= 0:
		return q[loc[2]:loc[3]], loc[2] - 1, true
	default:
		return q[loc[4]:loc[5]], loc[4] - 1, true
	}
}

// describeWords is how many words around a quotation make a question a
// description of a task, in which the quotation is a detail: "split
// "key=value" at the first equals sign into the part before and the part
// after" asks how to split, not where "key=value" is written; "where does
// the error 'permission denied' come from" asks for the text.
const describeWords = 10

// describesAround reports whether q has at least describeWords words
// besides its quotation text.
func describesAround(q, text string) bool {
	rest := strings.Replace(q, text, " ", 1)
	words := 0
	for _, f := range strings.Fields(rest) {
		if strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			words++
		}
	}
	return words >= describeWords
}

// quotesLiteral reports whether the quotation at start is a string
// literal inside a fragment of code that a sentence describes ("where
// are [@attr='value'] filters handled", "where is the tag json:"id"
// read"): glued on its left to a character of that fragment, in a
// question of words. The fragment is what the sentence is about; an
// exact search for the literal alone ('value') finds it everywhere. A
// question of words has at least five words besides the fragment.
func quotesLiteral(q string, start int) bool {
	if start <= 0 || start >= len(q) {
		return false
	}
	switch c := q[start-1]; {
	case c == ' ' || c == '\t' || c == '\n':
		return false
	case strings.IndexByte("([{<", c) >= 0 && (start == 1 || q[start-2] == ' '):
		return false // a bracket of the sentence: ("disk full")
	}
	words := 0
	for _, f := range strings.Fields(q) {
		f = strings.TrimRight(f, ",.?!:;")
		if len(f) >= 2 && strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' }) < 0 {
			words++
		}
	}
	return words >= 5
}

// quotesExample reports whether the text before a quotation introduces it
// as an example of what a sentence asks about ("parse a duration like
// "1h30m""), not as the text to find.
func quotesExample(before string) bool {
	// A quotation glued to a word (json:"name") is part of that example.
	if before != "" && before[len(before)-1] != ' ' {
		before = before[:strings.LastIndex(before, " ")+1]
	}
	words := strings.Fields(strings.ToLower(before))
	if len(words) < 3 {
		return false // "like" alone, or "find like": too short to be a question
	}
	last := strings.TrimRight(words[len(words)-1], ",:")
	switch {
	case last == "like", last == "e.g.", last == "eg", last == "say":
		return true
	case len(words) >= 2 && (words[len(words)-2] == "such" && last == "as" || words[len(words)-2] == "for" && last == "example"):
		return true
	}
	return false
}

// isProse reports whether q is mostly words: at least five, and at least
// four in five of its space-separated parts.
func isProse(q string) bool {
	parts := strings.Fields(q)
	words := 0
	for _, p := range parts {
		p = strings.TrimRight(p, ",.?!:")
		if len(p) >= 2 && strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' }) < 0 {
			words++
		}
	}
	return words >= 5 && words*5 >= len(parts)*4
}

// topic trims a request's verbs from the conceptual part of a query.
func topic(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "?.!,"))
	lower := strings.ToLower(s)
	for _, p := range []string{"show me ", "show ", "find ", "explain ", "describe ", "tell me about ", "give me ", "where is ", "what is "} {
		if strings.HasPrefix(lower, p) {
			s, lower = s[len(p):], lower[len(p):]
		}
	}
	return s
}
