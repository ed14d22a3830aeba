package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/mcp"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// TestMCPWorkspaceSettings runs `anchorage mcp` on a workspace with a
// settings file and checks, through a real MCP client over pipes, that
// the server indexes and answers by it: excluded paths and other
// languages are not indexed, and the memory documents are found where the
// file says, not in the default place.
func TestMCPWorkspaceSettings(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".anchorage/config.yaml": "exclude:\n  - vendored/\nlanguages: [go]\nmemory_documents:\n  - notes/*.md\n",
		"app/app.go":             "package app\n\n// KeepWalrus is indexed.\nfunc KeepWalrus() {}\n",
		"vendored/lib/lib.go":    "package lib\n\n// HiddenWalrus is in an excluded directory.\nfunc HiddenWalrus() {}\n",
		"tools/walrus.py":        "def python_walrus():\n    return 1\n",
		"notes/feeding.md":       "# Feeding the walrus\n\nThe walrus is fed herring at noon; the feeding schedule lives in app.\n",
		// In the default place of memory documents, which the settings
		// file replaces.
		".anchorage/memory/default.md": "# Walrus defaults\n\nThe default walrus document must not be read.\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := mcpTestContext(t)
	defer cancel()
	// The server reads what the client writes and writes what it reads.
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	stderr := &lockedWriter{w: &strings.Builder{}}
	cmd := newRootCmd(serverOut, stderr)
	cmd.SetIn(serverIn)
	cmd.SetArgs([]string{"--data-dir", t.TempDir(), "--root", root, "mcp"})
	done := make(chan error, 1)
	go func() {
		err := cmd.ExecuteContext(ctx)
		serverOut.Close()
		done <- err
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "anchorage-settings-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() {
		cs.Close()
		clientOut.Close()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("anchorage mcp: %v\n%s", err, stderr.String())
		}
	}()

	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: tool error: %v", name, args, res.Content)
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
	// The server indexes in the background: wait for it to say it is done.
	var syms mcp.SymbolsOutput
	for {
		call(mcp.ToolSymbols, map[string]any{"query": "walrus"}, &syms)
		if !syms.Partial {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("still indexing at the test's deadline: %s", syms.Notice)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var names []string
	for _, s := range syms.Symbols {
		names = append(names, s.Path+":"+s.Name)
	}
	if !slices.Contains(names, "app/app.go:KeepWalrus") {
		t.Errorf("symbols matching walrus %v, want app/app.go:KeepWalrus", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "vendored/") || strings.HasSuffix(strings.SplitN(n, ":", 2)[0], ".py") {
			t.Errorf("symbol %s indexed against the settings file (exclude vendored/, languages go)", n)
		}
	}

	var mem recall.Response
	call(mcp.ToolMemorySearch, map[string]any{"query": "walrus feeding schedule herring"}, &mem)
	var docs []string
	for _, r := range mem.Results {
		if r.Kind == "document" {
			docs = append(docs, r.ID)
		}
	}
	if !slices.Contains(docs, "doc:notes/feeding.md") || slices.Contains(docs, "doc:.anchorage/memory/default.md") {
		t.Errorf("memory documents found %v, want doc:notes/feeding.md (the settings file's glob) and not the default place's", docs)
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("the settings file was warned about:\n%s", stderr.String())
	}
}

// mcpTestContext ends shortly before the test binary's deadline, or in
// ten minutes without one: a busy machine slows the test down without
// failing it.
func mcpTestContext(t *testing.T) (context.Context, context.CancelFunc) {
	limit := time.Now().Add(10 * time.Minute)
	if d, ok := t.Deadline(); ok {
		left := time.Until(d)
		limit = d.Add(-min(left/10+5*time.Second, left/2))
	}
	return context.WithDeadline(context.Background(), limit)
}

// lockedWriter serialises writes to w: the server logs from several
// goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.(*strings.Builder).String()
}
