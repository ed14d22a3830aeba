package lsp

import (
	"os"
	"path/filepath"
	"strings"
)

// dependencyDir returns what a directory is when it holds code a project
// depends on rather than the project itself: the Go toolchain, the Go
// module cache, a Python site-packages, a node_modules, Cargo's registry
// or a Rust toolchain. It returns "" for any other directory. getenv reads
// the environment (GOROOT, GOMODCACHE, GOPATH, HOME).
//
// Editors open such files when the user jumps to a definition; indexing
// the whole directory (6,800 files for GOROOT) is never what was asked
// for, so the server leaves such folders unindexed unless the
// indexDependencies setting asks for it.
func dependencyDir(dir string, getenv func(string) string) string {
	dir = filepath.Clean(dir)
	within := func(root string) bool {
		if root == "" {
			return false
		}
		root = filepath.Clean(root)
		return dir == root || strings.HasPrefix(dir, root+string(filepath.Separator))
	}
	if within(getenv("GOROOT")) {
		return "the Go toolchain (GOROOT)"
	}
	caches := []string{getenv("GOMODCACHE")}
	for _, p := range filepath.SplitList(getenv("GOPATH")) {
		caches = append(caches, filepath.Join(p, "pkg", "mod"))
	}
	if home := getenv("HOME"); home != "" {
		caches = append(caches, filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, c := range caches {
		if within(c) {
			return "the Go module cache"
		}
	}
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for i, p := range parts {
		switch {
		case p == "node_modules":
			return "a node_modules directory"
		case p == "site-packages" || p == "dist-packages":
			return "a Python " + p + " directory"
		case p == "registry" && i > 0 && parts[i-1] == ".cargo":
			return "Cargo's registry"
		case p == "toolchains" && i > 0 && parts[i-1] == ".rustup":
			return "a Rust toolchain"
		case p == "mod" && i > 0 && parts[i-1] == "pkg" && i+1 < len(parts) && strings.Contains(strings.Join(parts[i+1:], "/"), "@"):
			return "the Go module cache"
		}
	}
	// A Go toolchain elsewhere than GOROOT (another version, /usr/lib/go):
	// VERSION next to src/runtime, in the directory or above it.
	for d := dir; ; {
		if isFile(filepath.Join(d, "VERSION")) && isDir(filepath.Join(d, "src", "runtime")) && isDir(filepath.Join(d, "pkg", "tool")) {
			return "a Go toolchain"
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// indexable reports whether a folder may be indexed: not a dependency
// directory (dependencyDir), unless the indexDependencies setting is on.
// The first time it says no for a folder, the user is told why.
func (s *Server) indexable(f *folder) bool {
	s.mu.Lock()
	allowed := s.settings.IndexDependencies != nil && *s.settings.IndexDependencies
	s.mu.Unlock()
	if allowed {
		return true
	}
	what := dependencyDir(f.dir, os.Getenv)
	if what == "" {
		return true
	}
	if f.skipTold.CompareAndSwap(false, true) {
		s.warn("not indexing %s: it is %s, code a project depends on. Open the project that uses it, or set indexDependencies to index it", f.dir, what)
	}
	return false
}
