package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/anchorage-dev/anchorage/analysis"
)

// MaxTaskQuery is the most of a task description (a pasted issue, a log,
// a traceback) that is read; the rest is cut, with a notice.
const MaxTaskQuery = 64 << 10

// Task search tuning.
const (
	// taskTerms is how many of a task's words, the most telling first,
	// the chunk search looks for: a whole issue has hundreds, most of them
	// in every file.
	taskTerms = 40
	// taskChunks is how many chunks the chunk search brings.
	taskChunks = 300
	// taskMaxDefinitions is the most definitions a name may have and still
	// point at its files: a name defined everywhere points nowhere.
	taskMaxDefinitions = 25
	// taskNames is how many of the task's names are resolved, the
	// heaviest first.
	taskNames = 120
	// Weights of the file rankings fused into a task's: the chunks that
	// match its words, the definitions of the names it mentions, and the
	// files and modules it names.
	taskWeightText  = 1.0
	taskWeightNames = 1.0
	taskWeightPaths = 1.2
	taskWeightTitle = 0.8
	// taskTitleResults is how many results the title's search brings.
	taskTitleResults = 20
	// taskFloor is the share of the best file's score under which a file
	// is not listed.
	taskFloor = 0.15
	// taskFunctions is how many functions each file lists.
	taskFunctions = 3
	// secondaryPenalty scales files that are not the code itself: tests,
	// fixtures, documentation, examples and benchmarks.
	secondaryPenalty = 0.3
	// otherLanguagePenalty scales files in languages the task is not
	// about.
	otherLanguagePenalty = 0.5
)

// FileResult is one file that answers a query, with its best functions
// and why it was chosen.
type FileResult struct {
	File  string  `json:"file"`
	Score float64 `json:"score"`
	// Why says what put the file on the list: the names it defines that
	// the query mentions, its being named, the query's words in its code.
	Why       []string `json:"why"`
	Functions []Result `json:"functions"`
}

// taskFile gathers what a task search knows of one file.
type taskFile struct {
	path      string
	text      float64 // aggregated chunk score
	title     float64 // the title's search by meaning
	names     float64 // resolved-name evidence
	paths     float64 // named file or module
	why       []string
	functions []Result
	seen      map[string]bool
}

func (f *taskFile) addFunction(r Result) {
	key := fmt.Sprintf("%s\x00%d", r.Symbol, r.Line)
	if f.seen[key] || len(f.functions) >= taskFunctions*3 {
		return
	}
	f.seen[key] = true
	f.functions = append(f.functions, r)
}

func (f *taskFile) addWhy(why string) {
	if len(f.why) < 4 && !slices.Contains(f.why, why) {
		f.why = append(f.why, why)
	}
}

// task answers a task description — an issue, a bug report, a traceback,
// a log — by the evidence it carries (the files, modules and names it
// mentions, resolved through the code graph) and by its most telling
// words, and ranks files first, then each file's functions.
func (s *Searcher) task(ctx context.Context, text string, topK int, resp *Response) ([]Result, []FileResult, error) {
	ev := ExtractEvidence(text)
	files := map[string]*taskFile{}
	file := func(p string) *taskFile {
		f := files[p]
		if f == nil {
			f = &taskFile{path: p, seen: map[string]bool{}}
			files[p] = f
		}
		return f
	}

	// Three searches run side by side: the task's most telling words in
	// the chunks, its title by meaning, and the names it mentions in the
	// graph.
	var (
		wg                          sync.WaitGroup
		hits                        []analysis.ChunkHit
		titled                      []Result
		defs                        []namedDefinition
		textErr, titleErr, namesErr error
	)
	wg.Go(func() {
		terms, err := s.taskTerms(ctx, text)
		if err != nil {
			textErr = err
			return
		}
		// Where the chunks are is all a file ranking needs: their text
		// is read for the few results shown.
		hits, textErr = s.Index.RankChunks(ctx, terms, taskChunks)
	})
	if title := taskTitle(text); title != "" {
		wg.Go(func() { titled, titleErr = s.semantic(ctx, title, taskTitleResults) })
	}
	wg.Go(func() { defs, namesErr = s.resolveNames(ctx, ev.Names) })
	wg.Wait()
	if err := errors.Join(textErr, titleErr, namesErr); err != nil {
		return nil, nil, err
	}

	perFile := map[string]int{}
	for _, h := range hits {
		f := file(h.Path)
		// A file's text score is its best chunk's, plus less for each
		// further one: a file whose functions all match is the likelier.
		f.text += h.Score * math.Pow(0.3, float64(perFile[h.Path]))
		perFile[h.Path]++
		sym := h.Name
		if h.Kind == analysis.KindModule {
			sym = ""
		}
		f.addFunction(Result{File: h.Path, Line: h.StartLine + 1, EndLine: h.EndLine + 1, Symbol: sym, Kind: string(h.Kind),
			Score: h.Score, Strategy: Semantic, Snippet: h.Text, node: h.NodeID})
	}
	for i, r := range titled {
		f := file(r.File)
		f.title = max(f.title, 1/float64(i+1))
		f.addFunction(r)
	}
	for _, d := range defs {
		f := file(d.def.Path)
		f.names += d.weight
		f.addWhy(fmt.Sprintf("defines `%s`, named in the %s", d.def.QualifiedName, sourceWords(d.source)))
		r := symbolResult(d.def, d.weight, Semantic)
		r.node = d.def.ID
		f.addFunction(r)
	}

	// The files and modules it names.
	if len(ev.Paths)+len(ev.Modules) > 0 {
		all, err := s.Index.FilePaths(ctx)
		if err != nil {
			return nil, nil, err
		}
		r := newPathResolver(all)
		for _, m := range ev.Paths {
			matches := r.file(m.Text)
			for _, p := range matches {
				f := file(p)
				f.paths += m.Weight / float64(len(matches))
				f.addWhy("named in the " + sourceWords(m.Source))
			}
		}
		for _, m := range ev.Modules {
			matches, exact := r.module(m.Text)
			w := m.Weight
			if !exact {
				w /= 2 // a package, or a module named with a member
			}
			for _, p := range matches {
				f := file(p)
				f.paths += w / float64(len(matches))
				f.addWhy(fmt.Sprintf("module `%s`, named in the %s", m.Text, sourceWords(m.Source)))
			}
		}
	}

	// Combine the three signals, each scaled to its best file: a file
	// that several point at comes first.
	var list []*taskFile
	var maxText, maxNames, maxPaths, maxTitle float64
	for _, f := range files {
		list = append(list, f)
		maxText, maxNames, maxPaths = max(maxText, f.text), max(maxNames, f.names), max(maxPaths, f.paths)
		maxTitle = max(maxTitle, f.title)
	}
	norm := func(x, m float64) float64 {
		if m == 0 {
			return 0
		}
		return x / m
	}
	wantsTests := asksAboutTests(text)
	langs := taskLanguages(ev, text)
	// A task that names many files says less about each of them.
	named := 0
	for _, f := range list {
		if f.paths > 0 {
			named++
		}
	}
	pathWeight := taskWeightPaths / math.Sqrt(max(1, float64(named)/2))
	fusedFiles := make([]fused, len(list))
	for i, f := range list {
		sc := taskWeightText*norm(f.text, maxText) + taskWeightNames*norm(f.names, maxNames) + pathWeight*norm(f.paths, maxPaths) +
			taskWeightTitle*norm(f.title, maxTitle)
		if !wantsTests && isSecondaryPath(f.path) {
			sc *= secondaryPenalty
		}
		if len(langs) > 0 && !langs[languageOfPath(f.path)] {
			sc *= otherLanguagePenalty
		}
		fusedFiles[i] = fused{int64(i), sc}
	}
	sort.SliceStable(fusedFiles, func(i, j int) bool {
		if fusedFiles[i].score != fusedFiles[j].score {
			return fusedFiles[i].score > fusedFiles[j].score
		}
		return list[fusedFiles[i].id].path < list[fusedFiles[j].id].path
	})

	var out []Result
	var grouped []FileResult
	for _, ff := range fusedFiles {
		if len(fusedFiles) > 0 && ff.score < taskFloor*fusedFiles[0].score {
			break // far below the best: noise, not an answer
		}
		f := list[ff.id]
		if f.text > 0 && len(f.why) < 4 {
			f.addWhy("the task's words in its code")
		}
		fns := bestFunctions(f.functions, taskFunctions)
		if len(fns) == 0 {
			fns = []Result{{File: f.path, Line: 1, EndLine: 1, Kind: string(analysis.KindModule), Strategy: Semantic}}
		}
		for i := range fns {
			fns[i].Score = ff.score
		}
		grouped = append(grouped, FileResult{File: f.path, Score: ff.score, Why: f.why, Functions: fns})
		out = append(out, fns...)
		if len(grouped) >= max(topK, candidateResults) {
			break
		}
	}
	resp.Evidence = &ev
	return out, grouped, nil
}

// namedDefinition is a definition of a name a task mentions, with the
// weight of the mention shared among the name's definitions.
type namedDefinition struct {
	def    analysis.SymbolInfo
	weight float64
	source string
}

// resolveNames looks up the definitions of the names a task mentions,
// the heaviest first; a name with no definition, or with so many that
// it points nowhere, is left out.
func (s *Searcher) resolveNames(ctx context.Context, names []Mention) ([]namedDefinition, error) {
	names = names[:min(len(names), taskNames)]
	// The bare names in one query.
	var bare []string
	for _, m := range names {
		if !strings.Contains(m.Text, ".") {
			bare = append(bare, m.Text)
		}
	}
	byName, err := s.Index.DefinitionsOfNames(ctx, bare)
	if err != nil {
		return nil, err
	}
	var out []namedDefinition
	for _, m := range names {
		defs := byName[m.Text]
		if strings.Contains(m.Text, ".") {
			if defs, err = s.Index.Lookup(ctx, m.Text); err != nil {
				return nil, err
			}
		}
		if len(defs) == 0 || len(defs) > taskMaxDefinitions {
			continue
		}
		// A rare name says more: its weight is shared by its definitions.
		w := m.Weight / float64(len(defs))
		for _, d := range defs {
			out = append(out, namedDefinition{d, w, m.Source})
		}
	}
	return out, nil
}

// bestFunctions returns up to n of a file's functions, the best first:
// named definitions and the chunks that matched most.
func bestFunctions(fns []Result, n int) []Result {
	fns = slices.Clone(fns)
	slices.SortStableFunc(fns, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	seen := map[string]bool{}
	var out []Result
	for _, r := range fns {
		key := r.Symbol
		if key == "" {
			key = fmt.Sprint(r.Line)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r)
		if len(out) == n {
			break
		}
	}
	return out
}

// taskTerms picks the words of a task to search for: each term's weight
// is its inverse chunk frequency, raised by its repeats in the task; the
// taskTerms heaviest are kept.
func (s *Searcher) taskTerms(ctx context.Context, text string) ([]string, error) {
	counts := map[string]int{}
	var order []string
	for _, t := range strings.Fields(string(analysis.AppendTerms(nil, text))) {
		if counts[t] == 0 {
			order = append(order, t)
		}
		counts[t]++
	}
	if len(order) <= taskTerms {
		return order, nil
	}
	df, total, err := s.Index.TermStats(ctx, order)
	if err != nil {
		return nil, err
	}
	type weighted struct {
		term string
		w    float64
	}
	var ws []weighted
	for _, t := range order {
		d := df[t]
		if d == 0 {
			continue
		}
		idf := math.Log(1 + float64(total)/float64(d))
		ws = append(ws, weighted{t, (1 + math.Log(float64(counts[t]))) * idf})
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].w > ws[j].w })
	out := make([]string, 0, taskTerms)
	for _, w := range ws[:min(len(ws), taskTerms)] {
		out = append(out, w.term)
	}
	return out, nil
}

// pathResolver matches the paths and modules a task names to the
// workspace's files.
type pathResolver struct {
	files  map[string]bool
	byBase map[string][]string
}

func newPathResolver(all []string) *pathResolver {
	r := &pathResolver{files: map[string]bool{}, byBase: map[string][]string{}}
	for _, p := range all {
		r.files[p] = true
		r.byBase[path.Base(p)] = append(r.byBase[path.Base(p)], p)
	}
	return r
}

// file returns the workspace files a written path names: the files whose
// path is the longest tail of it ("/usr/lib/python3/site-packages/
// astropy/io/fits/card.py" names astropy/io/fits/card.py), or that end
// with it ("fits/card.py", "card.py").
func (r *pathResolver) file(written string) []string {
	w := strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(written, `\`, "/")), "/")
	cands := r.byBase[path.Base(w)]
	if len(cands) == 0 {
		return nil
	}
	best, bestSegs := []string(nil), 0
	for _, c := range cands {
		segs := commonTailSegments(w, c)
		switch {
		case segs > bestSegs:
			best, bestSegs = []string{c}, segs
		case segs == bestSegs:
			best = append(best, c)
		}
	}
	return best
}

// commonTailSegments counts the path segments two paths end with alike.
func commonTailSegments(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[len(as)-1-n] == bs[len(bs)-1-n] {
		n++
	}
	return n
}

// module returns the files a dotted module name names: its file or its
// package's __init__ (exact), or else those of the longest prefix that
// names one (the rest being a member).
func (r *pathResolver) module(dotted string) ([]string, bool) {
	parts := strings.Split(dotted, ".")
	for n := len(parts); n >= 2; n-- {
		rel := strings.Join(parts[:n], "/")
		var out []string
		for _, cand := range []string{rel + ".py", rel + "/__init__.py", rel + ".go", rel + ".ts", rel + ".js", rel + "/index.ts", rel + "/index.js"} {
			out = append(out, r.file(cand)...)
		}
		// Keep only files whose tail holds the whole module path.
		out = slices.DeleteFunc(out, func(p string) bool {
			return !strings.HasSuffix("/"+strings.TrimSuffix(strings.TrimSuffix(p, path.Ext(p)), "/__init__"), "/"+rel) &&
				!strings.HasSuffix("/"+path.Dir(p), "/"+rel)
		})
		slices.Sort(out)
		out = slices.Compact(out)
		if len(out) > 0 {
			return out, n == len(parts)
		}
	}
	return nil, false
}

// isSecondaryPath reports whether a root-relative path holds tests,
// fixtures, documentation, examples or benchmarks rather than the code
// itself.
func isSecondaryPath(p string) bool {
	if IsTestPath(p) || IsFixturePath(p) {
		return true
	}
	for _, dir := range []string{"test", "tests", "testing", "doc", "docs", "example", "examples", "benchmarks", "bench", "conftest.py", "scripts", "script"} {
		if strings.HasPrefix(p, dir+"/") || strings.Contains(p, "/"+dir+"/") || path.Base(p) == dir {
			return true
		}
	}
	return false
}

// asksAboutTests reports whether a task is about tests themselves: a
// failing test to fix is not, so only an explicit request counts.
func asksAboutTests(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range []string{"add a test", "add tests", "write a test", "write tests", "the test suite", "test coverage", "flaky test", "test fixture"} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// sourceWords names a kind of mention for a reason.
func sourceWords(source string) string {
	switch source {
	case "traceback":
		return "traceback"
	case "diff":
		return "diff"
	case "code", "quoted":
		return "task's code"
	}
	return "task"
}

// languageOfPath names a file's language by its extension, as the task
// evidence does: "py", "go", "js", "ts", "rs", "java".
func languageOfPath(p string) string {
	switch path.Ext(p) {
	case ".py", ".pyi":
		return "py"
	case ".go":
		return "go"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "js"
	case ".ts", ".tsx", ".mts", ".cts":
		return "ts"
	case ".rs":
		return "rs"
	case ".java":
		return "java"
	}
	return ""
}

// taskLanguages returns the languages a task is about, from the files it
// names and the code it quotes; nil when it does not say.
func taskLanguages(ev Evidence, text string) map[string]bool {
	langs := map[string]bool{}
	for _, m := range ev.Paths {
		if l := languageOfPath(m.Text); l != "" {
			langs[l] = true
		}
	}
	for _, hint := range []struct{ marker, lang string }{
		{"Traceback (most recent call last)", "py"}, {">>> ", "py"}, {"```python", "py"}, {"```py\n", "py"}, {"\ndef ", "py"}, {"\nimport ", "py"}, {"\nfrom ", "py"},
		{"```go", "go"}, {"\nfunc ", "go"}, {"goroutine ", "go"},
		{"```js", "js"}, {"```javascript", "js"}, {"```ts", "ts"}, {"```typescript", "ts"},
		{"```rust", "rs"}, {"\nfn ", "rs"}, {"```java\n", "java"},
	} {
		if strings.Contains(text, hint.marker) {
			langs[hint.lang] = true
		}
	}
	if langs["js"] || langs["ts"] {
		langs["js"], langs["ts"] = true, true
	}
	if len(langs) == 0 {
		return nil
	}
	return langs
}

// taskTitle returns the first line of a task when it reads as a title: a
// few words, not code, not a log line.
func taskTitle(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#*>"))
		if line == "" {
			continue
		}
		words := strings.Fields(line)
		if len(words) < 3 || len(words) > 30 || !isProse(line) && len(words) < 6 {
			return ""
		}
		return line
	}
	return ""
}
