package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// benchConn is a server running in process over pipes, driven with raw
// frames: the same path as an editor's messages, without a process to
// start for each benchmark. A goroutine reads the server's output, as an
// editor does, and answers the server's requests with null.
type benchConn struct {
	in        io.WriteCloser
	mu        sync.Mutex // serialises writes to in
	responses chan benchResponse
	done      chan int
	id        int
	// timings receive where the requests' time went in the server, when
	// it runs in this process.
	timings chan requestTiming
}

type benchResponse struct {
	id     string
	result json.RawMessage
	error  json.RawMessage
	at     time.Time // when it was read
}

func startBenchServer(b *testing.B, root string) *benchConn {
	b.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{DataDir: b.TempDir()})
	c := &benchConn{in: inW, responses: make(chan benchResponse, 1<<16), done: make(chan int, 1), timings: make(chan requestTiming, 1<<16)}
	s.timing = func(t requestTiming) {
		select {
		case c.timings <- t:
		default: // nobody reads them: the benchmark does not ask
		}
	}
	go func() {
		c.done <- s.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go c.read(bufio.NewReaderSize(outR, 1<<20))
	b.Cleanup(func() {
		inW.Close()
		<-c.done
	})
	c.call(b, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(root)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"indexDependencies": true}}) // GOROOT is a dependency folder
	c.notify(b, "initialized", map[string]any{})
	return c
}

// read reads the server's frames until its output ends.
func (c *benchConn) read(r *bufio.Reader) {
	defer close(c.responses)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		body := make([]byte, max(length, 0))
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		at := time.Now()
		if r, ok := quickResponse(body, at); ok {
			c.responses <- r
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			c.write(map[string]any{"id": msg.ID, "result": nil})
		case msg.Method == "":
			c.responses <- benchResponse{string(msg.ID), msg.Result, msg.Error, at}
		}
	}
}

// quickResponse reads a response as the server frames its answers
// ({"jsonrpc":"2.0","id":ID,"result":…} or "error"), without decoding and
// validating the whole body: the client's share of the CPU, in the
// server's process, stays small, and a large answer is taken off the
// pipe as fast as an editor's reader takes it.
func quickResponse(body []byte, at time.Time) (benchResponse, bool) {
	rest, ok := bytes.CutPrefix(body, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok || !bytes.HasSuffix(rest, []byte("}")) {
		return benchResponse{}, false
	}
	id, rest, ok := bytes.Cut(rest[:len(rest)-1], []byte(","))
	if !ok {
		return benchResponse{}, false
	}
	if result, ok := bytes.CutPrefix(rest, []byte(`"result":`)); ok {
		return benchResponse{id: string(id), result: result, at: at}, true
	}
	if e, ok := bytes.CutPrefix(rest, []byte(`"error":`)); ok {
		return benchResponse{id: string(id), error: e, at: at}, true
	}
	return benchResponse{}, false
}

func (c *benchConn) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.writeRaw(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(data))), data...))
}

func (c *benchConn) writeRaw(frame []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.in.Write(frame)
	return err
}

func (c *benchConn) notify(b *testing.B, method string, params any) {
	if err := c.write(map[string]any{"method": method, "params": params}); err != nil {
		b.Fatal(err)
	}
}

// call sends a request and waits for its response.
func (c *benchConn) call(b *testing.B, method string, params any) {
	c.id++
	if err := c.write(map[string]any{"id": c.id, "method": method, "params": params}); err != nil {
		b.Fatal(err)
	}
	for r := range c.responses {
		if r.id == strconv.Itoa(c.id) {
			if len(r.error) > 0 {
				b.Fatalf("%s: %s", method, r.error)
			}
			return
		}
	}
	b.Fatalf("%s: the server's output ended", method)
}

// largeText is n bytes of minified JavaScript: one line, or lines of
// about 80 bytes.
func largeText(n int, oneLine bool) string {
	var sb strings.Builder
	sb.Grow(n + 64)
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "function f%d(a){return a+%d};", i, i)
		if !oneLine && i%3 == 2 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// BenchmarkDidOpenLarge opens a document of 1 to 64 MB, on one line and
// on many, then asks workspace/symbol, through a server over pipes: the
// time and allocations per operation grow with the size, linearly (the
// document is over the size cap, kept as text and not parsed). Each
// operation opens and closes the document.
func BenchmarkDidOpenLarge(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc Main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name    string
		oneLine bool
	}{{"one-line", true}, {"lines", false}} {
		for _, mb := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				// Over the 1 MiB size cap, and the frame, escaped line
				// breaks included, under the 64 MiB limit.
				text := largeText(max(mb<<20-mb<<20/64-4096, 1<<20+4096), shape.oneLine)
				c := startBenchServer(b, root)
				u := string(uri.File(filepath.Join(root, "big.min.js")))
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				open, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen",
					"params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "javascript", "version": 1, "text": text}}})
				if err != nil {
					b.Fatal(err)
				}
				if len(open) > maxFrame {
					b.Fatalf("the didOpen frame has %d bytes, over the %d-byte limit", len(open), maxFrame)
				}
				frame := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(open))), open...)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := c.writeRaw(frame); err != nil {
						b.Fatal(err)
					}
					c.call(b, "workspace/symbol", map[string]any{"query": "Main"})
					c.notify(b, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
				}
			})
		}
	}
}

// startBenchProcess starts the anchorage binary (serve --stdio, its state
// in a directory of its own) on root and initializes it; its process id
// is returned for /proc.
func startBenchProcess(b *testing.B, root string) (*benchConn, int) {
	b.Helper()
	if anchorageBin == "" {
		b.Skip("no anchorage binary (fuzzing)")
	}
	data := b.TempDir()
	cmd := exec.Command(anchorageBin, "--data-dir", data, "serve", "--stdio")
	cmd.Env = append(os.Environ(), "ANCHORAGE_HOME="+data)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &benchConn{in: in, responses: make(chan benchResponse, 1<<16), done: make(chan int, 1)}
	go c.read(bufio.NewReaderSize(out, 1<<20))
	b.Cleanup(func() {
		// Without shutdown, the protocol's exit status is 1.
		in.Close()
		cmd.Wait()
	})
	c.call(b, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(root)), "capabilities": map[string]any{}})
	c.notify(b, "initialized", map[string]any{})
	return c, cmd.Process.Pid
}

// BenchmarkDidOpenBig opens a document of 50 MB (minified JavaScript on
// one line, over the size cap) in the anchorage binary, a process of its
// own, and asks workspace/symbol right after: it reports how long the
// request took from the start of the didOpen frame (the frame's transfer
// included) and from its end, the server's idle RSS before the document,
// and its peak RSS over the idle one per byte of text (the target is
// under 2).
func BenchmarkDidOpenBig(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc Main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	text := largeText(50<<20, true)
	u := string(uri.File(filepath.Join(root, "big.min.js")))
	open, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen",
		"params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "javascript", "version": 1, "text": text}}})
	if err != nil {
		b.Fatal(err)
	}
	frame := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(open))), open...)
	var fromStart, fromEnd []time.Duration
	var idle, over []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, pid := startBenchProcess(b, root)
		c.waitIndexed(b)
		c.call(b, "workspace/symbol", map[string]any{"query": "Main"})
		// The idle RSS, as the kernel counts it; the peak from here on.
		os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
		rss := pidStatus(pid, "VmRSS")
		b.StartTimer()
		start := time.Now()
		if err := c.writeRaw(frame); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		c.id++
		if err := c.write(map[string]any{"id": c.id, "method": "workspace/symbol", "params": map[string]any{"query": "Main"}}); err != nil {
			b.Fatal(err)
		}
		r := c.response(b, c.id)
		b.StopTimer()
		fromStart = append(fromStart, r.at.Sub(start))
		fromEnd = append(fromEnd, r.at.Sub(written))
		if !strings.Contains(string(r.result), "Main") {
			b.Fatalf("workspace/symbol after the big didOpen: %s", r.result)
		}
		idle = append(idle, rss)
		over = append(over, (pidStatus(pid, "VmHWM")-rss)*(1<<20)/float64(len(text)))
		c.notify(b, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		c.call(b, "workspace/symbol", map[string]any{"query": "Main"})
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(slices.Max(fromStart).Microseconds())/1000, "max-ms-from-frame-start")
	b.ReportMetric(float64(slices.Max(fromEnd).Microseconds())/1000, "max-ms-from-frame-end")
	b.ReportMetric(slices.Max(idle), "idle-rss-MB")
	b.ReportMetric(slices.Max(over), "peak-rss-over-idle/text-bytes")
}

// pidStatus reads a field of a process's /proc status in megabytes (0
// where there is no /proc).
func pidStatus(pid int, field string) float64 {
	return statusField(fmt.Sprintf("/proc/%d/status", pid), field)
}

// BenchmarkEditFlood types into net/http/server.go of the Go standard
// library (the net/http package as the workspace) the way the edit flood
// of anchorage bench --lsp-load does: 2,000 didChange back to back, a
// request after every fifth (codeLens, hover, documentSymbol,
// workspace/symbol in turn), without waiting for answers; with the code
// valid and with a syntax error left open. It reports the requests' p50
// and p99 latency in milliseconds, overall and by kind, where their time
// went (reportLatencies; the slowest requests are logged with theirs),
// the CPU time per flood and the peak RSS.
func BenchmarkEditFlood(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	src, err := os.ReadFile(filepath.Join(root, "server.go"))
	if err != nil {
		b.Skip("no Go standard library source:", err)
	}
	for _, broken := range []bool{false, true} {
		name := "valid"
		if broken {
			name = "broken"
		}
		b.Run(name, func(b *testing.B) {
			c := startBenchServer(b, root)
			c.waitIndexed(b)
			u := string(uri.File(filepath.Join(root, "server.go")))
			line, col := floodSpot(string(src))
			var lats []latency
			version := 0
			if out := os.Getenv("ANCHORAGE_FLOOD_CPUPROFILE"); out != "" {
				// The flood only, without the indexing before it.
				stop := cpuProfile(b, out+"."+name)
				defer stop()
			}
			runtime.GC()
			resetPeakRSS()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				version++
				c.notify(b, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": version, "text": string(src)}})
				at := col
				if broken {
					version++
					pos := map[string]any{"line": line, "character": at}
					c.notify(b, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": version},
						"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": "("}}})
					at++
				}
				lats = append(lats, c.flood(b, u, &version, line, at, 2000)...)
				c.notify(b, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
			}
			b.StopTimer()
			// The CPU time of the process (server and client) per flood: on a
			// busy machine, latencies follow the load; this does not.
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			c.reportLatencies(b, lats)
			// The server runs in this process: its peak RSS during the flood
			// (the client's share is a few MB).
			b.ReportMetric(procStatus("VmHWM"), "peak-rss-MB")
		})
	}
}

// requestPhases are the parts of a request's time: from sending it to the
// server reading it (the edits before it applied), to its goroutine
// running, parses of the document (waiting for one or running it), the
// rest of its handler, writing its answer, and the client reading it.
var requestPhases = []string{"queue", "sched", "parse", "work", "write", "read"}

// phases splits a request's latency into requestPhases.
func phases(l latency, t requestTiming) []time.Duration {
	return []time.Duration{
		t.Received.Sub(l.sent),
		t.Started.Sub(t.Received),
		t.ParseWait,
		t.Handled.Sub(t.Started) - t.ParseWait,
		t.Replied.Sub(t.Handled),
		l.at.Sub(t.Replied),
	}
}

// reportLatencies reports the requests' p50 and p99 latency in
// milliseconds, overall and by kind (p50-ms-hover, …), and where the time
// went (requestPhases, from the server's timings): each phase's p99 over
// all requests (p99-ms-queue, …) and its mean over the slowest 1% of the
// requests (slow-ms-queue, …), whose sum is their mean latency.
func (c *benchConn) reportLatencies(b *testing.B, lats []latency) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	pct := func(ds []time.Duration, p int) time.Duration {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[min(len(ds)*p/100, len(ds)-1)]
	}
	var all []time.Duration
	byKind := map[string][]time.Duration{}
	for _, l := range lats {
		all = append(all, l.d)
		kind := l.method[strings.LastIndex(l.method, "/")+1:]
		byKind[kind] = append(byKind[kind], l.d)
	}
	b.ReportMetric(ms(pct(all, 50)), "p50-ms")
	b.ReportMetric(ms(pct(all, 99)), "p99-ms")
	for kind, ds := range byKind {
		b.ReportMetric(ms(pct(ds, 50)), "p50-ms-"+kind)
		b.ReportMetric(ms(pct(ds, 99)), "p99-ms-"+kind)
	}
	if c.timings == nil {
		return
	}
	// A request's timing is sent after its answer is written: the client
	// may have read the answer first.
	timings := map[string]requestTiming{}
	for _, l := range lats {
		for {
			if _, ok := timings[l.id]; ok {
				break
			}
			t := <-c.timings
			timings[t.ID] = t
		}
	}
	byPhase := make([][]time.Duration, len(requestPhases))
	slowest := slices.SortedFunc(slices.Values(lats), func(x, y latency) int { return int(y.d - x.d) })
	slowest = slowest[:max(len(slowest)/100, 1)]
	slow := make([]time.Duration, len(requestPhases))
	for _, l := range lats {
		for i, d := range phases(l, timings[l.id]) {
			byPhase[i] = append(byPhase[i], d)
		}
	}
	for _, l := range slowest {
		var parts []string
		for i, d := range phases(l, timings[l.id]) {
			slow[i] += d / time.Duration(len(slowest))
			parts = append(parts, fmt.Sprintf("%s %.1f", requestPhases[i], ms(d)))
		}
		b.Logf("slow: request %s (%s) %.1f ms: %s", l.id, l.method, ms(l.d), strings.Join(parts, ", "))
	}
	for i, name := range requestPhases {
		b.ReportMetric(ms(pct(byPhase[i], 99)), "p99-ms-"+name)
		b.ReportMetric(ms(slow[i]), "slow-ms-"+name)
	}
}

// waitIndexed waits until the first folder is indexed.
func (c *benchConn) waitIndexed(b *testing.B) {
	for {
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
		if len(st.Folders) > 0 && !st.Folders[0].Indexing && st.Folders[0].Files > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// response waits for the response to id.
func (c *benchConn) response(b *testing.B, id int) benchResponse {
	for r := range c.responses {
		if r.id == strconv.Itoa(id) {
			if len(r.error) > 0 {
				b.Fatalf("request %d: %s", id, r.error)
			}
			return r
		}
	}
	b.Fatalf("request %d: the server's output ended", id)
	return benchResponse{}
}

// latency is how long one request took to be answered.
type latency struct {
	method, id string
	sent, at   time.Time
	d          time.Duration
}

// flood sends edits letters typed at line:col, a request after every
// fifth, without waiting, and returns each request's latency.
func (c *benchConn) flood(b *testing.B, u string, version *int, line, col, edits int) []latency {
	methods := []string{"textDocument/codeLens", "textDocument/hover", "textDocument/documentSymbol", "workspace/symbol"}
	sent := map[string]time.Time{}
	method := map[string]string{}
	first := c.id + 1
	for i := 0; i < edits; i++ {
		*version++
		pos := map[string]any{"line": line, "character": col}
		if err := c.write(map[string]any{"method": "textDocument/didChange", "params": map[string]any{"textDocument": map[string]any{"uri": u, "version": *version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": string(rune('a' + i%26))}}}}); err != nil {
			b.Fatal(err)
		}
		col++
		if i%5 != 4 {
			continue
		}
		c.id++
		m := methods[(i/5)%len(methods)]
		params := any(map[string]any{"textDocument": map[string]any{"uri": u}})
		switch m {
		case "workspace/symbol":
			params = map[string]any{"query": "ServeHTTP"}
		case "textDocument/hover":
			params = map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col - 1}}
		}
		sent[strconv.Itoa(c.id)] = time.Now()
		method[strconv.Itoa(c.id)] = m
		if err := c.write(map[string]any{"id": c.id, "method": m, "params": params}); err != nil {
			b.Fatal(err)
		}
	}
	var out []latency
	for n := first; n <= c.id; {
		r, ok := <-c.responses
		if !ok {
			b.Fatal("the server's output ended")
		}
		if len(r.error) > 0 {
			b.Fatalf("request %s: %s", r.id, r.error)
		}
		if t, ok := sent[r.id]; ok {
			out = append(out, latency{method: method[r.id], id: r.id, sent: t, at: r.at, d: r.at.Sub(t)})
			n++
		}
	}
	return out
}

// floodSpot returns where typing letters keeps Go code valid: inside an
// identifier of four letters or more, from the middle of the file on,
// on a line without strings or comments.
func floodSpot(src string) (line, col int) {
	lines := strings.Split(src, "\n")
	for line = len(lines) / 2; line < len(lines); line++ {
		l := lines[line]
		if strings.ContainsAny(l, "\"'`") || strings.Contains(l, "//") {
			continue
		}
		for i := 0; i+4 <= len(l); i++ {
			if strings.HasPrefix(l[i:], "func ") {
				return line, i + 7
			}
		}
	}
	return len(lines) / 2, 0
}

// cpuProfile writes a CPU profile of what runs until the returned
// function is called to file.
func cpuProfile(b *testing.B, file string) func() {
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// procStatus reads a field of /proc/self/status in megabytes (0 where
// there is no /proc).
func procStatus(field string) float64 {
	return statusField("/proc/self/status", field)
}

// statusField reads a field of a /proc status file in megabytes.
func statusField(file, field string) float64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS makes /proc/self/status's VmHWM start again from the
// current RSS, so that it measures what comes next.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
