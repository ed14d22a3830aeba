package lsp

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// BenchmarkTypingRoundTrip types a function into net/http/server.go of
// the Go standard library (net/http as the workspace, indexed), a
// character at a time above conn.serve, then deletes it, as anchorage
// bench --lsp does: each keystroke a didChange and the documentSymbol
// request that reads the document's new graph, timed together (the
// editor's round trip: the pipe, the parse, the outline and its JSON).
// It reports the round trip's p50 and p99 and the process's CPU time per
// keystroke (server and client: on a busy machine the wall-clock time is
// mostly waiting for a core).
func BenchmarkTypingRoundTrip(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	src, err := os.ReadFile(filepath.Join(root, "server.go"))
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
	c.waitIndexed(b)
	u := string(uri.File(filepath.Join(root, "server.go")))
	version := 1
	c.notify(b, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": version, "text": text[:at] + "\n" + text[at:]}})
	c.call(b, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}})
	const typed = "func Ping(ctx context.Context) error {\n\tif err := c.rwc.SetDeadline(time.Time{}); err != nil {\n\t\treturn fmt.Errorf(\"ping: %w\", err)\n\t}\n\treturn nil\n}\n"
	var times []time.Duration
	key := func(l0, c0, l1, c1 int, s string) {
		version++
		start := time.Now()
		pos0, pos1 := map[string]any{"line": l0, "character": c0}, map[string]any{"line": l1, "character": c1}
		c.notify(b, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos0, "end": pos1}, "text": s}}})
		c.call(b, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}})
		times = append(times, time.Since(start))
	}
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		line, col := line0, 0
		for _, r := range typed {
			key(line, col, line, col, string(r))
			if r == '\n' {
				line, col = line+1, 0
			} else {
				col++
			}
		}
		// Deleted a character at a time, from the end.
		for line > line0 || col > 0 {
			if col == 0 {
				prev := strings.Split(typed, "\n")[line-1-line0]
				key(line-1, len(prev), line, 0, "")
				line, col = line-1, len(prev)
				continue
			}
			key(line, col-1, line, col, "")
			col--
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(times)), "cpu-ms/keystroke")
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}
