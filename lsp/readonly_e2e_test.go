package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/state"
)

// TestHoverReadsOnly hovers an anchored example over a real client and
// checks that the memory database did not change: no commit (PRAGMA
// data_version, seen from another connection) and no byte written to the
// file or its write-ahead log, once the hover's slot move is visible to
// the server. The slots are written when the server stops.
func TestHoverReadsOnly(t *testing.T) {
	dataDir := t.TempDir()
	p := startProcWith(t, dataDir, "--slot-flush=-1s")
	root := t.TempDir()
	src := "package store\n\n// WrapQueryError wraps a failed query's error.\nfunc WrapQueryError(err error) error {\n\treturn err\n}\n"
	if err := os.WriteFile(filepath.Join(root, "db.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	seedInjectRules(t, p.dataDir, root,
		[4]string{"universal", "Wrap errors with fmt.Errorf and the %w verb", "db.go", "store.WrapQueryError"},
		[4]string{"universal", "Compare wrapped errors with errors.Is, never with ==", "", ""},
	)
	dirs, err := state.Resolve(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	path := dirs.MemoryPath()
	c := connect(t, p)
	c.memStart(t, root)
	u := uri.File(filepath.Join(root, "db.go"))
	at := protocol.Position{Line: 3, Character: 6}
	// The first hover opens the memory graph in the background; the
	// statistics command waits for it and brings it up to date.
	if h := c.memHover(t, u, at); h == nil || !strings.Contains(h.Contents.Value, "Wrap errors with fmt.Errorf") {
		t.Fatalf("hover = %+v, want the anchored rule", h)
	}
	var stats map[string]any
	c.memCommand(t, &stats, cmdStats)
	if stats["graph"] == nil {
		t.Fatalf("statistics without the memory graph: %v", stats)
	}
	waitFocus(t, c)

	ctx := context.Background()
	other, err := driver.Open("file:" + filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	type mark struct {
		version        int64
		size, walSize  int64
		mtime, walTime int64
	}
	look := func() mark {
		t.Helper()
		var m mark
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&m.version); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err == nil {
			m.size, m.mtime = fi.Size(), fi.ModTime().UnixNano()
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			m.walSize, m.walTime = fi.Size(), fi.ModTime().UnixNano()
		}
		return m
	}
	before := look()

	for range 3 {
		if h := c.memHover(t, u, at); h == nil || !strings.Contains(h.Contents.Value, "Wrap errors with fmt.Errorf") {
			t.Fatalf("hover = %+v, want the anchored rule", h)
		}
	}
	waitFocus(t, c)
	if after := look(); after != before {
		t.Errorf("hovers wrote to the memory database: before %+v, after %+v", before, after)
	}

	// Stopping the server writes the slots.
	if err := c.server.Shutdown(callCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.server.Exit(callCtx(t)); err != nil {
		t.Fatal(err)
	}
	if code := p.waitExit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if after := look(); after.version == before.version {
		t.Error("the server stopped without writing the slots the hovers moved")
	}
}

// waitFocus waits until a slot has followed the cursor: the server
// follows hovers in the background.
func waitFocus(t *testing.T, c *lspClient) {
	t.Helper()
	for i := 0; ; i++ {
		var st recall.Status
		c.memCommand(t, &st, cmdAnchorsStatus)
		for _, sl := range st.Slots {
			if sl.LastUsed != "" && sl.Summary != "" {
				return
			}
		}
		if i > 10000 {
			t.Fatalf("no slot follows the hovers: %+v", st)
		}
	}
}
