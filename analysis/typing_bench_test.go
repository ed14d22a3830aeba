package analysis

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkWorkspaceTyping types a function into net/http/server.go open
// in a workspace, a character at a time above conn.serve, then deletes
// it, reading after each keystroke what an editor's outline reads: the
// edit (Change), the parse it calls for and the document's symbols
// (FileSymbols), nested (Outline). It is the server's side of anchorage
// bench --lsp's keystroke, without the pipe and the JSON. It reports the
// wall-clock and the thread's CPU time per keystroke, and the bytes
// allocated.
func BenchmarkWorkspaceTyping(b *testing.B) {
	_, src := loadBenchFile(b)
	root := b.TempDir()
	rel := "net/http/server.go"
	if err := os.MkdirAll(filepath.Join(root, "net", "http"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), src, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ix, err := Open(ctx, Options{Root: root, DBPath: filepath.Join(b.TempDir(), "index.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	w := NewWorkspace(ix)
	defer w.Shutdown(ctx)
	text := string(src)
	at := strings.Index(text, "\nfunc (c *conn) serve(")
	if at < 0 {
		b.Skip("net/http/server.go has no conn.serve")
	}
	at = strings.LastIndex(text[:at], "\n\n") + 1
	line0 := strings.Count(text[:at], "\n")
	version := int32(1)
	if err := w.Open(ctx, rel, version, []byte(text[:at]+"\n"+text[at:])); err != nil {
		b.Fatal(err)
	}
	if _, err := w.FileSymbols(ctx, rel); err != nil {
		b.Fatal(err)
	}
	const typed = "func Ping(ctx context.Context) error {\n\tif err := c.rwc.SetDeadline(time.Time{}); err != nil {\n\t\treturn fmt.Errorf(\"ping: %w\", err)\n\t}\n\treturn nil\n}\n"
	lines := strings.Split(typed, "\n")
	var durations, cpu []time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	key := func(l0, c0, l1, c1 int, s string) {
		version++
		start := time.Now()
		cpu0, cpuOK := threadCPU()
		if err := w.Change(ctx, rel, version, []TextEdit{{Range: &EditRange{l0, c0, l1, c1}, Text: s}}); err != nil {
			b.Fatal(err)
		}
		syms, err := w.FileSymbols(ctx, rel)
		if err != nil {
			b.Fatal(err)
		}
		if len(Outline(syms)) == 0 {
			b.Fatal("no outline")
		}
		durations = append(durations, time.Since(start))
		if cpu1, ok := threadCPU(); ok && cpuOK {
			cpu = append(cpu, cpu1-cpu0)
		}
	}
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
	b.ReportMetric(float64(len(durations))/float64(b.N), "keystrokes/op")
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms/keystroke")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms/keystroke")
	if len(cpu) > 0 {
		slices.Sort(cpu)
		b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms/keystroke")
		b.ReportMetric(float64(cpu[len(cpu)*99/100].Microseconds())/1000, "p99-cpu-ms/keystroke")
	}
}
