package analysis

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// fuzzExtract runs a fuzz target for one language: it is seeded with the
// sample app's files of that language and the given snippets, and checks
// the graph extracted from any input with checkGraph.
func fuzzExtract(f *testing.F, langName, path string, snippets ...string) {
	langs := NewLanguages()
	lang, err := langs.ByName(langName)
	if err != nil || lang == nil {
		f.Fatalf("language %s: %v", langName, err)
	}
	seeds := 0
	err = filepath.WalkDir(sampleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l, err := langs.ForPath(p)
		if err != nil || l != lang {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(src)
		seeds++
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if seeds == 0 {
		f.Fatalf("testdata/sampleapp has no %s file", langName)
	}
	for _, s := range snippets {
		f.Add([]byte(s))
	}
	// Inputs every language must survive.
	for _, s := range []string{"", "\x00", "\xff\xfe\xfd", "\n\n\n", "{{{{{{{{", "}}}}", "((((((", "\"unterminated", "/* unterminated", "\t \r\n\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// Extract runs apart so that an input it never returns from fails
		// (and is saved) instead of stalling the fuzzer.
		type result struct {
			g, again  *FileGraph
			err, err2 error
		}
		done := make(chan result, 1)
		go func() {
			p := NewParser()
			defer p.Close()
			var r result
			r.g, r.err = p.Extract(context.Background(), lang, path, src)
			if r.err == nil {
				// A parser reused for the same input gives the same graph,
				// and so does the query run on the whole tree rather than
				// from the patterns' root nodes.
				p.noRooted = true
				r.again, r.err2 = p.Extract(context.Background(), lang, path, src)
			}
			done <- r
		}()
		r := hang(t, done, extractTimeout, fmt.Sprintf("Extract of %d bytes of %s %q", len(src), langName, src))
		if r.err != nil {
			t.Fatalf("Extract: %v", r.err)
		}
		if r.err2 != nil {
			t.Fatalf("second Extract: %v", r.err2)
		}
		if !reflect.DeepEqual(r.g, r.again) {
			t.Errorf("extracting the same input twice (from root nodes, on the whole tree) gives different graphs:\n%+v\n%+v", r.g, r.again)
		}
		checkGraph(t, lang.Name, path, src, r.g)
	})
}

// extractTimeout is how long the extraction of one fuzz input takes at
// most on a quiet machine (the inputs are small and take milliseconds); a
// slower one is logged. It fails only as a hang, at the test's deadline
// (see hang).
const extractTimeout = 10 * time.Second

// hang waits for done, which a goroutine doing one step of a test closes
// or sends on. It logs when the step takes longer than expected and fails
// the test when it is still running shortly before the test binary's
// deadline (go test -timeout), or after ten minutes without one: a busy
// machine slows the step down without failing it.
func hang[T any](t *testing.T, done <-chan T, expected time.Duration, what string) T {
	t.Helper()
	limit := 10 * time.Minute
	if d, ok := t.Deadline(); ok {
		left := time.Until(d)
		limit = left - min(left/10+5*time.Second, left/2)
	}
	slow := time.NewTimer(expected)
	defer slow.Stop()
	end := time.NewTimer(limit)
	defer end.Stop()
	for {
		select {
		case v := <-done:
			return v
		case <-slow.C:
			t.Logf("%s: still running after %v", what, expected)
		case <-end.C:
			t.Fatalf("%s: still running at the test's deadline", what)
		}
	}
}

// checkGraph checks the invariants of a graph extracted from src.
func checkGraph(t *testing.T, lang, path string, src []byte, g *FileGraph) {
	t.Helper()
	if g == nil {
		t.Fatal("nil graph")
	}
	if g.Path != path || g.Language != lang {
		t.Errorf("graph of %s (%s) says %s (%s)", path, lang, g.Path, g.Language)
	}
	if g.ParseErrors < 0 {
		t.Errorf("ParseErrors = %d", g.ParseErrors)
	}
	if len(g.Symbols) == 0 {
		t.Fatal("no module symbol")
	}

	// Line starts, to check that positions agree with offsets.
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	checkPos := func(what string, p Position) {
		t.Helper()
		if p.Offset < 0 || p.Offset > len(src) {
			t.Errorf("%s: offset %d outside the source (%d bytes)", what, p.Offset, len(src))
			return
		}
		line := sort.SearchInts(starts, p.Offset+1) - 1
		col := len(utf16.Encode([]rune(string(src[starts[line]:p.Offset]))))
		if p.Line != line || p.Column != col {
			t.Errorf("%s: offset %d is at %d:%d (UTF-16), position says %d:%d", what, p.Offset, line, col, p.Line, p.Column)
		}
	}
	checkRange := func(what string, r Range) {
		t.Helper()
		checkPos(what+" start", r.Start)
		checkPos(what+" end", r.End)
		if r.Start.Offset > r.End.Offset {
			t.Errorf("%s: range starts at %d after its end %d", what, r.Start.Offset, r.End.Offset)
		}
	}
	checkText := func(what, s string) {
		t.Helper()
		if !utf8.ValidString(s) {
			t.Errorf("%s is not valid UTF-8: %q", what, s)
		}
	}

	mod := g.Symbols[0]
	if mod.Index != 0 || mod.Parent != -1 || mod.Kind != KindModule {
		t.Errorf("symbol 0 = index %d, parent %d, kind %s; want the module: 0, -1, module", mod.Index, mod.Parent, mod.Kind)
	}
	if mod.Range.Start.Offset != 0 || mod.Range.End.Offset != len(src) {
		t.Errorf("module range %d-%d, want the whole file 0-%d", mod.Range.Start.Offset, mod.Range.End.Offset, len(src))
	}
	for i, s := range g.Symbols {
		what := "symbol " + s.QualifiedName
		if s.Index != i {
			t.Errorf("%s: Index = %d at position %d", what, s.Index, i)
		}
		if i > 0 {
			switch {
			case s.Parent > i && s.Parent < len(g.Symbols) && s.Kind == KindMethod && g.Symbols[s.Parent].Kind.IsType():
				// A method declared before its type (Go receivers, Rust impl).
			case s.Parent < 0 || s.Parent >= i:
				t.Errorf("%s (#%d): parent %d, want 0 <= parent < %d or a type after a method", what, i, s.Parent, i)
			}
			if s.Kind == KindModule {
				t.Errorf("%s (#%d) is a second module", what, i)
			}
			if s.Name == "" {
				t.Errorf("symbol #%d has no name", i)
			}
		}
		if s.Module != mod.Name {
			t.Errorf("%s: module %q, the file's is %q", what, s.Module, mod.Name)
		}
		checkRange(what, s.Range)
		checkText(what+" name", s.Name)
		checkText(what+" qualified name", s.QualifiedName)
		checkText(what+" module", s.Module)
		checkText(what+" signature", s.Signature)
		checkText(what+" doc", s.Doc)
	}
	for i, r := range g.Refs {
		what := "ref " + string(r.Kind) + " " + r.Name
		if r.Source < 0 || r.Source >= len(g.Symbols) {
			t.Errorf("%s (#%d): source %d, want 0 <= source < %d", what, i, r.Source, len(g.Symbols))
		}
		switch r.Kind {
		case EdgeCalls, EdgeInherits, EdgeImplements, EdgeEmbeds, EdgeImports:
		default:
			t.Errorf("%s (#%d): unknown kind %q", what, i, r.Kind)
		}
		if r.Name == "" && r.Kind != EdgeImports {
			t.Errorf("ref #%d (%s) has no name", i, r.Kind)
		}
		checkRange(what, r.Range)
		checkText(what+" name", r.Name)
		checkText(what+" qualifier", r.Qualifier)
		checkText(what+" subject", r.Subject)
	}
}

func FuzzExtractGo(f *testing.F) {
	fuzzExtract(f, "go", "fuzz/input.go",
		"package p\n\nfunc Good() {}\n\nfunc Broken( {\n\treturn 1 +\n}\n\nfunc After() {}\n",
		"package p\n\nfunc (r *Repo) Before() {}\n\ntype Repo struct{ Embedded }\n",
		"package p\n\n// Doc \xff\xfe.\nfunc Bad\xffName(a int /* \xe9 */) {}\n",
		"package p\n\ntype I interface {\n\tReader\n\tM(x int) error\n}\n\nvar f = func() { g() }\n",
		"package p\n\nimport (\n\t\"fmt\"\n\tx \"example.com/x\"\n)\n\nfunc F[T any](t T) { fmt.Println(x.Y[T](t)) }\n",
		"package",
		"func (",
	)
}

func FuzzExtractPython(f *testing.F) {
	fuzzExtract(f, "python", "fuzz/input.py",
		"def good():\n    pass\n\ndef broken(:\n    return (\n\ndef after():\n    pass\n",
		"class A(B, metaclass=M):\n    \"\"\"Doc \xff.\"\"\"\n    @property\n    def x(self):\n        return self.y()\n",
		"@decorator\nclass C:\n    def m(self):\n        def inner():\n            super().m()\n        return inner\n",
		"from . import a\nfrom ..b import c as d\nimport e.f\n",
		"from a . b import (c,\n    d as e)\nfrom x import *\nfrom .y.z import w\n",
		"class",
		"def f(\n",
		"\tdef mixed_indent():\n  pass\n",
	)
}

func FuzzExtractJavaScript(f *testing.F) {
	fuzzExtract(f, "javascript", "fuzz/input.js",
		"function good() {}\nfunction broken( { return 1 + ; }\nfunction after() {}\n",
		"class A extends B { constructor() { super(); this.m(); } m() {} }\n",
		"const f = () => g();\nconst h = function named() {};\nmodule.exports = { f };\n",
		"const { a } = require('./a');\nimport b, { c as d } from '../b';\nexport default class {}\n",
		"/** doc \xff */\nfunction* gen() { yield* other(); }\n",
		"class",
		"`${",
	)
}

func FuzzExtractTypeScript(f *testing.F) {
	fuzzExtract(f, "typescript", "fuzz/input.ts",
		"export function good(): void {}\nexport function broken(: number { return 2 + ; }\nexport class After { run(): void {} }\n",
		"interface I extends J { m(x: number): string }\nabstract class C<T> extends D<T> implements I, K { abstract m(x: number): string }\n",
		"export type T = { a: string };\nexport enum E { A = 1 }\nnamespace N { export function f() {} }\n",
		"declare module 'm' { export function f(): void; }\nimport x = require('x');\n",
		"const f = <T,>(x: T): T => x;\n",
		"class",
		"function f(): ",
	)
}

func FuzzExtractTSX(f *testing.F) {
	fuzzExtract(f, "tsx", "fuzz/input.tsx",
		"export const A = () => <div>{b()}</div>;\nexport default function B() { return <A />; }\n",
		"class C extends React.Component<P> { render() { return <p>{this.props.x}</p>; } }\n",
		"const D = () => <div><span>unclosed</div>;\nfunction after() {}\n",
		"/** doc \xff */\nexport function E({ x }: { x: string }) { return <>{x}</>; }\n",
		"<",
		"const x = <T,>(y: T) => y;\n",
	)
}

func FuzzExtractRust(f *testing.F) {
	fuzzExtract(f, "rust", "fuzz/input.rs",
		"fn good() {}\nfn broken( -> i32 { 2 + }\nfn after() {}\n",
		"impl Display for Later { fn fmt(&self) {} }\nstruct Later;\ntrait T: U + fmt::Debug { fn m(&self); }\n",
		"mod m { pub mod n { pub fn f() { super::g(); } } }\nuse crate::a::{b, c::*};\n",
		"macro_rules! m { () => {} }\nfn f() { m!(); vec![1].iter().map(|x| x + 1); }\n",
		"/// doc \xff\n#[derive(Debug)]\nenum E { A, B(u8) }\n",
		"impl",
		"fn f<'a>(x: &'a str) -> impl Iterator<Item = &'a str> { x.split(' ') }\n",
	)
}

func FuzzExtractJava(f *testing.F) {
	fuzzExtract(f, "java", "fuzz/Input.java",
		"class Good { void a() {} }\nclass Broken { void b( { int x = ; } }\nclass After { void c() {} }\n",
		"package p;\nimport java.util.*;\npublic class A extends B implements C, D { A() { super(); } @Override public void m() { this.n(); } }\n",
		"interface I extends J { default void m() { n(); } }\nenum E { X, Y; void f() {} }\nrecord R(int a) { R { check(a); } }\n",
		"/** doc \xff */\n@interface Ann { String value(); }\n",
		"class Outer { class Inner { void m() { new Outer().new Inner(); } } }\n",
		"class",
		"package",
	)
}
