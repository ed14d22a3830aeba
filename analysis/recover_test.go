package analysis

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestRecoveryKeepsTheRest replays typing on every sample file of every
// language: each top-level definition is taken out of its file and typed
// again, piece by piece, at another top-level position, then deleted
// again; an unclosed string and brackets are typed at top level and in a
// function's body. After every keystroke, the open document's graph — and,
// on a sample of the keystrokes, the graph the indexer extracts from the
// same text on disk — holds every definition and reference of a fresh
// parse of the text without the unfinished part, shifted, with the same
// name, kind, qualified name, container, signature, doc and range. When a
// definition is typed in full, its own definitions are there too.
func TestRecoveryKeepsTheRest(t *testing.T) {
	langs := NewLanguages()
	files := sampleFiles(t, langs)
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	ctx := context.Background()
	for _, name := range Names() {
		if len(files[name]) == 0 {
			t.Errorf("no sample files in %s", name)
		}
		for _, file := range files[name] {
			rel, _ := filepath.Rel(sampleRoot, file)
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				lang, _ := langs.ByName(name)
				h := fnv.New64a()
				h.Write([]byte(rel))
				r := rand.New(rand.NewPCG(h.Sum64(), 16))
				tree, err := fresh.Parse(ctx, lang, src, nil)
				if err != nil {
					t.Fatal(err)
				}
				defs := topLevelDefinitions(tree.RootNode(), fresh, lang, src)
				tree.Close()
				if len(defs) == 0 {
					t.Skip("no top-level definitions")
				}
				// One definition a file, chosen by the seed, keeps the run
				// short under -race on a busy machine.
				r.Shuffle(len(defs), func(i, j int) { defs[i], defs[j] = defs[j], defs[i] })
				defs = defs[:1]
				for _, d := range defs {
					typed := string(src[d.start:d.end])
					base := slices.Concat(src[:d.start], src[d.end:])
					rp := recoveryReplay{t: t, p: p, fresh: fresh, lang: lang, path: filepath.ToSlash(rel), base: base, r: r}
					at, ok := rp.gap()
					if !ok {
						t.Logf("%s: no top-level gap to type %q in", rel, firstLine(typed))
						continue
					}
					rp.typeAndDelete(ctx, at, typed+"\n", "")
				}
				// Unclosed strings and brackets, at top level and in a body.
				rp := recoveryReplay{t: t, p: p, fresh: fresh, lang: lang, path: filepath.ToSlash(rel), base: src, r: r}
				if at, ok := rp.gap(); ok {
					rp.typeAndDelete(ctx, at, `call(x, "unclosed`, "\n")
					rp.typeAndDelete(ctx, at, `{ [ 'a`, "\n")
				}
				if at, ok := rp.bodyLine(); ok {
					indent := src[at : at+indentOf(src[at:])]
					// Known limit: without the editor's hint, the indexer may
					// cut a whole member next to the one edited (a Java
					// constructor and the method after it): it is held to
					// everything outside the edited top-level definition.
					rp.indexerTopLevel = true
					rp.typeAndDelete(ctx, at, string(indent)+`call(x, "unclosed`, "\n")
				}
			})
		}
	}
}

// recoveryReplay types text into a document and checks its graph.
type recoveryReplay struct {
	t        *testing.T
	p, fresh *Parser
	lang     *Language
	path     string
	base     []byte // the text without the unfinished part
	r        *rand.Rand
	// indexerTopLevel holds the indexer only to the definitions outside
	// the top-level definition the edit is in.
	indexerTopLevel bool
}

// gap returns a random top-level position of the base text, where an
// editor types a new definition: the start of a blank line before a line
// starting a top-level node, or the end of the text after a line break.
func (rp *recoveryReplay) gap() (int, bool) {
	var gaps []int
	text := rp.base
	for i := 0; i < len(text); {
		j := strings.IndexByte(string(text[i:]), '\n')
		if j < 0 {
			break
		}
		next := i + j + 1
		if i > 0 && next < len(text) && startsUnit(rp.lang, text[next:]) && strings.TrimSpace(string(text[i:next])) == "" {
			gaps = append(gaps, i)
		}
		i = next
	}
	if n := len(text); n > 0 && text[n-1] == '\n' {
		gaps = append(gaps, n)
	}
	if len(gaps) == 0 {
		return 0, false
	}
	return gaps[rp.r.IntN(len(gaps))], true
}

// bodyLine returns the start of a random indented line that follows an
// indented line ending with ; or ) (a statement in a body).
func (rp *recoveryReplay) bodyLine() (int, bool) {
	var lines []int
	text := string(rp.base)
	start := 0
	prevStmt := false
	for start < len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			break
		}
		line := text[start : start+end]
		indented := strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")
		if indented && prevStmt {
			lines = append(lines, start)
		}
		trimmed := strings.TrimSpace(line)
		prevStmt = indented && (strings.HasSuffix(trimmed, ";") || strings.HasSuffix(trimmed, ")"))
		start += end + 1
	}
	if len(lines) == 0 {
		return 0, false
	}
	return lines[rp.r.IntN(len(lines))], true
}

// typeAndDelete types typed at offset at of the base text, piece by piece,
// with suffix after it from the first keystroke (the line break an editor
// opens before typing), then deletes it from its end. After each
// keystroke the graph must hold the base text's graph, shifted.
func (rp *recoveryReplay) typeAndDelete(ctx context.Context, at int, typed, suffix string) {
	t := rp.t
	t.Helper()
	want, err := rp.fresh.Extract(ctx, rp.lang, rp.path, rp.base)
	if err != nil {
		t.Fatal(err)
	}
	if want.ParseErrors > 0 {
		t.Logf("%s: the text without %q has syntax errors; skipped", rp.path, firstLine(typed))
		return
	}
	// Keystrokes: every character of the first line (the header), then
	// pieces of 1 to 16 characters.
	var steps []int
	header := strings.IndexByte(typed, '\n')
	if header < 0 {
		header = len(typed)
	}
	for k := 1; k <= len(typed); {
		steps = append(steps, k)
		if k < header {
			k++
		} else {
			k += 1 + rp.r.IntN(16)
		}
	}
	if steps[len(steps)-1] != len(typed) {
		steps = append(steps, len(typed))
	}
	var back []int
	for k := len(typed) - 1 - rp.r.IntN(3); k > 0; k -= 1 + rp.r.IntN(16) {
		back = append(back, k)
	}
	back = append(back, 0)
	steps = append(steps, back...)

	doc, err := rp.p.OpenDocument(ctx, rp.lang, rp.path, 1, rp.base)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	// The suffix comes first, as one keystroke.
	cur := 0
	lines := newLineIndex(rp.base)
	pos := lines.position(at)
	if err := doc.Apply(ctx, rp.p, 2, []TextEdit{{Range: &EditRange{pos.Line, pos.Column, pos.Line, pos.Column}, Text: suffix}}); err != nil {
		t.Fatal(err)
	}
	for i, k := range steps {
		// Apply the keystroke as the editor sends it: an insertion or a
		// deletion at the end of what is typed so far.
		text := doc.Text()
		li := newLineIndex(text)
		var e TextEdit
		if k > cur {
			p := li.position(at + cur)
			e = TextEdit{Range: &EditRange{p.Line, p.Column, p.Line, p.Column}, Text: typed[cur:k]}
		} else {
			a, b := li.position(at+k), li.position(at+cur)
			e = TextEdit{Range: &EditRange{a.Line, a.Column, b.Line, b.Column}}
		}
		if err := doc.Apply(ctx, rp.p, int32(i+3), []TextEdit{e}); err != nil {
			t.Fatal(err)
		}
		cur = k
		part := typed[:k] + suffix
		wantText := slices.Concat(rp.base[:at], []byte(part), rp.base[at:])
		if string(doc.Text()) != string(wantText) {
			t.Fatalf("after typing %q: the document's text is not what was typed", typed[:k])
		}
		what := fmt.Sprintf("%s: typing %q at %d, keystroke %d/%d (%q typed)", rp.path, firstLine(typed), at, i+1, len(steps), lastLine(typed[:k]))
		if doc.Graph().ParseErrors == 0 {
			// The text is valid: the graph is what it means, which the
			// unfinished part may change (const x = followed by a class
			// is a class expression; /* runs to the next */). Other tests
			// check that it equals a fresh parse.
			continue
		}
		if !rp.check(what+", document", want, doc.Graph(), wantText, at, len(part), false) {
			os.WriteFile(fmt.Sprintf("/tmp/fail-%d-%s", i, strings.ReplaceAll(rp.path, "/", "_")), wantText, 0o644)
			t.Logf("text:\n%s", wantText)
			return
		}
		if i%6 == 5 || k == len(typed) {
			g, err := rp.fresh.Extract(ctx, rp.lang, rp.path, wantText)
			if err != nil {
				t.Fatal(err)
			}
			if !rp.check(what+", indexer", want, g, wantText, at, len(part), rp.indexerTopLevel) {
				t.Logf("text:\n%s", wantText)
				return
			}
		}
		if k == len(typed) && strings.HasSuffix(typed, "\n\n") {
			// Typed in full: the definition's own symbols are there.
			own, err := rp.fresh.Extract(ctx, rp.lang, rp.path, []byte(typed))
			if err != nil {
				t.Fatal(err)
			}
			got := symbolKeys(doc.Graph(), nil, nil, nil)
			for _, s := range own.Symbols[1:] {
				if !slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, string(s.Kind)+" "+s.Name+" ") }) {
					t.Errorf("%s: typed in full, %s %s is missing", what, s.Kind, s.Name)
				}
			}
		}
	}
}

// check reports whether got holds every symbol and reference of want (the
// graph of the text without the unfinished part), shifted by size bytes
// from offset at.
func (rp *recoveryReplay) check(what string, want, got *FileGraph, text []byte, at, size int, topLevel bool) bool {
	t := rp.t
	t.Helper()
	failed := t.Failed()
	lines := newLineIndex(text)
	shift := func(r Range) Range {
		s, e := r.Start.Offset, r.End.Offset
		if s >= at {
			s += size
		}
		if e > at || e == at && r.Start.Offset >= at {
			e += size
		}
		return lines.rangeOf(uint32(s), uint32(e))
	}
	// A symbol's container may be a definition being typed: a method's
	// type typed above it.
	typedIn := func(i int) bool {
		o := got.Symbols[i].Range.Start.Offset
		return i > 0 && o >= at && o < at+size
	}
	// The definitions the edit is in are being edited: what stays of them
	// is not checked, only everything outside the edit.
	editing := func(i int) bool {
		if topLevel {
			for i > 0 && want.Symbols[i].Parent > 0 {
				i = want.Symbols[i].Parent
			}
		}
		r := want.Symbols[i].Range
		return i > 0 && r.Start.Offset < at && at < r.End.Offset
	}
	wantSyms := symbolKeys(want, nil, shift, editing)
	gotSyms := symbolKeys(got, typedIn, nil, nil)
	for _, k := range wantSyms {
		if !slices.Contains(gotSyms, k) {
			t.Errorf("%s: symbol missing or changed:\n  want %s\n  got  %s", what, k, strings.Join(near(gotSyms, k), "\n       "))
			return false
		}
	}
	wantRefs := refKeys(want, nil, shift, editing)
	gotRefs := refKeys(got, typedIn, nil, nil)
	for _, k := range wantRefs {
		if !slices.Contains(gotRefs, k) {
			t.Errorf("%s: reference missing or changed:\n  want %s\n  got  %s", what, k, strings.Join(near(gotRefs, k), "\n       "))
			return false
		}
	}
	checkUTF16Positions(t, text, got)
	return failed || !t.Failed()
}

// symbolKeys describes each symbol but the module by what recovery keeps.
func symbolKeys(g *FileGraph, typedIn func(int) bool, shift func(Range) Range, skip func(int) bool) []string {
	var out []string
	for _, s := range g.Symbols[1:] {
		if skip != nil && skip(s.Index) {
			continue
		}
		r, n := s.Range, s.NameRange
		if shift != nil {
			r, n = shift(r), shift(n)
		}
		container := ""
		if s.Parent >= 0 {
			container = g.Symbols[s.Parent].QualifiedName
			if typedIn != nil && typedIn(s.Parent) {
				container = g.Symbols[0].QualifiedName // as if it were not there
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s in %s at %s name %s sig %q doc %q", s.Kind, s.Name, s.QualifiedName, container, rangeKey(r), rangeKey(n), s.Signature, s.Doc))
	}
	return out
}

// refKeys describes each reference with its source's qualified name.
func refKeys(g *FileGraph, typedIn func(int) bool, shift func(Range) Range, skip func(int) bool) []string {
	var out []string
	for _, r := range g.Refs {
		if skip != nil && skip(r.Source) {
			continue
		}
		if typedIn != nil && typedIn(r.Source) && r.Subject == "" {
			// impl Trait for Type, with Type being typed: as if it were
			// not there.
			r.Subject, r.Source = g.Symbols[r.Source].Name, 0
		}
		rg := r.Range
		if shift != nil {
			rg = shift(rg)
		}
		out = append(out, fmt.Sprintf("%s %s.%s (%s) from %s at %s", r.Kind, r.Qualifier, r.Name, r.Subject, g.Symbols[r.Source].QualifiedName, rangeKey(rg)))
	}
	return out
}

func rangeKey(r Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// near returns the keys that start like k (the same symbol, changed).
func near(keys []string, k string) []string {
	prefix, _, _ := strings.Cut(k, " at ")
	var out []string
	for _, x := range keys {
		if strings.HasPrefix(x, prefix) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

// topLevelDefinitions returns the spans of the top-level nodes that define
// something, with the line break before them when they start a line.
func topLevelDefinitions(root *sitter.Node, p *Parser, lang *Language, src []byte) []span {
	raw := p.query(lang, src, root, nil)
	var out []span
	for _, sp := range topLevel(root) {
		if !slices.ContainsFunc(raw.defs, func(d definition) bool { return d.start >= sp.start && d.start < sp.end }) {
			continue
		}
		// Whole lines: from the line's start to the line break after it.
		start := int(sp.start)
		if start > 0 && src[start-1] != '\n' {
			continue // shares its line with something else
		}
		end := int(sp.end)
		if i := strings.IndexByte(string(src[end:]), '\n'); i >= 0 && strings.TrimSpace(string(src[end:end+i])) == "" {
			end += i + 1
		} else {
			continue
		}
		out = append(out, span{uint32(start), uint32(end)})
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\n"), '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// sameGraph returns "" when an open document's graph agrees with the
// graph the indexer extracts from the same text, or what differs. Without
// syntax errors they are equal. With errors, each may cut a different
// damaged region (the document knows where the user types): every symbol
// and reference outside the regions of both must then be the same.
func sameGraph(lang *Language, doc *Document, fresh *FileGraph) string {
	got := doc.GraphWithChunks()
	switch {
	case got.ParseErrors > 0 && fresh.ParseErrors == 0:
		// An incremental parse can see errors that a fresh parse of the
		// same text does not (tree-sitter/tree-sitter#4001; found by
		// FuzzDocumentApply on a Python class body), and the other way
		// round (an indented docstring after a blank first line, which
		// the incremental parse reused without the error). Only the
		// count may differ: every symbol, reference and chunk must still
		// be the fresh parse's.
		counted := *got
		counted.ParseErrors = 0
		got = &counted
	case got.ParseErrors == 0 && fresh.ParseErrors > 0:
		counted := *fresh
		counted.ParseErrors = 0
		fresh = &counted
	}
	if got.ParseErrors == 0 || fresh.ParseErrors == 0 {
		if g, w := graphText(got), graphText(fresh); g != w {
			return firstDiff(w, g)
		}
		return ""
	}
	cuts := slices.Clone(doc.cuts)
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	tree, err := p.Parse(ctx, lang, doc.Text(), nil)
	if err != nil {
		return err.Error()
	}
	defer tree.Close()
	rec, err := p.recoverText(ctx, lang, doc.Text(), tree, nil, -1)
	if err != nil {
		return err.Error()
	}
	if rec != nil {
		rec.tree.Close()
		cuts = append(cuts, rec.cuts...)
	}
	switch {
	case rec != nil && doc.cuts != nil && !slices.Equal(rec.cuts, doc.cuts):
		// Both recovered, cutting different regions (the document knows
		// where the user types): each is checked against the text without
		// its own regions by TestRecoveryKeepsTheRest.
		return ""
	case rec == nil && doc.cuts == nil:
		// Neither recovered: both are what error recovery makes of the
		// whole text.
		if g, w := graphText(got), graphText(fresh); g != w {
			return firstDiff(w, g)
		}
		return ""
	case rec == nil || doc.cuts == nil:
		// Damage beyond recovery for one of them (several regions, or
		// regions too wide), which keeps what error recovery makes of
		// the whole text: not comparable.
		return ""
	}
	in := func(g *FileGraph) func(int) bool {
		return func(i int) bool {
			r := g.Symbols[i].Range
			return i > 0 && slices.ContainsFunc(cuts, func(c span) bool {
				return r.Start.Offset < int(c.end) && int(c.start) < r.End.Offset || int(c.start) <= r.Start.Offset && r.Start.Offset < int(c.end)
			})
		}
	}
	keys := func(g *FileGraph) string {
		skip := in(g)
		// References made in a damaged region go with it.
		outside := *g
		outside.Refs = slices.DeleteFunc(slices.Clone(g.Refs), func(r Ref) bool {
			return slices.ContainsFunc(cuts, func(c span) bool {
				return int(c.start) <= r.Range.Start.Offset && r.Range.Start.Offset < int(c.end)
			})
		})
		return strings.Join(symbolKeys(g, skip, nil, skip), "\n") + "\n" + strings.Join(refKeys(&outside, skip, nil, skip), "\n")
	}
	if g, w := keys(got), keys(fresh); g != w {
		return firstDiff(w, g)
	}
	return ""
}

// TestRecoveryExamples replays the cases reported in issue 16, in the
// indexer (a file on disk) and in an open document (typed character by
// character): unfinished code above other definitions hides none of them,
// and the definition being typed is there once its header parses.
func TestRecoveryExamples(t *testing.T) {
	tests := []struct {
		name, file string
		// after is the line the text is typed below (1-based), as sed's
		// "Na" does.
		after int
		typed string
		want  []string // qualified names that must be there
		not   []string // qualified names that must not
	}{
		{"function header above db.Open", "internal/db/db.go", 15, "func Ping() {\n", []string{"db.Open", "Conn.QueryRow", "Conn.Close", "db.Ping"}, nil},
		{"unclosed body in users/service.go", "users/service.go", 12, "func Half() {\n\tx := 1\n", []string{"users.NewService", "Service.GetUser", "Service.Rename", "users.Half"}, nil},
		{"broken parameter list", "users/service.go", 7, "func broken( {\n", []string{"users.Service", "users.NewService", "Service.GetUser"}, []string{"broken.Service"}},
		{"unclosed class in Python", "worker/jobs.py", 26, "class Half(Job:\n    def run(self):\n", []string{"jobs.Job", "Job.run", "jobs.EmailJob", "EmailJob.run"}, nil},
		{"unclosed method in Java", "java/src/main/java/com/example/users/UserService.java", 21, "    public void half() {\n        int x = (1;\n", []string{"UserService.getUser", "UserService.rename"}, nil},
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(sampleRoot, filepath.FromSlash(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			lang, _ := langs.ForPath(tt.file)
			at := 0
			for range tt.after {
				at += strings.IndexByte(string(src[at:]), '\n') + 1
			}
			text := slices.Concat(src[:at], []byte(tt.typed), src[at:])
			check := func(what string, g *FileGraph) {
				t.Helper()
				if g.ParseErrors == 0 {
					t.Errorf("%s: no syntax errors reported", what)
				}
				names := map[string]bool{}
				for _, s := range g.Symbols {
					names[s.QualifiedName] = true
				}
				for _, w := range tt.want {
					if !names[w] {
						t.Errorf("%s: %s is missing", what, w)
					}
				}
				for _, n := range tt.not {
					if names[n] {
						t.Errorf("%s: %s is there", what, n)
					}
				}
				checkUTF16Positions(t, text, g)
			}
			g, err := p.Extract(ctx, lang, tt.file, text)
			if err != nil {
				t.Fatal(err)
			}
			check("indexer", g)

			doc, err := p.OpenDocument(ctx, lang, tt.file, 1, src)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			pos := newLineIndex(src).position(at)
			line, col := pos.Line, 0
			for i, r := range tt.typed {
				if err := doc.Apply(ctx, p, int32(i+2), []TextEdit{{Range: &EditRange{line, col, line, col}, Text: string(r)}}); err != nil {
					t.Fatal(err)
				}
				if r == '\n' {
					line, col = line+1, 0
				} else {
					col += utf16Len([]byte(string(r)))
				}
			}
			if string(doc.Text()) != string(text) {
				t.Fatalf("typed text:\n%s\nwant:\n%s", doc.Text(), text)
			}
			check("document", doc.Graph())
		})
	}
}

// TestTypingInDamagedRegions edits a text inside the regions the search
// cut as damaged until the text is complete again, where each region
// alone still has errors: several regions (a Go import block's head, then
// the rest of the block), a class member, a line continuing the one above
// it. The graph must then be a fresh parse's (the references the regions
// make included, no syntax errors) at once, not after the next edit
// elsewhere. Found by FuzzDocumentApply.
func TestTypingInDamagedRegions(t *testing.T) {
	// edit replaces a line's text (0-based) from column col to endCol
	// (clamped to the line, as editors do).
	edit := func(line, col, endCol int, text string) TextEdit {
		return TextEdit{Range: &EditRange{line, col, line, endCol}, Text: text}
	}
	tests := []struct {
		name, lang, path string
		src              string // "" reads path from the sample app
		// damage is the first batch; cuts the number of regions, in a row,
		// the document reads its text with after it.
		damage []TextEdit
		cuts   int
		// batches are typed inside the regions after the damage.
		batches [][]TextEdit
	}{
		{
			name: "Go import line replaced, typed at and deleted in one batch", lang: "go", path: "users/service.go",
			damage: []TextEdit{edit(3, 0, 54, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(3, 13, 13, "0"), {Range: &EditRange{3, 54, 3, 0}}}},
		},
		{
			name: "Go import line replaced, typed at, then deleted", lang: "go", path: "users/service.go",
			damage: []TextEdit{edit(3, 0, 54, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(3, 3, 3, "0")}, {edit(3, 0, 4, "")}},
		},
		{
			name: "Go import line replaced, then typed back", lang: "go", path: "users/service.go",
			damage: []TextEdit{edit(3, 0, 54, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(3, 0, 3, "\t\"os\"")}},
		},
		{
			name: "JavaScript import line replaced, then deleted", lang: "javascript", path: "a.js",
			src:    "import {\n  a,\n  b\n} from \"./x\";\n\nfunction f() { a(); b(); }\n",
			damage: []TextEdit{edit(1, 0, 9, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(1, 0, 9, "")}},
		},
		{
			// The regions are the import's head and its tail, with the
			// lines between them read as statements: typed into a block.
			name: "JavaScript regions apart, completed together", lang: "javascript", path: "a.js",
			src:    "import {\n  a,\n  b\n} from \"./x\";\n\nfunction f() { a(); b(); }\n",
			damage: []TextEdit{edit(1, 0, 9, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(0, 0, 7, ""), edit(3, 1, 13, "")}},
		},
		{
			name: "TypeScript method typed in a class, closed last", lang: "typescript", path: "a.ts",
			src:    "class K {\n  m(): void {\n    f();\n  }\n\n  o(): void {\n    g();\n  }\n}\n",
			damage: []TextEdit{edit(5, 0, 0, "  n(): void {\n    h();\n  \n")}, cuts: 1,
			batches: [][]TextEdit{{edit(7, 2, 2, "}")}},
		},
		{
			name: "JavaScript line continuing the one above", lang: "javascript", path: "a.js",
			src:    "const x = a\n\nfunction f() {}\n",
			damage: []TextEdit{edit(1, 0, 0, ".b(\n")}, cuts: 1,
			batches: [][]TextEdit{{edit(1, 3, 3, "1")}, {edit(1, 4, 4, ")")}},
		},
		{
			name: "Java method typed in a class, closed last", lang: "java", path: "A.java",
			src:    "class K {\n  void m() {\n    f();\n  }\n\n  void o() {\n    g();\n  }\n}\n",
			damage: []TextEdit{edit(5, 0, 0, "  void n() {\n    h();\n  \n")}, cuts: 1,
			batches: [][]TextEdit{{edit(7, 2, 2, "}")}},
		},
		{
			name: "Rust use line replaced, then deleted", lang: "rust", path: "a.rs",
			src:    "use std::{\n    fmt,\n    io,\n};\n\nfn f() { fmt(); }\n",
			damage: []TextEdit{edit(1, 0, 9, "008")}, cuts: 2,
			batches: [][]TextEdit{{edit(1, 0, 9, "")}},
		},
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			if tt.src == "" {
				var err error
				if src, err = os.ReadFile(filepath.Join(sampleRoot, filepath.FromSlash(tt.path))); err != nil {
					t.Fatal(err)
				}
			}
			lang, err := langs.ByName(tt.lang)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := p.OpenDocument(ctx, lang, tt.path, 1, src)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			text := src
			for i, edits := range append([][]TextEdit{tt.damage}, tt.batches...) {
				if err := doc.Apply(ctx, p, int32(i+2), edits); err != nil {
					t.Fatal(err)
				}
				for _, e := range edits {
					text = applyEditModel(text, e)
				}
				if string(doc.Text()) != string(text) {
					t.Fatalf("batch %d: text %q, want %q", i, doc.Text(), text)
				}
				if i == 0 {
					if len(doc.cuts) != tt.cuts {
						t.Fatalf("after the damage the document reads its text without %v, want %d regions (the case no longer tests them)", doc.cuts, tt.cuts)
					}
				}
				want, err := fresh.Extract(ctx, lang, tt.path, text)
				if err != nil {
					t.Fatal(err)
				}
				if diff := sameGraph(lang, doc, want); diff != "" {
					t.Fatalf("batch %d %v: the graph differs from a fresh parse:\n%s\ntext:\n%s", i, describeEdits(edits), diff, text)
				}
				if got := doc.Graph().ParseErrors; (got == 0) != (want.ParseErrors == 0) {
					t.Errorf("batch %d %v: %d syntax errors, a fresh parse has %d", i, describeEdits(edits), got, want.ParseErrors)
				}
			}
		})
	}
}

// TestEditToReparse parses a text incrementally from the parse of another
// one, with the edit editTo records, as the search for damaged regions
// parses its trials: the tree must be a fresh parse's. Found by
// FuzzDocumentApply: a comment's text replaced by definitions and
// comments made tree-sitter return a tree of a third of the text.
func TestEditToReparse(t *testing.T) {
	service, err := os.ReadFile(filepath.Join(sampleRoot, "users", "service.go"))
	if err != nil {
		t.Fatal(err)
	}
	// lines returns the sample file's lines from the from-th (1-based)
	// to its end.
	lines := func(from int) string {
		all := strings.SplitAfter(string(service), "\n")
		return strings.Join(all[from-1:], "")
	}
	head := "package users\n\n"
	tests := []struct {
		name, lang string
		from, to   string
	}{
		{
			name: "comment's text replaced by definitions", lang: "go",
			from: head + lines(28), // "// Rename changes a user's display name." and Rename
			to:   head + lines(9),  // "// Service holds the business rules for user accounts." and all after
		},
		{
			name: "definitions replaced by a comment's text", lang: "go",
			from: head + lines(9),
			to:   head + lines(28),
		},
		{
			name: "insertion inside a line", lang: "go",
			from: "package p\n\nfunc a() { b() }\n",
			to:   "package p\n\nfunc a() { c(); b() }\n",
		},
		{
			name: "text appended", lang: "python",
			from: "def f():\n    pass\n",
			to:   "def f():\n    pass\n\ndef g():\n    f()\n",
		},
		{
			name: "text prepended", lang: "python",
			from: "def f():\n    pass\n",
			to:   "import os\n\ndef f():\n    pass\n",
		},
		{name: "from nothing", lang: "python", from: "", to: "x = 1\n"},
		{name: "to nothing", lang: "python", from: "x = 1\n", to: ""},
		{name: "without line breaks", lang: "python", from: "x = 1", to: "x = 12"},
	}
	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang, err := langs.ByName(tt.lang)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.Parse(ctx, lang, []byte(tt.to), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()
			old, err := p.Parse(ctx, lang, []byte(tt.from), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			editTo(old, []byte(tt.from), []byte(tt.to))
			got, err := p.Parse(ctx, lang, []byte(tt.to), old)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			if g, w := got.RootNode().String(), want.RootNode().String(); g != w {
				t.Errorf("incremental parse (ends at %d of %d):\n%s\nfresh parse:\n%s", got.RootNode().EndByte(), len(tt.to), g, w)
			}
		})
	}
}
