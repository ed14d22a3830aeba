package analysis

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// loadBenchFile reads net/http/server.go, a large real Go file present on
// every machine with Go.
func loadBenchFile(b *testing.B) (*Language, []byte) {
	// $GOROOT first: no child process, whose exit signal callgrind
	// cannot follow (valgrind --tool=callgrind on the benchmarks).
	goroot := []byte(os.Getenv("GOROOT"))
	if len(goroot) == 0 {
		var err error
		if goroot, err = exec.Command("go", "env", "GOROOT").Output(); err != nil {
			b.Skipf("no Go installation: %v", err)
		}
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skipf("no benchmark corpus: %v", err)
	}
	lang, err := NewLanguages().ByName("go")
	if err != nil {
		b.Fatal(err)
	}
	return lang, src
}

// BenchmarkParse measures tree-sitter alone on net/http/server.go.
func BenchmarkParse(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		tree, err := p.Parse(context.Background(), lang, src, nil)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
	}
}

// BenchmarkExtract measures parsing plus symbol and edge extraction.
func BenchmarkExtract(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := p.Extract(context.Background(), lang, "net/http/server.go", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocumentEdit measures a one-character edit in a function of
// net/http/server.go: the edit, the incremental reparse and the graph
// update of the open document (the editor's keystroke path).
func BenchmarkDocumentEdit(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	doc, err := p.OpenDocument(ctx, lang, "net/http/server.go", 1, src)
	if err != nil {
		b.Fatal(err)
	}
	defer doc.Close()
	// Type in an identifier of conn.serve's body (the text stays valid Go).
	fn := strings.Index(string(src), "func (c *conn) serve(ctx context.Context) {")
	at := strings.Index(string(src[fn:]), "remoteAddr")
	if fn < 0 || at < 0 {
		b.Skip("net/http/server.go has no conn.serve using remoteAddr")
	}
	pos := newLineIndex(src).position(fn + at + len("remote"))
	line, col := pos.Line, pos.Column
	version := int32(1)
	var durations, cpu []time.Duration
	// As in BenchmarkDocumentTypingRecovery, the thread's CPU time too.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		version++
		start := time.Now()
		cpu0, cpuOK := threadCPU()
		// Type a character, then delete it: two edits, as two keystrokes.
		if err := doc.Apply(ctx, p, version, []TextEdit{{Range: &EditRange{line, col, line, col}, Text: "x"}}); err != nil {
			b.Fatal(err)
		}
		version++
		if err := doc.Apply(ctx, p, version, []TextEdit{{Range: &EditRange{line, col, line, col + 1}, Text: ""}}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start)/2)
		if cpu1, ok := threadCPU(); ok && cpuOK {
			cpu = append(cpu, (cpu1-cpu0)/2)
		}
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms/edit")
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms/edit")
	if len(cpu) > 0 {
		slices.Sort(cpu)
		b.ReportMetric(float64(cpu[len(cpu)*99/100].Microseconds())/1000, "p99-cpu-ms/edit")
		b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms/edit")
	}
}

// BenchmarkAppendTerms measures the search terms of net/http/server.go,
// which every chunk's text goes through.
func BenchmarkAppendTerms(b *testing.B) {
	_, src := loadBenchFile(b)
	text := string(src)
	b.SetBytes(int64(len(text)))
	var buf []byte
	for b.Loop() {
		buf = AppendTerms(buf[:0], text)
	}
}

// BenchmarkDocumentTypingRecovery measures keystrokes that leave
// net/http/server.go with syntax errors: a function typed character by
// character above conn.serve, then deleted (each keystroke an edit, the
// incremental reparse, the recovery of the rest of the file and the graph
// update). It checks that conn.serve stays in the graph throughout.
func BenchmarkDocumentTypingRecovery(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	doc, err := p.OpenDocument(ctx, lang, "net/http/server.go", 1, src)
	if err != nil {
		b.Fatal(err)
	}
	defer doc.Close()
	at := strings.Index(string(src), "\nfunc (c *conn) serve(ctx context.Context) {")
	if at < 0 {
		b.Skip("net/http/server.go has no conn.serve")
	}
	// A blank line to type on, above conn.serve's doc comment.
	at = strings.LastIndex(string(src[:at]), "\n\n") + 1
	pos := newLineIndex(src).position(at)
	version := int32(2)
	if err := doc.Apply(ctx, p, version, []TextEdit{{Range: &EditRange{pos.Line, 0, pos.Line, 0}, Text: "\n"}}); err != nil {
		b.Fatal(err)
	}
	typed := "func Ping(ctx context.Context) error {\n\tif err := c.rwc.SetDeadline(time.Time{}); err != nil {\n\t\treturn fmt.Errorf(\"ping: %w\", err)\n\t}\n\treturn nil\n}\n"
	var durations, cpu []time.Duration
	// The keystrokes run on one thread, whose CPU time is what a keystroke
	// costs on a busy machine (where the wall-clock time is mostly waiting
	// for a core).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	keystroke := func(e TextEdit) {
		version++
		start := time.Now()
		cpu0, cpuOK := threadCPU()
		if err := doc.Apply(ctx, p, version, []TextEdit{e}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
		if cpu1, ok := threadCPU(); ok && cpuOK {
			cpu = append(cpu, cpu1-cpu0)
			if os.Getenv("SLOW") != "" && cpu1-cpu0 > 3*time.Millisecond {
				t := doc.Text()[at:]
				if i := strings.Index(string(t), "\n\n"); i >= 0 {
					t = t[:i]
				}
				b.Logf("slow: %v CPU, %v: %q cuts %v queried %d", cpu1-cpu0, time.Since(start), t, doc.cuts, doc.queried)
			}
		}
		found := false
		// The symbols a keystroke publishes (what the outline reads; the
		// references are linked when first asked for).
		for _, s := range doc.snap.graph.Symbols {
			if s.QualifiedName == "conn.serve" {
				found = true
				break
			}
		}
		if !found {
			b.Fatalf("conn.serve left the graph with %q typed", doc.Text()[at:at+40])
		}
	}
	for b.Loop() {
		li := newLineIndex(doc.Text())
		line, col := pos.Line, 0
		for _, r := range typed {
			keystroke(TextEdit{Range: &EditRange{line, col, line, col}, Text: string(r)})
			if r == '\n' {
				line, col = line+1, 0
			} else {
				col++
			}
		}
		_ = li
		for range typed {
			if col == 0 {
				line--
				col = len(strings.Split(string(doc.Text()[at:]), "\n")[line-pos.Line])
				keystroke(TextEdit{Range: &EditRange{line, col, line + 1, 0}})
				continue
			}
			keystroke(TextEdit{Range: &EditRange{line, col - 1, line, col}})
			col--
		}
		if string(doc.Text()[at:at+1]) != "\n" {
			b.Fatalf("deleting left %q", doc.Text()[at:at+40])
		}
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms/keystroke")
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms/keystroke")
	if len(cpu) > 0 {
		slices.Sort(cpu)
		b.ReportMetric(float64(cpu[len(cpu)*99/100].Microseconds())/1000, "p99-cpu-ms/keystroke")
		b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms/keystroke")
	}
	b.ReportMetric(float64(len(durations))/float64(b.N), "keystrokes/op")
}
