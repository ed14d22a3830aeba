package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
)

// lspReport holds the language server's figures of anchorage bench --lsp.
type lspReport struct {
	FirstSymbolMs     float64 `json:"first_workspace_symbol_ms"`
	FirstSymbolDuring bool    `json:"first_answer_while_indexing"`
	IndexSeconds      float64 `json:"server_index_seconds"`
	SymbolP50ms       float64 `json:"workspace_symbol_p50_ms"`
	SymbolP95ms       float64 `json:"workspace_symbol_p95_ms"`
	ServerRSSMB       float64 `json:"server_peak_rss_mb"`
	EditFile          string  `json:"edit_file,omitempty"`
	EditP50ms         float64 `json:"edit_p50_ms"`
	EditP99ms         float64 `json:"edit_p99_ms"`
	// Keystrokes typed into EditFile while the server indexed the
	// workspace cold: each a didChange and the documentSymbol request that
	// reads the document's new graph, timed together.
	IndexingKeystrokes int     `json:"keystrokes_while_indexing"`
	IndexingEditP50ms  float64 `json:"keystroke_while_indexing_p50_ms"`
	IndexingEditP99ms  float64 `json:"keystroke_while_indexing_p99_ms"`
	IndexingEditMaxms  float64 `json:"keystroke_while_indexing_max_ms"`
	// The same keystrokes once the index is built: what they cost
	// without the indexer, on the same machine at the same time.
	IdleKeystrokes int     `json:"keystrokes_after_indexing"`
	IdleEditP50ms  float64 `json:"keystroke_after_indexing_p50_ms"`
	IdleEditP99ms  float64 `json:"keystroke_after_indexing_p99_ms"`
	// IdleEditCPUms is the server's CPU time, user and system, per
	// keystroke once indexed (all its threads: the parse, the outline,
	// the JSON, the garbage collector): what a keystroke costs, which a
	// busy machine does not inflate as it does the wall-clock times.
	IdleEditCPUms float64 `json:"keystroke_after_indexing_server_cpu_ms"`
	// ServerCPUSeconds is the server's CPU time, user and system, up to
	// its last answer.
	ServerCPUSeconds float64 `json:"server_cpu_seconds"`
}

// benchProcess is an `anchorage serve` process started by a benchmark with
// a fresh data directory of its own, spoken to over its standard input
// and output.
type benchProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	data   string
}

// startBenchServer starts this binary's `serve` with a new data directory
// named after prefix, and serve's extra arguments. stop ends it and
// removes the directory.
func startBenchServer(ctx context.Context, prefix string, extra ...string) (*benchProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the anchorage binary: %w", err)
	}
	data, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("make a data directory: %w", err)
	}
	cmd := exec.CommandContext(ctx, self, append([]string{"--data-dir", data, "serve", "--log-level", "error"}, extra...)...)
	// What the server reports of itself (GODEBUG=gctrace=1 in the
	// environment, an error it logs) goes with the benchmark's own.
	cmd.Stderr = os.Stderr
	p := &benchProcess{cmd: cmd, data: data}
	if p.stdin, err = cmd.StdinPipe(); err == nil {
		if p.stdout, err = cmd.StdoutPipe(); err == nil {
			err = cmd.Start()
		}
	}
	if err != nil {
		os.RemoveAll(data)
		return nil, fmt.Errorf("start anchorage serve: %w", err)
	}
	return p, nil
}

// pid is the server's process id.
func (p *benchProcess) pid() int { return p.cmd.Process.Pid }

// stop closes the server's input, which ends it, waits for it and removes
// its data directory.
func (p *benchProcess) stop() {
	p.stdin.Close()
	p.cmd.Wait()
	os.RemoveAll(p.data)
}

// benchServerOptions are benchServer's options.
type benchServerOptions struct {
	// profile is the prefix of the server's profiles and traces (none
	// when empty).
	profile string
	// rounds is how many times the function is typed and deleted once
	// the workspace is indexed (2 when 0).
	rounds int
}

// benchServer starts `anchorage serve` on root with a fresh data directory
// and measures it as an editor would see it: time from start to the first
// answered workspace/symbol (while indexing goes on), workspace/symbol
// latency once indexed, and the server's peak RSS. With profile, the
// server writes a CPU profile and an execution trace of the cold index
// (profile.0.cpu, profile.0.trace) and of the typing once indexed
// (profile.1.*).
func benchServer(ctx context.Context, root string, names []string, opt benchServerOptions) (*lspReport, error) {
	profile := opt.profile
	start := time.Now()
	var extra []string
	if profile != "" {
		extra = []string{"--profile", profile}
	}
	srv, err := startBenchServer(ctx, "anchorage-bench-lsp-", extra...)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	c := &rawClient{w: srv.stdin, r: bufio.NewReader(srv.stdout)}
	rep := &lspReport{}
	if _, err := c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(root), "capabilities": map[string]any{},
		// The Go standard library is a dependency folder, indexed only on request.
		"initializationOptions": map[string]any{"indexDependencies": true},
	}); err != nil {
		return nil, err
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	if _, err := c.call("workspace/symbol", map[string]any{"query": "main"}); err != nil {
		return nil, err
	}
	rep.FirstSymbolMs = float64(time.Since(start).Microseconds()) / 1000
	indexing := func() (bool, error) {
		res, err := c.call("workspace/executeCommand", map[string]any{"command": "anchorage.index.status"})
		if err != nil {
			return false, err
		}
		var st struct {
			Folders []struct {
				Indexing bool `json:"indexing"`
				Files    int  `json:"files"`
			} `json:"folders"`
		}
		json.Unmarshal(res, &st)
		return !(len(st.Folders) > 0 && !st.Folders[0].Indexing && st.Folders[0].Files > 0), nil
	}
	typist, err := newBenchTypist(c, root)
	if err != nil {
		return nil, err
	}
	var keystrokes []time.Duration
	for {
		busy, err := indexing()
		if err != nil {
			return nil, err
		}
		if !busy {
			break
		}
		rep.FirstSymbolDuring = true
		if typist == nil || len(keystrokes) >= maxIndexingKeystrokes {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		// A line of a function typed, or deleted, a keystroke at a time.
		ks, err := typist.line()
		if err != nil {
			return nil, fmt.Errorf("typing into %s: %w", typist.rel, err)
		}
		keystrokes = append(keystrokes, ks...)
	}
	rep.IndexSeconds = time.Since(start).Seconds()
	if typist != nil {
		rep.EditFile = typist.rel
		rep.IndexingKeystrokes = len(keystrokes)
		rep.IndexingEditP50ms, _ = percentiles(keystrokes)
		rep.IndexingEditP99ms = percentile(keystrokes, 0.99)
		rep.IndexingEditMaxms = percentile(keystrokes, 1)
		// The function typed and deleted again (twice by default), with
		// the index built.
		var idle []time.Duration
		if profile != "" {
			// The next phase of the server's profile: the typing alone.
			if err := srv.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
				return nil, fmt.Errorf("start the server's profile of the typing: %w", err)
			}
		}
		cpu0 := procCPUSeconds(srv.pid())
		for range 2 * max(opt.rounds, 1) * len(typist.lines) {
			ks, err := typist.line()
			if err != nil {
				return nil, fmt.Errorf("typing into %s: %w", typist.rel, err)
			}
			idle = append(idle, ks...)
		}
		if cpu1 := procCPUSeconds(srv.pid()); cpu0 > 0 && len(idle) > 0 {
			rep.IdleEditCPUms = (cpu1 - cpu0) * 1000 / float64(len(idle))
		}
		if profile != "" {
			srv.cmd.Process.Signal(syscall.SIGUSR1)
		}
		rep.IdleKeystrokes = len(idle)
		rep.IdleEditP50ms, _ = percentiles(idle)
		rep.IdleEditP99ms = percentile(idle, 0.99)
	}
	var times []time.Duration
	for _, n := range names {
		t := time.Now()
		if _, err := c.call("workspace/symbol", map[string]any{"query": n}); err != nil {
			return nil, err
		}
		times = append(times, time.Since(t))
	}
	rep.SymbolP50ms, rep.SymbolP95ms = percentiles(times)
	rep.ServerRSSMB = procPeakRSSMB(srv.pid())
	rep.ServerCPUSeconds = procCPUSeconds(srv.pid())
	c.call("shutdown", nil)
	c.notify("exit", nil)
	return rep, nil
}

// printLSPReport prints the language server's figures of anchorage bench.
func printLSPReport(w io.Writer, l *lspReport) {
	fmt.Fprintf(w, "server          first workspace/symbol %.0f ms after start (while indexing: %v), indexed in %.2f s\n", l.FirstSymbolMs, l.FirstSymbolDuring, l.IndexSeconds)
	if l.SymbolP50ms > 0 {
		fmt.Fprintf(w, "server          workspace/symbol p50 %.2f ms  p95 %.2f ms, peak RSS %.0f MB\n", l.SymbolP50ms, l.SymbolP95ms, l.ServerRSSMB)
	} else {
		fmt.Fprintf(w, "server          peak RSS %.0f MB\n", l.ServerRSSMB)
	}
	if l.IndexingKeystrokes > 0 {
		fmt.Fprintf(w, "server          keystroke while indexing p50 %.2f ms  p99 %.2f ms  max %.2f ms  (%d keystrokes into open %s: didChange + documentSymbol)\n",
			l.IndexingEditP50ms, l.IndexingEditP99ms, l.IndexingEditMaxms, l.IndexingKeystrokes, l.EditFile)
		fmt.Fprintf(w, "server          keystroke once indexed p50 %.2f ms  p99 %.2f ms  (%d keystrokes, the same way; server CPU %.2f ms a keystroke)\n",
			l.IdleEditP50ms, l.IdleEditP99ms, l.IdleKeystrokes, l.IdleEditCPUms)
	}
}

// typingReport is what anchorage bench --lsp-typing measures.
type typingReport struct {
	Root string `json:"root"`
	// LoadAverage is the machine's one-minute load average before and
	// after: a busy machine makes the wall-clock times mostly waiting.
	LoadAverage [2]float64 `json:"load_average"`
	// ServerCPUSeconds is the server process's CPU time, user and
	// system, from its start to its end.
	ServerCPUSeconds float64    `json:"server_cpu_seconds"`
	LSP              *lspReport `json:"lsp"`
}

// runTypingBench runs anchorage bench --lsp-typing: the language server's
// part of --lsp alone, without the command's own indexes first.
func runTypingBench(cmd *cobra.Command, g *globalFlags, root string, opt benchServerOptions) error {
	if _, err := os.Stat(filepath.Join(root, "net", "http", "server.go")); err != nil {
		return fmt.Errorf("--lsp-typing types into net/http/server.go of --root (the Go standard library's src): %w", err)
	}
	rep := typingReport{Root: root}
	rep.LoadAverage[0] = loadAverage()
	var err error
	if rep.LSP, err = benchServer(cmd.Context(), root, nil, opt); err != nil {
		return fmt.Errorf("language server: %w", err)
	}
	rep.LoadAverage[1] = loadAverage()
	rep.ServerCPUSeconds = rep.LSP.ServerCPUSeconds
	if g.json {
		return writeJSON(cmd.OutOrStdout(), rep)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "root            %s (load average %.2f → %.2f; server CPU %.1f s)\n", rep.Root, rep.LoadAverage[0], rep.LoadAverage[1], rep.ServerCPUSeconds)
	printLSPReport(w, rep.LSP)
	return nil
}

// procCPUSeconds reads the CPU time, user and system, a process has used
// (/proc/PID/stat, Linux); 0 when it cannot be read.
func procCPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // clock ticks, USER_HZ
}

// maxIndexingKeystrokes bounds the keystrokes timed during a cold index.
const maxIndexingKeystrokes = 5000

// benchTypedFunction is what benchTypist types, above a function of the
// file: every keystroke but the last leaves the file with a syntax error
// that the rest of the file must survive.
const benchTypedFunction = "func Ping(ctx context.Context) error {\n\tif err := c.rwc.SetDeadline(time.Time{}); err != nil {\n\t\treturn fmt.Errorf(\"ping: %w\", err)\n\t}\n\treturn nil\n}\n"

// benchTypist types a function into a document open in a benchmarked
// server, a line at a time, then deletes it, and so on.
type benchTypist struct {
	c       *rawClient
	rel     string
	uri     string
	version int
	// line0 is the blank line typed on; lines holds the function's lines
	// and typed how many of them are in the document.
	line0 int
	lines []string
	typed int
	// deleting is set while the function is being deleted.
	deleting bool
}

// newBenchTypist opens net/http/server.go of root in the server (nil when
// root has no such file) and makes room for a function above conn.serve
// (or at its end).
func newBenchTypist(c *rawClient, root string) (*benchTypist, error) {
	const rel = "net/http/server.go"
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, nil
	}
	text := string(src)
	at := strings.Index(text, "\nfunc (c *conn) serve(")
	if at < 0 {
		at = len(text)
	} else {
		at = strings.LastIndex(text[:at], "\n\n") + 1
	}
	t := &benchTypist{c: c, rel: rel, uri: "file://" + filepath.ToSlash(filepath.Join(root, rel)), version: 1,
		line0: strings.Count(text[:at], "\n"), lines: strings.SplitAfter(benchTypedFunction, "\n")}
	t.lines = t.lines[:len(t.lines)-1] // the empty string after the last line break
	if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": t.uri, "languageId": "go", "version": t.version, "text": text[:at] + "\n" + text[at:]}}); err != nil {
		return nil, err
	}
	// The outline an editor asks for on opening the file: its first
	// parse, of the whole text, is not a keystroke's.
	if _, err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": t.uri}}); err != nil {
		return nil, err
	}
	return t, nil
}

// line types the next line of the function, or deletes the last one
// typed, a character at a time, and returns how long each keystroke took:
// the didChange, then a documentSymbol request, which reads the graph of
// the document's new text.
func (t *benchTypist) line() ([]time.Duration, error) {
	var out []time.Duration
	key := func(l0, c0, l1, c1 int, text string) error {
		t.version++
		start := time.Now()
		rng := map[string]any{"start": map[string]int{"line": l0, "character": c0}, "end": map[string]int{"line": l1, "character": c1}}
		if err := t.c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": t.uri, "version": t.version},
			"contentChanges": []map[string]any{{"range": rng, "text": text}},
		}); err != nil {
			return err
		}
		if _, err := t.c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": t.uri}}); err != nil {
			return err
		}
		out = append(out, time.Since(start))
		return nil
	}
	if !t.deleting {
		line := t.line0 + t.typed
		col := 0
		for _, r := range t.lines[t.typed] {
			// Columns are UTF-16 units; the function is ASCII.
			if err := key(line, col, line, col, string(r)); err != nil {
				return out, err
			}
			if r == '\n' {
				line, col = line+1, 0
			} else {
				col++
			}
		}
		t.typed++
		t.deleting = t.typed == len(t.lines)
		return out, nil
	}
	t.typed--
	line := t.line0 + t.typed
	text := t.lines[t.typed]
	// The line break first (joining the next line), then the line's
	// characters from its end.
	n := len(text) - 1
	if err := key(line, n, line+1, 0, ""); err != nil {
		return out, err
	}
	for col := n; col > 0; col-- {
		if err := key(line, col-1, line, col, ""); err != nil {
			return out, err
		}
	}
	t.deleting = t.typed > 0
	return out, nil
}

// benchEdits types into an identifier of the largest Go file (or any file)
// of the index, as an editor would, and times each keystroke's update of
// the open document's graph (the edit, then the parse a reader of the
// graph runs).
func benchEdits(ctx context.Context, ix *analysis.Index, samples int) (string, float64, float64, error) {
	rel, err := largestFile(ctx, ix)
	if err != nil || rel == "" {
		return "", 0, 0, err
	}
	src, err := os.ReadFile(filepath.Join(ix.Root(), filepath.FromSlash(rel)))
	if err != nil {
		return "", 0, 0, err
	}
	ws := analysis.NewWorkspace(ix)
	defer ws.Shutdown(ctx)
	if err := ws.Open(ctx, rel, 1, src); err != nil {
		return "", 0, 0, err
	}
	line, col := typingSpot(string(src))
	var times []time.Duration
	version := int32(1)
	for i := 0; i < samples; i++ {
		version++
		t := time.Now()
		if err := ws.Change(ctx, rel, version, []analysis.TextEdit{{Range: &analysis.EditRange{StartLine: line, StartColumn: col, EndLine: line, EndColumn: col}, Text: "x"}}); err != nil {
			return "", 0, 0, err
		}
		ws.Snapshot(rel) // the parse the edit calls for
		times = append(times, time.Since(t))
		version++
		if err := ws.Change(ctx, rel, version, []analysis.TextEdit{{Range: &analysis.EditRange{StartLine: line, StartColumn: col, EndLine: line, EndColumn: col + 1}, Text: ""}}); err != nil {
			return "", 0, 0, err
		}
	}
	p50, _ := percentiles(times)
	return rel, p50, percentile(times, 0.99), nil
}

// largestFile returns net/http/server.go when the index has it (the
// reference file of the project's targets), else its largest Go file.
func largestFile(ctx context.Context, ix *analysis.Index) (string, error) {
	if syms, err := ix.SymbolsInFile(ctx, "net/http/server.go"); err == nil && len(syms) > 0 {
		return "net/http/server.go", nil
	}
	return ix.LargestFile(ctx, "go")
}

func percentile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
}

// procPeakRSSMB reads a process's peak resident set size (VmHWM).
func procPeakRSSMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// rawClient is the smallest LSP client: framed JSON-RPC calls in order,
// skipping the server's notifications and answering its requests with
// null.
type rawClient struct {
	w  io.Writer
	r  *bufio.Reader
	id int
	// body is the buffer of the last message read.
	body []byte
}

func (c *rawClient) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *rawClient) notify(method string, params any) error {
	return c.send(map[string]any{"method": method, "params": params})
}

func (c *rawClient) call(method string, params any) (json.RawMessage, error) {
	c.id++
	if err := c.send(map[string]any{"id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := c.read(&msg); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0: // a request from the server
			c.send(map[string]any{"id": msg.ID, "result": nil})
		case msg.Method != "":
		case string(msg.ID) == strconv.Itoa(c.id):
			if msg.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
			}
			return msg.Result, nil
		}
	}
}

func (c *rawClient) read(v any) error {
	length := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(value))
		}
	}
	if length < 0 {
		return fmt.Errorf("frame without Content-Length")
	}
	// The body's buffer is the client's, reused: the benchmark's own
	// garbage is not the round trip's. Decoding the message is (an editor
	// decodes the answer too), and the decoded values do not alias it.
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	body := c.body[:length]
	if _, err := io.ReadFull(c.r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// typingSpot returns where, from the middle of a file on, typing a letter
// keeps the code valid: inside an identifier of four letters or more that
// is not a keyword, outside strings and comments.
func typingSpot(src string) (line, col int) {
	lines := strings.Split(src, "\n")
	keywords := map[string]bool{
		"return": true, "func": true, "package": true, "import": true, "struct": true, "interface": true,
		"range": true, "switch": true, "select": true, "default": true, "continue": true, "break": true,
		"defer": true, "else": true, "case": true, "chan": true, "const": true, "goto": true, "type": true,
		"class": true, "def": true, "self": true, "this": true, "function": true, "while": true,
	}
	for line = len(lines) / 2; line < len(lines); line++ {
		l := lines[line]
		// Columns are UTF-16 units: keep to ASCII lines.
		if strings.ContainsAny(l, "\"'`#") || strings.Contains(l, "//") || strings.IndexFunc(l, func(r rune) bool { return r > 127 }) >= 0 {
			continue
		}
		for i := 0; i < len(l); {
			j := i
			for j < len(l) && (l[j] >= 'a' && l[j] <= 'z' || l[j] >= 'A' && l[j] <= 'Z') {
				j++
			}
			if j-i >= 4 && !keywords[l[i:j]] {
				return line, i + 2
			}
			i = max(j, i+1)
		}
	}
	return len(lines) / 2, 0
}
