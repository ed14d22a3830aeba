package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// BenchmarkTypingRoundTrip types a function into net/http/server.go of
// the Go standard library, a character at a time above conn.serve, then
// deletes it, as anchorage bench --lsp does: each keystroke a didChange
// and the documentSymbol request that reads the document's new graph,
// timed together (the editor's round trip: the pipe, the parse, the
// outline and its JSON). "indexed" types into net/http once it is
// indexed; "indexing" types while the server indexes the whole net tree
// cold, until it is done. It reports the round trip's p50 and p99 and the
// process's CPU time per keystroke (server and client, and in
// "indexing" the indexer's: on a busy machine the wall-clock time is
// mostly waiting for a core).
func BenchmarkTypingRoundTrip(b *testing.B) {
	for _, indexing := range []bool{false, true} {
		name, dir := "indexed", filepath.Join("net", "http")
		if indexing {
			name, dir = "indexing", "net"
		}
		b.Run(name, func(b *testing.B) { benchTyping(b, filepath.Join(runtime.GOROOT(), "src", dir), indexing) })
	}
}

func benchTyping(b *testing.B, root string, indexing bool) {
	file := filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")
	src, err := os.ReadFile(file)
	if err != nil {
		b.Skip("no Go standard library source:", err)
	}
	text := string(src)
	at := strings.Index(text, "\nfunc (c *conn) serve(")
	if at < 0 {
		b.Skip("net/http/server.go has no conn.serve")
	}
	at = strings.LastIndex(text[:at], "\n\n") + 1
	line0 := strings.Count(text[:at], "\n")
	c := startBenchServer(b, root)
	if !indexing {
		c.waitIndexed(b)
	}
	u := string(uri.File(file))
	version := 1
	c.notify(b, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": version, "text": text[:at] + "\n" + text[at:]}})
	c.call(b, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}})
	const typed = "func Ping(ctx context.Context) error {\n\tif err := c.rwc.SetDeadline(time.Time{}); err != nil {\n\t\treturn fmt.Errorf(\"ping: %w\", err)\n\t}\n\treturn nil\n}\n"
	lines := strings.Split(typed, "\n")
	var times []time.Duration
	key := func(l0, c0, l1, c1 int, s string) {
		version++
		// A region of the runtime trace (go test -trace) for each
		// keystroke, to tell what the slow ones waited for.
		defer trace.StartRegion(context.Background(), "keystroke").End()
		start := time.Now()
		pos0, pos1 := map[string]any{"line": l0, "character": c0}, map[string]any{"line": l1, "character": c1}
		c.notify(b, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos0, "end": pos1}, "text": s}}})
		c.call(b, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}})
		times = append(times, time.Since(start))
	}
	// typeAndDelete types the function and deletes it again.
	typeAndDelete := func() {
		line, col := line0, 0
		for _, r := range typed {
			key(line, col, line, col, string(r))
			if r == '\n' {
				line, col = line+1, 0
			} else {
				col++
			}
		}
		for line > line0 || col > 0 {
			if col == 0 {
				prev := len(lines[line-1-line0])
				key(line-1, prev, line, 0, "")
				line, col = line-1, prev
				continue
			}
			key(line, col-1, line, col, "")
			col--
		}
	}
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		typeAndDelete()
		for indexing && c.indexing(b) {
			typeAndDelete()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(times))/float64(b.N), "keystrokes/op")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(times)), "cpu-ms/keystroke")
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// indexing reports whether the first folder is still being indexed.
func (c *benchConn) indexing(b *testing.B) bool {
	c.id++
	if err := c.write(map[string]any{"id": c.id, "method": "workspace/executeCommand", "params": map[string]any{"command": "anchorage.index.status"}}); err != nil {
		b.Fatal(err)
	}
	r := c.response(b, c.id)
	var st struct {
		Folders []struct {
			Indexing bool `json:"indexing"`
			Files    int  `json:"files"`
		} `json:"folders"`
	}
	json.Unmarshal(r.result, &st)
	return !(len(st.Folders) > 0 && !st.Folders[0].Indexing && st.Folders[0].Files > 0)
}
