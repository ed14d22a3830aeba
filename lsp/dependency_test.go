package lsp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDependencyDir(t *testing.T) {
	t.Parallel()
	// A Go toolchain that is not GOROOT: VERSION, src/runtime, pkg/tool.
	other := filepath.Join(t.TempDir(), "go1.22")
	for _, d := range []string{"src/runtime", "src/net/http", "pkg/tool"} {
		if err := os.MkdirAll(filepath.Join(other, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "VERSION"), []byte("go1.22.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	env := map[string]string{"GOROOT": "/usr/local/go", "GOPATH": "/home/u/go:/srv/gopath", "HOME": "/home/u", "GOMODCACHE": "/cache/mod"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		dir, want string
	}{
		{"/usr/local/go", "the Go toolchain (GOROOT)"},
		{"/usr/local/go/src/net/http", "the Go toolchain (GOROOT)"},
		{"/usr/local/gopher", ""},
		{"/cache/mod/github.com/x/y@v1.0.0", "the Go module cache"},
		{"/home/u/go/pkg/mod/golang.org/x/tools@v0.23.0", "the Go module cache"},
		{"/srv/gopath/pkg/mod/example.com/m@v1.2.3", "the Go module cache"},
		{"/other/pkg/mod/example.com/m@v1.2.3/sub", "the Go module cache"},
		{"/home/u/src/app/pkg/mod", ""}, // a project's own package named mod
		{"/home/u/app/node_modules/react", "a node_modules directory"},
		{"/home/u/.venv/lib/python3.11/site-packages/requests", "a Python site-packages directory"},
		{"/usr/lib/python3/dist-packages/yaml", "a Python dist-packages directory"},
		{"/home/u/.cargo/registry/src/index/serde-1.0.0", "Cargo's registry"},
		{"/home/u/.rustup/toolchains/stable/lib/rustlib/src", "a Rust toolchain"},
		{filepath.Join(other, "src", "net", "http"), "a Go toolchain"},
		{other, "a Go toolchain"},
		{project, ""},
		{"/home/u/src/app", ""},
	} {
		if got := dependencyDir(tt.dir, getenv); got != tt.want {
			t.Errorf("dependencyDir(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}
