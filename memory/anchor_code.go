package memory

import (
	"context"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
)

// The evidence of this file comes from where a rule's terms stand in the
// code rather than whether they do: in the statements that do the work
// or only in a comment that lists everything (anchorCodeOnly), in a
// helper the candidate hands the work to (anchorDelegation), and in the
// file that holds most of them (anchorFileShares).

// anchorCodeOnly returns text without its comments and docstrings: the
// statements that do the work. String literals stay (an error message
// is what the code says). The scan is lexical and forgiving: a comment
// marker inside a string literal of a language without triple quotes is
// read as a string, so that "http://x" keeps its text.
func anchorCodeOnly(text, language string) string {
	code, _ := anchorSplitCode(text, language)
	return code
}

// anchorSplitCode splits text into its statements (anchorCodeOnly) and
// the comments and docstrings left out of them.
func anchorSplitCode(text, language string) (code, notes string) {
	var b, n strings.Builder
	b.Grow(len(text))
	hash := false // # starts a comment
	switch NormalizeLanguage(language) {
	case "python", "ruby", "shell", "bash", "r", "perl":
		hash = true
	}
	py := NormalizeLanguage(language) == "python"
	atLineStart := true // only blanks since the last newline
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case py && atLineStart && (strings.HasPrefix(text[i:], `"""`) || strings.HasPrefix(text[i:], `'''`)):
			// A docstring, or a string alone on its line: documentation.
			end := strings.Index(text[i+3:], text[i:i+3])
			if end < 0 {
				n.WriteString(text[i:])
				return b.String(), n.String()
			}
			n.WriteString(text[i : i+3+end+3])
			n.WriteByte('\n')
			i += 3 + end + 3
			continue
		case py && (strings.HasPrefix(text[i:], `"""`) || strings.HasPrefix(text[i:], `'''`)):
			end := strings.Index(text[i+3:], text[i:i+3])
			if end < 0 {
				b.WriteString(text[i:])
				return b.String(), n.String()
			}
			b.WriteString(text[i : i+3+end+3])
			i += 3 + end + 3
			atLineStart = false
			continue
		case c == '"' || c == '\'' || (c == '`' && !py):
			// A string literal: kept whole, to its end or its line's.
			j := i + 1
			for j < len(text) && text[j] != c && (c == '`' || text[j] != '\n') {
				if text[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(text))
			b.WriteString(text[i:j])
			i = j
			atLineStart = false
			continue
		case hash && c == '#', !hash && strings.HasPrefix(text[i:], "//"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				n.WriteString(text[i:])
				return b.String(), n.String()
			}
			n.WriteString(text[i : i+end+1])
			i += end
			continue
		case !hash && strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				n.WriteString(text[i:])
				return b.String(), n.String()
			}
			n.WriteString(text[i : i+2+end+2])
			n.WriteByte('\n')
			b.WriteByte(' ')
			i += 2 + end + 2
			continue
		}
		switch c {
		case '\n':
			atLineStart = true
		case ' ', '\t', '\r':
		default:
			atLineStart = false
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), n.String()
}

// codeShare is the weighted share of the rule's known terms that code
// (the stems of a symbol's statements, see anchorCodeOnly) or the
// symbol's own name holds: what the code does, not what its comments
// list.
func (rq *anchorQuery) codeShare(name string, code map[string]bool, prefix bool) (float64, int) {
	own := anchorStems(name)
	var total, got float64
	n := 0
	for _, t := range rq.terms {
		if !t.known {
			continue
		}
		total += t.weight
		m := 0.0
		for k, form := range t.forms {
			if code[form] || own[form] {
				s := 1.0
				if k > 0 {
					s = anchorMatchAlias
				}
				m = math.Max(m, s)
			}
		}
		if m == 0 && prefix && len(t.stem) >= 4 && (anchorHasPrefixed(code, t.stem) || anchorHasPrefixed(own, t.stem)) {
			m = anchorMatchPrefix
		}
		got += t.weight * m
		if m > 0 {
			n++
		}
	}
	if total == 0 {
		return 0, n
	}
	return got / total, n
}

// anchorDelegateTop is how many of a rule's best candidates have their
// calls looked at: the public entry points that may hand the rule's
// work to a helper.
const anchorDelegateTop = 6

// anchorDelegateShare is the least share of a caller's evidence for the
// rule in its statements (Code) that a callee's statements must hold to
// count as the helper that does the caller's work.
const anchorDelegateShare = 0.5

// anchorDelegateMinTerms is how many of the rule's terms a helper's
// statements must hold: two functions that share one word of a rule
// the code hardly speaks of are no evidence of delegation.
const anchorDelegateMinTerms = 2

// callerWords are the words of a rule about a function's callers or
// its public face ("callers must …", "the public API"): such a rule is
// shown by the caller, never by the helper it delegates to.
var callerWords = map[string]bool{"caller": true, "callers": true, "public": true, "api": true, "exported": true}

// aboutCallers reports whether the rule speaks of callers or entry points.
func (rq *anchorQuery) aboutCallers() bool {
	for w := range rq.said {
		if callerWords[w] {
			return true
		}
	}
	return false
}

// anchorCall is a call read from code: the name called, and whether it
// is called through a qualifier (x.name(…), pkg.Name(…)).
type anchorCall struct {
	name      string
	qualified bool
}

// anchorCallNames returns the calls of code (name(…) or x.name(…)),
// each name once, in the order first called; a name called both ways
// counts as called unqualified.
func anchorCallNames(code string) []anchorCall {
	var out []anchorCall
	at := map[string]int{}
	for i := 0; i < len(code); i++ {
		if code[i] != '(' {
			continue
		}
		j := i
		for j > 0 && (code[j-1] == ' ' || code[j-1] == '\t') {
			j--
		}
		k := j
		for k > 0 && isIdentByte(code[k-1]) {
			k--
		}
		if k == j || code[k] >= '0' && code[k] <= '9' {
			continue
		}
		name, qualified := code[k:j], k > 0 && code[k-1] == '.'
		if n, ok := at[name]; ok {
			out[n].qualified = out[n].qualified && qualified
			continue
		}
		at[name] = len(out)
		out = append(out, anchorCall{name, qualified})
	}
	return out
}

// anchorBuiltinCalls are the built-in functions and conversions of Go
// and Python (and the common methods of their built-in types) that code
// calls everywhere: never a package's helper.
var anchorBuiltinCalls = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`append cap clear close complex copy delete imag len make max min new panic print println real recover
		bool byte rune string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr float32 float64 error any
		abs all bin callable chr dict dir divmod enumerate filter float format frozenset getattr hasattr hash hex id
		isinstance issubclass iter list map next object oct open ord pow range repr reversed round set setattr slice
		sorted str sum super tuple type vars zip get items keys values join split strip startswith endswith encode decode
		extend pop insert update lower upper replace find add remove discard
		if for while switch return func def elif except with not and or in is lambda`) {
		m[w] = true
	}
	return m
}()

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// anchorDelegation marks the helpers of the rule's best candidates:
// when one of the anchorDelegateTop best calls a definition of its own
// directory (its package or module's neighbours: the helpers a public
// function hands its work to) whose code holds at least
// anchorDelegateShare of the caller's (and anchorDelegateMinTerms of
// the rule's terms), the callee gets Callee and the
// caller Delegates, both the share (up to 1). A helper that is no candidate yet is
// made one by build (false when it cannot be: a test, a stub, another
// language). Calls are read from the callers' statements and resolved
// by name in one lookup, not through the graph's edges: resolving every
// call of a function is slow on a large index. Rules about callers are
// left alone.
func (a *Anchorer) anchorDelegation(ctx context.Context, rq *anchorQuery, out []anchorScored, syms []analysis.SymbolInfo, texts []string,
	build func(analysis.SymbolInfo) (anchorScored, bool, error)) ([]anchorScored, error) {
	if rq.aboutCallers() || len(out) == 0 {
		return out, nil
	}
	order := make([]int, len(out))
	scores := make([]float64, len(out))
	for i := range out {
		order[i] = i
		scores[i] = anchorScore(out[i].features)
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	top := order[:min(anchorDelegateTop, len(order))]
	calls := make([][]string, len(top))
	var names []string
	seen := map[string]bool{}
	for k, i := range top {
		goCode := NormalizeLanguage(syms[i].Language) == "go"
		for _, c := range anchorCallNames(anchorCodeOnly(texts[i], syms[i].Language)) {
			// A helper is the package's own: in Go a name called
			// unqualified or an unexported one (pkg.Name(…) and
			// x.Name(…) are mostly another package's). The languages'
			// built-ins are nobody's helper.
			n := c.name
			if anchorBuiltinCalls[n] || goCode && c.qualified && !(n[0] >= 'a' && n[0] <= 'z' || n[0] == '_') {
				continue
			}
			calls[k] = append(calls[k], n)
		}
		for _, n := range calls[k] {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return out, nil
	}
	defs, err := a.Searcher.Index.DefinitionsOfNames(ctx, names)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]int, len(out))
	for i, s := range syms {
		byID[s.ID] = i
	}
	for k, i := range top {
		dir := path.Dir(syms[i].Path)
		for _, n := range calls[k] {
			for _, d := range defs[n] {
				if d.ID == syms[i].ID || d.Kind == analysis.KindModule || path.Dir(d.Path) != dir {
					continue
				}
				j, ok := byID[d.ID]
				if !ok {
					sc, ok, err := build(d)
					if err != nil {
						return nil, err
					}
					if !ok {
						continue
					}
					out, syms = append(out, sc), append(syms, d)
					j = len(out) - 1
					byID[d.ID] = j
				}
				caller, callee := &out[i].features, &out[j].features
				if caller.Code == 0 || callee.codeTerms < anchorDelegateMinTerms {
					continue
				}
				if share := callee.Code / caller.Code; share >= anchorDelegateShare {
					share = math.Min(1, share)
					callee.Callee = math.Max(callee.Callee, share)
					caller.Delegates = math.Max(caller.Delegates, share)
				}
			}
		}
	}
	return out, nil
}

// anchorFileShares sets each candidate's File: the weighted share of
// the rule's known terms that the statements of its file's candidates
// hold together. A rule about the inside of a small package
// concentrates its terms in one file; the share is not scaled to the
// best file's, so that a rule the code hardly speaks of gets no file.
func (rq *anchorQuery) anchorFileShares(out []anchorScored) {
	byFile := map[string]map[string]bool{}
	for i := range out {
		u := byFile[out[i].File]
		if u == nil {
			u = map[string]bool{}
			byFile[out[i].File] = u
		}
		for s := range out[i].code {
			u[s] = true
		}
	}
	share := make(map[string]float64, len(byFile))
	for f, u := range byFile {
		share[f], _ = rq.codeShare("", u, false)
	}
	for i := range out {
		out[i].features.File = share[out[i].File]
	}
}
