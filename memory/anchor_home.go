package memory

import (
	"context"
	"fmt"
	"hash/fnv"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
)

// allSoft reports whether every term of the rule is a generic word: then
// they all count as key terms.
func (rq *anchorQuery) allSoft() bool {
	for _, t := range rq.terms {
		if !t.soft {
			return false
		}
	}
	return true
}

// keyTerms is how many of the rule's terms say what it is about (the
// generic words of rules left out, unless there are only those).
func (rq *anchorQuery) keyTerms() int {
	n, all := 0, rq.allSoft()
	for _, t := range rq.terms {
		if !t.soft || all {
			n++
		}
	}
	return n
}

// knownTerms is how many of the key terms the workspace's code uses.
func (rq *anchorQuery) knownTerms() int {
	n, all := 0, rq.allSoft()
	for _, t := range rq.terms {
		if (!t.soft || all) && t.known {
			n++
		}
	}
	return n
}

// unknownList names the key terms the workspace's code does not use, for
// a reason: "not used: kafka, backoff".
func (rq *anchorQuery) unknownList() string {
	var out []string
	all := rq.allSoft()
	for _, t := range rq.terms {
		if (!t.soft || all) && !t.known {
			out = append(out, t.word)
		}
	}
	if len(out) > 6 {
		out = append(out[:6], "…")
	}
	return "not used: " + strings.Join(out, ", ")
}

// anchorSpellTerms caps the rule's terms whose runs are looked up as
// names.
const anchorSpellTerms = 10

// anchorRareNameLen is the shortest rule word, not a common English
// word, looked up as a name on its own.
const anchorRareNameLen = 6

// anchorSpelled are the names (lower-case, without underscores) that
// spell two or three consecutive words of a rule.
type anchorSpelled struct{ names map[string]bool }

// of returns 1 when sym's name spells the rule, else 0.
func (sp *anchorSpelled) of(sym analysis.SymbolInfo) float64 {
	if sp == nil || !sp.names[strings.ReplaceAll(strings.ToLower(sym.Name), "_", "")] {
		return 0
	}
	return 1
}

// addSpelled adds to the pool the definitions whose names spell runs of
// the rule's words, in order or the pair reversed, as written or stemmed
// ("check the header" → checkHeader, check_header, headerCheck): names
// that spell the rule are where a reader looks first.
func (a *Anchorer) addSpelled(ctx context.Context, rq *anchorQuery, pool *anchorPool) (*anchorSpelled, error) {
	sp := &anchorSpelled{names: map[string]bool{}}
	terms := rq.terms
	if len(terms) > anchorSpellTerms {
		terms = terms[:anchorSpellTerms]
	}
	forms := func(t anchorTerm) []string {
		if t.stem != t.word && len(t.stem) >= 3 {
			return []string{t.word, t.stem}
		}
		return []string{t.word}
	}
	var runs [][]string
	for _, t := range terms {
		// A word no English dictionary has is a name on its own
		// (failfast, readuntil).
		if t.rare && t.known && !t.keyword && utf8.RuneCountInString(t.word) >= anchorRareNameLen {
			runs = append(runs, []string{t.word})
		}
	}
	for i := 0; i+1 < len(terms); i++ {
		for _, x := range forms(terms[i]) {
			for _, y := range forms(terms[i+1]) {
				runs = append(runs, []string{x, y}, []string{y, x})
				if i+2 < len(terms) {
					for _, z := range forms(terms[i+2]) {
						runs = append(runs, []string{x, y, z})
					}
				}
			}
		}
	}
	ix := a.Searcher.Index
	var names []string
	for _, run := range runs {
		joined := strings.Join(run, "")
		if sp.names[joined] {
			continue
		}
		sp.names[joined] = true
		names = append(names, joined, strings.Join(run, "_"))
	}
	if len(names) == 0 {
		return sp, nil
	}
	// One query says which of the names the workspace defines.
	found, err := ix.DefinedNames(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("names spelling the rule: %w", err)
	}
	for _, name := range found {
		defs, err := ix.Lookup(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("names spelling the rule: %w", err)
		}
		defs = anchorPreferShipped(defs, rq.aboutTests)
		if len(defs) > anchorIdentDefs {
			continue
		}
		for _, d := range defs {
			if d.Kind != analysis.KindModule {
				pool.add(d)
			}
		}
	}
	return sp, nil
}

// anchorHome is where a rule's corrections were made: the symbols they
// were about, their files and directories, and the symbols that call
// those or that they call.
type anchorHome struct {
	syms, near  map[int64]bool
	files, dirs map[string]bool
}

// Home closeness: the symbol a correction was about, its file, its
// neighbours in the graph, its directory (package).
const (
	anchorHomeSymbol    = 1.0
	anchorHomeFile      = 0.8
	anchorHomeNeighbour = 0.6
	anchorHomePackage   = 0.4
	// anchorHomeFileSymbols caps the symbols of one correction's file
	// that become candidates.
	anchorHomeFileSymbols = 300
	// anchorHomeNeighbours caps the callers and the callees of a
	// correction's symbol that become candidates.
	anchorHomeNeighbours = 12
)

// of returns how close sym is to the rule's corrections, from 0 to 1.
func (h *anchorHome) of(sym analysis.SymbolInfo) float64 {
	switch {
	case h == nil:
		return 0
	case h.syms[sym.ID]:
		return anchorHomeSymbol
	case h.files[sym.Path]:
		return anchorHomeFile
	case h.near[sym.ID]:
		return anchorHomeNeighbour
	case h.dirs[path.Dir(sym.Path)]:
		return anchorHomePackage
	}
	return 0
}

// label names how sym relates to the rule's corrections (see
// AnchorCandidate.Home).
func (h *anchorHome) label(sym analysis.SymbolInfo) string {
	switch h.of(sym) {
	case anchorHomeSymbol:
		return "symbol"
	case anchorHomeFile:
		return "file"
	case anchorHomeNeighbour:
		return "neighbour"
	case anchorHomePackage:
		return "package"
	}
	return ""
}

// addHome adds to the pool the symbols of the files the rule's
// corrections were made in, and the callers and callees of the symbols
// they were about. Files that are gone or not indexed add nothing.
func (a *Anchorer) addHome(ctx context.Context, origins []AnchorOrigin, pool *anchorPool) (*anchorHome, error) {
	if len(origins) == 0 {
		return nil, nil
	}
	ix := a.Searcher.Index
	h := &anchorHome{syms: map[int64]bool{}, near: map[int64]bool{}, files: map[string]bool{}, dirs: map[string]bool{}}
	for _, o := range origins {
		file := path.Clean(filepath.ToSlash(strings.TrimSpace(o.File)))
		if file == "." || !filepath.IsLocal(filepath.FromSlash(file)) {
			continue
		}
		syms, err := ix.SymbolsInFile(ctx, file)
		if err != nil {
			return nil, fmt.Errorf("symbols of %s: %w", file, err)
		}
		if len(syms) == 0 {
			continue
		}
		if !h.files[file] {
			h.files[file], h.dirs[path.Dir(file)] = true, true
			n := 0
			for _, sym := range syms {
				if sym.Kind != analysis.KindModule && n < anchorHomeFileSymbols {
					pool.add(sym)
					n++
				}
			}
		}
		if o.Line <= 0 {
			continue
		}
		centre, ok, err := ix.EnclosingSymbol(ctx, file, o.Line-1)
		if err != nil || !ok {
			return h, err
		}
		h.syms[centre.ID] = true
		callers, err := ix.Callers(ctx, centre)
		if err != nil {
			return nil, fmt.Errorf("callers of %s: %w", centre.QualifiedName, err)
		}
		callees, err := ix.Callees(ctx, centre)
		if err != nil {
			return nil, fmt.Errorf("callees of %s: %w", centre.QualifiedName, err)
		}
		n := 0
		for _, c := range callers {
			if c.Caller.Kind != analysis.KindModule && n < anchorHomeNeighbours && !h.near[c.Caller.ID] {
				h.near[c.Caller.ID] = true
				pool.add(c.Caller)
				n++
			}
		}
		n = 0
		for _, c := range callees {
			if c.Callee != nil && c.Callee.Kind != analysis.KindModule && n < anchorHomeNeighbours && !h.near[c.Callee.ID] {
				h.near[c.Callee.ID] = true
				pool.add(*c.Callee)
				n++
			}
		}
	}
	return h, nil
}

// relevantSpan returns the span of lines (0-based offsets, inclusive) of a
// long symbol that shows the rule: the window of at most max lines that
// holds the most of the rule's weight, cut to its first and last matching
// lines with a line of context either side. Without a match it is the
// symbol's first max lines.
func (rq *anchorQuery) relevantSpan(lines []string, max int) (int, int) {
	n := len(lines)
	if n <= max {
		return 0, n - 1
	}
	// hits[i] are the terms line i holds.
	hits := make([][]int, n)
	for i, l := range lines {
		lower := strings.ToLower(l)
		stems := anchorStems(l)
		for k, t := range rq.terms {
			if !t.known {
				continue
			}
			found := false
			for _, f := range t.forms {
				if stems[f] {
					found = true
					break
				}
			}
			for _, lit := range t.literals {
				found = found || strings.Contains(lower, lit)
			}
			if found {
				hits[i] = append(hits[i], k)
			}
		}
	}
	count := make([]int, len(rq.terms))
	covered := 0.0
	add := func(i, d int) {
		for _, k := range hits[i] {
			if d > 0 && count[k] == 0 {
				covered += rq.terms[k].weight
			}
			count[k] += d
			if d < 0 && count[k] == 0 {
				covered -= rq.terms[k].weight
			}
		}
	}
	bestFrom, best := 0, -1.0
	for i := 0; i < n; i++ {
		add(i, 1)
		if i >= max {
			add(i-max, -1)
		}
		if from := i - max + 1; from >= 0 && covered > best+1e-9 {
			bestFrom, best = from, covered
		}
	}
	if best <= 0 {
		return 0, max - 1
	}
	from, to := bestFrom, bestFrom+max-1
	for from < to && len(hits[from]) == 0 {
		from++
	}
	for to > from && len(hits[to]) == 0 {
		to--
	}
	if to-from+1 < max {
		from = max0(from - 1)
	}
	if to-from+1 < max {
		to = min(to+1, n-1)
	}
	return from, to
}

func max0(x int) int {
	if x < 0 {
		return 0
	}
	return x
}

// anchorFingerprint identifies a symbol's code without its name: the
// FNV-1a hash (8 hex digits) of its words and punctuation, spaces left
// out, with the name left out where it stands alone (the declaration, a
// doc comment, an unqualified recursive call) but kept where it is
// qualified (sql.Open in a function Open). A renamed symbol, or one
// moved to another file, keeps it.
func anchorFingerprint(name, text string) string {
	if name == "" || strings.TrimSpace(text) == "" {
		return ""
	}
	isWord := func(r byte) bool {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
	}
	h := fnv.New32a()
	var prev byte // the last byte written that is not a space
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case isWord(c):
			j := i
			for j < len(text) && isWord(text[j]) {
				j++
			}
			if w := text[i:j]; w != name || prev == '.' {
				if prev != 0 && isWord(prev) {
					h.Write([]byte{' '})
				}
				h.Write([]byte(w))
				prev = w[len(w)-1]
			}
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			h.Write([]byte{c})
			prev = c
			i++
		}
	}
	return fmt.Sprintf("%08x", h.Sum32())
}

// ExcerptLines returns the span of lines (0-based, inclusive) of a long
// example that shows rule: the window of at most max lines holding the
// most of the rule's terms (identifier-split, stemmed, with code
// abbreviations), cut to its first and last matching lines with a line of
// context either side; the first max lines when no line matches. It needs
// no index: every term counts alike.
func ExcerptLines(rule string, lines []string, max int) (int, int) {
	if max < 1 {
		max = 1
	}
	if len(lines) <= max {
		return 0, len(lines) - 1
	}
	rq := analyzeAnchorRule(rule)
	for i := range rq.terms {
		rq.terms[i].known = true
		rq.terms[i].weight = 1
		if rq.terms[i].soft {
			rq.terms[i].weight = anchorSoftShare
		}
	}
	return rq.relevantSpan(lines, max)
}
