package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
)

// floodReport holds the figures of the language server under an edit
// flood and of a large didOpen (anchorage bench --lsp).
type floodReport struct {
	File     string   `json:"file"`
	Edits    int      `json:"edits"`
	Requests int      `json:"requests"`
	Valid    floodRun `json:"valid_syntax"`
	Broken   floodRun `json:"broken_syntax"`
	// IdleRSSMB is the server's resident set once the workspace is
	// indexed, before the flood.
	IdleRSSMB float64 `json:"idle_rss_mb"`
	// BigOpen is a didOpen of a one-line document of BigOpenMB megabytes,
	// then workspace/symbol: the request's latency, the time from the
	// start of the didOpen to the answer, and the peak RSS meanwhile.
	BigOpenMB      float64 `json:"big_open_mb"`
	BigNextMs      float64 `json:"big_open_next_request_ms"`
	BigTotalMs     float64 `json:"big_open_total_ms"`
	BigPeakRSSMB   float64 `json:"big_open_peak_rss_mb"`
	BigIdleRSSMB   float64 `json:"big_open_idle_rss_mb"`
	BigShowMessage bool    `json:"big_open_show_message"`
}

// floodRun is one flood: request latencies and the server's peak RSS
// while it lasted.
type floodRun struct {
	P50ms     float64            `json:"p50_ms"`
	P99ms     float64            `json:"p99_ms"`
	MaxMs     float64            `json:"max_ms"`
	ByMethod  map[string]float64 `json:"p99_ms_by_method"`
	Seconds   float64            `json:"seconds"`
	PeakRSSMB float64            `json:"peak_rss_mb"`
}

// floodClient sends frames without waiting and records when each
// response arrives; it answers the server's own requests with null.
type floodClient struct {
	w      io.Writer
	wmu    sync.Mutex
	mu     sync.Mutex
	sent   map[int]time.Time
	method map[int]string
	got    map[int]time.Duration
	// results are those of workspace/executeCommand.
	results map[int]json.RawMessage
	errs    []string
	shown   []string // window/showMessage texts
	waitID  int
	wait    chan struct{}
	done    chan struct{}
}

func newFloodClient(w io.Writer, r io.Reader) *floodClient {
	c := &floodClient{w: w, sent: map[int]time.Time{}, method: map[int]string{}, got: map[int]time.Duration{}, results: map[int]json.RawMessage{}, done: make(chan struct{})}
	go c.read(bufio.NewReaderSize(r, 1<<20))
	return c
}

func (c *floodClient) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *floodClient) notify(method string, params any) error {
	return c.send(map[string]any{"method": method, "params": params})
}

// request sends a request and returns at once.
func (c *floodClient) request(id int, method string, params any) error {
	c.mu.Lock()
	c.sent[id] = time.Now()
	c.method[id] = method
	c.mu.Unlock()
	return c.send(map[string]any{"id": id, "method": method, "params": params})
}

// await waits for the response to id.
func (c *floodClient) await(ctx context.Context, id int) (time.Duration, error) {
	for {
		c.mu.Lock()
		d, ok := c.got[id]
		var ch chan struct{}
		if !ok {
			ch = make(chan struct{})
			c.waitID, c.wait = id, ch
		}
		c.mu.Unlock()
		if ok {
			return d, nil
		}
		select {
		case <-ch:
		case <-c.done:
			return 0, fmt.Errorf("the server closed its output before answering request %d", id)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (c *floodClient) read(r *bufio.Reader) {
	defer close(c.done)
	rc := &rawClient{r: r}
	for {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := rc.read(&msg); err != nil {
			return
		}
		now := time.Now()
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			c.send(map[string]any{"id": msg.ID, "result": nil})
		case msg.Method == "window/showMessage":
			var p struct {
				Message string `json:"message"`
			}
			json.Unmarshal(msg.Params, &p)
			c.mu.Lock()
			c.shown = append(c.shown, p.Message)
			c.mu.Unlock()
		case msg.Method != "":
		default:
			id, err := strconv.Atoi(string(msg.ID))
			if err != nil {
				continue
			}
			c.mu.Lock()
			c.got[id] = now.Sub(c.sent[id])
			if c.method[id] == "workspace/executeCommand" {
				c.results[id] = msg.Result
			}
			if msg.Error != nil {
				c.errs = append(c.errs, fmt.Sprintf("%s: %s", c.method[id], msg.Error.Message))
			}
			if c.wait != nil && c.waitID == id {
				close(c.wait)
				c.wait = nil
			}
			c.mu.Unlock()
		}
	}
}

// benchFlood starts `anchorage serve` on root and, once it has indexed,
// opens file (net/http/server.go in the Go standard library) and sends
// edits back to back, typing one letter each, with a request after every
// fifth (codeLens, hover, documentSymbol, workspace/symbol in turn),
// without waiting for the answers, as a fast typist's editor does; once
// with the code valid, once with a syntax error left open. Then it opens a
// one-line document of bigMB megabytes and times the next request.
func benchFlood(ctx context.Context, root, file string, edits, bigMB int) (*floodReport, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	srv, err := startBenchServer(ctx, "anchorage-bench-flood-")
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	pid := srv.pid()
	c := newFloodClient(srv.stdin, srv.stdout)
	id := 0
	call := func(method string, params any) error {
		id++
		if err := c.request(id, method, params); err != nil {
			return err
		}
		_, err := c.await(ctx, id)
		return err
	}
	rootURI := "file://" + filepath.ToSlash(root)
	if err := call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": rootURI, "capabilities": map[string]any{},
		// The Go standard library is a dependency folder, indexed only on request.
		"initializationOptions": map[string]any{"indexDependencies": true}}); err != nil {
		return nil, err
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	for {
		id++
		if err := c.request(id, "workspace/executeCommand", map[string]any{"command": "anchorage.index.status"}); err != nil {
			return nil, err
		}
		if _, err := c.await(ctx, id); err != nil {
			return nil, err
		}
		var st struct {
			Folders []struct {
				Indexing bool `json:"indexing"`
				Files    int  `json:"files"`
			} `json:"folders"`
		}
		c.mu.Lock()
		json.Unmarshal(c.results[id], &st)
		c.mu.Unlock()
		if len(st.Folders) > 0 && !st.Folders[0].Indexing && st.Folders[0].Files > 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	rep := &floodReport{File: file, Edits: edits, Requests: edits / 5, IdleRSSMB: procRSSMB(pid, "VmRSS")}
	uri := rootURI + "/" + file
	line, col := typingSpot(string(src))
	version := 1
	for k, broken := range []bool{false, true} {
		if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": version, "text": string(src)}}); err != nil {
			return nil, err
		}
		at := col
		if broken {
			// An open parenthesis before the letters typed: the file
			// stays broken for the whole flood.
			version++
			pos := map[string]any{"line": line, "character": at}
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": "("}}})
			at++
		}
		if err := call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
			return nil, err
		}
		resetPeakRSS(pid)
		methods := []string{"textDocument/codeLens", "textDocument/hover", "textDocument/documentSymbol", "workspace/symbol"}
		first := id + 1
		start := time.Now()
		for i := 0; i < edits; i++ {
			version++
			pos := map[string]any{"line": line, "character": at}
			if err := c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": string(rune('a' + i%26))}}}); err != nil {
				return nil, err
			}
			at++
			if i%5 != 4 {
				continue
			}
			id++
			m := methods[(i/5)%len(methods)]
			var params any
			switch m {
			case "workspace/symbol":
				params = map[string]any{"query": "ServeHTTP"}
			case "textDocument/hover":
				params = map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": at - 1}}
			default:
				params = map[string]any{"textDocument": map[string]any{"uri": uri}}
			}
			if err := c.request(id, m, params); err != nil {
				return nil, err
			}
		}
		var times []time.Duration
		byMethod := map[string][]time.Duration{}
		for r := first; r <= id; r++ {
			d, err := c.await(ctx, r)
			if err != nil {
				return nil, err
			}
			times = append(times, d)
			c.mu.Lock()
			m := c.method[r]
			c.mu.Unlock()
			byMethod[m] = append(byMethod[m], d)
		}
		run := floodRun{Seconds: time.Since(start).Seconds(), PeakRSSMB: procRSSMB(pid, "VmHWM"), ByMethod: map[string]float64{}}
		slices.Sort(times)
		run.P50ms, run.P99ms, run.MaxMs = percentile(times, 0.5), percentile(times, 0.99), percentile(times, 1)
		for m, ds := range byMethod {
			slices.Sort(ds)
			run.ByMethod[strings.TrimPrefix(m, "textDocument/")] = percentile(ds, 0.99)
		}
		if k == 0 {
			rep.Valid = run
		} else {
			rep.Broken = run
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	c.mu.Lock()
	errs := slices.Clone(c.errs)
	c.mu.Unlock()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%d requests failed during the flood, the first: %s", len(errs), errs[0])
	}

	if bigMB > 0 {
		var b strings.Builder
		b.Grow(bigMB << 20)
		for i := 0; b.Len() < bigMB<<20; i++ {
			fmt.Fprintf(&b, "function f%d(a){return a+%d};", i, i)
		}
		big := b.String()
		b = strings.Builder{}
		rep.BigOpenMB = float64(len(big)) / (1 << 20)
		rep.BigIdleRSSMB = procRSSMB(pid, "VmRSS")
		resetPeakRSS(pid)
		start := time.Now()
		if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": rootURI + "/anchorage-bench-big.min.js", "languageId": "javascript", "version": 1, "text": big}}); err != nil {
			return nil, err
		}
		big = ""
		id++
		if err := c.request(id, "workspace/symbol", map[string]any{"query": "ServeHTTP"}); err != nil {
			return nil, err
		}
		d, err := c.await(ctx, id)
		if err != nil {
			return nil, err
		}
		rep.BigTotalMs = float64(time.Since(start).Microseconds()) / 1000
		rep.BigNextMs = float64(d.Microseconds()) / 1000
		rep.BigPeakRSSMB = procRSSMB(pid, "VmHWM")
		c.mu.Lock()
		for _, m := range c.shown {
			rep.BigShowMessage = rep.BigShowMessage || strings.Contains(m, "anchorage-bench-big.min.js")
		}
		c.mu.Unlock()
	}
	call("shutdown", nil)
	c.notify("exit", nil)
	return rep, nil
}

// procRSSMB reads a field of a process's /proc status (VmRSS, VmHWM) in
// megabytes.
func procRSSMB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// resetPeakRSS resets a process's peak RSS (VmHWM) to its current RSS
// (Linux 4.0 and later), so that a phase's peak can be read after it.
func resetPeakRSS(pid int) {
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// runLoadBench runs benchFlood and prints its report, with the load
// average around it.
func runLoadBench(cmd *cobra.Command, g *globalFlags, root, file string, edits, bigMB int) error {
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
		return fmt.Errorf("--load-file: %w", err)
	}
	before := loadAverage()
	rep, err := benchFlood(cmd.Context(), root, file, edits, bigMB)
	if err != nil {
		return fmt.Errorf("language server under load: %w", err)
	}
	after := loadAverage()
	if g.json {
		return writeJSON(cmd.OutOrStdout(), struct {
			*floodReport
			LoadAverage [2]float64 `json:"load_average"`
		}{rep, [2]float64{before, after}})
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "root            %s (load average %.2f → %.2f)\n", root, before, after)
	fmt.Fprintf(w, "server          idle RSS %.0f MB once indexed\n", rep.IdleRSSMB)
	for _, r := range []struct {
		name string
		run  floodRun
	}{{"valid syntax", rep.Valid}, {"broken syntax", rep.Broken}} {
		fmt.Fprintf(w, "edit flood      %s: %d didChange on %s, %d requests mixed in, in %.1f s\n", r.name, rep.Edits, rep.File, rep.Requests, r.run.Seconds)
		fmt.Fprintf(w, "  requests      p50 %.1f ms  p99 %.1f ms  max %.1f ms; peak RSS %.0f MB\n", r.run.P50ms, r.run.P99ms, r.run.MaxMs, r.run.PeakRSSMB)
		var ms []string
		for m, p := range r.run.ByMethod {
			ms = append(ms, fmt.Sprintf("%s %.1f", m, p))
		}
		slices.Sort(ms)
		fmt.Fprintf(w, "  p99 ms        %s\n", strings.Join(ms, ", "))
	}
	if rep.BigOpenMB > 0 {
		fmt.Fprintf(w, "large didOpen   %.1f MB on one line: next request %.1f ms (%.1f ms from the didOpen's start), peak RSS %.0f MB (idle %.0f MB), told the user: %v\n",
			rep.BigOpenMB, rep.BigNextMs, rep.BigTotalMs, rep.BigPeakRSSMB, rep.BigIdleRSSMB, rep.BigShowMessage)
	}
	return nil
}
