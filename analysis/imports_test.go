package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestImportReaches checks which workspace files an import written in a
// file reaches, for each language's way of naming packages and modules.
func TestImportReaches(t *testing.T) {
	tests := []struct {
		lang, from, name, target string
		want                     bool
	}{
		// A Python package is its __init__.py, not every file of its
		// directory.
		{"python", "app.py", "pkg", "pkg/__init__.py", true},
		{"python", "app.py", "pkg", "pkg/mod.py", false},
		{"python", "app.py", "pkg", "pkg/sub/__init__.py", false},
		{"python", "app.py", "importlib", "importlib/__init__.py", true},
		{"python", "app.py", "importlib", "importlib/_abc.py", false},
		{"python", "app.py", "importlib", "importlib/metadata/__init__.py", false},
		// A module is its file, or its package's __init__.py.
		{"python", "app.py", "pkg.mod", "pkg/mod.py", true},
		{"python", "app.py", "pkg.mod", "pkg/mod.pyi", true},
		{"python", "app.py", "pkg.mod", "pkg/mod/__init__.py", true},
		{"python", "app.py", "pkg.mod", "pkg/mod/x.py", false},
		{"python", "app.py", "pkg.mod", "pkg/__init__.py", false},
		{"python", "app.py", "importlib.metadata", "importlib/metadata/__init__.py", true},
		{"python", "app.py", "importlib.metadata", "importlib/metadata/_meta.py", false},
		{"python", "app.py", "users.repo", "src/users/repo.py", true}, // the import ends the path
		{"python", "app.py", "a . b.c", "a/b/c.py", true},             // from a . b import c
		// from a.b import c as a.b.c, a possible submodule.
		{"python", "json/decoder.py", "json.scanner", "json/scanner.py", true},
		{"python", "json/decoder.py", "json.scanner", "json/__init__.py", false},
		{"python", "app.py", "pkg.func", "pkg/__init__.py", false},
		{"python", "app.py", "dataclasses.dataclass", "dataclasses.py", false},
		// Relative imports are resolved from the importing file; only
		// __init__.py stands for a Python package (not mod.py or
		// index.py, which do in Rust and JavaScript).
		{"python", "pkg/other.py", ".", "pkg/__init__.py", true},
		{"python", "pkg/other.py", ".", "pkg/mod.py", false},
		{"python", "pkg/other.py", ".", "pkg/index.py", false},
		{"python", "pkg/other.py", ".mod", "pkg/mod.py", true},
		{"python", "pkg/other.py", ".mod", "pkg/mod/__init__.py", true},
		{"python", "pkg/other.py", ".mod", "mod.py", false},
		{"python", "pkg/other.py", ".mod.helper", "pkg/mod.py", false},
		{"python", "pkg/sub/x.py", "..util", "pkg/util.py", true},
		{"python", "pkg/sub/x.py", "..", "pkg/__init__.py", true},
		{"python", "pkg/sub/x.py", "..", "pkg/sub/__init__.py", false},
		{"python", "pkg/sub/x.py", ".", "pkg/sub/__init__.py", true},

		// Go: the package directory ends the import path, which starts
		// with the module path; every file of the directory is the
		// package.
		{"go", "api/handlers.go", "example.com/sampleapp/users", "users/repo.go", true},
		{"go", "api/handlers.go", "example.com/sampleapp/users", "users/user.go", true},
		{"go", "cmd/server/main.go", "example.com/sampleapp/internal/db", "internal/db/db.go", true},
		{"go", "api/handlers.go", "example.com/sampleapp/users", "internal/db/db.go", false},
		{"go", "api/handlers.go", "fmt", "users/repo.go", false},
		{"go", "main.go", "example.com/app", "main.go", false},
		// Java: a class is its file, a package its directory.
		{"java", "a/B.java", "com.example.users.UserService", "java/src/main/java/com/example/users/UserService.java", true},
		{"java", "a/B.java", "com.example.users.UserService", "java/src/main/java/com/example/users/User.java", false},
		{"java", "a/B.java", "com.example.users.*", "java/src/main/java/com/example/users/User.java", true},
		{"java", "a/B.java", "com.example.users", "java/src/main/java/com/example/users/User.java", true},
		// JavaScript and TypeScript: relative to the importing file, with
		// or without the extension, a directory by its index file.
		{"typescript", "client/src/index.ts", "./cache", "client/src/cache.ts", true},
		{"typescript", "client/src/index.ts", "./cache", "client/src/api.ts", false},
		{"typescript", "client/src/index.ts", "./api", "client/src/api/index.ts", true},
		{"typescript", "client/src/index.ts", "./api", "client/src/api/client.ts", false},
		{"tsx", "client/src/index.ts", "./components/UserCard", "client/src/components/UserCard.tsx", true},
		{"javascript", "client/scripts/build.js", "../src/cache.js", "client/src/cache.js", true},
		{"javascript", "client/scripts/build.js", "../src", "client/src/index.js", true},
		{"javascript", "a.js", "react", "node_modules/react/index.js", true},
		// Rust: a module is its file or its directory's mod.rs.
		{"rust", "tools/userctl/src/main.rs", "crate::model", "tools/userctl/src/model.rs", true},
		{"rust", "tools/userctl/src/main.rs", "crate::model", "tools/userctl/src/model/mod.rs", true},
		{"rust", "tools/userctl/src/main.rs", "crate::model::*", "tools/userctl/src/model.rs", true},
		{"rust", "tools/userctl/src/main.rs", "std::fmt", "tools/userctl/src/model.rs", false},
		// Nothing to match.
		{"python", "app.py", "", "pkg/__init__.py", false},
		{"rust", "src/main.rs", "crate::*", "src/lib.rs", false},
	}
	for _, tt := range tests {
		if got := importReaches(tt.from, tt.lang, tt.name, tt.target, nil); got != tt.want {
			t.Errorf("importReaches(%q, %q, %q, %q) = %v, want %v", tt.from, tt.lang, tt.name, tt.target, got, tt.want)
		}
	}
}

// TestImportReachesPackages: a Python import is absolute, so the directory
// it starts in must not be a package (hold an __init__.py); other
// languages do not look at packages.
func TestImportReachesPackages(t *testing.T) {
	tests := []struct {
		lang, from, name, target string
		packages                 []string
		want                     bool
	}{
		{"python", "app.py", "abc", "abc.py", []string{"importlib"}, true},
		{"python", "app.py", "abc", "importlib/abc.py", []string{"importlib"}, false},
		{"python", "abc.py", "_abc", "importlib/_abc.py", []string{"importlib"}, false},
		{"python", "app.py", "abc", "importlib/abc.py", nil, true}, // not a package
		{"python", "app.py", "importlib.abc", "importlib/abc.py", []string{"importlib"}, true},
		{"python", "app.py", "importlib", "importlib/__init__.py", []string{"importlib"}, true},
		{"python", "app.py", "metadata", "importlib/metadata/__init__.py", []string{"importlib", "importlib/metadata"}, false},
		{"python", "app.py", "importlib.metadata", "importlib/metadata/__init__.py", []string{"importlib", "importlib/metadata"}, true},
		{"python", "app.py", "users.repo", "src/users/repo.py", []string{"src/users"}, true},
		{"python", "app.py", "users.repo", "src/users/repo.py", []string{"src", "src/users"}, false},
		{"python", "app.py", "mod", "mod.py", nil, true},
		{"python", "app.py", "mod", "mod.py", []string{"."}, false}, // the root is a package
		// Relative imports are not absolute.
		{"python", "pkg/other.py", ".mod", "pkg/mod.py", []string{"pkg"}, true},
		{"python", "pkg/other.py", ".", "pkg/__init__.py", []string{"pkg"}, true},
		// Other languages ignore packages.
		{"go", "api/handlers.go", "example.com/sampleapp/users", "users/repo.go", []string{".", "users"}, true},
		{"java", "a/B.java", "com.example.users.User", "src/com/example/users/User.java", []string{"src", "src/com"}, true},
		{"rust", "src/main.rs", "crate::model", "src/model.rs", []string{"src"}, true},
	}
	for _, tt := range tests {
		packages := map[string]bool{}
		for _, p := range tt.packages {
			packages[p] = true
		}
		if got := importReaches(tt.from, tt.lang, tt.name, tt.target, packages); got != tt.want {
			t.Errorf("importReaches(%q, %q, %q, %q) with packages %q = %v, want %v", tt.from, tt.lang, tt.name, tt.target, tt.packages, got, tt.want)
		}
	}
}

// TestPythonImports indexes testdata/pyimports (a package, its two
// modules, one importer for each way of importing them and one of a
// top-level module of the same name as one of them) and checks
// exactly which files import each, and what a file's imports list.
func TestPythonImports(t *testing.T) {
	ix := openTestIndex(t, filepath.Join("testdata", "pyimports"), nil)
	if sum := mustUpdate(t, ix); sum.ByLanguage["python"] != 8 || sum.ParseErrors != 0 {
		t.Fatalf("indexed %v python files, %d with errors; want 8, 0", sum.ByLanguage, sum.ParseErrors)
	}
	ctx := context.Background()
	describe := func(imps []Import) []string {
		out := []string{}
		for _, im := range imps {
			s := fmt.Sprintf("%s:%d %s", im.Path, im.Line, im.Name)
			if im.Target != "" {
				s += " -> " + im.Target
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		target     string
		files      []string
		imports    []string
		importedBy []string
	}{
		{
			// import pkg and from pkg import x import the package, not
			// its modules; "from . import mod" imports it too.
			target: "pkg/__init__.py",
			files:  []string{"pkg/__init__.py"},
			imports: []string{
				"pkg/__init__.py:3 .",
				"pkg/__init__.py:3 .mod -> pkg/mod.py",
			},
			importedBy: []string{
				"from_pkg_import_func.py:3 pkg -> pkg/__init__.py",
				"from_pkg_import_mod.py:1 pkg -> pkg/__init__.py",
				"import_pkg.py:1 pkg -> pkg/__init__.py",
				"pkg/other.py:1 . -> pkg/__init__.py",
			},
		},
		{
			// import pkg.mod, from pkg import mod, from . import mod
			// and from .mod import helper import the module; import
			// mod does not (pkg is a package).
			target:  "pkg/mod.py",
			files:   []string{"pkg/mod.py"},
			imports: []string{},
			importedBy: []string{
				"from_pkg_import_mod.py:1 pkg.mod -> pkg/mod.py",
				"import_pkg_mod.py:1 pkg.mod -> pkg/mod.py",
				"pkg/__init__.py:3 .mod -> pkg/mod.py",
				"pkg/other.py:1 .mod -> pkg/mod.py",
				"pkg/other.py:2 .mod -> pkg/mod.py",
			},
		},
		{
			// Nothing imports other.py, although import pkg is written
			// next to it.
			target: "pkg/other.py",
			files:  []string{"pkg/other.py"},
			imports: []string{
				"pkg/other.py:1 .",
				"pkg/other.py:1 .mod -> pkg/mod.py",
				"pkg/other.py:2 .mod",
			},
			importedBy: []string{},
		},
		{
			// The directory: each import names the file it reaches.
			target: "pkg",
			files:  []string{"pkg/__init__.py", "pkg/mod.py", "pkg/other.py"},
			imports: []string{
				"pkg/__init__.py:3 .",
				"pkg/__init__.py:3 .mod -> pkg/mod.py",
				"pkg/other.py:1 .",
				"pkg/other.py:1 .mod -> pkg/mod.py",
				"pkg/other.py:2 .mod",
			},
			importedBy: []string{
				"from_pkg_import_func.py:3 pkg -> pkg/__init__.py",
				"from_pkg_import_mod.py:1 pkg -> pkg/__init__.py",
				"from_pkg_import_mod.py:1 pkg.mod -> pkg/mod.py",
				"import_pkg.py:1 pkg -> pkg/__init__.py",
				"import_pkg_mod.py:1 pkg.mod -> pkg/mod.py",
			},
		},
		{
			// from dataclasses import dataclass and from pkg import
			// func name no module: the possible submodules
			// dataclasses.dataclass and pkg.func are not listed.
			target: "from_pkg_import_func.py",
			files:  []string{"from_pkg_import_func.py"},
			imports: []string{
				"from_pkg_import_func.py:1 dataclasses",
				"from_pkg_import_func.py:3 pkg",
			},
			importedBy: []string{},
		},
		{
			// from pkg import mod lists the package and the module.
			target: "from_pkg_import_mod.py",
			files:  []string{"from_pkg_import_mod.py"},
			imports: []string{
				"from_pkg_import_mod.py:1 pkg",
				"from_pkg_import_mod.py:1 pkg.mod -> pkg/mod.py",
			},
			importedBy: []string{},
		},
	}
	for _, tt := range tests {
		files, imports, importedBy, err := ix.Imports(ctx, tt.target)
		if err != nil {
			t.Fatalf("Imports(%s): %v", tt.target, err)
		}
		if !slices.Equal(files, tt.files) {
			t.Errorf("Imports(%s) files = %q, want %q", tt.target, files, tt.files)
		}
		if got := describe(imports); !slices.Equal(got, tt.imports) {
			t.Errorf("Imports(%s) imports =\n  %q\nwant\n  %q", tt.target, got, tt.imports)
		}
		if got := describe(importedBy); !slices.Equal(got, tt.importedBy) {
			t.Errorf("Imports(%s) imported by =\n  %q\nwant\n  %q", tt.target, got, tt.importedBy)
		}
	}
}
