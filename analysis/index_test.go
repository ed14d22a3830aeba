package analysis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// writeWorkspace creates files under root from slash-separated paths.
func writeWorkspace(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openTestIndex opens an index of root with its database in a temporary
// directory of its own; opts may adjust the options.
func openTestIndex(t *testing.T, root string, opts func(*Options)) *Index {
	t.Helper()
	o := Options{Root: root, DBPath: filepath.Join(t.TempDir(), "index.db")}
	if opts != nil {
		opts(&o)
	}
	ix, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// mustUpdate runs Update and fails the test if it errs or takes longer than
// a minute (a walk trapped by a link loop or a read blocked on a FIFO).
func mustUpdate(t *testing.T, ix *Index) *Summary {
	t.Helper()
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := ix.Update(context.Background(), nil)
		done <- result{sum, err}
	}()
	r := hang(t, done, time.Minute, "Update")
	if r.err != nil {
		t.Fatalf("Update: %v", r.err)
	}
	if r.sum == nil {
		t.Fatal("Update returned a nil summary")
	}
	return r.sum
}

// isIndexed reports whether the index holds the file rel.
func isIndexed(t *testing.T, s *indexStore, rel string) bool {
	t.Helper()
	files, _, _, err := s.Imports(context.Background(), rel)
	if err != nil {
		t.Fatalf("Imports(%q): %v", rel, err)
	}
	return slices.Contains(files, rel)
}

// lookupPaths returns the files defining the symbols Lookup finds for name.
func lookupPaths(t *testing.T, s *indexStore, name string) []string {
	t.Helper()
	syms, err := s.Lookup(context.Background(), name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	var paths []string
	for _, sym := range syms {
		paths = append(paths, sym.Path)
	}
	sort.Strings(paths)
	return paths
}

// lookupOne returns the only symbol Lookup finds for name.
func lookupOne(t *testing.T, s *indexStore, name string) SymbolInfo {
	t.Helper()
	syms, err := s.Lookup(context.Background(), name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	if len(syms) != 1 {
		t.Fatalf("Lookup(%q) found %d symbols, want 1: %+v", name, len(syms), syms)
	}
	return syms[0]
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// The small workspace of the incremental tests. Its graph, counted by hand:
//
//	main.go:      module main, main, helper              3 symbols, 2 contained
//	              import fmt; calls Println, helper, undefinedThing
//	lib/util.py:  module util, greet, Greeter, hello     4 symbols, 3 contained
//	              calls format_name, greet
//	web/app.ts:   module app, add                        2 symbols, 1 contained
//
// 9 symbols, 6 references + 6 containment edges = 12 edges, and 3 calls
// to names defined nowhere: Println, undefinedThing, format_name.
var smallWorkspace = map[string]string{
	"main.go": `package main

import "fmt"

func main() {
	fmt.Println(helper())
	undefinedThing()
}

func helper() string { return "x" }
`,
	"lib/util.py": `def greet(name):
    return format_name(name)


class Greeter:
    def hello(self):
        return greet("x")
`,
	"web/app.ts": `export function add(a: number, b: number): number {
  return a + b;
}
`,
	"README.md": "# not code\n",
}

func TestUpdateFirstRunParsesEverySupportedFile(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, smallWorkspace)
	ix := openTestIndex(t, root, nil)

	var mu sync.Mutex
	var progress []Progress
	sum, err := ix.Update(context.Background(), func(p Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Parsed != 3 || sum.Unchanged != 0 || sum.Deleted != 0 {
		t.Errorf("parsed/unchanged/deleted = %d/%d/%d, want 3/0/0", sum.Parsed, sum.Unchanged, sum.Deleted)
	}
	wantBytes := int64(len(smallWorkspace["main.go"]) + len(smallWorkspace["lib/util.py"]) + len(smallWorkspace["web/app.ts"]))
	if sum.Bytes != wantBytes {
		t.Errorf("Bytes = %d, want %d", sum.Bytes, wantBytes)
	}
	if sum.Files != 3 {
		t.Errorf("Files = %d, want 3", sum.Files)
	}
	if want := map[string]int{"go": 1, "python": 1, "typescript": 1}; !maps.Equal(sum.ByLanguage, want) {
		t.Errorf("ByLanguage = %v, want %v", sum.ByLanguage, want)
	}
	if sum.Symbols != 9 {
		t.Errorf("Symbols = %d, want 9", sum.Symbols)
	}
	if sum.Edges != 12 {
		t.Errorf("Edges = %d, want 12", sum.Edges)
	}
	if sum.Unresolved != 3 {
		t.Errorf("Unresolved = %d, want 3 (Println, undefinedThing, format_name)", sum.Unresolved)
	}
	if sum.ParseErrors != 0 || sum.InvalidUTF8 != 0 {
		t.Errorf("ParseErrors = %d, InvalidUTF8 = %d, want 0, 0", sum.ParseErrors, sum.InvalidUTF8)
	}
	if want := map[string]int{SkipLanguage: 1}; !maps.Equal(nonZero(sum.Skipped), want) {
		t.Errorf("Skipped = %v, want %v", sum.Skipped, want)
	}
	if len(sum.Problems) != 0 {
		t.Errorf("Problems = %v, want none", sum.Problems)
	}
	if abs, _ := filepath.Abs(root); sum.Root != abs {
		t.Errorf("Root = %q, want %q", sum.Root, abs)
	}

	// Stats read back from the database agree with the summary.
	st, err := ix.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != sum.Files || st.Symbols != sum.Symbols || st.Edges != sum.Edges || st.Unresolved != sum.Unresolved {
		t.Errorf("Stats = %+v, summary = %+v", st, sum.Stats)
	}

	// Progress: one report per file, Done counting up to Total.
	if len(progress) != 3 {
		t.Fatalf("got %d progress reports, want 3: %+v", len(progress), progress)
	}
	var paths []string
	for i, p := range progress {
		if p.Done != i+1 || p.Total != 3 {
			t.Errorf("progress %d = %+v, want Done %d of 3", i, p, i+1)
		}
		paths = append(paths, p.Path)
	}
	sort.Strings(paths)
	if want := []string{"lib/util.py", "main.go", "web/app.ts"}; !slices.Equal(paths, want) {
		t.Errorf("progress paths = %q, want %q", paths, want)
	}

	for name, want := range map[string]string{"main": "main.go", "helper": "main.go", "greet": "lib/util.py", "Greeter.hello": "lib/util.py", "add": "web/app.ts"} {
		if got := lookupPaths(t, ix.store, name); !slices.Equal(got, []string{want}) {
			t.Errorf("Lookup(%q) in %q, want [%s]", name, got, want)
		}
	}
}

func TestUpdateIsIncremental(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, smallWorkspace)
	ix := openTestIndex(t, root, nil)

	first := mustUpdate(t, ix)
	if first.Parsed != 3 {
		t.Fatalf("first Update parsed %d files, want 3", first.Parsed)
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
		// parsed, unchanged and deleted files expected from the Update.
		parsed, unchanged, deleted int
		check                      func(t *testing.T, sum *Summary)
	}{
		{
			name:   "nothing changed",
			change: func(t *testing.T) {},
			parsed: 0, unchanged: 3, deleted: 0,
			check: func(t *testing.T, sum *Summary) {
				if sum.Bytes != 0 {
					t.Errorf("Bytes = %d, want 0", sum.Bytes)
				}
				if !maps.Equal(sum.ByLanguage, first.ByLanguage) || sum.Symbols != first.Symbols || sum.Edges != first.Edges || sum.Unresolved != first.Unresolved {
					t.Errorf("Stats changed without any change: %+v, was %+v", sum.Stats, first.Stats)
				}
			},
		},
		{
			name: "mtime touched, content the same",
			change: func(t *testing.T) {
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(filepath.Join(root, "main.go"), later, later); err != nil {
					t.Fatal(err)
				}
			},
			parsed: 0, unchanged: 3, deleted: 0,
		},
		{
			// The new mtime was recorded: the file is not even hashed again.
			name:   "after the touch",
			change: func(t *testing.T) {},
			parsed: 0, unchanged: 3, deleted: 0,
		},
		{
			name: "content changed",
			change: func(t *testing.T) {
				writeWorkspace(t, root, map[string]string{"main.go": `package main

func main() {
	renamedHelper()
}

func renamedHelper() {}
`})
			},
			parsed: 1, unchanged: 2, deleted: 0,
			check: func(t *testing.T, sum *Summary) {
				if got := lookupPaths(t, ix.store, "renamedHelper"); !slices.Equal(got, []string{"main.go"}) {
					t.Errorf("Lookup(renamedHelper) in %q, want [main.go]", got)
				}
				if got := lookupPaths(t, ix.store, "helper"); len(got) != 0 {
					t.Errorf("Lookup(helper) still finds the old definition in %q", got)
				}
				// Substring search forgets the old names and learns the new.
				var names []string
				for _, m := range mustSymbols(t, ix.store, "elper") {
					names = append(names, m.Name+":"+m.Match.String())
				}
				if want := []string{"renamedHelper:substring"}; !slices.Equal(names, want) {
					t.Errorf("Symbols(elper) = %q, want %q", names, want)
				}
				// Println and undefinedThing are gone; format_name remains.
				if sum.Unresolved != 1 {
					t.Errorf("Unresolved = %d, want 1", sum.Unresolved)
				}
				if int64(len(smallWorkspace["main.go"])) == sum.Bytes {
					t.Errorf("Bytes = %d, the size of the old content", sum.Bytes)
				}
			},
		},
		{
			name: "file deleted",
			change: func(t *testing.T) {
				if err := os.Remove(filepath.Join(root, "lib", "util.py")); err != nil {
					t.Fatal(err)
				}
			},
			parsed: 0, unchanged: 2, deleted: 1,
			check: func(t *testing.T, sum *Summary) {
				for _, name := range []string{"greet", "Greeter", "Greeter.hello", "hello"} {
					if got := lookupPaths(t, ix.store, name); len(got) != 0 {
						t.Errorf("Lookup(%q) still finds %q after the file was deleted", name, got)
					}
				}
				if matches := mustSymbols(t, ix.store, "reet"); len(matches) != 0 {
					t.Errorf("Symbols(reet) = %+v after the file was deleted", matches)
				}
				if isIndexed(t, ix.store, "lib/util.py") {
					t.Error("lib/util.py is still indexed")
				}
				if want := map[string]int{"go": 1, "typescript": 1}; !maps.Equal(sum.ByLanguage, want) {
					t.Errorf("ByLanguage = %v, want %v", sum.ByLanguage, want)
				}
				// main.go: 3 symbols, 1 call + 2 contained; app.ts: 2 symbols, 1 contained.
				if sum.Symbols != 5 || sum.Edges != 4 || sum.Unresolved != 0 {
					t.Errorf("Symbols/Edges/Unresolved = %d/%d/%d, want 5/4/0", sum.Symbols, sum.Edges, sum.Unresolved)
				}
			},
		},
	}
	for _, step := range steps {
		ok := t.Run(step.name, func(t *testing.T) {
			step.change(t)
			sum := mustUpdate(t, ix)
			if sum.Parsed != step.parsed || sum.Unchanged != step.unchanged || sum.Deleted != step.deleted {
				t.Errorf("parsed/unchanged/deleted = %d/%d/%d, want %d/%d/%d",
					sum.Parsed, sum.Unchanged, sum.Deleted, step.parsed, step.unchanged, step.deleted)
			}
			if step.check != nil {
				step.check(t, sum)
			}
		})
		if !ok {
			t.FailNow() // later steps build on this one
		}
	}
}

// Files that stop qualifying for the index lose their symbols.
func TestUpdateDropsFilesThatStopQualifying(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		skip   string // reason the file is now skipped for
	}{
		{"removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "b.go")); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"gitignored", func(t *testing.T, root string) {
			writeWorkspace(t, root, map[string]string{".gitignore": "b.go\n"})
		}, SkipGitignore},
		{"became binary", func(t *testing.T, root string) {
			writeWorkspace(t, root, map[string]string{"b.go": "package p\n\nfunc Bee() {}\n\x00\x00\x00"})
		}, SkipBinary},
		{"became too large", func(t *testing.T, root string) {
			writeWorkspace(t, root, map[string]string{"b.go": "package p\n\nfunc Bee() {}\n" + strings.Repeat("// padding\n", 100)})
		}, SkipTooLarge},
		{"replaced by a symlink", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "b.go")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("a.go", filepath.Join(root, "b.go")); err != nil {
				t.Fatal(err)
			}
		}, SkipSymlink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeWorkspace(t, root, map[string]string{
				"a.go": "package p\n\nfunc Ay() { Bee() }\n",
				"b.go": "package p\n\nfunc Bee() {}\n",
			})
			ix := openTestIndex(t, root, func(o *Options) { o.MaxFileSize = 512 })
			if sum := mustUpdate(t, ix); sum.Files != 2 {
				t.Fatalf("first Update indexed %d files, want 2", sum.Files)
			}
			bee := lookupOne(t, ix.store, "Bee")
			if calls, err := ix.Callers(context.Background(), bee); err != nil || len(calls) != 1 {
				t.Fatalf("Callers(Bee) = %+v, %v; want the call from Ay", calls, err)
			}

			tt.change(t, root)
			sum := mustUpdate(t, ix)
			if got := lookupPaths(t, ix.store, "Bee"); len(got) != 0 {
				t.Errorf("Lookup(Bee) still finds %q", got)
			}
			if isIndexed(t, ix.store, "b.go") {
				t.Error("b.go is still indexed")
			}
			if sum.Files != 1 {
				t.Errorf("Files = %d, want 1", sum.Files)
			}
			// Ay's call to Bee is now a call to a name defined nowhere.
			if sum.Unresolved != 1 {
				t.Errorf("Unresolved = %d, want 1", sum.Unresolved)
			}
			if tt.skip != "" && sum.Skipped[tt.skip] != 1 {
				t.Errorf("Skipped = %v, want 1 %s", sum.Skipped, tt.skip)
			}
			if !isIndexed(t, ix.store, "a.go") {
				t.Error("a.go is no longer indexed")
			}
		})
	}
}

// A call resolves as soon as its target is defined, whichever file is
// indexed first.
func TestCallResolvesWhenDefinitionAppears(t *testing.T) {
	caller := map[string]string{"caller.go": `package p

func Caller() {
	Later()
}
`}
	def := map[string]string{"later/later.go": `package later

func Later() {}
`}
	tests := []struct {
		name          string
		first, second map[string]string
	}{
		{"caller first", caller, def},
		{"definition first", def, caller},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			writeWorkspace(t, root, tt.first)
			ix := openTestIndex(t, root, nil)
			sum := mustUpdate(t, ix)
			if _, ok := tt.first["caller.go"]; ok {
				if sum.Unresolved != 1 {
					t.Errorf("Unresolved = %d before Later is defined, want 1", sum.Unresolved)
				}
				if got := lookupPaths(t, ix.store, "Later"); len(got) != 0 {
					t.Errorf("Lookup(Later) = %q before it is defined", got)
				}
				calls, err := ix.Callees(ctx, lookupOne(t, ix.store, "Caller"))
				if err != nil {
					t.Fatal(err)
				}
				if len(calls) != 1 || calls[0].Name != "Later" || calls[0].Callee != nil {
					t.Errorf("Callees(Caller) = %+v, want one unresolved call to Later", calls)
				}
			}

			writeWorkspace(t, root, tt.second)
			sum = mustUpdate(t, ix)
			if sum.Parsed != 1 || sum.Unchanged != 1 {
				t.Errorf("parsed/unchanged = %d/%d, want 1/1: the first file must not be parsed again", sum.Parsed, sum.Unchanged)
			}
			if sum.Unresolved != 0 {
				t.Errorf("Unresolved = %d once Later is defined, want 0", sum.Unresolved)
			}
			later := lookupOne(t, ix.store, "Later")
			calls, err := ix.Callers(ctx, later)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 || calls[0].Caller.Name != "Caller" || calls[0].Path != "caller.go" || calls[0].Line != 4 {
				t.Fatalf("Callers(Later) = %+v, want the call from Caller at caller.go:4", calls)
			}
			callees, err := ix.Callees(ctx, lookupOne(t, ix.store, "Caller"))
			if err != nil {
				t.Fatal(err)
			}
			if len(callees) != 1 || callees[0].Callee == nil || callees[0].Callee.Path != "later/later.go" {
				t.Errorf("Callees(Caller) = %+v, want Later in later/later.go", callees)
			}

			// Removing the definition makes the call unresolved again.
			if err := os.Remove(filepath.Join(root, "later", "later.go")); err != nil {
				t.Fatal(err)
			}
			sum = mustUpdate(t, ix)
			if sum.Deleted != 1 || sum.Unresolved != 1 {
				t.Errorf("after removing later.go: Deleted = %d, Unresolved = %d, want 1, 1", sum.Deleted, sum.Unresolved)
			}
		})
	}
}

func TestUpdateSkips(t *testing.T) {
	type problem struct{ path, reason string }
	tests := []struct {
		name  string
		files map[string]string
		// setup makes what files cannot hold: links, FIFOs.
		setup       func(t *testing.T, root string)
		opts        func(*Options)
		wantSkipped map[string]int // the whole Skipped map, zero counts left out
		wantProblem []problem
		indexed     []string
		notIndexed  []string
		// absent names must not be defined anywhere in the index.
		absent []string
	}{
		{
			name: "gitignore",
			files: map[string]string{
				".gitignore":          "# generated\nignored.go\nbuild/\n",
				".git/info/exclude":   "localonly.go\n",
				"ignored.go":          "package p\n\nfunc Ignored() {}\n",
				"localonly.go":        "package p\n\nfunc LocalOnly() {}\n",
				"build/gen.go":        "package build\n\nfunc Generated() {}\n",
				"build/deep/x.go":     "package deep\n",
				"kept.go":             "package p\n\nfunc Kept() {}\n",
				"sub/.gitignore":      "*.go\n!keep.go\n",
				"sub/drop.go":         "package sub\n\nfunc Dropped() {}\n",
				"sub/keep.go":         "package sub\n\nfunc KeptBySub() {}\n",
				"sub/deeper/drop2.go": "package deeper\n",
				"other/drop.go":       "package other\n\nfunc NotInSubDomain() {}\n",
			},
			// ignored.go, build/, localonly.go, sub/drop.go, sub/deeper/drop2.go;
			// .git is excluded; both .gitignore files are not code.
			wantSkipped: map[string]int{SkipGitignore: 5, SkipExcluded: 1, SkipLanguage: 2},
			indexed:     []string{"kept.go", "sub/keep.go", "other/drop.go"},
			notIndexed:  []string{"ignored.go", "localonly.go", "build/gen.go", "build/deep/x.go", "sub/drop.go", "sub/deeper/drop2.go"},
			absent:      []string{"Ignored", "LocalOnly", "Generated", "Dropped"},
		},
		{
			name: "default excludes",
			files: map[string]string{
				"node_modules/pkg/index.js":   "function fromNodeModules() {}\n",
				"src/node_modules/deep.js":    "function fromNestedNodeModules() {}\n",
				"vendor/lib/v.go":             "package lib\n\nfunc Vendored() {}\n",
				".git/objects/x.py":           "def in_git(): pass\n",
				"__pycache__/cached.py":       "def cached(): pass\n",
				"src/app.js":                  "function app() {}\n",
				"src/vendored_but_not_dir.go": "package src\n\nfunc NotVendored() {}\n",
			},
			wantSkipped: map[string]int{SkipExcluded: 5},
			indexed:     []string{"src/app.js", "src/vendored_but_not_dir.go"},
			notIndexed:  []string{"node_modules/pkg/index.js", "src/node_modules/deep.js", "vendor/lib/v.go", ".git/objects/x.py", "__pycache__/cached.py"},
			absent:      []string{"fromNodeModules", "fromNestedNodeModules", "Vendored", "in_git", "cached"},
		},
		{
			// A directory named venv is skipped when it is a virtual
			// environment (pyvenv.cfg), not when it is code: the Python
			// standard library's venv package.
			name: "venv package and virtual environment",
			files: map[string]string{
				"venv/__init__.py":                    "def create(env_dir): pass\n",
				"app/.venv/pyvenv.cfg":                "home = /usr/bin\n",
				"app/.venv/lib/site.py":               "def installed(): pass\n",
				"env/venv/pyvenv.cfg":                 "home = /usr/bin\n",
				"env/venv/lib/python3.11/site/pkg.py": "def dependency(): pass\n",
				"app/main.py":                         "def main(): pass\n",
			},
			wantSkipped: map[string]int{SkipExcluded: 2},
			indexed:     []string{"venv/__init__.py", "app/main.py"},
			notIndexed:  []string{"app/.venv/lib/site.py", "env/venv/lib/python3.11/site/pkg.py"},
			absent:      []string{"installed", "dependency"},
		},
		{
			name: "custom exclude globs",
			files: map[string]string{
				"a_gen.go":           "package p\n\nfunc GenA() {}\n",
				"pkg/b_gen.go":       "package pkg\n\nfunc GenB() {}\n",
				"docs/example.py":    "def documented(): pass\n",
				"test/fixtures/f.go": "package fixtures\n\nfunc Fixture() {}\n",
				"pkg/b.go":           "package pkg\n\nfunc RealB() {}\n",
				"docsish/c.go":       "package docsish\n\nfunc RealC() {}\n",
			},
			opts: func(o *Options) {
				// A list of its own replaces the default one.
				o.Exclude = []string{"**/*_gen.go", "docs/**", "fixtures"}
			},
			wantSkipped: map[string]int{SkipExcluded: 4},
			indexed:     []string{"pkg/b.go", "docsish/c.go"},
			notIndexed:  []string{"a_gen.go", "pkg/b_gen.go", "docs/example.py", "test/fixtures/f.go"},
			absent:      []string{"GenA", "GenB", "documented", "Fixture"},
		},
		{
			name: "settings patterns",
			files: map[string]string{
				".gitignore":         "build/\n",
				"worker/jobs.py":     "def retry(): pass\n",
				"api/worker/w.go":    "package worker\n\nfunc NestedWorker() {}\n",
				"api/api.go":         "package api\n\nfunc API() {}\n",
				"gen/x.generated.go": "package gen\n\nfunc Generated() {}\n",
				"vendor/v/v.go":      "package v\n\nfunc Vendored() {}\n",
				"build/out.go":       "package build\n\nfunc Built() {}\n",
				"root.go":            "package p\n\nfunc Root() {}\n",
			},
			opts: func(o *Options) {
				// .gitignore syntax: a leading / anchors at the root, "!"
				// brings back what the defaults and .gitignore skip.
				o.Ignore = []string{"# comment", "/worker/", "*.generated.go", "!vendor/", "!build/"}
			},
			wantSkipped: map[string]int{SkipExcluded: 2, SkipLanguage: 1},
			indexed:     []string{"api/worker/w.go", "api/api.go", "vendor/v/v.go", "build/out.go", "root.go"},
			notIndexed:  []string{"worker/jobs.py", "gen/x.generated.go"},
			absent:      []string{"retry", "Generated"},
		},
		{
			name: "languages",
			files: map[string]string{
				"a.go":   "package p\n\nfunc GoFunc() {}\n",
				"b.py":   "def py_func(): pass\n",
				"c.js":   "function jsFunc() {}\n",
				"d.java": "class D {}\n",
			},
			opts:        func(o *Options) { o.Languages = []string{"go", "python"} },
			wantSkipped: map[string]int{SkipLanguageOff: 2},
			indexed:     []string{"a.go", "b.py"},
			notIndexed:  []string{"c.js", "d.java"},
			absent:      []string{"jsFunc", "D"},
		},
		{
			name: "too large",
			files: map[string]string{
				"big.go":   "package p\n\nfunc Big() {}\n" + strings.Repeat("// x\n", 20),
				"exact.go": "package p\n\nfunc Exact() {}\n" + strings.Repeat("/", 64-len("package p\n\nfunc Exact() {}\n")),
				"small.go": "package p\n\nfunc Small() {}\n",
			},
			opts:        func(o *Options) { o.MaxFileSize = 64 },
			wantSkipped: map[string]int{SkipTooLarge: 1},
			wantProblem: []problem{{"big.go", SkipTooLarge}},
			indexed:     []string{"exact.go", "small.go"},
			notIndexed:  []string{"big.go"},
			absent:      []string{"Big"},
		},
		{
			name: "binary",
			files: map[string]string{
				"bin.go":  "package p\n\nfunc Binary() {}\n\x00\x01\x02\xff",
				"text.go": "package p\n\nfunc Text() {}\n",
				// git looks for NUL in the first 8000 bytes only.
				"late_nul.go": "package p\n\nfunc LateNul() {}\n" + strings.Repeat("// padding\n", 800) + "\x00",
			},
			wantSkipped: map[string]int{SkipBinary: 1},
			wantProblem: []problem{{"bin.go", SkipBinary}},
			indexed:     []string{"text.go", "late_nul.go"},
			notIndexed:  []string{"bin.go"},
			absent:      []string{"Binary"},
		},
		{
			name: "secrets",
			files: map[string]string{
				".env":               "TOKEN=1\n",
				".env.local":         "TOKEN=2\n",
				"server.pem":         "-----BEGIN CERTIFICATE-----\n",
				"id_rsa":             "-----BEGIN OPENSSH PRIVATE KEY-----\n",
				"x.key":              "secret\n",
				"deploy/prod.env":    "TOKEN=3\n",
				"config/id_rsa.py":   "def leaked_key():\n    return 'k'\n",
				"config/settings.py": "def settings():\n    return {}\n",
			},
			wantSkipped: map[string]int{SkipSecret: 7},
			indexed:     []string{"config/settings.py"},
			notIndexed:  []string{".env", ".env.local", "server.pem", "id_rsa", "x.key", "deploy/prod.env", "config/id_rsa.py"},
			absent:      []string{"leaked_key"},
		},
		{
			name: "symlinks",
			files: map[string]string{
				"real.go":  "package p\n\nfunc Real() {}\n",
				"pkg/p.go": "package pkg\n\nfunc InPkg() {}\n",
				"dir/d.go": "package dir\n\nfunc InDir() {}\n",
			},
			setup: func(t *testing.T, root string) {
				for link, target := range map[string]string{
					"link.go":     "real.go",
					"dirlink":     "pkg",
					"dir/loop":    "..",
					"dangling.go": "missing.go",
					"self":        "self",
				} {
					if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
						t.Fatal(err)
					}
				}
			},
			wantSkipped: map[string]int{SkipSymlink: 5},
			indexed:     []string{"real.go", "pkg/p.go", "dir/d.go"},
			notIndexed:  []string{"link.go", "dirlink/p.go", "dir/loop/real.go", "dir/loop/dir/d.go", "dangling.go"},
		},
		{
			name:  "fifo",
			files: map[string]string{"regular.go": "package p\n\nfunc Regular() {}\n"},
			setup: func(t *testing.T, root string) {
				if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			},
			wantSkipped: map[string]int{SkipSpecial: 1},
			wantProblem: []problem{{"pipe.go", SkipSpecial}},
			indexed:     []string{"regular.go"},
			notIndexed:  []string{"pipe.go"},
		},
		{
			name: "unsupported languages",
			files: map[string]string{
				"README.md": "# readme\n",
				"notes.txt": "notes\n",
				"Makefile":  "all:\n",
				"style.css": "body {}\n",
				"main.c":    "int main(void) { return 0; }\n",
				"ok.go":     "package p\n\nfunc OK() {}\n",
				"UPPER.PY":  "def upper_ext(): pass\n",
			},
			wantSkipped: map[string]int{SkipLanguage: 5},
			indexed:     []string{"ok.go", "UPPER.PY"},
			notIndexed:  []string{"README.md", "notes.txt", "Makefile", "style.css", "main.c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeWorkspace(t, root, tt.files)
			if tt.setup != nil {
				tt.setup(t, root)
			}
			ix := openTestIndex(t, root, tt.opts)
			sum := mustUpdate(t, ix)
			if got := nonZero(sum.Skipped); !maps.Equal(got, tt.wantSkipped) {
				t.Errorf("Skipped = %v, want %v", got, tt.wantSkipped)
			}
			var problems []problem
			for _, p := range sum.Problems {
				problems = append(problems, problem{p.Path, p.Reason})
				if p.Reason == SkipTooLarge && p.Detail == "" {
					t.Errorf("problem %+v has no detail", p)
				}
			}
			sort.Slice(problems, func(i, j int) bool { return problems[i].path < problems[j].path })
			if !slices.Equal(problems, tt.wantProblem) {
				t.Errorf("Problems = %+v, want %+v", problems, tt.wantProblem)
			}
			for _, rel := range tt.indexed {
				if !isIndexed(t, ix.store, rel) {
					t.Errorf("%s is not indexed", rel)
				}
			}
			for _, rel := range tt.notIndexed {
				if isIndexed(t, ix.store, rel) {
					t.Errorf("%s is indexed", rel)
				}
			}
			if sum.Files != len(tt.indexed) {
				t.Errorf("Files = %d, want %d", sum.Files, len(tt.indexed))
			}
			for _, name := range tt.absent {
				if got := lookupPaths(t, ix.store, name); len(got) != 0 {
					t.Errorf("Lookup(%q) finds it in %q", name, got)
				}
				matches, err := ix.Symbols(context.Background(), name, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range matches {
					if slices.Contains(tt.notIndexed, m.Path) {
						t.Errorf("Symbols(%q) finds %s in skipped file %s", name, m.QualifiedName, m.Path)
					}
				}
			}
			// A second run skips the same things and parses nothing.
			again := mustUpdate(t, ix)
			if again.Parsed != 0 || again.Unchanged != len(tt.indexed) || again.Deleted != 0 {
				t.Errorf("second Update parsed/unchanged/deleted = %d/%d/%d, want 0/%d/0", again.Parsed, again.Unchanged, again.Deleted, len(tt.indexed))
			}
			if got := nonZero(again.Skipped); !maps.Equal(got, tt.wantSkipped) {
				t.Errorf("second Update Skipped = %v, want %v", got, tt.wantSkipped)
			}
		})
	}
}

// The walk must see the workspace through a root path that is itself a
// symbolic link (a symlinked checkout, macOS's /tmp → /private/tmp).
func TestUpdateRootIsSymlink(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	writeWorkspace(t, ws, smallWorkspace)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	ix := openTestIndex(t, link, nil)
	sum := mustUpdate(t, ix)
	if sum.Files != 3 || sum.Parsed != 3 {
		t.Errorf("through a symlinked root: Files = %d, Parsed = %d, want 3, 3", sum.Files, sum.Parsed)
	}
}

func TestSyntaxErrorsKeepParsedSymbols(t *testing.T) {
	tests := []struct {
		name, file, src string
		good            []string
	}{
		{
			name: "go",
			file: "broken.go",
			src: `package p

func GoodBefore() int { return 1 }

func Broken( {
	return 2 +
}

func GoodAfter() int { return 3 }
`,
			good: []string{"GoodBefore", "GoodAfter"},
		},
		{
			name: "python",
			file: "broken.py",
			src: `def good_before():
    return 1


def broken():
    x = = 2
    return x


def good_after():
    return 3
`,
			good: []string{"good_before", "good_after"},
		},
		{
			name: "javascript",
			file: "broken.js",
			src: `function goodBefore() { return 1; }

function broken() { return 2 + ; }

function goodAfter() { return 3; }
`,
			good: []string{"goodBefore", "goodAfter"},
		},
		{
			name: "typescript",
			file: "broken.ts",
			src: `export function tsBefore(): number { return 1; }

export function tsBroken(: number { return 2 + ; }

export class TsAfter { run(): void {} }
`,
			good: []string{"tsBefore", "TsAfter", "TsAfter.run"},
		},
		{
			name: "java",
			file: "Broken.java",
			src: `class JavaBefore { void a() {} }

class JavaBroken { void b( { int x = ; } }

class JavaAfter { void c() {} }
`,
			good: []string{"JavaBefore", "JavaBefore.a", "JavaAfter", "JavaAfter.c"},
		},
		{
			name: "rust",
			file: "broken.rs",
			src: `fn rust_before() -> i32 { 1 }

fn rust_broken( -> i32 { 2 + }

fn rust_after() -> i32 { 3 }
`,
			good: []string{"rust_before", "rust_after"},
		},
	}
	root := t.TempDir()
	files := map[string]string{"clean.go": "package p\n\nfunc Clean() {}\n"}
	for _, tt := range tests {
		files[tt.file] = tt.src
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	sum := mustUpdate(t, ix)
	if sum.Parsed != len(files) || sum.Files != len(files) {
		t.Errorf("Parsed = %d, Files = %d, want %d: files with syntax errors are still indexed", sum.Parsed, sum.Files, len(files))
	}
	if sum.ParseErrors != len(tests) {
		t.Errorf("ParseErrors = %d, want %d (the clean file does not count)", sum.ParseErrors, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range tt.good {
				if got := lookupPaths(t, ix.store, name); !slices.Equal(got, []string{tt.file}) {
					t.Errorf("Lookup(%q) in %q, want [%s]", name, got, tt.file)
				}
			}
		})
	}
}

func TestInvalidUTF8AndEmptyFiles(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"empty.go":  "",
		"empty.py":  "",
		"blank.ts":  "\n\n\n",
		"only.rs":   "// just a comment\n",
		"latin1.go": "package p\n\n// Documented says caf\xe9 in Latin-1 \xff\xfe.\nfunc Documented(a int /* \xe9 */) string { return \"\xe9\" }\n\nfunc Bad\xffName() {}\n",
		"bad.py":    "def na\xefve_helper(x):\n    \"\"\"Doc with \xff byte.\"\"\"\n    return x\n\n\ndef plain_after():\n    return 1\n",
		"ok.go":     "package p\n\nfunc Fine() { Documented(1) }\n",
	})
	ix := openTestIndex(t, root, nil)
	sum := mustUpdate(t, ix)
	if sum.Files != 7 || sum.Parsed != 7 {
		t.Errorf("Files = %d, Parsed = %d, want 7, 7", sum.Files, sum.Parsed)
	}
	if sum.InvalidUTF8 != 2 {
		t.Errorf("InvalidUTF8 = %d, want 2", sum.InvalidUTF8)
	}
	if len(sum.Problems) != 0 || len(nonZero(sum.Skipped)) != 0 {
		t.Errorf("Problems = %v, Skipped = %v, want none", sum.Problems, sum.Skipped)
	}
	for _, rel := range []string{"empty.go", "empty.py", "blank.ts", "only.rs"} {
		if !isIndexed(t, ix.store, rel) {
			t.Errorf("%s is not indexed", rel)
		}
	}

	doc := lookupOne(t, ix.store, "Documented")
	if doc.Path != "latin1.go" {
		t.Errorf("Documented is in %s", doc.Path)
	}
	if !strings.Contains(doc.Doc, "Documented says caf") || !strings.Contains(doc.Signature, "func Documented(a int") {
		t.Errorf("Documented: doc %q, signature %q", doc.Doc, doc.Signature)
	}
	if got := lookupPaths(t, ix.store, "plain_after"); !slices.Equal(got, []string{"bad.py"}) {
		t.Errorf("Lookup(plain_after) in %q, want [bad.py]", got)
	}
	// Calls into the file with invalid UTF-8 resolve as usual.
	if calls, err := ix.Callers(ctx, doc); err != nil || len(calls) != 1 || calls[0].Caller.Name != "Fine" {
		t.Errorf("Callers(Documented) = %+v, %v", calls, err)
	}

	// Every symbol of the two files has valid UTF-8 text.
	var syms []SymbolInfo
	for _, q := range []string{"Documented", "Name", "Bad", "na", "helper", "plain_after", "Fine"} {
		matches, err := ix.Symbols(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			syms = append(syms, m.SymbolInfo)
		}
	}
	for _, s := range syms {
		for field, v := range map[string]string{"name": s.Name, "qualified name": s.QualifiedName, "module": s.Module, "signature": s.Signature, "doc": s.Doc} {
			if !utf8.ValidString(v) {
				t.Errorf("%s:%s has an invalid UTF-8 %s %q", s.Path, s.QualifiedName, field, v)
			}
		}
	}
	if len(syms) < 4 {
		t.Errorf("found only %d symbols in the files with invalid UTF-8: %+v", len(syms), syms)
	}
}

// A file whose name is not valid UTF-8 (Linux names are bytes) must not
// make symbol names invalid: module and qualified names derive from it.
func TestInvalidUTF8FileName(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"caf\xe9.py": "def ok_func():\n    return 1\n"})
	ix := openTestIndex(t, root, nil)
	if sum := mustUpdate(t, ix); sum.Files != 1 {
		t.Fatalf("Files = %d, want 1", sum.Files)
	}
	s := lookupOne(t, ix.store, "ok_func")
	if !utf8.ValidString(s.Module) || !utf8.ValidString(s.QualifiedName) {
		t.Errorf("ok_func: module %q, qualified name %q are not valid UTF-8", s.Module, s.QualifiedName)
	}
}

func TestOpenRebuildsCorruptDatabase(t *testing.T) {
	garbage := []byte(strings.Repeat("this is not a database\x00\x01\x02\xff", 300))
	header := append([]byte("SQLite format 3\x00"), garbage...)
	validIndex := func(t *testing.T, root string) []byte {
		db := filepath.Join(t.TempDir(), "valid.db")
		ix, err := Open(context.Background(), Options{Root: root, DBPath: db})
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, ix)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name        string
		content     func(t *testing.T, root string) []byte // nil: no database file
		wantRebuilt bool
		wantParsed  int
	}{
		{"missing", nil, false, 3},
		{"empty file", func(*testing.T, string) []byte { return []byte{} }, false, 3},
		{"garbage", func(*testing.T, string) []byte { return garbage }, true, 3},
		{"sqlite header then garbage", func(*testing.T, string) []byte { return header }, true, 3},
		{"truncated index", func(t *testing.T, root string) []byte {
			b := validIndex(t, root)
			if len(b) <= 8192 {
				t.Fatalf("index of %d bytes is too small to truncate", len(b))
			}
			return b[:8192]
		}, true, 3},
		{"valid index", validIndex, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			writeWorkspace(t, root, smallWorkspace)
			dbPath := filepath.Join(t.TempDir(), "sub", "index.db")
			if tt.content != nil {
				b := tt.content(t, root)
				if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dbPath, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ix, err := Open(ctx, Options{Root: root, DBPath: dbPath})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer ix.Close()
			if ix.Rebuilt != tt.wantRebuilt {
				t.Errorf("Rebuilt = %v, want %v", ix.Rebuilt, tt.wantRebuilt)
			}
			sum := mustUpdate(t, ix)
			if sum.Parsed != tt.wantParsed || sum.Files != 3 || sum.Symbols != 9 {
				t.Errorf("Parsed = %d, Files = %d, Symbols = %d, want %d, 3, 9", sum.Parsed, sum.Files, sum.Symbols, tt.wantParsed)
			}
			if got := lookupPaths(t, ix.store, "greet"); !slices.Equal(got, []string{"lib/util.py"}) {
				t.Errorf("Lookup(greet) in %q", got)
			}
		})
	}
}

// openStore reports a corrupt database with ErrCorrupt, so that callers
// can tell it from other failures.
func TestOpenIndexStoreReportsCorruption(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(dbPath, []byte(strings.Repeat("garbage!", 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(context.Background(), dbPath)
	if err == nil {
		s.Close()
		t.Fatal("openStore accepted a garbage file")
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("openStore error %v is not ErrCorrupt", err)
	}
}

// Readers on their own connection query the database while Update writes
// it, without errors and without seeing files disappear. A first build of
// a few thousand files is the case indexing optimises most.
func TestConcurrentReadersDuringUpdate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	const nfiles = 2100
	files := map[string]string{}
	for i := range nfiles {
		pkg := i / 25
		files[fmt.Sprintf("p%02d/f%03d.go", pkg, i)] = fmt.Sprintf(`package p%02d

// F%03d calls the function of the next file.
func F%03d() int { return F%03d() + 1 }

type T%03d struct{ n int }

func (t *T%03d) M%03d() int { return F%03d() }
`, pkg, i, i, (i+1)%nfiles, i, i, i, i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, func(o *Options) { o.Workers = 4 })

	reader, err := openStore(ctx, ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	done := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	iterations := make([]int, 3)
	for r := range iterations {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lastFiles := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				iterations[r]++
				syms, err := reader.Lookup(ctx, fmt.Sprintf("F%03d", (r*97+iterations[r])%nfiles))
				if err != nil {
					errs <- fmt.Errorf("Lookup: %w", err)
					return
				}
				for _, s := range syms {
					if _, err := reader.Callers(ctx, s); err != nil {
						errs <- fmt.Errorf("Callers: %w", err)
						return
					}
				}
				if _, err := reader.Symbols(ctx, "m0", 50); err != nil {
					errs <- fmt.Errorf("Symbols: %w", err)
					return
				}
				st, err := reader.Stats(ctx)
				if err != nil {
					errs <- fmt.Errorf("Stats: %w", err)
					return
				}
				if st.Files < lastFiles {
					errs <- fmt.Errorf("reader saw %d files after %d", st.Files, lastFiles)
					return
				}
				lastFiles = st.Files
			}
		}()
	}
	sum, updateErr := ix.Update(ctx, nil)
	// Let the readers run a little after the last commit too.
	time.Sleep(20 * time.Millisecond)
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if updateErr != nil {
		t.Fatalf("Update: %v", updateErr)
	}
	if sum.Parsed != nfiles || sum.Files != nfiles {
		t.Errorf("Parsed = %d, Files = %d, want %d", sum.Parsed, sum.Files, nfiles)
	}
	// Each file: module, F, T, M = 4 symbols; calls F→F, M→F.
	if sum.Symbols != 4*nfiles || sum.Unresolved != 0 {
		t.Errorf("Symbols = %d, Unresolved = %d, want %d, 0", sum.Symbols, sum.Unresolved, 4*nfiles)
	}
	for r, n := range iterations {
		if n == 0 {
			t.Errorf("reader %d never ran", r)
		}
	}
	st, err := reader.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != nfiles || st.Symbols != sum.Symbols {
		t.Errorf("reader sees %d files, %d symbols after Update, want %d, %d", st.Files, st.Symbols, nfiles, sum.Symbols)
	}
	f := lookupOne(t, reader, "F123")
	calls, err := reader.Callers(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	for _, c := range calls {
		callers = append(callers, c.Caller.QualifiedName)
	}
	sort.Strings(callers)
	// F122 calls F123 from another file of the same package (p04 holds
	// files 100-124), M123 from the same file.
	if want := []string{"T123.M123", "p04.F122"}; !slices.Equal(callers, want) {
		t.Errorf("Callers(F123) = %q, want %q", callers, want)
	}

	// The index built in one go keeps working incrementally.
	writeWorkspace(t, root, map[string]string{"p04/f122.go": "package p04\n\nfunc F122() int { return 0 }\n"})
	sum = mustUpdate(t, ix)
	if sum.Parsed != 1 || sum.Unchanged != nfiles-1 {
		t.Errorf("after editing one file: parsed/unchanged = %d/%d, want 1/%d", sum.Parsed, sum.Unchanged, nfiles-1)
	}
	calls, err = ix.Callers(ctx, lookupOne(t, ix.store, "F123"))
	if err != nil {
		t.Fatal(err)
	}
	if got := callerNames(calls); len(got) != 1 || !strings.HasPrefix(got[0], "T123.M123 ") {
		t.Errorf("Callers(F123) after F122 stopped calling it = %q", got)
	}
	for _, gone := range []string{"T122", "M122", "T122.M122"} {
		if got := lookupPaths(t, ix.store, gone); len(got) != 0 {
			t.Errorf("Lookup(%s) = %q after it was removed", gone, got)
		}
	}
	for _, m := range mustSymbols(t, ix.store, "122") {
		if m.Path == "p04/f122.go" && m.Name != "F122" {
			t.Errorf("Symbols(122) finds %s, removed from p04/f122.go", m.QualifiedName)
		}
	}
}

// An Update stopped by its context fails, and the next one completes the
// index.
func TestUpdateCanceled(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, smallWorkspace)
	ix := openTestIndex(t, root, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Update(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context: err = %v, want context.Canceled", err)
	}
	sum := mustUpdate(t, ix)
	if sum.Files != 3 || sum.Symbols != 9 {
		t.Errorf("after a canceled Update: Files = %d, Symbols = %d, want 3, 9", sum.Files, sum.Symbols)
	}
}

// A method declared above its type still belongs to the type, in the
// extracted graph and in the database.
func TestMethodDeclaredBeforeItsType(t *testing.T) {
	src := map[string]string{
		"repo.go": `package p

func (r *Repo) Before() {}

type Repo struct{}

func (r *Repo) After() {}
`,
		"model.rs": `impl Shape for Square {
    fn area(&self) -> f64 { 1.0 }
}

pub struct Square;
`,
	}
	root := t.TempDir()
	writeWorkspace(t, root, src)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	tests := []struct{ method, typ string }{
		{"Repo.Before", "Repo"},
		{"Repo.After", "Repo"},
		{"Square.area", "Square"},
	}
	for _, tt := range tests {
		m := lookupOne(t, ix.store, tt.method)
		typ := lookupOne(t, ix.store, tt.typ)
		if m.Parent != typ.ID {
			t.Errorf("%s: stored parent %d, want %s (%d)", tt.method, m.Parent, tt.typ, typ.ID)
		}
	}

	langs := NewLanguages()
	p := NewParser()
	defer p.Close()
	for rel, content := range src {
		lang, err := langs.ForPath(rel)
		if err != nil {
			t.Fatal(err)
		}
		g, err := p.Extract(context.Background(), lang, rel, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range g.Symbols[1:] {
			if s.Kind != KindMethod {
				continue
			}
			if parent := g.Symbols[s.Parent]; !parent.Kind.IsType() || !strings.HasPrefix(s.QualifiedName, parent.Name+".") {
				t.Errorf("%s: %s has parent %s (%s), want its type", rel, s.QualifiedName, parent.QualifiedName, parent.Kind)
			}
		}
	}
}

// Every skipped file is counted, even when the list of problems is cut
// short.
func TestManyProblemsAreAllCounted(t *testing.T) {
	const n = 150
	root := t.TempDir()
	files := map[string]string{"ok.go": "package p\n\nfunc OK() {}\n"}
	for i := range n {
		files[fmt.Sprintf("bin/b%03d.go", i)] = "package bin\n\x00"
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	sum := mustUpdate(t, ix)
	if sum.Skipped[SkipBinary] != n || sum.Files != 1 {
		t.Errorf("Skipped[binary] = %d, Files = %d, want %d, 1", sum.Skipped[SkipBinary], sum.Files, n)
	}
	if len(sum.Problems) == 0 || len(sum.Problems) > n {
		t.Errorf("%d problems listed for %d binary files", len(sum.Problems), n)
	}
	seen := map[string]bool{}
	for _, p := range sum.Problems {
		if p.Reason != SkipBinary || files[p.Path] == "" || seen[p.Path] {
			t.Errorf("unexpected problem %+v", p)
		}
		seen[p.Path] = true
	}
}
