package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/state"
)

// TestDamagedIndexServe: garbage written into the index (issue 21) does
// not stop the server: it initializes, says once that the index is being
// rebuilt, and answers workspace/symbol from the rebuilt index.
func TestDamagedIndexServe(t *testing.T) {
	for _, d := range []struct {
		name        string
		from, count int
	}{{"pages 2-7", 2, 6}, {"pages 10-60", 10, 51}} {
		t.Run(d.name, func(t *testing.T) {
			if anchorageBin == "" {
				t.Skip("end-to-end tests are not run while fuzzing")
			}
			root := sampleApp(t)
			data := t.TempDir()
			if out, err := exec.Command(anchorageBin, "--data-dir", data, "--root", root, "index").CombinedOutput(); err != nil {
				t.Fatalf("anchorage index: %v\n%s", err, out)
			}
			dirs, err := state.Resolve(data)
			if err != nil {
				t.Fatal(err)
			}
			damagePages(t, dirs.IndexPath(root), d.from, d.count)

			c := connect(t, startProcIn(t, data))
			c.start(t, clientOptions{}, root)
			if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
				t.Fatal("workspace/symbol FindByID: nothing after the rebuild")
			}
			n := 0
			for _, f := range c.all() {
				if isLog(protocol.MessageTypeWarning, "unreadable and is being rebuilt")(f) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("the rebuild is reported %d times, want once", n)
			}
		})
	}
}

// TestHugeSymbolQuery: a workspace/symbol query of 50 MB is answered,
// with nothing, without the database running out of memory (the query is
// capped before it reaches SQLite), and the server goes on answering.
func TestHugeSymbolQuery(t *testing.T) {
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	// Reading and decoding 50 MB under the race detector on a busy
	// machine takes a while: a failsafe, not a target (see the
	// benchmarks of the language server's stream for speed).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := c.server.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: strings.Repeat("a", 50<<20)})
	if err != nil {
		t.Fatalf("workspace/symbol of 50 MB: %v", err)
	}
	if len(res) != 0 {
		t.Errorf("workspace/symbol of 50 MB of a: %d symbols", len(res))
	}
	if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
		t.Fatal("workspace/symbol FindByID: nothing after the huge query")
	}
	if log := c.stderr.String(); strings.Contains(log, "out of memory") {
		t.Errorf("the server ran out of memory:\n%s", log)
	}
}

// damagePages overwrites pages [from, from+count) of the database at
// path with pseudo-random bytes, as dd from /dev/urandom does.
func damagePages(t *testing.T, path string, from, count int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(uint64(from), uint64(count)))
	buf := make([]byte, 4096*count)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	if _, err := f.WriteAt(buf, int64(from)*4096); err != nil {
		t.Fatal(err)
	}
}

// TestIndexDamagedWhileServing: the index is damaged while the server
// runs (issue 21). The next read that fails finds it; the server says so
// once, rebuilds the index from the files in the background and answers
// again. The rules database is left as it is.
func TestIndexDamagedWhileServing(t *testing.T) {
	root := sampleApp(t)
	data := t.TempDir()
	c := connect(t, startProcIn(t, data))
	c.start(t, clientOptions{}, root)
	if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
		t.Fatal("workspace/symbol FindByID: nothing before the damage")
	}
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(data, "memory.db")
	before, rulesErr := os.ReadFile(rules)

	index := dirs.IndexPath(root)
	info, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	damagePages(t, index, 1, int(info.Size()/4096)-1)
	// Pages written lately are read from the write-ahead log: its frames
	// are damaged too, all but its header.
	if wal, err := os.Stat(index + "-wal"); err == nil && wal.Size() > 4096 {
		damagePages(t, index+"-wal", 1, int(wal.Size()/4096)-1)
	}
	mark := c.mark()
	// The server's connections hold the pages they read: queries sent at
	// once make it open new connections, which read the damaged file.
	queries := []string{"Save", "Open", "retry", "LruCache", "User", "evict", "handler", "Job", "main", "a", "e", "s", "who calls FindByID", "users loaded from the database", "o", "r"}
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() {
			var res []protocol.SymbolInformation
			errs[i] = c.call(t, "workspace/symbol", &protocol.WorkspaceSymbolParams{Query: q}, &res)
		})
	}
	wg.Wait()
	// Damage reads as SQLite's words for it, or, where it hit the schema
	// page, as a table of the index missing.
	var failed []string
	sawDamage := false
	for _, err := range errs {
		if err == nil {
			continue
		}
		msg := err.Error()
		failed = append(failed, msg)
		for _, word := range []string{"malformed", "corrupt", "not a database", "no such table"} {
			sawDamage = sawDamage || strings.Contains(msg, word)
		}
	}
	if len(failed) == 0 {
		t.Fatal("no request failed on the damaged index")
	}
	if !sawDamage {
		t.Errorf("the failing requests say %q, want SQLite's word for damage", failed)
	}
	damaged := func(f frame) bool {
		var p protocol.ShowMessageParams
		return f.Method == "window/showMessage" && json.Unmarshal(f.Params, &p) == nil &&
			p.Type == protocol.MessageTypeWarning && strings.Contains(p.Message, "is damaged")
	}
	c.wait(t, mark, eventTimeout, "the message that the index is damaged", damaged)
	c.waitIndexed(t, mark, root)
	if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
		t.Fatal("workspace/symbol FindByID: nothing after the rebuild")
	}
	if syms := c.symbols(t, "LruCache"); len(syms) == 0 {
		t.Fatal("workspace/symbol LruCache: nothing after the rebuild")
	}
	n := 0
	for _, f := range c.all() {
		if damaged(f) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the damage is reported %d times, want once", n)
	}
	after, err := os.ReadFile(rules)
	switch {
	case rulesErr != nil && !errors.Is(err, os.ErrNotExist):
		t.Errorf("memory.db appeared or changed: %v", err)
	case rulesErr == nil && (err != nil || !bytes.Equal(before, after)):
		t.Errorf("memory.db changed during the rebuild (%v)", err)
	}
}
