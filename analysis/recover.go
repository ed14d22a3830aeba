package analysis

import (
	"bytes"
	"context"
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"
)

// Unfinished code must not hide the rest of a file. Tree-sitter recovers
// from a syntax error, but not in a way that keeps the rest of the file
// intact: an unclosed brace makes every definition after it part of the
// unfinished function's body. So a text with syntax errors is read in two
// parts. The damaged region — the smallest run of top-level units (lines
// starting at column 0 and the lines that follow them) whose removal leaves
// a text without errors — is cut out, the remaining text is parsed and
// queried as if the region were not there, and its positions are shifted
// back. The region itself is parsed on its own, so that the definition
// being typed appears as soon as its header parses.

// recovery is how a text with syntax errors was read.
type recovery struct {
	// cuts are the damaged regions, in the text's offsets, sorted and
	// disjoint.
	cuts []span
	// text is the text without the cuts, and tree its parse, which has no
	// errors.
	text []byte
	tree *sitter.Tree
}

// Limits of the search for the damaged region: how many units before the
// first damaged top-level node a region may start, how many units it may
// span, how many regions a text may have and how many parses a search may
// try in all.
const (
	recoverBack     = 2
	recoverWidth    = 3
	recoverMaxCuts  = 3
	recoverMaxTries = 12
)

// parseBase is a clean tree to parse trials incrementally from, with the
// text it is (after any edits applied to it) the parse of.
type parseBase struct {
	tree *sitter.Tree
	text []byte
}

// recoverText finds the damaged regions of text, whose parse tree has
// errors. Trial parses start from base when it is not nil (a tree of a
// text close to the trials'), otherwise afresh. It returns nil when no
// small set of regions accounts for the errors.
func (p *Parser) recoverText(ctx context.Context, lang *Language, text []byte, tree *sitter.Tree, base *parseBase) (*recovery, error) {
	parse := func(trial []byte) (*sitter.Tree, error) {
		var old *sitter.Tree
		if base != nil && base.tree != nil {
			old = base.tree.Copy()
			defer old.Close()
			editTo(old, base.text, trial)
		}
		return p.Parse(ctx, lang, trial, old)
	}
	var cuts []span
	current := tree // the parse of text without cuts; not ours to close when it is tree
	defer func() {
		if current != tree {
			current.Close()
		}
	}()
	tries := 0
	lastHint := -1
	for len(cuts) < recoverMaxCuts {
		hint, ok := firstDamage(current.RootNode())
		if !ok {
			break
		}
		at := toReal(cuts, int(hint), false)
		if at <= lastHint {
			return nil, nil
		}
		lastHint = at
		bounds := unitsAround(lang, text, at, cuts)
		var found bool
		for w := 1; w <= recoverWidth && !found; w++ {
			for back := 0; back <= recoverBack && !found; back++ {
				i, j := bounds.home-back, bounds.home-back+w
				if i < 0 || j >= len(bounds.starts) {
					continue
				}
				if tries == recoverMaxTries {
					return nil, nil
				}
				tries++
				cut := span{uint32(bounds.starts[i]), uint32(bounds.starts[j])}
				trialCuts := insertCut(cuts, cut)
				trial, err := parse(cutOut(text, trialCuts))
				if err != nil {
					return nil, err
				}
				root := trial.RootNode()
				if !root.HasError() {
					if current != tree {
						current.Close()
					}
					current = tree
					return &recovery{cuts: trialCuts, text: cutOut(text, trialCuts), tree: trial}, nil
				}
				// A cut that moves the first error past itself fixed one
				// region of several: keep it and look for the next.
				if next, ok := firstDamage(root); ok && toReal(trialCuts, int(next), false) >= int(cut.end) && toReal(trialCuts, int(next), false) > at {
					if current != tree {
						current.Close()
					}
					current, cuts, found = trial, trialCuts, true
					continue
				}
				trial.Close()
			}
		}
		if !found {
			return nil, nil
		}
	}
	return nil, nil
}

// firstDamage returns where the first top-level node with an error starts.
func firstDamage(root *sitter.Node) (uint32, bool) {
	if !root.HasError() {
		return 0, false
	}
	if root.IsError() && root.ChildCount() == 0 {
		return root.StartByte(), true
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	if c.GoToFirstChild() {
		for {
			n := c.CurrentNode()
			if n.IsError() || n.IsMissing() || n.HasError() {
				return n.StartByte(), true
			}
			if !c.GoToNextSibling() {
				break
			}
		}
	}
	return root.StartByte(), true
}

// units are the starts of the top-level units around an offset: starts
// holds a few unit starts before and after it, and the end of the region
// they may be cut from; home is the index of the unit holding the offset.
type units struct {
	starts []int
	home   int
}

// unitsAround lists the unit starts around offset at, staying between the
// cuts made already (a unit never spans one).
func unitsAround(lang *Language, text []byte, at int, cuts []span) units {
	lo, hi := 0, len(text)
	for _, c := range cuts {
		if int(c.end) <= at {
			lo = max(lo, int(c.end))
		} else if int(c.start) > at {
			hi = min(hi, int(c.start))
			break
		}
	}
	at = max(lo, min(at, hi))
	var before []int
	s := unitStart(lang, text, lo, at)
	before = append(before, s)
	for len(before) <= recoverBack && s > lo {
		s = unitStart(lang, text, lo, s-1)
		before = append(before, s)
	}
	var u units
	for i := len(before) - 1; i >= 0; i-- {
		u.starts = append(u.starts, before[i])
	}
	u.home = len(u.starts) - 1
	e := at
	for k := 0; k < recoverWidth && e < hi; k++ {
		e = nextUnit(lang, text, e, hi)
		u.starts = append(u.starts, e)
	}
	return u
}

// unitStart returns the start of the unit holding offset at: the last line
// at or before it, and not before lo, that starts a unit.
func unitStart(lang *Language, text []byte, lo, at int) int {
	ls := bytes.LastIndexByte(text[:at], '\n') + 1
	for ls > lo {
		if startsUnit(lang, text[ls:]) {
			return ls
		}
		ls = bytes.LastIndexByte(text[:ls-1], '\n') + 1
	}
	return lo
}

// nextUnit returns the start of the first unit after offset at, or hi.
func nextUnit(lang *Language, text []byte, at, hi int) int {
	for {
		i := bytes.IndexByte(text[at:hi], '\n')
		if i < 0 {
			return hi
		}
		at += i + 1
		if at >= hi {
			return hi
		}
		if startsUnit(lang, text[at:hi]) {
			return at
		}
	}
}

// startsUnit reports whether a line (text from its start) starts a
// top-level unit: it starts at column 0 with something other than a
// closing bracket or, in Python, a clause continuing a compound statement.
func startsUnit(lang *Language, line []byte) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case ' ', '\t', '\r', '\n', '\f', '}', ')', ']':
		return false
	}
	if lang.Name == "python" {
		for _, kw := range []string{"else", "elif", "except", "finally"} {
			if bytes.HasPrefix(line, []byte(kw)) && (len(line) == len(kw) || !isWordByte(line[len(kw)])) {
				return false
			}
		}
	}
	return true
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// insertCut returns cuts with c added, in order.
func insertCut(cuts []span, c span) []span {
	out := make([]span, 0, len(cuts)+1)
	added := false
	for _, x := range cuts {
		if !added && c.start < x.start {
			out = append(out, c)
			added = true
		}
		out = append(out, x)
	}
	if !added {
		out = append(out, c)
	}
	return out
}

// cutOut returns text without the cuts.
func cutOut(text []byte, cuts []span) []byte {
	n := len(text)
	for _, c := range cuts {
		n -= int(c.end - c.start)
	}
	out := make([]byte, 0, n)
	prev := uint32(0)
	for _, c := range cuts {
		out = append(out, text[prev:c.start]...)
		prev = c.end
	}
	return append(out, text[prev:]...)
}

// toReal maps an offset of the text without the cuts to the text with
// them. An offset where a cut was is placed after the cut when it starts
// something, before it when it ends something (end).
func toReal(cuts []span, off int, end bool) int {
	shift := 0
	for _, c := range cuts {
		at := int(c.start) - shift // the cut's place in the shorter text
		if off > at || off == at && !end {
			shift += int(c.end - c.start)
			continue
		}
		break
	}
	return off + shift
}

// toRealRaw moves what a query found in the text without the cuts to the
// text's offsets.
func toRealRaw(raw *rawGraph, cuts []span) {
	s := func(x uint32) uint32 { return uint32(toReal(cuts, int(x), false)) }
	e := func(x uint32) uint32 { return uint32(toReal(cuts, int(x), true)) }
	if raw.module != "" {
		raw.moduleAt = s(raw.moduleAt)
	}
	for i := range raw.defs {
		d := &raw.defs[i]
		d.start, d.end = s(d.start), max(s(d.start), e(d.end))
		d.nameStart, d.nameEnd = s(d.nameStart), max(s(d.nameStart), e(d.nameEnd))
	}
	for i := range raw.refs {
		r := &raw.refs[i]
		r.at = s(r.at)
		r.start, r.end = s(r.start), max(s(r.start), e(r.end))
	}
	for i := range raw.comments {
		c := &raw.comments[i]
		c.start, c.end = s(c.start), max(s(c.start), e(c.end))
	}
}

// queryCuts parses each damaged region on its own and adds what the query
// finds in it (the definition being typed, once its header parses) to raw,
// in the text's offsets. It returns how many errors the regions have, at
// least one each.
func (p *Parser) queryCuts(ctx context.Context, lang *Language, text []byte, cuts []span, raw *rawGraph) (int, error) {
	errors := 0
	for _, c := range cuts {
		part := text[c.start:c.end]
		tree, err := p.Parse(ctx, lang, part, nil)
		if err != nil {
			return 0, fmt.Errorf("parse damaged region: %w", err)
		}
		root := tree.RootNode()
		found := p.query(lang, part, root, nil)
		errors += max(1, countErrors(root))
		tree.Close()
		if raw.module != "" {
			found.module = "" // the rest of the file names the module
		}
		// What error recovery left open ends with the region's last
		// character, not with the blank lines after it.
		last := uint32(len(bytes.TrimRight(part, " \t\r\n")))
		for i := range found.defs {
			d := &found.defs[i]
			d.end = max(d.start, min(d.end, last))
		}
		raw.addShifted(&found, int64(c.start))
	}
	return errors, nil
}

// editTo records on tree, a parse of from, the edit that turns from into
// to: the span between their common prefix and common suffix.
func editTo(tree *sitter.Tree, from, to []byte) {
	n := min(len(from), len(to))
	pre := 0
	for pre < n && from[pre] == to[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && from[len(from)-1-suf] == to[len(to)-1-suf] {
		suf++
	}
	if pre == len(from) && pre == len(to) {
		return
	}
	oldEnd, newEnd := len(from)-suf, len(to)-suf
	tree.Edit(sitter.EditInput{
		StartIndex:  uint32(pre),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointOf(from, pre),
		OldEndPoint: pointOf(from, oldEnd),
		NewEndPoint: pointOf(to, newEnd),
	})
}

// pointOf returns tree-sitter's point (row, byte column) of an offset.
func pointOf(text []byte, off int) sitter.Point {
	row := bytes.Count(text[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(text[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}
