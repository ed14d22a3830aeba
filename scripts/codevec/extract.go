package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// excludedModules are module path prefixes (as the module cache spells
// them) never read: the modules the evaluation sets answer from, every
// module of this repository's go.mod graph (go list -m all, checked at
// run time as well), and modules that copy code of the Go tree or of the
// Python library (golang.org/x is vendored into GOROOT/src, go-internal
// copies cmd/go, segmentio/encoding and json-iterator follow
// encoding/json, klauspost/compress forks compress/*, quic-go and utls
// fork crypto/tls, go-difflib ports difflib).
var excludedModules = []string{
	"go.uber.org/zap@", "github.com/spf13/cobra@", "github.com/spf13/pflag@",
	"github.com/modelcontextprotocol/", "gopkg.in/yaml.", "go.yaml.in/",
	"github.com/jackc/", "github.com/google/go-cmp@", "github.com/dlclark/regexp2@",
	"golang.org/x/", "github.com/rogpeppe/go-internal@", "github.com/segmentio/",
	"github.com/json-iterator/", "github.com/klauspost/", "github.com/quic-go/",
	"github.com/refraction-networking/", "github.com/pmezard/go-difflib@",
	"mvdan.cc/gofumpt@", "cache/",
}

// skippedDirs are directories inside a module that hold copies of other
// code or generated code.
var skippedDirs = map[string]bool{
	"vendor": true, "testdata": true, "third_party": true, "forked": true,
	"internal/third_party": true, "_examples": true, "examples": true, "example": true,
}

func extractGoMain(args []string) {
	fs := flag.NewFlagSet("extract-go", flag.ExitOnError)
	modcache := fs.String("modcache", "", "module cache to read (never the machine's: a directory filled by go mod download with GOMODCACHE set)")
	graph := fs.String("exclude-graph", ".", "also exclude every module of this module's go list -m all")
	fs.Parse(args)
	if *modcache == "" {
		log.Fatal("codevec extract-go: -modcache is required")
	}
	excl := append([]string(nil), excludedModules...)
	if *graph != "" {
		cmd := exec.Command("go", "list", "-m", "all")
		cmd.Dir = *graph
		out, err := cmd.Output()
		if err != nil {
			log.Fatalf("codevec extract-go: go list -m all: %v", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				excl = append(excl, escapeModule(f[0])+"@")
			}
		}
	}
	mods, err := latestModules(*modcache, excl)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	total := 0
	for _, mod := range mods {
		n, err := extractModule(w, filepath.Join(*modcache, mod), mod)
		if err != nil {
			log.Fatal(err)
		}
		total += n
	}
	fmt.Fprintf(os.Stderr, "codevec: %d pairs from %d modules\n", total, len(mods))
}

// escapeModule escapes a module path as the module cache spells it
// (upper-case letters as ! and the lower-case letter).
func escapeModule(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// latestModules returns the module directories (module@version relative
// to the cache) not excluded, one version per module, sorted.
func latestModules(cache string, excl []string) ([]string, error) {
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
		for _, e := range excl {
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

// extractModule writes the pairs of one module's documented functions and
// methods and returns how many.
func extractModule(w io.Writer, dir, mod string) (int, error) {
	n := 0
	src := mod[:strings.Index(mod, "@")]
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			if p != dir && (skippedDirs[d.Name()] || skippedDirs[filepath.ToSlash(rel)] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, ".pb.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if generated(data) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // not ours to fix
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Doc == nil || fd.Body == nil || strings.HasPrefix(fd.Name.Name, "Test") {
				continue
			}
			doc := goDocSentence(fd.Doc.Text(), fd.Name.Name)
			if len(strings.Fields(doc)) < 3 {
				continue
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", src, doc, goCode(fd))
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("read %s: %w", mod, err)
	}
	return n, nil
}

// generated reports whether a Go file says it is generated.
func generated(data []byte) bool {
	head := data[:min(len(data), 2048)]
	return bytes.Contains(head, []byte("Code generated")) || bytes.Contains(head, []byte("DO NOT EDIT"))
}

// goDocSentence returns the doc comment's first sentence without the
// name it starts with by Go's convention ("Parse parses …" → "parses …"):
// a question does not name what it looks for.
func goDocSentence(doc, name string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(doc, ".")
	if f := strings.Fields(doc); len(f) > 0 && (f[0] == name || strings.TrimSuffix(f[0], "()") == name) {
		doc = strings.Join(f[1:], " ")
	}
	if strings.HasPrefix(doc, "Deprecated") {
		return ""
	}
	return strings.ReplaceAll(doc, "\t", " ")
}

// goCode returns a function as words: receiver type, name, parameter
// names and types, then the identifiers of its body, at most 200.
func goCode(fd *ast.FuncDecl) string {
	var words []string
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		ast.Inspect(fd.Recv.List[0].Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				words = append(words, id.Name)
			}
			return true
		})
	}
	words = append(words, fd.Name.Name)
	ast.Inspect(fd.Type, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			words = append(words, id.Name)
		}
		return true
	})
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if len(words) >= 200 {
			return false
		}
		if id, ok := n.(*ast.Ident); ok {
			words = append(words, id.Name)
		}
		return true
	})
	return strings.Join(words, " ")
}
