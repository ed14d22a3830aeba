package analysis

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Reasons a file or directory is not indexed, as counted in Summary.Skipped.
const (
	SkipGitignore  = "gitignore"
	SkipExcluded   = "excluded"
	SkipSecret     = "secret"
	SkipSymlink    = "symlink"
	SkipSpecial    = "not_regular_file"
	SkipTooLarge   = "too_large"
	SkipBinary     = "binary"
	SkipUnreadable = "unreadable"
	SkipLanguage   = "unsupported_language"
	// SkipLanguageOff counts files in a supported language that the
	// settings leave out (Options.Languages).
	SkipLanguageOff = "language_not_selected"
)

// DefaultExclude returns the directories skipped unless configured
// otherwise: version control, dependencies, virtual environments and build
// output.
func DefaultExclude() []string {
	return []string{
		".git", ".hg", ".svn", ".bzr", "node_modules", "vendor", "__pycache__",
		".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache", "target", "dist", ".next", ".gradle",
	}
}

// virtualEnvNames are the excluded names (see DefaultExclude) that mean a
// Python virtual environment: a directory of such a name is skipped by its
// name only when it is one. The Python standard library's venv package, or
// a project's own venv module, is code.
var virtualEnvNames = map[string]bool{"venv": true, ".venv": true}

// isVirtualEnv reports whether the directory dir is a Python virtual
// environment: it holds pyvenv.cfg (PEP 405), as every environment made by
// venv, virtualenv, uv or poetry does.
func isVirtualEnv(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// DefaultMaxFileSize is the size above which files are not indexed.
const DefaultMaxFileSize = 1 << 20

// secretPatterns match names of files that hold credentials; they are
// never read.
var secretPatterns = []string{
	".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".pgpass", ".npmrc", ".pypirc",
	"credentials.json", "*.gpg", "*.asc",
}

// secretMatchers are secretPatterns, read once; never modified.
var secretMatchers = newNameMatchers(secretPatterns)

// IsSecret reports whether a file name looks like it holds credentials.
func IsSecret(name string) bool {
	for _, m := range secretMatchers {
		if m.match(name) {
			return true
		}
	}
	return false
}

// nameMatcher is a path.Match pattern for names (no slash), read ahead:
// the shapes of secretPatterns (a name, "*suffix", "prefix*") are tested
// without path.Match, as every file of a workspace is tested on each
// refresh.
type nameMatcher struct {
	pattern string
	kind    byte   // '=': a name, '*': *suffix, '^': prefix*, 0: other
	text    string // the name, suffix or prefix
}

func newNameMatchers(patterns []string) []nameMatcher {
	ms := make([]nameMatcher, len(patterns))
	for i, p := range patterns {
		ms[i] = nameMatcher{pattern: p}
		switch j := strings.IndexAny(p, `*?[\`); {
		case j < 0:
			ms[i].kind, ms[i].text = '=', p
		case p[j] != '*':
			// ?, [ and \ are left to path.Match.
		case j == 0 && !strings.ContainsAny(p[1:], `*?[\`):
			ms[i].kind, ms[i].text = '*', p[1:]
		case j == len(p)-1:
			ms[i].kind, ms[i].text = '^', p[:j]
		}
	}
	return ms
}

// match is path.Match(m.pattern, name) for a name without a slash.
func (m nameMatcher) match(name string) bool {
	switch m.kind {
	case '=':
		return name == m.text
	case '*':
		return strings.HasSuffix(name, m.text)
	case '^':
		return strings.HasPrefix(name, m.text)
	}
	ok, _ := path.Match(m.pattern, name)
	return ok
}

// candidate is a file found by the walk that may need indexing.
type candidate struct {
	rel  string // slash-separated, relative to the root
	abs  string
	lang *Language
	st   FileState // size and mtime from the walk; hash unknown
}

// Problem is a file the indexer could not index, with why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// walkResult is what a walk of the workspace found.
type walkResult struct {
	files    []candidate
	skipped  map[string]int
	problems []Problem
	// dirs are the directories read, with their mtimes; ignores the
	// ignore files read in them, with their sizes and mtimes; exclude is
	// .git/info/exclude's stamp (mtime -1 when there is none). A walk
	// with the same settings finds the same while they are unchanged
	// (see manifest).
	dirs    []stamp
	ignores []stamp
	exclude stamp
}

func (w *walkResult) skip(rel, reason, detail string) {
	w.skipped[reason]++
	switch reason {
	case SkipUnreadable, SkipTooLarge, SkipBinary, SkipSpecial:
		w.problems = append(w.problems, Problem{Path: rel, Reason: reason, Detail: detail})
	}
}

// walker finds the files of a workspace to index.
type walker struct {
	root string
	// excludeNames are the exclusions without wildcards, each matching
	// an entry's name or its path; excludeGlobs the others, matching
	// paths (see excluded).
	excludeNames map[string]bool
	excludeGlobs []string
	maxSize      int64
	langs        *Languages
	patterns     []gitignore.Pattern
	// ignore are the settings' .gitignore-style patterns (Options.Ignore),
	// which take precedence over exclude and the .gitignore files.
	ignore []gitignore.Pattern
	// only, when not nil, are the languages to index.
	only map[string]bool
	// ignoreLines are the lines of ignore, for the walk's fingerprint.
	ignoreLines []string
}

// newWalker returns a walker of root with the filters of opts.
func newWalker(root string, opts Options, langs *Languages) *walker {
	w := &walker{root: root, maxSize: opts.MaxFileSize, langs: langs, excludeNames: make(map[string]bool)}
	for _, pat := range opts.Exclude {
		// A name matches itself as a name and as a path; doublestar
		// would match a plain path only to itself.
		w.excludeNames[pat] = true
		if strings.ContainsAny(pat, `*?[{\`) {
			w.excludeGlobs = append(w.excludeGlobs, pat)
		}
	}
	for _, line := range opts.Ignore {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w.ignore = append(w.ignore, gitignore.ParsePattern(line, nil))
		w.ignoreLines = append(w.ignoreLines, line)
	}
	if len(opts.Languages) > 0 {
		w.only = make(map[string]bool, len(opts.Languages))
		for _, l := range opts.Languages {
			w.only[l] = true
		}
	}
	return w
}

// ignored applies the settings' patterns to an entry: the last pattern
// that matches decides, as in a .gitignore file. It returns
// gitignore.NoMatch when none matches.
func (w *walker) ignored(segs []string, isDir bool) gitignore.MatchResult {
	for i := len(w.ignore) - 1; i >= 0; i-- {
		if m := w.ignore[i].Match(segs, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}

// walk lists the files under the root that can be indexed, honouring
// .gitignore files (at every level, and .git/info/exclude), excluded
// directories, the size cap and secret names. Symbolic links are not
// followed, so link loops cannot trap it. Directories are read by a few
// goroutines at once (a refresh with nothing changed is mostly this
// walk); the result is in the order of a sequential walk
// (filepath.WalkDir's), whatever the order directories were read in.
func (w *walker) walk(ctx context.Context) (*walkResult, error) {
	st, err := os.Stat(w.root)
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", w.root, err)
	}
	res := &walkResult{skipped: map[string]int{}}
	if !st.IsDir() {
		return res, nil
	}
	patterns, exclude := readIgnoreFile(filepath.Join(w.root, ".git", "info", "exclude"), nil)
	res.exclude = stamp{rel: ".git/info/exclude", size: exclude.size, mtime: exclude.mtime}
	own, ignore := readIgnoreFile(filepath.Join(w.root, ".gitignore"), nil)
	patterns = append(patterns, own...)
	if ignore.mtime >= 0 {
		res.ignores = append(res.ignores, stamp{rel: ".gitignore", size: ignore.size, mtime: ignore.mtime})
	}

	var (
		mu     sync.Mutex
		parts  []*walkResult
		first  error
		wg     sync.WaitGroup
		tokens = make(chan struct{}, walkWorkers())
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	// visitDir reads one directory and starts the visits of the
	// directories in it that are not skipped; patterns are the
	// .gitignore patterns in force in it.
	var visitDir func(abs, rel string, patterns []gitignore.Pattern)
	visitDir = func(abs, rel string, patterns []gitignore.Pattern) {
		defer wg.Done()
		tokens <- struct{}{}
		part := &walkResult{skipped: map[string]int{}}
		subdirs, err := w.readDir(ctx, part, abs, rel, patterns)
		<-tokens
		if err != nil {
			fail(err)
			return
		}
		mu.Lock()
		parts = append(parts, part)
		mu.Unlock()
		for _, d := range subdirs {
			wg.Add(1)
			go visitDir(d.abs, d.rel, d.patterns)
		}
	}
	wg.Add(1)
	visitDir(w.root, ".", patterns)
	wg.Wait()
	if first != nil {
		return nil, fmt.Errorf("walk %s: %w", w.root, first)
	}
	for _, part := range parts {
		res.files = append(res.files, part.files...)
		res.problems = append(res.problems, part.problems...)
		res.dirs = append(res.dirs, part.dirs...)
		res.ignores = append(res.ignores, part.ignores...)
		for k, n := range part.skipped {
			res.skipped[k] += n
		}
	}
	slices.SortFunc(res.files, func(a, b candidate) int { return comparePaths(a.rel, b.rel) })
	slices.SortStableFunc(res.problems, func(a, b Problem) int { return comparePaths(a.Path, b.Path) })
	return res, nil
}

// walkWorkers is how many directories a walk reads at once.
func walkWorkers() int {
	return min(max(2*runtime.GOMAXPROCS(0), 4), 16)
}

// comparePaths orders slash-separated paths as a walk visits them: by
// their segments, so that "a/b.go" comes before "a.go".
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		sa, ra, _ := strings.Cut(a, "/")
		sb, rb, _ := strings.Cut(b, "/")
		if c := strings.Compare(sa, sb); c != 0 {
			return c
		}
		a, b = ra, rb
	}
	return strings.Compare(a, b)
}

// subdir is a directory a walk descends into.
type subdir struct {
	abs, rel string
	patterns []gitignore.Pattern // in force in it, its own .gitignore's last
}

// readDir reads the directory abs (rel from the root, "." for the root)
// into res and returns the directories in it to walk. An unreadable
// directory other than the root is counted as skipped.
func (w *walker) readDir(ctx context.Context, res *walkResult, abs, rel string, patterns []gitignore.Pattern) ([]subdir, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The directory's mtime before its entries: a change while they are
	// read leaves it different from the one kept.
	var mtime int64 = -1
	if info, err := os.Lstat(abs); err == nil {
		mtime = info.ModTime().UnixNano()
	}
	entries, err := os.ReadDir(abs)
	if err == nil {
		res.dirs = append(res.dirs, stamp{rel: rel, mtime: mtime})
	}
	if err != nil {
		if rel == "." {
			return nil, err
		}
		res.skip(rel, SkipUnreadable, err.Error())
		return nil, nil
	}
	var dirs []subdir
	matcher := gitignore.NewMatcher(patterns)
	for _, d := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := d.Name()
		childRel, childAbs := name, filepath.Join(abs, name)
		if rel != "." {
			childRel = rel + "/" + name
		}
		segs := strings.Split(childRel, "/")
		isDir := d.IsDir()
		setting := w.ignored(segs, isDir)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			res.skip(childRel, SkipSymlink, "")
			continue
		case !isDir && IsSecret(name):
			res.skip(childRel, SkipSecret, "")
			continue
		case setting == gitignore.Exclude:
			res.skip(childRel, SkipExcluded, "")
			continue
		case setting == gitignore.Include:
			// The settings bring it back, whatever the defaults and
			// the .gitignore files say.
		case w.excluded(childRel, name) && !(isDir && w.excludeNames[name] && virtualEnvNames[name] && !isVirtualEnv(childAbs)):
			res.skip(childRel, SkipExcluded, "")
			continue
		case matcher.Match(segs, isDir):
			res.skip(childRel, SkipGitignore, "")
			continue
		}
		if isDir {
			own, st := readIgnoreFile(filepath.Join(childAbs, ".gitignore"), segs)
			if st.mtime >= 0 {
				res.ignores = append(res.ignores, stamp{rel: childRel + "/.gitignore", size: st.size, mtime: st.mtime})
			}
			dirs = append(dirs, subdir{abs: childAbs, rel: childRel, patterns: append(slices.Clip(patterns), own...)})
			continue
		}
		lang, err := w.langs.ForPath(name)
		if err != nil {
			return nil, err
		}
		if lang == nil {
			res.skip(childRel, SkipLanguage, "")
			continue
		}
		if w.only != nil && !w.only[lang.Name] {
			res.skip(childRel, SkipLanguageOff, "")
			continue
		}
		if !d.Type().IsRegular() {
			res.skip(childRel, SkipSpecial, d.Type().String())
			continue
		}
		info, err := d.Info()
		if err != nil {
			res.skip(childRel, SkipUnreadable, err.Error())
			continue
		}
		if info.Size() > w.maxSize {
			res.skip(childRel, SkipTooLarge, fmt.Sprintf("%d bytes, cap %d", info.Size(), w.maxSize))
			// Cut down in place, it would be indexed: its size counts.
			res.ignores = append(res.ignores, stamp{rel: childRel, size: info.Size(), mtime: info.ModTime().UnixNano()})
			continue
		}
		res.files = append(res.files, candidate{
			rel: childRel, abs: childAbs, lang: lang,
			st: FileState{Size: info.Size(), Mtime: info.ModTime().UnixNano()},
		})
	}
	return dirs, nil
}

func skipEntry(isDir bool) error {
	if isDir {
		return fs.SkipDir
	}
	return nil
}

// excluded reports whether an entry matches an excluded name or glob
// (node_modules, docs/**, **/*.pb.go).
func (w *walker) excluded(rel, name string) bool {
	if w.excludeNames[name] || w.excludeNames[rel] {
		return true
	}
	for _, pat := range w.excludeGlobs {
		if ok, _ := doublestar.Match(pat, rel); ok {
			return true
		}
	}
	return false
}

// readIgnoreFile reads the patterns of a .gitignore-style file; domain is
// the directory, as path segments from the root, that the patterns apply
// to. A missing or unreadable file has no patterns. It returns the file's
// size and mtime as read (mtime -1 when it could not be opened).
func readIgnoreFile(file string, domain []string) ([]gitignore.Pattern, stamp) {
	f, err := os.Open(file)
	if err != nil {
		return nil, stamp{mtime: -1}
	}
	defer f.Close()
	st := stamp{mtime: -1}
	if info, err := f.Stat(); err == nil {
		st.size, st.mtime = info.Size(), info.ModTime().UnixNano()
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps, st
}
