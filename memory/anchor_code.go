package memory

import (
	"context"
	"math"
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
	var b strings.Builder
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
				return b.String()
			}
			i += 3 + end + 3
			continue
		case py && (strings.HasPrefix(text[i:], `"""`) || strings.HasPrefix(text[i:], `'''`)):
			end := strings.Index(text[i+3:], text[i:i+3])
			if end < 0 {
				b.WriteString(text[i:])
				return b.String()
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
				return b.String()
			}
			i += end
			continue
		case !hash && strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
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
	return b.String()
}

// codeShare is the weighted share of the rule's known terms that code
// (the stems of a symbol's statements, see anchorCodeOnly) or the
// symbol's own name holds: what the code does, not what its comments
// list.
func (rq *anchorQuery) codeShare(name string, code map[string]bool, prefix bool) float64 {
	own := anchorStems(name)
	var total, got float64
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
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// anchorDelegateTop is how many of a rule's best candidates have their
// callees looked up: the public entry points that may hand the rule's
// work to a helper.
const anchorDelegateTop = 6

// anchorDelegateShare is the least share of a caller's code evidence a
// callee must hold to count as the helper that does the caller's work.
const anchorDelegateShare = 0.5

// callerWords are the words of a rule about a function's callers or
// its entry point ("callers must …", "the public API"): such a rule is
// shown by the caller, never by the helper it delegates to.
var callerWords = map[string]bool{"caller": true, "callers": true, "public": true, "api": true, "entry": true, "exported": true}

// aboutCallers reports whether the rule speaks of callers or entry points.
func (rq *anchorQuery) aboutCallers() bool {
	for w := range rq.said {
		if callerWords[w] {
			return true
		}
	}
	return false
}

// anchorDelegation marks the helpers of the rule's best candidates:
// when one of the anchorDelegateTop best calls another candidate (or a
// definition that build makes one) whose code holds at least
// anchorDelegateShare of the caller's evidence for the rule, the callee
// gets Callee, the caller Delegates, both the share (up to 1). build
// turns a callee that is no candidate yet into one (false when it
// cannot be: a test, a stub, another language). Rules about callers
// are left alone.
func (a *Anchorer) anchorDelegation(ctx context.Context, rq *anchorQuery, out []anchorScored, syms []analysis.SymbolInfo,
	build func(analysis.SymbolInfo) (anchorScored, bool, error)) ([]anchorScored, []analysis.SymbolInfo, error) {
	if rq.aboutCallers() || len(out) == 0 {
		return out, syms, nil
	}
	order := make([]int, len(out))
	scores := make([]float64, len(out))
	for i := range out {
		order[i] = i
		scores[i] = anchorScore(out[i].features)
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	byID := make(map[int64]int, len(out))
	for i, s := range syms {
		byID[s.ID] = i
	}
	for _, i := range order[:min(anchorDelegateTop, len(order))] {
		calls, err := a.Searcher.Index.Callees(ctx, syms[i])
		if err != nil {
			return nil, nil, err
		}
		seen := map[int64]bool{}
		for _, call := range calls {
			d := call.Callee
			if d == nil || d.ID == syms[i].ID || seen[d.ID] || d.Kind == analysis.KindModule {
				continue
			}
			seen[d.ID] = true
			j, ok := byID[d.ID]
			if !ok {
				sc, ok, err := build(*d)
				if err != nil {
					return nil, nil, err
				}
				if !ok {
					continue
				}
				out, syms = append(out, sc), append(syms, *d)
				j = len(out) - 1
				byID[d.ID] = j
			}
			caller, callee := &out[i].features, &out[j].features
			if caller.Code <= 0 {
				continue
			}
			share := callee.Code / caller.Code
			if share < anchorDelegateShare {
				continue
			}
			share = math.Min(1, share)
			callee.Callee = math.Max(callee.Callee, share)
			caller.Delegates = math.Max(caller.Delegates, share)
		}
	}
	return out, syms, nil
}

// anchorFileShares sets each candidate's File: the weighted share of
// the rule's known terms that the code of its file's candidates holds
// together, over the best such share of any file. A rule about the
// inside of a small package concentrates its terms in one file.
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
	best := 0.0
	for f, u := range byFile {
		share[f] = rq.codeShare("", u, false)
		best = math.Max(best, share[f])
	}
	if best == 0 {
		return
	}
	for i := range out {
		out[i].features.File = share[out[i].File] / best
	}
}
