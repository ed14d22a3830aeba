package analysis

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

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

// DefaultMaxFileSize is the size above which files are not indexed.
const DefaultMaxFileSize = 1 << 20

// secretPatterns match names of files that hold credentials; they are
// never read.
var secretPatterns = []string{
	".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".pgpass", ".npmrc", ".pypirc",
	"credentials.json", "*.gpg", "*.asc",
}

// IsSecret reports whether a file name looks like it holds credentials.
// It is asked of every file of a workspace on each refresh, so the
// patterns' shapes (a name, "*suffix", "prefix*") are tested without
// path.Match.
func IsSecret(name string) bool {
	for _, p := range secretPatterns {
		if matchSimple(p, name) {
			return true
		}
	}
	return false
}

// matchSimple is path.Match(pattern, name) for a name without a slash,
// testing a pattern that is a plain name, "*suffix" or "prefix*" without
// path.Match.
func matchSimple(pattern, name string) bool {
	switch i := strings.IndexAny(pattern, `*?[\`); {
	case i < 0:
		return pattern == name
	case i == 0 && !strings.ContainsAny(pattern[1:], `*?[\`):
		return strings.HasSuffix(name, pattern[1:])
	case i == len(pattern)-1:
		return strings.HasPrefix(name, pattern[:i])
	}
	ok, _ := path.Match(pattern, name)
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
	root     string
	exclude  []string
	maxSize  int64
	langs    *Languages
	patterns []gitignore.Pattern
	// ignore are the settings' .gitignore-style patterns (Options.Ignore),
	// which take precedence over exclude and the .gitignore files.
	ignore []gitignore.Pattern
	// only, when not nil, are the languages to index.
	only map[string]bool
}

// newWalker returns a walker of root with the filters of opts.
func newWalker(root string, opts Options, langs *Languages) *walker {
	w := &walker{root: root, exclude: opts.Exclude, maxSize: opts.MaxFileSize, langs: langs}
	for _, line := range opts.Ignore {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w.ignore = append(w.ignore, gitignore.ParsePattern(line, nil))
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
// followed, so link loops cannot trap it.
func (w *walker) walk(ctx context.Context) (*walkResult, error) {
	res := &walkResult{skipped: map[string]int{}}
	w.patterns = append(w.patterns, readIgnoreFile(filepath.Join(w.root, ".git", "info", "exclude"), nil)...)
	err := filepath.WalkDir(w.root, func(abs string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, relErr := filepath.Rel(w.root, abs)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel == "." {
				return err
			}
			res.skip(rel, SkipUnreadable, err.Error())
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			w.patterns = append(w.patterns, readIgnoreFile(filepath.Join(abs, ".gitignore"), nil)...)
			return nil
		}
		segs := strings.Split(rel, "/")
		name := d.Name()
		isDir := d.IsDir()
		setting := w.ignored(segs, isDir)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			res.skip(rel, SkipSymlink, "")
			return nil
		case !isDir && IsSecret(name):
			res.skip(rel, SkipSecret, "")
			return nil
		case setting == gitignore.Exclude:
			res.skip(rel, SkipExcluded, "")
			return skipEntry(isDir)
		case setting == gitignore.Include:
			// The settings bring it back, whatever the defaults and
			// the .gitignore files say.
		case w.excluded(rel, name):
			res.skip(rel, SkipExcluded, "")
			return skipEntry(isDir)
		case gitignore.NewMatcher(w.patterns).Match(segs, isDir):
			res.skip(rel, SkipGitignore, "")
			return skipEntry(isDir)
		}
		if isDir {
			w.patterns = append(w.patterns, readIgnoreFile(filepath.Join(abs, ".gitignore"), segs)...)
			return nil
		}
		lang, err := w.langs.ForPath(name)
		if err != nil {
			return err
		}
		if lang == nil {
			res.skip(rel, SkipLanguage, "")
			return nil
		}
		if w.only != nil && !w.only[lang.Name] {
			res.skip(rel, SkipLanguageOff, "")
			return nil
		}
		if !d.Type().IsRegular() {
			res.skip(rel, SkipSpecial, d.Type().String())
			return nil
		}
		info, err := d.Info()
		if err != nil {
			res.skip(rel, SkipUnreadable, err.Error())
			return nil
		}
		if info.Size() > w.maxSize {
			res.skip(rel, SkipTooLarge, fmt.Sprintf("%d bytes, cap %d", info.Size(), w.maxSize))
			return nil
		}
		res.files = append(res.files, candidate{
			rel: rel, abs: abs, lang: lang,
			st: FileState{Size: info.Size(), Mtime: info.ModTime().UnixNano()},
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", w.root, err)
	}
	return res, nil
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
	for _, pat := range w.exclude {
		if pat == name || pat == rel {
			return true
		}
		if !strings.ContainsAny(pat, `*?[{\`) {
			continue // a plain path matches only itself
		}
		if ok, _ := doublestar.Match(pat, rel); ok {
			return true
		}
	}
	return false
}

// readIgnoreFile reads the patterns of a .gitignore-style file; domain is
// the directory, as path segments from the root, that the patterns apply
// to. A missing or unreadable file has no patterns.
func readIgnoreFile(file string, domain []string) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
