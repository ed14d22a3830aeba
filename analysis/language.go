package analysis

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// queryFiles holds one folder of tree-sitter queries per language, named
// after the language. tags.scm finds definitions and references.
//
//go:embed queries
var queryFiles embed.FS

// languageSpec is one row of the language table: adding a language means
// adding a row here and a folder queries/<name>/ with its tags.scm.
type languageSpec struct {
	name       string
	extensions []string
	grammar    func() *sitter.Language
}

// languageTable lists the supported languages.
var languageTable = []languageSpec{
	{"go", []string{".go"}, golang.GetLanguage},
	{"python", []string{".py", ".pyi"}, python.GetLanguage},
	{"javascript", []string{".js", ".jsx", ".mjs", ".cjs"}, javascript.GetLanguage},
	{"typescript", []string{".ts", ".mts", ".cts"}, typescript.GetLanguage},
	{"tsx", []string{".tsx"}, tsx.GetLanguage},
	{"rust", []string{".rs"}, rust.GetLanguage},
	{"java", []string{".java"}, java.GetLanguage},
}

// Language is a supported language with its grammar and compiled queries.
// A Language is safe for concurrent use; parsers are not, and are made per
// worker with NewParser. Its queries compile on first use (see compile):
// a command that parses only Go files, or none, pays for no other
// language's queries.
type Language struct {
	Name string
	spec languageSpec

	once sync.Once
	err  error // from compiling the queries
	// The fields below are set by compile.
	grammar *sitter.Language
	tags    *sitter.Query
	// captureNames maps capture ids of tags to their names.
	captureNames []string
	// predicates holds the compiled predicates of each pattern of tags.
	predicates [][]predicate
	// keepNodes marks the captures of definitions, whose nodes a query
	// keeps (to read their signatures).
	keepNodes []uint8
	// roots marks, by grammar symbol, the node types tags patterns start
	// at; nil when they cannot be listed (see patternRoots).
	roots []uint8
	// inner holds, for each node type patterns start at, the node types
	// they name below it (see patternInner); nil when unknown.
	inner map[sitter.Symbol]*nodeTypes
}

// predicate is a compiled #eq?, #not-eq?, #match?, #not-match? or
// #any-of? condition on a capture's text.
type predicate struct {
	capture uint32
	negate  bool
	values  []string       // eq? / any-of?
	re      *regexp.Regexp // match?
}

// holds reports whether the predicate accepts the text of its capture.
func (p predicate) holds(text string) bool {
	ok := false
	if p.re != nil {
		ok = p.re.MatchString(text)
	} else {
		for _, v := range p.values {
			if v == text {
				ok = true
				break
			}
		}
	}
	return ok != p.negate
}

// compilePredicates reads the predicates of every pattern of q.
func compilePredicates(q *sitter.Query) ([][]predicate, error) {
	out := make([][]predicate, q.PatternCount())
	for i := range out {
		for _, steps := range q.PredicatesForPattern(uint32(i)) {
			if len(steps) < 3 || steps[0].Type != sitter.QueryPredicateStepTypeString || steps[1].Type != sitter.QueryPredicateStepTypeCapture {
				return nil, fmt.Errorf("pattern %d: unsupported predicate", i)
			}
			op := q.StringValueForId(steps[0].ValueId)
			p := predicate{capture: steps[1].ValueId, negate: strings.HasPrefix(op, "not-")}
			var args []string
			for _, st := range steps[2:] {
				if st.Type == sitter.QueryPredicateStepTypeDone {
					break // each predicate's steps end with Done
				}
				if st.Type != sitter.QueryPredicateStepTypeString {
					return nil, fmt.Errorf("pattern %d: #%s takes strings", i, op)
				}
				args = append(args, q.StringValueForId(st.ValueId))
			}
			switch strings.TrimPrefix(op, "not-") {
			case "eq?", "any-of?":
				p.values = args
			case "match?":
				re, err := regexp.Compile(args[0])
				if err != nil {
					return nil, fmt.Errorf("pattern %d: #%s: %w", i, op, err)
				}
				p.re = re
			default:
				return nil, fmt.Errorf("pattern %d: unsupported predicate #%s", i, op)
			}
			out[i] = append(out[i], p)
		}
	}
	return out, nil
}

// Languages is the set of supported languages. Each language's queries
// compile on first use.
type Languages struct {
	byExt map[string]*Language
	all   []*Language
}

// NewLanguages returns the supported languages. Their queries compile on
// first use.
func NewLanguages() *Languages {
	ls := &Languages{byExt: make(map[string]*Language)}
	for _, spec := range languageTable {
		lang := &Language{Name: spec.name, spec: spec}
		ls.all = append(ls.all, lang)
		for _, ext := range spec.extensions {
			ls.byExt[ext] = lang
		}
	}
	return ls
}

// compile compiles the language's queries, once, and returns the error
// of doing so.
func (l *Language) compile() error {
	l.once.Do(func() { l.err = l.compileOnce() })
	return l.err
}

func (l *Language) compileOnce() error {
	src, err := querySource(queryFiles, l.spec.name, "tags.scm", nil)
	if err != nil {
		return fmt.Errorf("load queries for %s: %w", l.spec.name, err)
	}
	grammar := l.spec.grammar()
	q, err := sitter.NewQuery(src, grammar)
	if err != nil {
		return fmt.Errorf("compile queries/%s/tags.scm: %w", l.spec.name, err)
	}
	names := make([]string, q.CaptureCount())
	for i := range names {
		names[i] = q.CaptureNameForId(uint32(i))
	}
	preds, err := compilePredicates(q)
	if err != nil {
		q.Close()
		return fmt.Errorf("compile queries/%s/tags.scm: %w", l.spec.name, err)
	}
	keep := make([]uint8, len(names))
	for i, name := range names {
		if strings.HasPrefix(name, "definition.") {
			keep[i] = 1
		}
	}
	l.grammar, l.tags, l.captureNames, l.predicates, l.keepNodes = grammar, q, names, preds, keep
	l.roots = patternRoots(q, src, grammar)
	if l.roots != nil {
		l.inner = patternInner(q, src, grammar)
	}
	return nil
}

// inheritsPrefix starts a query file's first line, after the comment
// marks, when it names the languages whose file of the same name it
// includes, as nvim-treesitter's queries do: "; inherits: typescript"
// (several are separated by commas).
const inheritsPrefix = "inherits:"

// querySource returns the query file queries/<lang>/<name> of fsys with
// the files it inherits placed before it, in the order named. seen holds
// the languages being read, to report a cycle.
func querySource(fsys fs.FS, lang, name string, seen []string) ([]byte, error) {
	if slices.Contains(seen, lang) {
		return nil, fmt.Errorf("queries/%s/%s: inherits itself (%s)", lang, name, strings.Join(append(seen, lang), " -> "))
	}
	own, err := fs.ReadFile(fsys, path.Join("queries", lang, name))
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(string(own), "\n")
	comment, isComment := strings.CutPrefix(strings.TrimSpace(first), ";")
	rest, ok := strings.CutPrefix(strings.TrimLeft(comment, "; \t"), inheritsPrefix)
	if !isComment || !ok {
		return own, nil
	}
	var src []byte
	for _, base := range strings.Split(rest, ",") {
		base = strings.TrimSpace(base)
		if base == "" {
			continue
		}
		b, err := querySource(fsys, base, name, append(seen, lang))
		if err != nil {
			return nil, fmt.Errorf("queries/%s/%s inherits %s: %w", lang, name, base, err)
		}
		src = append(append(src, b...), '\n')
	}
	return append(src, own...), nil
}

// ForPath returns the language of a file by its extension, or nil if the
// file is in no supported language.
func (ls *Languages) ForPath(p string) (*Language, error) {
	return ls.byExt[strings.ToLower(filepath.Ext(p))], nil
}

// ByName returns the language with the given name, or nil.
func (ls *Languages) ByName(name string) (*Language, error) {
	for _, l := range ls.all {
		if l.Name == name {
			return l, nil
		}
	}
	return nil, nil
}

// Names lists the supported languages in table order.
func Names() []string {
	names := make([]string, len(languageTable))
	for i, spec := range languageTable {
		names[i] = spec.name
	}
	return names
}

// Extensions lists the file extensions of the supported languages, with
// their dot, in table order.
func Extensions() []string {
	var exts []string
	for _, spec := range languageTable {
		exts = append(exts, spec.extensions...)
	}
	return exts
}

// Supports reports whether a file's extension is of a supported language.
func (ls *Languages) Supports(p string) bool {
	l, err := ls.ForPath(p)
	return err == nil && l != nil
}
