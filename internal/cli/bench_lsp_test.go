package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/anchorage-dev/anchorage/lsp"
)

// TestBenchTypist types the benchmark's function into a document of a
// real language server, a line at a time, and deletes it again: each
// keystroke is timed, the function appears in the document's outline once
// typed, and once deleted the outline is the file's own again, with
// conn.serve where it was.
func TestBenchTypist(t *testing.T) {
	root := t.TempDir()
	src := "package http\n\nimport \"context\"\n\n// A conn is a connection.\ntype conn struct{}\n\n// Serve a new connection.\nfunc (c *conn) serve(ctx context.Context) {\n\tc.close()\n}\n\nfunc (c *conn) close() {}\n"
	dir := filepath.Join(root, "net", "http")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := lsp.New(lsp.Options{DataDir: t.TempDir(), Logger: zap.NewNop()})
	done := make(chan int, 1)
	go func() { done <- srv.Serve(ctx, inR, outW) }()
	c := &rawClient{w: inW, r: bufio.NewReader(outR)}
	if _, err := c.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(root), "capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	typist, err := newBenchTypist(c, root)
	if err != nil || typist == nil {
		t.Fatalf("newBenchTypist = %v, %v", typist, err)
	}
	outline := func() string {
		res, err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": typist.uri}})
		if err != nil {
			t.Fatal(err)
		}
		return string(res)
	}
	before := outline()
	if strings.Contains(before, `"Ping"`) || !strings.Contains(before, `"serve"`) {
		t.Fatalf("outline before typing: %s", before)
	}
	keystrokes := 0
	for i := range 2 * len(typist.lines) {
		ks, err := typist.line()
		if err != nil {
			t.Fatal(err)
		}
		keystrokes += len(ks)
		switch got := outline(); {
		case !strings.Contains(got, `"serve"`):
			t.Fatalf("after line %d, conn.serve left the outline: %s", i, got)
		case i == len(typist.lines)-1 && !strings.Contains(got, `"Ping"`):
			t.Fatalf("with the function typed, Ping is not in the outline: %s", got)
		}
	}
	if want := 2 * len(benchTypedFunction); keystrokes != want {
		t.Errorf("%d keystrokes timed, want %d (each character typed, then deleted)", keystrokes, want)
	}
	if after := outline(); after != before {
		t.Errorf("after typing and deleting the function, the outline is\n%s\nwant\n%s", after, before)
	}
	c.call("shutdown", nil)
	c.notify("exit", nil)
	<-done
}

// TestBenchTypingNeedsNetHTTP runs anchorage bench --lsp-typing on a root
// that is not the Go standard library: a clear error, and no server.
func TestBenchTypingNeedsNetHTTP(t *testing.T) {
	root := t.TempDir()
	err := Run(context.Background(), []string{"--data-dir", t.TempDir(), "--root", root, "bench", "--lsp-typing"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "net/http/server.go") {
		t.Fatalf("bench --lsp-typing on %s = %v, want an error naming net/http/server.go", root, err)
	}
}

// TestProcCPUSeconds reads this process's CPU time, which grows as it
// works, and nothing for a process that does not exist.
func TestProcCPUSeconds(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc:", err)
	}
	first := procCPUSeconds(os.Getpid())
	x := 0
	for n := 0; procCPUSeconds(os.Getpid()) <= first; n++ {
		if n == 100_000 {
			t.Fatalf("CPU time stays at %v s after 10¹¹ additions", first)
		}
		for i := range 1_000_000 {
			x += i
		}
	}
	_ = x
	if got := procCPUSeconds(1 << 30); got != 0 {
		t.Errorf("procCPUSeconds(no such process) = %v, want 0", got)
	}
}
