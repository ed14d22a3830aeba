package lsp

// End-to-end tests: the real anchorage binary, started as an editor starts
// it (anchorage --data-dir DIR serve), driven over its standard input and
// output by a real LSP client (go.lsp.dev/jsonrpc2 and protocol), or, for
// malformed input, by raw bytes.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// anchorageBin is the binary under test, built once by TestMain; empty
// when the end-to-end tests are not run (while fuzzing).
var anchorageBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		// Fuzzing (and its workers) needs no binary.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "anchorage-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, "anchorage")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		// The server runs under the race detector too; its reports fail
		// the session (see lspProc.finish).
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = ".."
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	anchorageBin = bin
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// Deadlines. No wait in these tests is unbounded.
const (
	callTimeout  = 20 * time.Second // one request
	eventTimeout = 20 * time.Second // a notification or request from the server
	pollTimeout  = 15 * time.Second // a state the server reaches in the background
	exitTimeout  = 15 * time.Second // the process ending
)

// ---------------------------------------------------------------------------
// The process.

// lspProc is a running anchorage serve process.
type lspProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   *os.File // our end of its standard input
	stdout  *os.File // our end of its standard output
	stderr  *lockedBuffer
	dataDir string

	done     chan struct{} // closed when the process has exited
	exitCode int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startProc starts anchorage --data-dir <temp> serve. The process is
// ended and its standard error checked when the test ends.
func startProc(t *testing.T) *lspProc {
	t.Helper()
	if anchorageBin == "" {
		t.Skip("end-to-end tests are not run while fuzzing")
	}
	p := &lspProc{t: t, stderr: &lockedBuffer{}, dataDir: t.TempDir(), done: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(anchorageBin, "--data-dir", p.dataDir, "serve")
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	p.cmd.Env = append(os.Environ(), "ANCHORAGE_HOME="+p.dataDir)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	p.stdin, p.stdout = inW, outR
	go func() {
		err := p.cmd.Wait()
		p.exitCode = p.cmd.ProcessState.ExitCode()
		if err != nil && p.exitCode == -1 {
			p.exitCode = -1 // killed by a signal
		}
		close(p.done)
	}()
	t.Cleanup(p.finish)
	return p
}

// finish ends the process if it still runs (closing its input, then
// killing it) and fails the test if the server panicked or raced.
func (p *lspProc) finish() {
	t := p.t
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(exitTimeout):
		t.Errorf("the server did not exit within %v of its input closing; killing it", exitTimeout)
		p.cmd.Process.Kill()
		<-p.done
	}
	p.stdout.Close()
	log := p.stderr.String()
	for _, bad := range []string{"WARNING: DATA RACE", "panic:", "handler panicked", "fatal error:"} {
		if strings.Contains(log, bad) {
			t.Errorf("the server's log reports %q", bad)
		}
	}
	if t.Failed() {
		if len(log) > 20000 {
			log = "…" + log[len(log)-20000:]
		}
		t.Logf("server log:\n%s", log)
	}
}

// waitExit waits for the process to exit and returns its exit code.
func (p *lspProc) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exitCode
	case <-time.After(exitTimeout):
		t.Fatalf("the server did not exit within %v", exitTimeout)
		return 0
	}
}

// ---------------------------------------------------------------------------
// Messages the server sends, as the tests record them.

// frame is one message from the server: a request or notification to the
// client, or (raw clients only) a response.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
	isCall bool
}

func (f frame) String() string {
	switch {
	case f.Method != "":
		return fmt.Sprintf("%s %s", f.Method, truncate(string(f.Params), 300))
	case f.Error != nil:
		return fmt.Sprintf("response %s: error %d %s", f.ID, f.Error.Code, f.Error.Message)
	default:
		return fmt.Sprintf("response %s: %s", f.ID, truncate(string(f.Result), 300))
	}
}

// recorder keeps every frame received and wakes up waiters.
type recorder struct {
	mu     sync.Mutex
	frames []frame
	signal chan struct{}
	closed chan struct{} // the server's output ended
}

func newRecorder() *recorder {
	return &recorder{signal: make(chan struct{}), closed: make(chan struct{})}
}

func (r *recorder) add(f frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, f)
	close(r.signal)
	r.signal = make(chan struct{})
}

// all returns the frames so far.
func (r *recorder) all() []frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.frames)
}

// mark returns how many frames were received, for waits on later frames.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.frames)
}

// wait returns the first frame from index from on that satisfies pred.
func (r *recorder) wait(t *testing.T, from int, timeout time.Duration, what string, pred func(frame) bool) frame {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for _, f := range r.frames[min(from, len(r.frames)):] {
			if pred(f) {
				r.mu.Unlock()
				return f
			}
		}
		from = len(r.frames)
		signal := r.signal
		r.mu.Unlock()
		select {
		case <-signal:
		case <-r.closed:
			// Look once more at what arrived before the end.
			r.mu.Lock()
			for _, f := range r.frames[min(from, len(r.frames)):] {
				if pred(f) {
					r.mu.Unlock()
					return f
				}
			}
			r.mu.Unlock()
			t.Fatalf("waiting for %s: the server's output ended", what)
		case <-deadline.C:
			t.Fatalf("waiting for %s: nothing within %v", what, timeout)
		}
	}
}

// logMessages returns the window/logMessage notifications so far.
func (r *recorder) logMessages() []protocol.LogMessageParams {
	var out []protocol.LogMessageParams
	for _, f := range r.all() {
		if f.Method == "window/logMessage" {
			var p protocol.LogMessageParams
			if json.Unmarshal(f.Params, &p) == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

func isLog(typ protocol.MessageType, substr string) func(frame) bool {
	return func(f frame) bool {
		if f.Method != "window/logMessage" {
			return false
		}
		var p protocol.LogMessageParams
		return json.Unmarshal(f.Params, &p) == nil && p.Type == typ && strings.Contains(p.Message, substr)
	}
}

// ---------------------------------------------------------------------------
// The LSP client.

// lspClient is an editor talking to the server with go.lsp.dev's client.
type lspClient struct {
	*lspProc
	*recorder
	conn   jsonrpc2.Conn
	server protocol.Server

	// configuration is the answer to workspace/configuration requests.
	configuration any
}

// stdio is the process's standard output and input as one connection.
type stdio struct {
	io.Reader
	w io.WriteCloser
}

func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error                { return s.w.Close() }

// startClient starts a server and connects a client to it.
func startClient(t *testing.T) *lspClient {
	t.Helper()
	p := startProc(t)
	c := &lspClient{lspProc: p, recorder: newRecorder()}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(stdio{Reader: p.stdout, w: p.stdin}))
	c.server = protocol.ServerDispatcher(c.conn, zap.NewNop())
	c.conn.Go(context.Background(), c.handle)
	go func() {
		<-c.conn.Done()
		close(c.recorder.closed)
	}()
	t.Cleanup(func() { c.conn.Close() })
	return c
}

// handle answers the server's requests as an editor would, and records
// every request and notification.
func (c *lspClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	f := frame{Method: req.Method(), Params: slices.Clone([]byte(req.Params()))}
	call, isCall := req.(*jsonrpc2.Call)
	if isCall {
		f.isCall = true
		f.ID, _ = json.Marshal(call.ID())
	}
	c.add(f)
	if !isCall {
		return nil
	}
	switch req.Method() {
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability":
		return reply(ctx, nil, nil)
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error()))
		}
		res := make([]any, len(p.Items))
		for i := range res {
			res[i] = c.configuration
		}
		return reply(ctx, res, nil)
	}
	return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test client: "+req.Method()))
}

// callCtx is the context of one request.
func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// call sends a request by method name and decodes its result.
func (c *lspClient) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer within %v", method, callTimeout)
	}
	return err
}

// notify sends a notification.
func (c *lspClient) notify(t *testing.T, method string, params any) {
	t.Helper()
	if err := c.conn.Notify(callCtx(t), method, params); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// clientOptions are the capabilities and settings a client starts with.
type clientOptions struct {
	// all advertises every capability the server uses: work done progress,
	// workspace/configuration and dynamic registration of watched files.
	// Otherwise only work done progress.
	all bool
	// noProgress leaves work done progress out.
	noProgress bool
}

func capabilities(o clientOptions) protocol.ClientCapabilities {
	caps := protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: !o.noProgress},
		Workspace: &protocol.WorkspaceClientCapabilities{
			WorkspaceFolders: true,
		},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization: &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
			DocumentSymbol:  &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
			CallHierarchy:   &protocol.CallHierarchyClientCapabilities{},
			FoldingRange:    &protocol.FoldingRangeClientCapabilities{LineFoldingOnly: true},
		},
	}
	if o.all {
		caps.Workspace.Configuration = true
		caps.Workspace.DidChangeWatchedFiles = &protocol.DidChangeWatchedFilesWorkspaceClientCapabilities{DynamicRegistration: true}
	}
	return caps
}

// initResult is what the tests read of the initialize result.
type initResult struct {
	Capabilities struct {
		TextDocumentSync struct {
			OpenClose bool `json:"openClose"`
			Change    int  `json:"change"`
		} `json:"textDocumentSync"`
		WorkspaceSymbolProvider any `json:"workspaceSymbolProvider"`
		DocumentSymbolProvider  any `json:"documentSymbolProvider"`
		FoldingRangeProvider    any `json:"foldingRangeProvider"`
		CallHierarchyProvider   any `json:"callHierarchyProvider"`
		ExecuteCommandProvider  *struct {
			Commands []string `json:"commands"`
		} `json:"executeCommandProvider"`
		Workspace struct {
			WorkspaceFolders struct {
				Supported           bool `json:"supported"`
				ChangeNotifications any  `json:"changeNotifications"`
			} `json:"workspaceFolders"`
		} `json:"workspace"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// initialize sends initialize with the folders as workspace folders.
func (c *lspClient) initialize(t *testing.T, o clientOptions, folders ...string) initResult {
	t.Helper()
	params := &protocol.InitializeParams{
		ProcessID:    int32(os.Getpid()),
		ClientInfo:   &protocol.ClientInfo{Name: "anchorage-e2e"},
		Capabilities: capabilities(o),
	}
	for _, f := range folders {
		params.WorkspaceFolders = append(params.WorkspaceFolders, protocol.WorkspaceFolder{URI: string(uri.File(f)), Name: filepath.Base(f)})
	}
	var res initResult
	if err := c.call(t, "initialize", params, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

// start initializes the server over folders, sends initialized and waits
// until every folder is indexed.
func (c *lspClient) start(t *testing.T, o clientOptions, folders ...string) {
	t.Helper()
	c.initialize(t, o, folders...)
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range folders {
		c.waitIndexed(t, 0, f)
	}
}

// waitIndexed waits for the log message that ends the indexing of root.
func (c *lspClient) waitIndexed(t *testing.T, from int, root string) {
	t.Helper()
	c.wait(t, from, eventTimeout, "the indexing of "+root, isLog(protocol.MessageTypeInfo, "indexed "+root+":"))
}

// symbols runs workspace/symbol.
func (c *lspClient) symbols(t *testing.T, query string) []protocol.SymbolInformation {
	t.Helper()
	res, err := c.server.Symbols(callCtx(t), &protocol.WorkspaceSymbolParams{Query: query})
	if err != nil {
		t.Fatalf("workspace/symbol %q: %v", query, err)
	}
	return res
}

// documentSymbols runs textDocument/documentSymbol (hierarchical).
func (c *lspClient) documentSymbols(t *testing.T, u protocol.DocumentURI) []protocol.DocumentSymbol {
	t.Helper()
	var res []protocol.DocumentSymbol
	err := c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &res)
	if err != nil {
		t.Fatalf("documentSymbol %s: %v", u, err)
	}
	return res
}

func (c *lspClient) prepare(t *testing.T, u protocol.DocumentURI, pos protocol.Position) []protocol.CallHierarchyItem {
	t.Helper()
	items, err := c.server.PrepareCallHierarchy(callCtx(t), &protocol.CallHierarchyPrepareParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos},
	})
	if err != nil {
		t.Fatalf("prepareCallHierarchy %s %v: %v", u, pos, err)
	}
	return items
}

// prepareOne runs prepareCallHierarchy and expects one item named name.
func (c *lspClient) prepareOne(t *testing.T, u protocol.DocumentURI, pos protocol.Position, name string) protocol.CallHierarchyItem {
	t.Helper()
	items := c.prepare(t, u, pos)
	if len(items) != 1 || items[0].Name != name {
		t.Fatalf("prepareCallHierarchy at %s %d:%d = %s, want one item %s", u, pos.Line, pos.Character, itemNames(items), name)
	}
	return items[0]
}

func (c *lspClient) incoming(t *testing.T, item protocol.CallHierarchyItem) []protocol.CallHierarchyIncomingCall {
	t.Helper()
	res, err := c.server.IncomingCalls(callCtx(t), &protocol.CallHierarchyIncomingCallsParams{Item: item})
	if err != nil {
		t.Fatalf("incomingCalls %s: %v", item.Name, err)
	}
	return res
}

func (c *lspClient) outgoing(t *testing.T, item protocol.CallHierarchyItem) []protocol.CallHierarchyOutgoingCall {
	t.Helper()
	res, err := c.server.OutgoingCalls(callCtx(t), &protocol.CallHierarchyOutgoingCallsParams{Item: item})
	if err != nil {
		t.Fatalf("outgoingCalls %s: %v", item.Name, err)
	}
	return res
}

// command runs workspace/executeCommand and returns the raw result.
func (c *lspClient) command(t *testing.T, name string, args ...any) (json.RawMessage, error) {
	t.Helper()
	var res json.RawMessage
	err := c.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: name, Arguments: args}, &res)
	return res, err
}

func itemNames(items []protocol.CallHierarchyItem) string {
	var names []string
	for _, it := range items {
		names = append(names, it.Detail)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// ---------------------------------------------------------------------------
// Workspaces and documents.

// sampleApp copies testdata/sampleapp into a temporary directory and
// returns its path (symlinks resolved, as the server reports paths).
func sampleApp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	return root
}

func fileURI(root, rel string) protocol.DocumentURI {
	return protocol.DocumentURI(uri.File(filepath.Join(root, filepath.FromSlash(rel))))
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// document is an open document: the editor's copy of the text, kept in
// step with the edits sent to the server.
type document struct {
	c       *lspClient
	uri     protocol.DocumentURI
	text    string
	version int32
}

// open sends didOpen for a document with text.
func (c *lspClient) open(t *testing.T, u protocol.DocumentURI, languageID, text string) *document {
	t.Helper()
	d := &document{c: c, uri: u, text: text, version: 1}
	err := c.server.DidOpen(callCtx(t), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: protocol.LanguageIdentifier(languageID), Version: d.version, Text: text,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *document) close(t *testing.T) {
	t.Helper()
	if err := d.c.server.DidClose(callCtx(t), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}}); err != nil {
		t.Fatal(err)
	}
}

// change sends edits (applied in order) with the next version, and
// applies them to the editor's copy.
func (d *document) change(t *testing.T, edits ...protocol.TextDocumentContentChangeEvent) {
	t.Helper()
	d.version++
	for _, e := range edits {
		start, end := offsetAt(d.text, e.Range.Start), offsetAt(d.text, e.Range.End)
		if end < start {
			start, end = end, start
		}
		d.text = d.text[:start] + e.Text + d.text[end:]
	}
	d.sendChange(t, d.version, edits...)
}

// sendChange sends didChange as is, without touching the editor's copy.
func (d *document) sendChange(t *testing.T, version int32, edits ...protocol.TextDocumentContentChangeEvent) {
	t.Helper()
	err := d.c.server.DidChange(callCtx(t), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}, Version: version},
		ContentChanges: edits,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// find returns the range of the n-th (0-based) occurrence of s in the
// editor's copy.
func (d *document) find(t *testing.T, s string, n int) protocol.Range {
	t.Helper()
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(d.text[off:], s)
		if j < 0 {
			t.Fatalf("%q (occurrence %d) is not in the document:\n%s", s, n, d.text)
		}
		if i == n {
			off += j
			break
		}
		off += j + len(s)
	}
	return protocol.Range{Start: positionAt(d.text, off), End: positionAt(d.text, off+len(s))}
}

// pos returns the position of the first occurrence of s.
func (d *document) pos(t *testing.T, s string) protocol.Position {
	t.Helper()
	return d.find(t, s, 0).Start
}

// replace replaces the first occurrence of old by new.
func (d *document) replace(t *testing.T, old, new string) {
	t.Helper()
	d.change(t, edit(d.find(t, old, 0), new))
}

// insertBefore inserts s just before the first occurrence of anchor.
func (d *document) insertBefore(t *testing.T, anchor, s string) {
	t.Helper()
	p := d.pos(t, anchor)
	d.change(t, edit(protocol.Range{Start: p, End: p}, s))
}

func edit(r protocol.Range, text string) protocol.TextDocumentContentChangeEvent {
	return protocol.TextDocumentContentChangeEvent{Range: r, Text: text}
}

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}
}

// positionAt returns the line and UTF-16 character of a byte offset.
func positionAt(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndex(text[:off], "\n") + 1
	return protocol.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(text[start:off]))))}
}

// offsetAt returns the byte offset of a position, clamped as the protocol
// asks: past the last line is the end, past a line's end is its end
// (before \r\n or \n).
func offsetAt(text string, p protocol.Position) int {
	off := 0
	for i := uint32(0); i < p.Line; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			return len(text)
		}
		off += j + 1
	}
	end := len(text)
	if j := strings.IndexByte(text[off:], '\n'); j >= 0 {
		end = off + j
		if end > off && text[end-1] == '\r' {
			end--
		}
	}
	units := uint32(0)
	for off < end && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:end])
		n := uint32(utf16.RuneLen(r))
		if n > 1 && units+n > p.Character {
			break
		}
		units += n
		off += size
	}
	return off
}

// ---------------------------------------------------------------------------
// Polling and assertions.

// eventually polls check until it returns nil, failing with its last error
// after the deadline.
func eventually(t *testing.T, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v", timeout, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// symbolsIn keeps the symbols named name in the file u.
func symbolsIn(syms []protocol.SymbolInformation, name string, u protocol.DocumentURI) []protocol.SymbolInformation {
	var out []protocol.SymbolInformation
	for _, s := range syms {
		if s.Name == name && (u == "" || s.Location.URI == u) {
			out = append(out, s)
		}
	}
	return out
}

func describe(syms []protocol.SymbolInformation) string {
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "\n  %s (%s, in %s) %s %d:%d", s.Name, s.Kind, s.ContainerName, s.Location.URI, s.Location.Range.Start.Line, s.Location.Range.Start.Character)
	}
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

// findSymbol returns the one workspace symbol named name in u, failing if
// there is not exactly one.
func (c *lspClient) findSymbol(t *testing.T, query, name string, u protocol.DocumentURI) protocol.SymbolInformation {
	t.Helper()
	syms := c.symbols(t, query)
	got := symbolsIn(syms, name, u)
	if len(got) != 1 {
		t.Fatalf("workspace/symbol %q: want one %s in %s, got:%s", query, name, u, describe(syms))
	}
	return got[0]
}

// noSymbol fails if workspace/symbol finds name in u ("" for anywhere).
func (c *lspClient) noSymbol(t *testing.T, query, name string, u protocol.DocumentURI) {
	t.Helper()
	syms := c.symbols(t, query)
	if got := symbolsIn(syms, name, u); len(got) > 0 {
		t.Fatalf("workspace/symbol %q: want no %s in %s, got:%s", query, name, u, describe(got))
	}
}

// symbolGone polls until workspace/symbol no longer finds name in u.
func (c *lspClient) symbolGone(t *testing.T, query, name string, u protocol.DocumentURI) {
	t.Helper()
	eventually(t, pollTimeout, func() error {
		if got := symbolsIn(c.symbols(t, query), name, u); len(got) > 0 {
			return fmt.Errorf("workspace/symbol %q still finds:%s", query, describe(got))
		}
		return nil
	})
}

// symbolAppears polls until workspace/symbol finds name in u, and returns
// it.
func (c *lspClient) symbolAppears(t *testing.T, query, name string, u protocol.DocumentURI) protocol.SymbolInformation {
	t.Helper()
	var found protocol.SymbolInformation
	eventually(t, pollTimeout, func() error {
		syms := c.symbols(t, query)
		got := symbolsIn(syms, name, u)
		if len(got) != 1 {
			return fmt.Errorf("workspace/symbol %q: want one %s in %s, got:%s", query, name, u, describe(syms))
		}
		found = got[0]
		return nil
	})
	return found
}

// flatten lists an outline depth first, with each symbol's path of names.
func flatten(syms []protocol.DocumentSymbol, prefix string) map[string]protocol.DocumentSymbol {
	out := map[string]protocol.DocumentSymbol{}
	for _, s := range syms {
		name := prefix + s.Name
		out[name] = s
		for k, v := range flatten(s.Children, name+"/") {
			out[k] = v
		}
	}
	return out
}

func outlineNames(syms []protocol.DocumentSymbol) []string {
	var names []string
	for k := range flatten(syms, "") {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// jsonCode returns the JSON-RPC code of an error from a call.
func jsonCode(err error) (jsonrpc2.Code, bool) {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

func wantCode(t *testing.T, what string, err error, want jsonrpc2.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want code %d", what, want)
	}
	if code, ok := jsonCode(err); !ok || code != want {
		t.Fatalf("%s: error %v (code %d), want code %d", what, err, code, want)
	}
}

// keep the imports used by helpers that only some builds need.
var (
	_ = bufio.NewReader
	_ = fs.ErrNotExist
	_ = strconv.Itoa
)

func TestE2EExplore(t *testing.T) {
	root := sampleApp(t)
	c := startClient(t)
	start := time.Now()
	res := c.initialize(t, clientOptions{all: true}, root)
	t.Logf("init %+v", res)
	c.server.Initialized(callCtx(t), &protocol.InitializedParams{})
	c.waitIndexed(t, 0, root)
	t.Logf("indexed after %v", time.Since(start))
	for _, f := range c.all() {
		t.Logf("%v", f)
	}
	u := fileURI(root, "users/repo.go")
	ds := c.documentSymbols(t, u)
	b, _ := json.MarshalIndent(ds, "", " ")
	t.Logf("%s", b)
	t.Logf("%s", describe(c.symbols(t, "FindByID")))
	t.Logf("%s", describe(c.symbols(t, "FBI")))
}
