package lsp

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
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
