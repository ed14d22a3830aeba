package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func extractJSMain(args []string) {
	fs := flag.NewFlagSet("extract-js", flag.ExitOnError)
	fs.Parse(args)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	total := 0
	for _, tgz := range fs.Args() {
		n, err := extractTarball(w, tgz)
		if err != nil {
			log.Printf("codevec extract-js: %s: %v", tgz, err)
			continue
		}
		total += n
	}
	fmt.Fprintf(os.Stderr, "codevec: %d pairs from %d npm tarballs\n", total, len(fs.Args()))
}

// extractTarball writes the pairs of the documented functions of one npm
// package tarball (npm pack's output) and returns how many.
func extractTarball(w io.Writer, tgz string) (int, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, err
	}
	src := "npm:" + strings.TrimSuffix(filepath.Base(tgz), ".tgz")
	if i := strings.LastIndex(src, "-"); i > 0 {
		src = src[:i] // the version
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if h.Typeflag != tar.TypeReg || !jsSource(h.Name) || h.Size > 2<<20 {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return 0, err
		}
		files = append(files, file{h.Name, data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	seen := map[string]bool{}
	n := 0
	for _, fl := range files {
		for _, p := range jsPairs(string(fl.data)) {
			key := p[0] + "\x00" + strings.SplitN(p[1], " ", 2)[0]
			if seen[key] {
				continue // the same function in lib/ and dist/
			}
			seen[key] = true
			fmt.Fprintf(w, "%s\t%s\t%s\n", src, p[0], p[1])
			n++
		}
	}
	return n, nil
}

// jsSource reports whether a tarball path is JavaScript or TypeScript
// source worth reading: not minified, not a declaration file, not a test,
// not a dependency copied in.
func jsSource(name string) bool {
	ext := path.Ext(name)
	switch ext {
	case ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx":
	default:
		return false
	}
	if strings.HasSuffix(name, ".d.ts") || strings.Contains(name, ".min.") {
		return false
	}
	for _, part := range strings.Split(path.Dir(name), "/") {
		switch part {
		case "node_modules", "test", "tests", "__tests__", "spec", "vendor", "examples", "example", "benchmark", "bench":
			return false
		}
	}
	return !strings.Contains(name, ".test.") && !strings.Contains(name, ".spec.")
}

var (
	jsDocRE = regexp.MustCompile(`(?s)/\*\*(.*?)\*/`)
	// declarations that may follow a doc comment, each naming the
	// function in group 1 and its parameters in group 2
	jsDeclREs = []*regexp.Regexp{
		regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)`),
		regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*)?\(([^)]*)\)`),
		regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>`),
		regexp.MustCompile(`^\s*(?:[\w$]+\.)*([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function\s*\*?\s*[\w$]*\s*\(([^)]*)\)`),
		regexp.MustCompile(`^\s*([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?function\s*\*?\s*[\w$]*\s*\(([^)]*)\)`),
		regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|async|override|readonly)\s+)*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(([^)]*)\)\s*(?::[^{]*)?\{`),
	}
	jsIdentRE   = regexp.MustCompile(`[A-Za-z_$][\w$]*`)
	jsStringRE  = regexp.MustCompile("'(?:[^'\\\\\n]|\\\\.)*'|\"(?:[^\"\\\\\n]|\\\\.)*\"")
	jsCommentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
)

// jsKeywords are left out of a function's words (Embed weighs most of
// them 0 anyway).
var jsKeywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "do": true, "switch": true, "case": true,
	"break": true, "continue": true, "return": true, "function": true, "var": true, "let": true,
	"const": true, "new": true, "this": true, "typeof": true, "instanceof": true, "in": true,
	"of": true, "try": true, "catch": true, "finally": true, "throw": true, "async": true,
	"await": true, "yield": true, "class": true, "extends": true, "super": true, "null": true,
	"undefined": true, "true": true, "false": true, "void": true, "delete": true, "default": true,
	"export": true, "import": true, "from": true, "static": true, "get": true, "set": true,
}

// jsPairs returns (doc sentence, code words) of each function of src that
// a JSDoc comment documents.
func jsPairs(src string) [][2]string {
	var out [][2]string
	locs := jsDocRE.FindAllStringSubmatchIndex(src, -1)
	for k, loc := range locs {
		doc := jsDocSentence(src[loc[2]:loc[3]])
		if len(strings.Fields(doc)) < 3 {
			continue
		}
		rest := src[loc[1]:]
		if k+1 < len(locs) {
			rest = src[loc[1]:locs[k+1][0]]
		}
		line := rest
		if i := strings.IndexByte(strings.TrimLeft(rest, " \t\r\n"), '\n'); i >= 0 {
			line = strings.TrimLeft(rest, " \t\r\n")[:i+1]
		}
		var name, params string
		for _, re := range jsDeclREs {
			if m := re.FindStringSubmatch(line); m != nil {
				name, params = m[1], m[2]
				break
			}
		}
		if name == "" || jsKeywords[name] || name == "constructor" {
			continue
		}
		body := jsBody(rest)
		body = jsCommentRE.ReplaceAllString(body, " ")
		body = jsStringRE.ReplaceAllString(body, " ")
		words := []string{name}
		words = append(words, jsIdentRE.FindAllString(params, -1)...)
		for _, id := range jsIdentRE.FindAllString(body, -1) {
			if len(words) >= 200 {
				break
			}
			if !jsKeywords[id] {
				words = append(words, id)
			}
		}
		out = append(out, [2]string{doc, strings.Join(words, " ")})
	}
	return out
}

// jsDocSentence returns the first sentence of a JSDoc comment's text
// (before its first @tag).
func jsDocSentence(c string) string {
	var lines []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "*"))
		if strings.HasPrefix(l, "@") {
			break
		}
		if l == "" && len(lines) > 0 {
			break
		}
		lines = append(lines, l)
	}
	doc := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(doc, ".")
	if strings.ContainsAny(doc, "<{}") || strings.HasPrefix(strings.ToLower(doc), "copyright") {
		return "" // markup or a licence header
	}
	return strings.ReplaceAll(doc, "\t", " ")
}

// jsBody returns the text from the start of rest to the end of the first
// brace-balanced block, at most 8 KB (strings and comments are not told
// apart: good enough for its words).
func jsBody(rest string) string {
	rest = rest[:min(len(rest), 8<<10)]
	depth := 0
	started := false
	for i, r := range rest {
		switch r {
		case '{':
			depth++
			started = true
		case '}':
			depth--
			if started && depth <= 0 {
				return rest[:i+1]
			}
		}
	}
	return rest
}
