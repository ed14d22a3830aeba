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
