package analysis

import (
	"strings"
	"testing"
)

// TestModuleDocInContext: the chunk of each top-level definition says
// what its module is about, in the first sentence of the Go package
// comment or the Python module docstring of its file, indexed with the
// context.
func TestModuleDocInContext(t *testing.T) {
	tests := []struct {
		name, lang, path, src string
		symbol                string
		want                  string // the module part of the context, "" for none
	}{
		{"go package comment", "go", "syntax/parser.go",
			"// Copyright 2016 The Go Authors.\n\n// Package syntax implements a parser for Go source. It is fast.\npackage syntax\n\n// Parse parses.\nfunc Parse() {}\n",
			"syntax.Parse", "Package syntax implements a parser for Go source."},
		{"go build constraint first", "go", "a.go",
			"//go:build linux\n\n// Package a reads files.\npackage a\n\nfunc F() {}\n",
			"a.F", "Package a reads files."},
		{"go detached comment", "go", "a.go",
			"// Copyright notice.\n\npackage a\n\nfunc F() {}\n", "a.F", ""},
		{"go no comment", "go", "a.go", "package a\n\nfunc F() {}\n", "a.F", ""},
		{"python docstring", "python", "optparse.py",
			"\"\"\"A powerful, extensible, and easy-to-use option parser.\n\nBy Greg Ward.\n\"\"\"\n\ndef make_option(*a):\n    pass\n",
			"optparse.make_option", "A powerful, extensible, and easy-to-use option parser."},
		{"python shebang, coding and raw docstring", "python", "tool.py",
			"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nr'''Check indentation.'''\n\ndef check(f):\n    pass\n",
			"tool.check", "Check indentation."},
		{"python single-quoted docstring", "python", "m.py", "'Tiny module.'\ndef f():\n    pass\n", "m.f", "Tiny module."},
		{"python code first", "python", "m.py", "import os\n\"\"\"Not a docstring.\"\"\"\ndef f():\n    pass\n", "m.f", ""},
		{"python unterminated", "python", "m.py", "\"\"\"Never closed\ndef f():\n    pass\n", "m.f", ""},
		{"javascript", "javascript", "a.js", "/** The module. */\n\nfunction read() {}\n", "a.read", ""},
		// A module describes its entry points: its top-level definitions
		// get its doc, methods do not.
		{"python class", "python", "m.py", "\"\"\"Parse options.\"\"\"\nclass Parser:\n    def parse(self):\n        pass\n", "m.Parser", "Parse options."},
		{"python method", "python", "m.py", "\"\"\"Parse options.\"\"\"\nclass Parser:\n    def parse(self):\n        pass\n", "Parser.parse", ""},
		{"go method", "go", "a.go", "// Package a parses.\npackage a\n\ntype P struct{}\n\nfunc (p *P) Parse() {}\n", "P.Parse", ""},
		{"go type", "go", "a.go", "// Package a parses.\npackage a\n\ntype P struct{ n int }\n\nfunc (p *P) Parse() {}\n", "a.P", "Package a parses."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := chunkGraph(t, tt.lang, tt.path, tt.src)
			c := chunkOf(t, g, tt.symbol)
			_, module, found := strings.Cut(c.Context, moduleMark)
			if module != tt.want || found != (tt.want != "") {
				t.Errorf("context %q: module %q, want %q", c.Context, module, tt.want)
			}
			if tt.want == "" {
				return
			}
			terms := strings.Fields(c.terms.context)
			for _, w := range strings.Fields(string(AppendTerms(nil, tt.want))) {
				if !slicesContains(terms, w) {
					t.Errorf("context terms %q lack %q of the module doc", c.terms.context, w)
				}
			}
		})
	}
}

func slicesContains(s []string, w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}

// FuzzModuleDoc: any file text gives a module doc or none, never a panic,
// and a docstring found is part of the text.
func FuzzModuleDoc(f *testing.F) {
	f.Add("\"\"\"Doc.\"\"\"\n", "python")
	f.Add("\ufeff// Package p does.\npackage p\n", "go")
	f.Add("r'''x", "python")
	f.Add("'\n'", "python")
	f.Fuzz(func(t *testing.T, src, lang string) {
		var comments []span
		for i := 0; i+1 < len(src); i++ {
			if src[i] == '/' && src[i+1] == '/' {
				end := strings.IndexByte(src[i:], '\n')
				if end < 0 {
					end = len(src) - i
				}
				comments = append(comments, span{uint32(i), uint32(i + end)})
				i += end
			}
		}
		moduleDoc(lang, []byte(src), comments)
		if d := pythonDocstring([]byte(src)); !strings.Contains(src, d) {
			t.Errorf("docstring %q is not in %q", d, src)
		}
	})
}
