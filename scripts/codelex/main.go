// Command codelex learns which words code names use for the words people
// write (a question's "remove" is a name's "delete", "del", "drop"), from
// the doc comments of Go definitions paired with the words of the names
// they document, counted across many modules, and writes the links as the
// table that package retrieval embeds (retrieval/codelex/codelex.txt).
//
// The corpus is the Go module cache, minus every module an evaluation set
// of retrieval/testdata/eval answers from and every module that copies
// code of the Go tree or of the Python library (whose evaluation sets
// would otherwise see their answers' own doc comments): see excluded.
//
//	go run ./scripts/codelex            # writes retrieval/codelex.txt
//	go run ./scripts/codelex -check     # fails when the file differs
//
// Python docstrings come from the third-party packages of the Debian
// python3 install (pythonPackages, read by pydocs.py), never from the
// standard library. The output depends only on the modules and packages
// listed in the file's header.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
)

// excluded are module path prefixes (module@version paths under the
// cache, escaped as the cache spells them) left out of the corpus: those
// the evaluation sets answer from, and those holding copies of the Go tree
// (golang.org/x is vendored into GOROOT/src; go-internal copies cmd/go;
// segmentio/encoding forks encoding/json; gofumpt vendors go/printer) or
// of the Python library (go-difflib ports difflib).
var excluded = []string{
	"go.uber.org/zap@",
	"github.com/spf13/cobra@",
	"github.com/modelcontextprotocol/go-sdk@",
	"gopkg.in/yaml.v3@",
	"gopkg.in/yaml.v2@",
	"github.com/jackc/",
	"github.com/google/go-cmp@",
	"golang.org/x/",
	"github.com/rogpeppe/go-internal@",
	"github.com/segmentio/encoding@",
	"github.com/pmezard/go-difflib@",
	"mvdan.cc/gofumpt@",
	"cache/",
}

// Table limits.
const (
	minPairs    = 3    // definitions a link must be seen in
	minModules  = 2    // distinct modules it must be seen in
	minNPMI     = 0.25 // normalised PMI floor
	maxNameDocs = 0.03 // share of definitions above which a name word is too common to link to
	perWord     = 20   // links kept per doc word
)

func main() {
	out := flag.String("out", "retrieval/codelex/codelex.txt", "output file")
	check := flag.Bool("check", false, "compare with -out instead of writing it")
	modcache := flag.String("modcache", "", "module cache (default: go env GOMODCACHE)")
	pyroot := flag.String("python", "/usr/lib/python3/dist-packages", "Python packages directory (\"\" for none)")
	flag.Parse()
	if *modcache == "" {
		b, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			log.Fatalf("go env GOMODCACHE: %v", err)
		}
		*modcache = strings.TrimSpace(string(b))
	}
	out2, err := generate(*modcache, *pyroot, filepath.Join("scripts", "codelex", "pydocs.py"))
	if err != nil {
		log.Fatal(err)
	}
	buf := bytes.NewBuffer(out2)
	if *check {
		old, err := os.ReadFile(*out)
		if err != nil {
			log.Fatal(err)
		}
		if !bytes.Equal(old, buf.Bytes()) {
			log.Fatalf("%s is not what the generator makes: run go run ./scripts/codelex", *out)
		}
		return
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// generate returns the table learned from the Go modules of modcache and
// the Python packages of pyroot ("" for none), read by the pydocs.py at
// script.
func generate(modcache, pyroot, script string) ([]byte, error) {
	mods, err := modules(modcache)
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, p := range pythonPackages {
		if _, err := os.Stat(filepath.Join(pyroot, filepath.FromSlash(p))); err == nil && pyroot != "" {
			pkgs = append(pkgs, p)
		}
	}
	return generateFrom(modcache, mods, pyroot, pkgs, script)
}

// generateFrom returns the table learned from the given modules (module
// directories relative to modcache) and Python packages (relative to
// pyroot).
func generateFrom(modcache string, mods []string, pyroot string, pkgs []string, script string) ([]byte, error) {
	var c counts
	c.init()
	for _, m := range mods {
		if err := c.addModule(filepath.Join(modcache, m), m); err != nil {
			return nil, err
		}
	}
	if len(pkgs) > 0 {
		names, err := c.addPython(pyroot, pkgs, script)
		if err != nil {
			return nil, err
		}
		mods = append(slices.Clip(mods), names...)
	}
	var buf bytes.Buffer
	c.write(&buf, mods)
	return buf.Bytes(), nil
}

// modules returns the module directories (module@version, relative to the
// cache) of the corpus, sorted; of several versions of a module, the last
// in sort order.
func modules(cache string) ([]string, error) {
	var mods []string
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(cache, p)
		rel = filepath.ToSlash(rel)
		if rel == "cache" {
			return filepath.SkipDir
		}
		if strings.Contains(d.Name(), "@") {
			mods = append(mods, rel)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list modules: %w", err)
	}
	sort.Strings(mods)
	latest := map[string]string{}
	for _, m := range mods {
		latest[m[:strings.Index(m, "@")]] = m
	}
	var out []string
	for _, m := range latest {
		skip := false
		for _, e := range excluded {
			if strings.HasPrefix(m, e) {
				skip = true
			}
		}
		if !skip {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// pythonPackages are the Python packages of the corpus, relative to the
// packages directory: third-party packages of the Debian python3 install,
// none of which is a copy of the standard library (setuptools, whose
// commands mirror distutils', and distlib, PyYAML, pip's vendored tomli and
// typing_extensions are left out; pydocs.py skips vendored backports).
var pythonPackages = []string{
	"pygments", "cryptography", "oauthlib", "pynvim", "lazr", "greenlet", "dbus", "wheel", "jwt",
	"argcomplete", "httplib2", "msgpack", "distro", "blinker", "pyparsing", "wadllib", "OpenSSL",
	"crcmod", "toml", "softwareproperties", "apt", "aptsources", "cupshelpers", "gi", "pkg_resources",
	"pip",
	"pip/_vendor/rich", "pip/_vendor/urllib3", "pip/_vendor/requests", "pip/_vendor/packaging",
	"pip/_vendor/resolvelib", "pip/_vendor/platformdirs", "pip/_vendor/cachecontrol",
	"pip/_vendor/chardet", "pip/_vendor/idna", "pip/_vendor/tenacity", "pip/_vendor/colorama",
	"pip/_vendor/webencodings",
}

// addPython counts the documented definitions of the Python packages pkgs
// under root (by pydocs.py) and returns their names as "python:package".
func (c *counts) addPython(root string, pkgs []string, script string) ([]string, error) {
	var dirs, names []string
	for _, p := range pkgs {
		dirs = append(dirs, filepath.Join(root, filepath.FromSlash(p)))
		names = append(names, "python:"+p)
	}
	out, err := exec.Command("python3", append([]string{script}, dirs...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("read Python docstrings: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		c.addDefText("python:"+f[0], f[1], f[2])
	}
	return names, nil
}

// counts are the corpus's statistics.
type counts struct {
	defs     int
	docDF    map[string]int
	nameDF   map[string]int
	pair     map[[2]string]int
	pairMods map[[2]string]int
	lastMod  map[[2]string]string
}

func (c *counts) init() {
	c.docDF, c.nameDF = map[string]int{}, map[string]int{}
	c.pair, c.pairMods, c.lastMod = map[[2]string]int{}, map[[2]string]int{}, map[[2]string]string{}
}

// addModule counts the documented definitions of a module's Go files
// (tests, testdata, vendor and internal copies left out).
func (c *counts) addModule(dir, mod string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "vendor", "third_party", "govendor":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // a file that does not parse teaches nothing
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				c.addDef(mod, d.Name.Name, d.Doc)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						doc := ts.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						c.addDef(mod, ts.Name.Name, doc)
					}
				}
			}
		}
		return nil
	})
}

// addDef counts one definition: the terms of its doc comment's first
// sentence against the terms of its name.
func (c *counts) addDef(mod, name string, doc *ast.CommentGroup) {
	if doc == nil {
		return
	}
	c.addDefText(mod, name, firstSentence(doc.Text()))
}

// addDefText counts one definition given its doc's first sentence.
func (c *counts) addDefText(mod, name, sentence string) {
	if name == "_" {
		return
	}
	names := termSet(string(analysis.AppendNameTerms(nil, name)))
	if len(names) == 0 {
		return
	}
	docs := termSet(string(analysis.AppendTerms(nil, sentence)))
	for t := range names {
		delete(docs, t)
	}
	if len(docs) == 0 {
		return
	}
	c.defs++
	for d := range docs {
		c.docDF[d]++
	}
	for n := range names {
		c.nameDF[n]++
		for d := range docs {
			k := [2]string{d, n}
			c.pair[k]++
			if c.lastMod[k] != mod {
				c.lastMod[k] = mod
				c.pairMods[k]++
			}
		}
	}
}

func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(s) {
		if len(t) >= 2 && !isDigits(t) {
			m[t] = true
		}
	}
	return m
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// firstSentence returns the text up to the end of the doc comment's first
// sentence (or first paragraph).
func firstSentence(doc string) string {
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	return doc
}

type link struct {
	code  string
	score float64
}

// write writes the table: a header, then one line per doc word, "word
// code:score code:score …", links best first.
func (c *counts) write(buf *bytes.Buffer, mods []string) {
	links := map[string][]link{}
	n := float64(c.defs)
	for k, co := range c.pair {
		if co < minPairs || c.pairMods[k] < minModules || k[0] == k[1] {
			continue
		}
		if float64(c.nameDF[k[1]]) > maxNameDocs*n {
			continue
		}
		pxy := float64(co) / n
		px, py := float64(c.docDF[k[0]])/n, float64(c.nameDF[k[1]])/n
		npmi := math.Log(pxy/(px*py)) / -math.Log(pxy)
		if npmi < minNPMI {
			continue
		}
		links[k[0]] = append(links[k[0]], link{k[1], npmi})
	}
	words := make([]string, 0, len(links))
	for w := range links {
		words = append(words, w)
	}
	sort.Strings(words)
	fmt.Fprintf(buf, "# Generated by go run ./scripts/codelex; do not edit.\n")
	fmt.Fprintf(buf, "# %d documented definitions of %d Go modules and Python packages:\n", c.defs, len(mods))
	for _, m := range mods {
		fmt.Fprintf(buf, "#   %s\n", m)
	}
	fmt.Fprintf(buf, "# Each line: a doc word's stem, then the name words (stems) that document\n")
	fmt.Fprintf(buf, "# it, with their normalised PMI (seen in >= %d definitions of >= %d modules).\n", minPairs, minModules)
	for _, w := range words {
		l := links[w]
		slices.SortFunc(l, func(a, b link) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return strings.Compare(a.code, b.code)
		})
		if len(l) > perWord {
			l = l[:perWord]
		}
		buf.WriteString(w)
		for _, x := range l {
			fmt.Fprintf(buf, " %s:%.2f", x.code, x.score)
		}
		buf.WriteByte('\n')
	}
}
