package analysis

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

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
	// recoverSwallowers is how many units that swallowed the units after
	// them a narrowing tries.
	recoverSwallowers = 3
)

// parseBase is a clean tree to parse trials incrementally from, with the
// text it is (after any edits applied to it) the parse of.
type parseBase struct {
	tree *sitter.Tree
	text []byte
	// edited says tree carries edits it was not parsed with yet.
	edited bool
	// keptTree, when not nil, is the parse without errors of keptText,
	// carrying no edits: a trial of exactly that text is a copy of it, as
	// a trial of tree's own text is. An open document keeps the parse of
	// its text without the definition being typed for the next time
	// the typing damages the text again.
	keptTree *sitter.Tree
	keptText []byte
	// copies counts the trials answered by a copy of keptTree.
	copies int
}

// recoverText finds the damaged regions of text, whose parse tree has
// errors. Trial parses start from base when it is not nil (a tree of a
// text close to the trials'), otherwise afresh; edited, when not -1, is
// where an editor last changed the text. It returns nil when no small set
// of regions accounts for the errors.
//
// A region is a run of units around the first damaged top-level node; it
// qualifies when it has errors of its own (parsed alone), so that good
// code is never cut instead of the unfinished code that swallowed it, and
// when the text without it has no errors — or its first error only after
// the region, when the text has several damaged regions. A region found
// is then narrowed to the units one indentation level deeper (a method of
// a class, a statement of a body) as long as one of them qualifies.
func (p *Parser) recoverText(ctx context.Context, lang *Language, text []byte, tree *sitter.Tree, base *parseBase, edited int) (*recovery, error) {
	s := &recoverSearch{p: p, ctx: ctx, lang: lang, text: text, full: tree, base: base, maxTries: recoverMaxTries}
	if edited < 0 {
		// Without an editor's hint (a file on disk), the search may try
		// more regions: the indexer is not on the keystroke path.
		s.maxTries = 4 * recoverMaxTries
	}
	defer s.close()
	s.current = tree
	s.own = false
	lastHint := -1
	for len(s.cuts) < recoverMaxCuts {
		root := s.current.RootNode()
		hint, ok := firstDamage(root, cutOut(s.text, s.cuts))
		if !ok {
			// The text without the cuts has no errors: narrow each cut.
			for i := range s.cuts {
				if err := s.narrow(i); err != nil {
					return nil, err
				}
			}
			rec := &recovery{cuts: s.cuts, text: cutOut(text, s.cuts), tree: s.current}
			s.own = false // handed over
			return rec, nil
		}
		at := toReal(s.cuts, int(hint), false)
		if at <= lastHint {
			return nil, nil
		}
		lastHint = at
		// Where the text was edited last is where the damage most likely
		// is (error recovery may notice it much later): it is looked at
		// first.
		hints := []int{at}
		if edited >= 0 && len(s.cuts) == 0 && unitStart(lang, text, 0, min(edited, len(text)), 0) != unitStart(lang, text, 0, at, 0) {
			hints = []int{edited, at}
		}
		if edited < 0 {
			// Without an editor's hint, also where the first error node
			// is, and the last unit (unfinished code at the end).
			if e, ok := firstError(root, 0); ok {
				hints = append(hints, toReal(s.cuts, int(e), false))
			}
			if len(text) > 0 {
				hints = append(hints, unitStart(lang, text, 0, len(text)-1, 0))
			}
		}
		found := false
		for _, h := range hints {
			bounds := unitsAround(lang, text, h, s.cuts, 0)
			for w := 1; w <= recoverWidth && !found; w++ {
				for back := 0; back <= recoverBack && !found; back++ {
					i, j := bounds.home-back, bounds.home-back+w
					if i < 0 || j >= len(bounds.starts) {
						continue
					}
					cut := span{uint32(bounds.starts[i]), uint32(bounds.starts[j])}
					ok, err := s.try(insertCut(s.cuts, cut), at)
					if err != nil || s.tries > s.maxTries {
						return nil, err
					}
					found = ok
				}
			}
			if found {
				break
			}
		}
		if !found {
			return nil, nil
		}
	}
	return nil, nil
}

// recoverSearch is the state of recoverText's search.
type recoverSearch struct {
	p    *Parser
	ctx  context.Context
	lang *Language
	text []byte
	// full is the parse of text, with its errors; the caller's.
	full *sitter.Tree
	base *parseBase

	cuts    []span
	current *sitter.Tree // the parse of text without cuts
	own     bool         // current is the search's to close
	tries   int
	// maxTries bounds the trial parses.
	maxTries int
}

func (s *recoverSearch) close() {
	if s.own {
		s.current.Close()
	}
}

// parse parses text without cuts.
func (s *recoverSearch) parse(cuts []span) (*sitter.Tree, error) {
	trial := cutOut(s.text, cuts)
	if s.base != nil && s.base.keptTree != nil && bytes.Equal(trial, s.base.keptText) {
		s.base.copies++
		return s.base.keptTree.Copy(), nil
	}
	var old *sitter.Tree
	if s.base != nil && s.base.tree != nil {
		if bytes.Equal(trial, s.base.text) && !s.base.edited {
			// Typing inside the damaged region leaves the rest as it was.
			return s.base.tree.Copy(), nil
		}
		old = s.base.tree.Copy()
		defer old.Close()
		editTo(old, s.base.text, trial)
	}
	return s.p.Parse(s.ctx, s.lang, trial, old)
}

// damaged reports whether a region has errors of its own.
func (s *recoverSearch) damaged(r span) (bool, error) {
	tree, err := s.p.Parse(s.ctx, s.lang, s.text[r.start:r.end], nil)
	if err != nil {
		return false, err
	}
	defer tree.Close()
	return tree.RootNode().HasError(), nil
}

// try parses the text without cuts, one of them new. It keeps the cuts
// when the text has no errors, or when its first error is after the new
// cut and after the error it was to fix (at).
func (s *recoverSearch) try(cuts []span, at int) (bool, error) {
	var cut span
	for _, c := range cuts {
		if !slices.Contains(s.cuts, c) {
			cut = c
		}
	}
	if bad, err := s.damaged(cut); err != nil || !bad {
		return false, err
	}
	s.tries++
	trial, err := s.parse(cuts)
	if err != nil {
		return false, err
	}
	root := trial.RootNode()
	keep := !root.HasError()
	if !keep {
		next, _ := firstDamage(root, cutOut(s.text, cuts))
		real := toReal(cuts, int(next), false)
		keep = real >= int(cut.end) && real > at && s.removesFirstError(root, cuts)
	}
	if !keep {
		trial.Close()
		return false, nil
	}
	s.close()
	s.current, s.own, s.cuts = trial, true, cuts
	return true, nil
}

// removesFirstError reports whether the first ERROR or MISSING node of
// a trial, the parse of the text without cuts, comes after the first one
// of the text without the cuts kept so far. A cut that takes away only
// the head of the damaged node (an annotation above a class left open
// further down) moves where the damaged node starts, not its error: it
// fixes nothing.
func (s *recoverSearch) removesFirstError(trial *sitter.Node, cuts []span) bool {
	was, ok := firstError(s.current.RootNode(), 0)
	if !ok {
		return true
	}
	now, ok := firstError(trial, 0)
	if !ok {
		return true
	}
	return toReal(cuts, int(now), false) > toReal(s.cuts, int(was), false)
}

// narrow replaces cut i, while the text without the cuts has no errors,
// by a smaller region of units one indentation level deeper, as long as
// one qualifies.
func (s *recoverSearch) narrow(i int) error {
	for s.tries < s.maxTries {
		c := s.cuts[i]
		level, ok := innerLevel(s.text[c.start:c.end])
		if !ok {
			return nil
		}
		// Where the region's own parse has its first damage or error past
		// its first line (cutting the first line alone cuts the region's
		// head off its body).
		region := s.text[c.start:c.end]
		tree, err := s.p.Parse(s.ctx, s.lang, region, nil)
		if err != nil {
			return err
		}
		head := regionHead(tree.RootNode(), region)
		var hints []uint32
		add := func(at uint32) {
			if !slices.Contains(hints, at) {
				hints = append(hints, at)
			}
		}
		if at, ok := damageIn(tree.RootNode(), region, head); ok {
			add(at)
		}
		if at, ok := firstError(tree.RootNode(), head); ok {
			add(at)
		}
		// Units that swallowed the units after them, in the parse of the
		// whole text (the region's context) or else in the region's own,
		// are tried alone: each is a unit left unfinished, or a false
		// alarm (a statement continued on lines as indented as it).
		wide := len(hints)
		if at := swallowers(s.lang, s.full.RootNode(), s.text, int(c.start+head), int(c.end), level); len(at) > 0 {
			for _, a := range at {
				add(a - c.start)
			}
		} else {
			for _, a := range swallowers(s.lang, tree.RootNode(), region, int(head), len(region), level) {
				add(a)
			}
		}
		// A hint on a line less indented than the level (a clause that
		// continues the container, such as except: or } else {) is no
		// unit of its own to cut: the unit after it is tried alone too.
		// The units around each hint are listed once, here or below.
		around := make([]units, len(hints))
		for h := range around {
			bounds, lvl := s.unitsIn(c, hints[h], level)
			around[h] = bounds
			home := bounds.starts[bounds.home]
			if indentOf(s.text[home:c.end]) < lvl && bounds.home+1 < len(bounds.starts)-1 {
				add(uint32(bounds.starts[bounds.home+1]) - c.start)
			}
		}
		tree.Close()
		others := slices.Delete(slices.Clone(s.cuts), i, i+1)
		found := false
		for h, at := range hints {
			var bounds units
			if h < len(around) {
				bounds = around[h]
			} else {
				bounds, _ = s.unitsIn(c, at, level)
			}
			width := recoverWidth
			if h >= wide {
				width = 1
			}
			for w := 1; w <= width && !found; w++ {
				for back := 0; back <= recoverBack && !found; back++ {
					a, b := bounds.home-back, bounds.home-back+w
					if a < 0 || b >= len(bounds.starts) {
						continue
					}
					sub := span{uint32(bounds.starts[a]), uint32(bounds.starts[b])}
					// The region's head stays: narrowing keeps the
					// container and cuts a part of its body.
					if sub.start == c.start || s.tries >= s.maxTries {
						continue
					}
					bad, err := s.damaged(sub)
					if err != nil {
						return err
					}
					if !bad {
						continue
					}
					s.tries++
					cuts := insertCut(others, sub)
					trial, err := s.parse(cuts)
					if err != nil {
						return err
					}
					if trial.RootNode().HasError() {
						trial.Close()
						continue
					}
					// A unit damaged only on its own (an annotation above
					// the unfinished line) stays with what follows it
					// when the cut without it qualifies too.
					for k := a + 1; k < b && s.tries < s.maxTries; k++ {
						tail := span{uint32(bounds.starts[k]), sub.end}
						if bad, err := s.damaged(tail); err != nil {
							trial.Close()
							return err
						} else if !bad {
							continue
						}
						s.tries++
						shorter, err := s.parse(insertCut(others, tail))
						if err != nil {
							trial.Close()
							return err
						}
						if shorter.RootNode().HasError() {
							shorter.Close()
							continue
						}
						trial.Close()
						trial, sub, cuts = shorter, tail, insertCut(others, tail)
						break
					}
					s.close()
					s.current, s.own, s.cuts = trial, true, cuts
					i = slices.Index(cuts, sub)
					found = true
				}
			}
			if found {
				break
			}
		}
		if !found {
			return nil
		}
	}
	return nil
}

// regionHead returns where the body of a region parsed as root starts:
// after its first line, or after the line where the brackets its first
// line leaves open close (a parameter list over several lines, one to a
// line, is part of the head, no unit of the body to cut).
func regionHead(root *sitter.Node, region []byte) uint32 {
	first := uint32(bytes.IndexByte(region, '\n') + 1)
	if first == 0 {
		return 0
	}
	head := first
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	depth := 0
	for {
		n := c.CurrentNode()
		if n.StartByte() >= head && depth == 0 {
			return head
		}
		if c.GoToFirstChild() {
			continue
		}
		if !n.IsNamed() && !n.IsMissing() {
			switch n.Type() {
			case "(", "[":
				depth++
			case ")", "]":
				if depth--; depth == 0 && n.StartByte() >= head {
					head = uint32(len(region))
					if i := bytes.IndexByte(region[n.EndByte():], '\n'); i >= 0 {
						head = n.EndByte() + uint32(i) + 1
					}
				}
			}
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				// The brackets never close: the head is the first line.
				return first
			}
		}
	}
}

// unitsIn lists the units of region c at an indentation level around
// offset at (relative to c), and returns them with their level. Where
// indentation is no syntax, a body may indent some of its members less
// than the others (a class whose last methods are indented by two blanks,
// the rest by four): at the level of the least indented ones, the others
// all belong to the region's head, which is never cut on its own. A hint
// in the head is then placed among the units at the next deeper level
// found in the head.
func (s *recoverSearch) unitsIn(c span, at uint32, level int) (units, int) {
	bounds := unitsAround(s.lang, s.text[:c.end], int(at+c.start), []span{{0, c.start}}, level)
	if s.lang.Name == "python" || bounds.starts[bounds.home] != int(c.start) || bounds.home+1 >= len(bounds.starts) {
		return bounds, level
	}
	head := s.text[c.start:bounds.starts[bounds.home+1]]
	deeper, ok := levelAfter(head, level)
	if !ok {
		return bounds, level
	}
	return unitsAround(s.lang, s.text[:c.end], int(at+c.start), []span{{0, c.start}}, deeper), deeper
}

// swallowers finds, between offsets from and hi of a text parsed as root,
// the first few lines starting a unit at its indentation, level or deeper,
// whose syntax node reaches past the start of the unit after the next at
// that indentation or less. A definition, bracket or string left open
// takes in the units after it, nested in it as valid code (a Java class
// or a Rust function inside a body, a template string), and error
// recovery reports the damage only where the text ends, far from where
// it is. It returns the start of the unit after each: the search looks
// back from its hint, and so tries that unit alone first (the unfinished
// head of a definition may be the second of two units, an annotation
// above it), then the unit that swallowed the rest alone.
func swallowers(lang *Language, root *sitter.Node, text []byte, from, hi, level int) []uint32 {
	var found []uint32
	row := pointOf(text, from).Row
	for u := from; u < hi; {
		end := hi
		if i := bytes.IndexByte(text[u:hi], '\n'); i >= 0 {
			end = u + i + 1
		}
		lvl := indentOf(text[u:end])
		if lvl >= level && startsUnitAt(lang, text[u:end], lvl) {
			next := nextUnit(lang, text, u, hi, lvl)
			if next >= hi {
				return found
			}
			off := uint32(u + lvl)
			at := sitter.Point{Row: row, Column: uint32(lvl)}
			n := root.NamedDescendantForPointRange(at, at)
			// The largest node starting there, short of a node that holds
			// the next unit as a named child of its own (a Python block
			// starts at its first statement).
			nextOff := uint32(next + indentOf(text[next:hi]))
			for n != nil && n.StartByte() == off {
				p := n.Parent()
				if p == nil || p.StartByte() != off || namedChildStartsAt(p, nextOff) {
					break
				}
				n = p
			}
			// A node may take in the next unit (an annotation or a
			// decorator on a line of its own): it swallows when it reaches
			// past the unit after that.
			if n != nil && n.StartByte() == off && int(n.EndByte()) > nextUnit(lang, text, next, hi, lvl) {
				if found = append(found, uint32(next)); len(found) == recoverSwallowers {
					return found
				}
			}
		}
		u = end
		row++
	}
	return found
}

// namedChildStartsAt reports whether a named child of n starts at offset
// off.
func namedChildStartsAt(n *sitter.Node, off uint32) bool {
	for i := range int(n.NamedChildCount()) {
		c := n.NamedChild(i)
		if c.StartByte() == off {
			return true
		}
		if c.StartByte() > off {
			return false
		}
	}
	return false
}

// innerLevel returns the smallest indentation of the region's lines
// deeper than its first line's.
func innerLevel(region []byte) (int, bool) {
	return levelAfter(region, indentOf(region))
}

// levelAfter returns the smallest indentation of the region's lines after
// its first deeper than first.
func levelAfter(region []byte, first int) (int, bool) {
	level := -1
	for i := bytes.IndexByte(region, '\n'); i >= 0 && i+1 < len(region); {
		line := region[i+1:]
		n := indentOf(line)
		if n > first && n < len(line) && line[n] != '\n' && line[n] != '\r' && (level < 0 || n < level) {
			level = n
		}
		j := bytes.IndexByte(line, '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return level, level > first
}

// indentOf returns how many blanks start a line.
func indentOf(line []byte) int {
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return n
}

// firstDamage returns where the first top-level node with an error
// starts. A top-level node that error recovery made up (a missing
// terminator) points at the node before it, which it ends. Inside an
// ERROR node (the whole file, or a run of top-level nodes), the damage
// starts at its first loose token (a keyword or bracket that is no part of
// a complete node) or the first node with an error in it.
func firstDamage(root *sitter.Node, text []byte) (uint32, bool) {
	if !root.HasError() {
		return 0, false
	}
	at, found, ok := damageInC(root, text, 0)
	if !ok {
		at, found = damageIn(root, text, 0)
	}
	if found {
		return at, true
	}
	return root.StartByte(), true
}

// damageIn returns where the first damaged child of n starts, at or after
// from.
func damageIn(n *sitter.Node, text []byte, from uint32) (uint32, bool) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	if !c.GoToFirstChild() {
		return 0, false
	}
	var prev *sitter.Node
	for {
		k := c.CurrentNode()
		if k.EndByte() > from {
			switch {
			case k.IsMissing() && prev != nil && prev.StartByte() >= from:
				return prev.StartByte(), true
			case k.IsError():
				if at, ok := damageIn(k, text, from); ok {
					return at, true
				}
				if k.StartByte() >= from {
					return k.StartByte(), true
				}
			case k.StartByte() < from:
			case k.IsMissing() || k.HasError():
				return k.StartByte(), true
			case n.IsError() && loose(k, text):
				return k.StartByte(), true
			}
		}
		prev = k
		if !c.GoToNextSibling() {
			return 0, false
		}
	}
}

// loose reports whether a child of an ERROR node is a loose token rather
// than a complete node: a keyword or bracket, or a lone name.
func loose(k *sitter.Node, text []byte) bool {
	if !k.IsNamed() {
		return len(bytes.TrimSpace(text[k.StartByte():k.EndByte()])) > 0
	}
	return k.ChildCount() == 0 && !strings.Contains(k.Type(), "comment")
}

// firstError returns where the first ERROR or MISSING node starting at or
// after from starts.
func firstError(n *sitter.Node, from uint32) (uint32, bool) {
	if !n.HasError() {
		return 0, false
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for {
		node := c.CurrentNode()
		if (node.IsError() || node.IsMissing()) && node.StartByte() >= from {
			return node.StartByte(), true
		}
		if node.HasError() && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return 0, false
			}
		}
	}
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
func unitsAround(lang *Language, text []byte, at int, cuts []span, level int) units {
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
	s := unitStart(lang, text, lo, at, level)
	before = append(before, s)
	for len(before) <= recoverBack && s > lo {
		s = unitStart(lang, text, lo, s-1, level)
		before = append(before, s)
	}
	var u units
	for i := len(before) - 1; i >= 0; i-- {
		u.starts = append(u.starts, before[i])
	}
	u.home = len(u.starts) - 1
	e := at
	for k := 0; k < recoverWidth && e < hi; k++ {
		e = nextUnit(lang, text, e, hi, level)
		u.starts = append(u.starts, e)
	}
	return u
}

// unitStart returns the start of the unit holding offset at: the last line
// at or before it, and not before lo, that starts a unit.
func unitStart(lang *Language, text []byte, lo, at, level int) int {
	ls := bytes.LastIndexByte(text[:at], '\n') + 1
	for ls > lo {
		if startsUnitAt(lang, text[ls:], level) {
			return ls
		}
		ls = bytes.LastIndexByte(text[:ls-1], '\n') + 1
	}
	return lo
}

// nextUnit returns the start of the first unit after offset at, or hi.
func nextUnit(lang *Language, text []byte, at, hi, level int) int {
	for {
		i := bytes.IndexByte(text[at:hi], '\n')
		if i < 0 {
			return hi
		}
		at += i + 1
		if at >= hi {
			return hi
		}
		if startsUnitAt(lang, text[at:hi], level) {
			return at
		}
	}
}

// startsUnitAt reports whether a line (text from its start) starts a unit
// at an indentation level: a top-level unit at its level (see startsUnit),
// and any line, closing bracket or not, less indented.
func startsUnitAt(lang *Language, line []byte, level int) bool {
	n := indentOf(line)
	if n == len(line) || line[n] == '\n' || line[n] == '\r' {
		return false
	}
	if n < level {
		return true
	}
	return n == level && startsUnit(lang, line[n:])
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
	// A comment with a cut inside is not one in the text: removing the
	// damaged region joined its parts ("/* a" + region + "b */"), and in
	// the text it would run over the region's own comments.
	raw.comments = slices.DeleteFunc(raw.comments, func(c span) bool {
		return e(c.end)-s(c.start) != c.end-c.start
	})
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
	raws, counts, err := p.queryCutRaws(ctx, lang, text, cuts)
	if err != nil {
		return 0, err
	}
	errors := 0
	for i := range raws {
		if raw.module != "" {
			raws[i].module = "" // the rest of the file names the module
		}
		raw.addShifted(&raws[i], 0)
		errors += max(1, counts[i])
	}
	return errors, nil
}

// queryCutRaws parses each damaged region on its own and returns what the
// query finds in each, in the text's offsets, and how many errors each
// has.
func (p *Parser) queryCutRaws(ctx context.Context, lang *Language, text []byte, cuts []span) ([]rawGraph, []int, error) {
	raws := make([]rawGraph, len(cuts))
	counts := make([]int, len(cuts))
	for i, c := range cuts {
		var err error
		if raws[i], counts[i], err = p.queryCut(ctx, lang, text, c); err != nil {
			return nil, nil, err
		}
	}
	return raws, counts, nil
}

// queryCut parses a damaged region on its own and returns what the query
// finds in it, in the text's offsets, and how many errors the region has.
func (p *Parser) queryCut(ctx context.Context, lang *Language, text []byte, c span) (rawGraph, int, error) {
	part := text[c.start:c.end]
	tree, err := p.Parse(ctx, lang, part, nil)
	if err != nil {
		return rawGraph{}, 0, fmt.Errorf("parse damaged region: %w", err)
	}
	defer tree.Close()
	root := tree.RootNode()
	found := p.query(lang, part, root, nil)
	errors := 0
	if root.HasError() {
		errors = countErrors(root)
	}
	// What error recovery left open ends with the region's last
	// character, not with the blank lines after it.
	last := uint32(len(bytes.TrimRight(part, " \t\r\n")))
	lastDef := uint32(0)
	for i := range found.defs {
		d := &found.defs[i]
		d.end = max(d.start, min(d.end, last))
		lastDef = max(lastDef, d.start)
	}
	// Comments after the region's last definition document nothing
	// yet: they would otherwise pass for the doc of what follows.
	found.comments = slices.DeleteFunc(found.comments, func(c span) bool { return c.start >= lastDef })
	var out rawGraph
	out.addShifted(&found, int64(c.start))
	return out, errors, nil
}

// editTo records on tree, a parse of from, the edit that turns from into
// to: the whole lines between their common prefix and common suffix.
//
// The edit starts and ends at line starts: tree-sitter's incremental
// parse can go wrong when a large edit starts or ends inside a token (a
// comment's text replaced by more definitions and comments: the tree it
// returned covered a third of the text), and the texts of trial parses
// differ by runs of whole lines.
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
	pre = bytes.LastIndexByte(from[:pre], '\n') + 1
	lineStart := func(text []byte, at int) bool { return at == 0 || text[at-1] == '\n' }
	for suf > 0 && !(lineStart(from, len(from)-suf) && lineStart(to, len(to)-suf)) {
		suf--
	}
	oldEnd, newEnd := len(from)-suf, len(to)-suf
	editTree(tree, sitter.EditInput{
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
