package keyword

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPatternLen is the longest pattern, in bytes, that Search accepts.
const MaxPatternLen = 1000

// nonIdent is the regexp class of the characters that are not identifier
// characters, the neighbours a whole-word match needs.
const nonIdent = `[^0-9A-Za-z_]`

// PatternError reports a pattern that cannot be searched for: empty, too
// long, not valid UTF-8, spanning lines, an invalid regular expression or
// one that matches the empty string.
type PatternError struct {
	// Pattern is the pattern as given.
	Pattern string
	// Reason says what is wrong, for people.
	Reason string
	// Err is the underlying error, such as a *syntax.Error, or nil.
	Err error
}

// Error returns the reason, naming the pattern.
func (e *PatternError) Error() string {
	if e.Pattern == "" {
		return e.Reason
	}
	p := e.Pattern
	if len(p) > 60 {
		p = strings.ToValidUTF8(p[:60], "") + "…"
	}
	return fmt.Sprintf("%s %q: %s", e.kind(), p, e.Reason)
}

// kind says what kind of problem e is, to start its message.
func (e *PatternError) kind() string {
	var se *syntax.Error
	if errors.As(e.Err, &se) {
		return "invalid regular expression"
	}
	return "cannot search for"
}

// Unwrap returns the underlying error.
func (e *PatternError) Unwrap() error { return e.Err }

// searcher is a compiled pattern. It is read-only once built and shared by
// the workers.
type searcher struct {
	// lit is the needle a finder looks for: the matches themselves when
	// direct, else a string every match contains (nil: none, the regexp runs
	// over the whole file). When fold, lit is in ASCII lower case and is
	// found up to ASCII case.
	lit    []byte
	fold   bool
	direct bool
	// litCR: lit ends in '\r', which must not be a line terminator's.
	litCR bool
	// wholeWord: a match must not touch an identifier character.
	wholeWord bool
	// re finds the matches within a run of whole lines (not direct). With
	// wholeWord, reWW finds them with their neighbour (group 1 is the
	// match) in text that starts one byte before the run, and reWW0 at the
	// start of the file.
	re, reWW, reWW0 *regexp.Regexp
}

// compile checks pattern and builds its searcher.
func compile(pattern string, opts Options) (*searcher, error) {
	bad := func(reason string, err error) error {
		return &PatternError{Pattern: pattern, Reason: reason, Err: err}
	}
	switch {
	case pattern == "":
		return nil, &PatternError{Reason: "empty pattern: give the text or regular expression to search for"}
	case len(pattern) > MaxPatternLen:
		return nil, &PatternError{Reason: fmt.Sprintf("pattern is %d bytes long, over the limit of %d", len(pattern), MaxPatternLen)}
	case !utf8.ValidString(pattern):
		return nil, bad("pattern is not valid UTF-8", nil)
	}
	var fold bool
	switch {
	case opts.IgnoreCase != nil:
		fold = *opts.IgnoreCase
	case opts.Regex:
		fold = !regexHasUpper(pattern)
	default:
		fold = strings.IndexFunc(pattern, unicode.IsUpper) < 0
	}
	s := &searcher{wholeWord: opts.WholeWord}
	// A line break typed into a pattern, literal or regex, is a mistake:
	// matches never span lines. (A regex's \n escape is refused later.)
	if strings.ContainsRune(pattern, '\n') {
		return nil, bad("pattern contains a line break, and matches cannot span lines", nil)
	}

	if !opts.Regex {
		s.litCR = strings.HasSuffix(pattern, "\r")
		if !fold {
			s.lit, s.direct = []byte(pattern), true
			return s, nil
		}
		its := items(pattern, true)
		if lit, f, ok := directLiteral(its); ok {
			s.lit, s.fold, s.direct = lit, f, true
			return s, nil
		}
		// A letter with a non-ASCII case form (k and the Kelvin sign, é
		// and É): a regexp decides, on the lines where the longest part
		// without one is found.
		s.lit, s.fold = prefilter(its)
		if err := s.compileRegexp("(?i:" + regexp.QuoteMeta(pattern) + ")"); err != nil {
			return nil, bad(err.Error(), err)
		}
		return s, nil
	}

	flags := syntax.Perl
	if fold {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		var reason string
		if se, ok := err.(*syntax.Error); ok {
			reason = string(se.Code)
			if se.Expr != "" && se.Expr != pattern {
				reason += fmt.Sprintf(" in %q", se.Expr)
			}
		} else {
			reason = err.Error()
		}
		return nil, bad(reason, err)
	}
	if err := lineLocal(tree); err != nil {
		return nil, bad(err.Error(), nil)
	}
	if nullable(tree) {
		return nil, bad("it can match the empty string (like a* or ^), which would match everywhere; make it match at least one character", nil)
	}
	info := analyze(tree.Simplify())
	if info.pure {
		if lit, f, ok := directLiteral(info.exact); ok {
			s.lit, s.fold, s.direct = lit, f, true
			s.litCR = len(lit) > 0 && lit[len(lit)-1] == '\r'
			return s, nil
		}
	}
	s.lit, s.fold = prefilter(info.best)
	if err := s.compileRegexp(tree.String()); err != nil {
		return nil, bad(err.Error(), err)
	}
	return s, nil
}

// compileRegexp compiles the line-local expression expr and, for whole
// words, its two wrappers.
func (s *searcher) compileRegexp(expr string) error {
	var err error
	if s.re, err = regexp.Compile(expr); err != nil {
		return fmt.Errorf("compile rewritten regular expression %q: %w", expr, err)
	}
	if !s.wholeWord {
		return nil
	}
	// The neighbour before is consumed (it may be the previous line's
	// '\n'); the one after is consumed too but never a '\n'.
	after := `(?:` + nonIdent[:len(nonIdent)-1] + `\n]|(?m:$))`
	if s.reWW, err = regexp.Compile(nonIdent + `(` + expr + `)` + after); err != nil {
		return fmt.Errorf("compile whole-word regular expression: %w", err)
	}
	if s.reWW0, err = regexp.Compile(`(?:\A|` + nonIdent + `)(` + expr + `)` + after); err != nil {
		return fmt.Errorf("compile whole-word regular expression: %w", err)
	}
	return nil
}

// regexHasUpper reports whether a regular expression has an upper-case
// letter of its own, for smart case: letters in escapes (\S, \W, \p{Lu},
// \x{4A}) and in group names do not count.
func regexHasUpper(p string) bool {
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == '\\' && i+w < len(p):
			i += w
			e, ew := utf8.DecodeRuneInString(p[i:])
			i += ew
			switch e {
			case 'p', 'P', 'x':
				if i < len(p) && p[i] == '{' {
					if j := strings.IndexByte(p[i:], '}'); j >= 0 {
						i += j + 1
					}
				} else if e == 'x' {
					i = min(i+2, len(p))
				} else {
					i = min(i+1, len(p))
				}
			case 'Q':
				end := strings.Index(p[i:], `\E`)
				if end < 0 {
					end = len(p) - i
				}
				if strings.IndexFunc(p[i:i+end], unicode.IsUpper) >= 0 {
					return true
				}
				i += end
			}
			continue
		case strings.HasPrefix(p[i:], "(?P<") || strings.HasPrefix(p[i:], "(?<"):
			if j := strings.IndexByte(p[i:], '>'); j >= 0 {
				i += j + 1
				continue
			}
		case unicode.IsUpper(r):
			return true
		}
		i += w
	}
	return false
}

// lineLocal rewrites tree so that no match can contain a line break and
// the text anchors (\A, \z, $ without m) become line anchors: run over
// several whole lines at once it then finds exactly what it finds line by
// line. A literal line break is an error.
func lineLocal(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fmt.Errorf("it contains a line break (\\n), and matches cannot span lines")
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		if err := lineLocal(sub); err != nil {
			return err
		}
	}
	return nil
}

// withoutNewline removes '\n' from the ranges of a character class.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// nullable reports whether re can match the empty string somewhere.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullable(sub) {
				return true
			}
		}
		return false
	}
	return false
}

// item is one character of a literal; fold: its case does not matter.
type item struct {
	r    rune
	fold bool
}

// items returns the characters of s; fold applies to those with case.
func items(s string, fold bool) []item {
	out := make([]item, 0, len(s))
	for _, r := range s {
		out = append(out, item{r, fold && unicode.SimpleFold(r) != r})
	}
	return out
}

// foldSafe reports whether every case form of r is ASCII, so that matching
// ASCII-lowered bytes finds exactly the case-insensitive matches of r.
// k and s are not: the Kelvin sign and the long s fold to them.
func foldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// directLiteral returns the needle whose occurrences are exactly the matches
// of its: its bytes, ASCII-lowered when its case does not matter. ok is
// false when a regexp must decide: a case-insensitive character that is not
// fold-safe, case that matters for some characters and not others, or
// U+FFFD (a regexp matches it against invalid UTF-8).
func directLiteral(its []item) (lit []byte, fold, ok bool) {
	folds, exacts := false, false
	for _, it := range its {
		switch {
		case it.r == utf8.RuneError:
			return nil, false, false
		case it.fold && !foldSafe(it.r):
			return nil, false, false
		case it.fold:
			folds = true
		case unicode.SimpleFold(it.r) != it.r:
			exacts = true
		}
	}
	if folds && exacts {
		return nil, false, false
	}
	for _, it := range its {
		lit = utf8.AppendRune(lit, it.r)
	}
	if folds {
		lowerASCII(lit, lit)
	}
	return lit, folds, true
}

// prefilter returns the longest needle that every match of its contains
// (nil if none), and whether it is ASCII-lowered and to be looked for in an
// ASCII-lowered copy of the text.
func prefilter(its []item) (lit []byte, fold bool) {
	best, bestFold := []byte(nil), false
	var seg []byte
	segFold := false
	flush := func() {
		if len(seg) > len(best) {
			best, bestFold = seg, segFold
		}
		seg, segFold = nil, false
	}
	for _, it := range its {
		if it.r == utf8.RuneError || it.fold && !foldSafe(it.r) {
			flush()
			continue
		}
		seg = utf8.AppendRune(seg, it.r)
		segFold = segFold || it.fold
	}
	flush()
	if bestFold {
		lowerASCII(best, best)
	}
	return best, bestFold
}

// litInfo is what analyze knows of an expression.
type litInfo struct {
	// exact, when isExact, is the only text the expression matches; pure:
	// it also has no assertions (^, $, \b).
	exact   []item
	isExact bool
	pure    bool
	// best is a literal that every match contains.
	best []item
}

// analyze finds the literals in a (simplified) expression.
func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		its := make([]item, len(re.Rune))
		for i, r := range re.Rune {
			its[i] = item{r, re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r}
		}
		return litInfo{exact: its, isExact: true, pure: true, best: its}
	case syntax.OpCharClass:
		if len(re.Rune) == 2 && re.Rune[0] == re.Rune[1] {
			its := []item{{re.Rune[0], false}}
			return litInfo{exact: its, isExact: true, pure: true, best: its}
		}
	case syntax.OpEmptyMatch:
		return litInfo{isExact: true, pure: true}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{isExact: true}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		sub := analyze(re.Sub[0])
		return litInfo{best: sub.best}
	case syntax.OpRepeat:
		sub := analyze(re.Sub[0])
		if re.Min == 1 && re.Max == 1 {
			return sub
		}
		if re.Min >= 1 {
			return litInfo{best: sub.best}
		}
	case syntax.OpConcat:
		out := litInfo{isExact: true, pure: true}
		var run []item
		for _, sub := range re.Sub {
			si := analyze(sub)
			if si.isExact {
				run = append(run, si.exact...)
				out.pure = out.pure && si.pure
				continue
			}
			out.isExact, out.pure = false, false
			out.best = longer(longer(out.best, run), si.best)
			run = nil
		}
		if out.isExact {
			out.exact = run
		}
		out.best = longer(out.best, run)
		return out
	}
	return litInfo{}
}

// longer returns whichever of a and b gives the longer prefilter.
func longer(a, b []item) []item {
	la, _ := prefilter(a)
	lb, _ := prefilter(b)
	if len(lb) > len(la) {
		return b
	}
	return a
}

// lowerASCII writes src to dst with A-Z in lower case; dst and src may be
// the same slice, and dst must be at least as long as src.
func lowerASCII(dst, src []byte) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		// For each byte b < 0x80: bit 7 of b+(0x80-'A') is set iff b >= 'A',
		// and of b+(0x80-'Z'-1) iff b > 'Z'; bytes >= 0x80 are left alone.
		low := w &^ high
		upper := (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones) &^ w & high
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}
