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
	"maps"
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

	"github.com/anchorage-dev/anchorage/internal/pgtest"
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
	code := pgtest.Main(m) // m.Run, then the team tests' PostgreSQL stops
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

// How long the tests expect each kind of wait to take on a quiet machine.
// A wait that takes longer is logged, not failed: CI runs on busy shared
// machines, so every wait lasts until the event it waits for (or the end
// of the server's output), bounded only by the test binary's deadline
// (go test -timeout; see patience).
const (
	callTimeout  = 20 * time.Second // one request
	eventTimeout = 20 * time.Second // a notification or request from the server
	pollTimeout  = 15 * time.Second // a state the server reaches in the background
	exitTimeout  = 15 * time.Second // the process ending
)

// patience returns when a wait gives up: shortly before the test binary's
// deadline, leaving time to report what was awaited and to stop the
// servers, or in ten minutes without a deadline.
func patience(t *testing.T) time.Time {
	d, ok := t.Deadline()
	if !ok {
		return time.Now().Add(10 * time.Minute)
	}
	left := time.Until(d)
	return d.Add(-min(left/10+5*time.Second, left/2))
}

// waitTimers returns a timer that fires after the expected duration of a
// wait (to log that it is slow) and one that fires at patience (to fail).
func waitTimers(t *testing.T, expected time.Duration) (slow, end *time.Timer) {
	return time.NewTimer(expected), time.NewTimer(time.Until(patience(t)))
}

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
	return startProcIn(t, t.TempDir())
}

// startProcIn starts a server whose state is in dataDir.
func startProcIn(t *testing.T, dataDir string) *lspProc {
	t.Helper()
	return startProcWith(t, dataDir)
}

// startProcWith starts a server whose state is in dataDir, with more
// flags of anchorage serve.
func startProcWith(t *testing.T, dataDir string, serveFlags ...string) *lspProc {
	t.Helper()
	if anchorageBin == "" {
		t.Skip("end-to-end tests are not run while fuzzing")
	}
	p := &lspProc{t: t, stderr: &lockedBuffer{}, dataDir: dataDir, done: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// --stdio as VS Code's and other editors' client libraries add it.
	p.cmd = exec.Command(anchorageBin, append([]string{"--data-dir", p.dataDir, "serve", "--stdio"}, serveFlags...)...)
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
	slow, end := waitTimers(t, exitTimeout)
	defer slow.Stop()
	defer end.Stop()
	for exited := false; !exited; {
		select {
		case <-p.done:
			exited = true
		case <-slow.C:
			t.Logf("the server has not exited %v after its input closed; still waiting", exitTimeout)
		case <-end.C:
			t.Errorf("the server did not exit before the test's deadline after its input closed; killing it")
			p.cmd.Process.Kill()
			<-p.done
			exited = true
		}
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
	slow, end := waitTimers(t, exitTimeout)
	defer slow.Stop()
	defer end.Stop()
	for {
		select {
		case <-p.done:
			return p.exitCode
		case <-slow.C:
			t.Logf("the server has not exited after %v; still waiting", exitTimeout)
		case <-end.C:
			t.Fatalf("the server did not exit before the test's deadline")
			return 0
		}
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

// wait returns the first frame from index from on that satisfies pred. It
// waits as long as it takes (see patience), logging when it takes longer
// than expected.
func (r *recorder) wait(t *testing.T, from int, expected time.Duration, what string, pred func(frame) bool) frame {
	t.Helper()
	slow, deadline := waitTimers(t, expected)
	defer slow.Stop()
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
		case <-slow.C:
			t.Logf("waiting for %s: nothing after %v yet; still waiting", what, expected)
		case <-deadline.C:
			t.Fatalf("waiting for %s: nothing before the test's deadline", what)
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
	return connect(t, startProc(t))
}

// connect connects a client to a started server.
func connect(t *testing.T, p *lspProc) *lspClient {
	t.Helper()
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
		id := call.ID()
		f.ID, _ = json.Marshal(&id) // only *ID marshals as JSON
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

// callCtx is the context of one request: it ends at patience.
func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), patience(t))
	t.Cleanup(cancel)
	return ctx
}

// call sends a request by method name and decodes its result, waiting as
// long as it takes (see patience) and logging when it takes longer than
// callTimeout.
func (c *lspClient) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), patience(t))
	defer cancel()
	slow := time.AfterFunc(callTimeout, func() { t.Logf("%s: no answer after %v yet; still waiting", method, callTimeout) })
	defer slow.Stop()
	_, err := c.conn.Call(ctx, method, params, result)
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer before the test's deadline", method)
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

// addGenerated writes files Go files of funcs functions each under
// root/gen, so that indexing takes longer than a round trip to the editor
// (progress is only shown for work that outlasts the creation of its
// token).
func addGenerated(t *testing.T, root string, files, funcs int) {
	t.Helper()
	dir := filepath.Join(root, "gen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range files {
		var b strings.Builder
		b.WriteString("package gen\n\n")
		for i := range funcs {
			fmt.Fprintf(&b, "// G%03d_%02d is generated.\nfunc G%03d_%02d(x int) int { return G%03d_%02d(x) + 1 }\n\n", f, i, f, i, f, (i+1)%funcs)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("g%03d.go", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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

// findIn returns the range of sub within the first occurrence of context.
func (d *document) findIn(t *testing.T, context, sub string) protocol.Range {
	t.Helper()
	r := d.find(t, context, 0)
	i := strings.Index(context, sub)
	if i < 0 {
		t.Fatalf("%q is not in %q", sub, context)
	}
	start := offsetAt(d.text, r.Start) + i
	return protocol.Range{Start: positionAt(d.text, start), End: positionAt(d.text, start+len(sub))}
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

// eventually polls check until it returns nil: a state the server reaches
// in the background. It waits as long as it takes (see patience), logging
// the last error when it takes longer than expected, and fails with it at
// the test's deadline.
func eventually(t *testing.T, expected time.Duration, check func() error) {
	t.Helper()
	start := time.Now()
	slow, end := start.Add(expected), patience(t)
	for {
		err := check()
		if err == nil {
			return
		}
		if now := time.Now(); now.After(end) {
			t.Fatalf("after %v, at the test's deadline: %v", now.Sub(start).Round(time.Millisecond), err)
		} else if now.After(slow) {
			t.Logf("after %v: %v; still waiting", expected, err)
			slow = end
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
// the first found.
func (c *lspClient) symbolAppears(t *testing.T, query, name string, u protocol.DocumentURI) protocol.SymbolInformation {
	t.Helper()
	var found protocol.SymbolInformation
	eventually(t, pollTimeout, func() error {
		syms := c.symbols(t, query)
		got := symbolsIn(syms, name, u)
		if len(got) == 0 {
			return fmt.Errorf("workspace/symbol %q: want %s in %s, got:%s", query, name, u, describe(syms))
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

// ---------------------------------------------------------------------------
// The raw client: bytes on the server's input, frames read from its output.

type rawClient struct {
	*lspProc
	*recorder
}

func startRaw(t *testing.T) *rawClient {
	t.Helper()
	p := startProc(t)
	c := &rawClient{lspProc: p, recorder: newRecorder()}
	go c.read(bufio.NewReader(p.stdout))
	return c
}

// read parses the server's output into frames until it ends.
func (c *rawClient) read(r *bufio.Reader) {
	defer close(c.recorder.closed)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			name, value, _ := strings.Cut(line, ":")
			if strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		if length < 0 {
			c.add(frame{Method: "test/badFrame", Params: json.RawMessage(`"no Content-Length"`)})
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var f frame
		if err := json.Unmarshal(body, &f); err != nil {
			f = frame{Method: "test/badFrame", Params: json.RawMessage(strconv.Quote(string(body)))}
		}
		c.add(f)
	}
}

// send writes raw bytes to the server.
func (c *rawClient) send(t *testing.T, raw string) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, raw); err != nil {
		t.Fatalf("write to the server: %v", err)
	}
}

// sendJSON frames a message and writes it.
func (c *rawClient) sendJSON(t *testing.T, msg string) {
	t.Helper()
	c.send(t, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg))
}

// request sends a request with a numeric id.
func (c *rawClient) request(t *testing.T, id int, method string, params any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	c.sendJSON(t, string(b))
}

func (c *rawClient) notification(t *testing.T, method string, params any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	c.sendJSON(t, string(b))
}

// response waits for the response to id (a JSON id: 7, "x" or null).
func (c *rawClient) response(t *testing.T, from int, id string) frame {
	t.Helper()
	return c.wait(t, from, callTimeout, "the response to id "+id, func(f frame) bool {
		return f.Method == "" && string(f.ID) == id
	})
}

// parseErrorAfter waits for a parse error response (id null).
func (c *rawClient) parseErrorAfter(t *testing.T, from int) frame {
	t.Helper()
	f := c.wait(t, from, callTimeout, "a parse error response", func(f frame) bool {
		return f.Method == "" && f.Error != nil && (len(f.ID) == 0 || string(f.ID) == "null")
	})
	if f.Error.Code != int64(jsonrpc2.ParseError) {
		t.Fatalf("response with id null: %v, want code %d", f, jsonrpc2.ParseError)
	}
	return f
}

// start initializes the server over root without capabilities and waits
// for the indexing.
func (c *rawClient) start(t *testing.T, root string) {
	t.Helper()
	from := c.mark()
	c.request(t, 1000, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(root)), "capabilities": map[string]any{}})
	if f := c.response(t, from, "1000"); f.Error != nil {
		t.Fatalf("initialize: %v", f)
	}
	c.notification(t, "initialized", map[string]any{})
	c.wait(t, from, eventTimeout, "the indexing", isLog(protocol.MessageTypeInfo, "indexed "+root+":"))
}

// serves checks that the server still answers a request, and returns the
// symbols it finds for query.
func (c *rawClient) serves(t *testing.T, id int, query string) []protocol.SymbolInformation {
	t.Helper()
	from := c.mark()
	c.request(t, id, "workspace/symbol", map[string]any{"query": query})
	f := c.response(t, from, strconv.Itoa(id))
	if f.Error != nil {
		t.Fatalf("workspace/symbol %q: %v", query, f)
	}
	var syms []protocol.SymbolInformation
	if err := json.Unmarshal(f.Result, &syms); err != nil {
		t.Fatalf("workspace/symbol result %s: %v", f.Result, err)
	}
	return syms
}

// ---------------------------------------------------------------------------
// Sessions.

// TestE2EInitialize checks the capabilities the server advertises and
// what it does after initialized: work done progress for the indexing,
// the pull of its settings and the registration of file watchers.
func TestE2EInitialize(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	addGenerated(t, root, 300, 10)
	c := startClient(t)
	c.configuration = map[string]any{"logLevel": "info"}
	res := c.initialize(t, clientOptions{all: true}, root)

	caps := res.Capabilities
	checks := []struct {
		name string
		ok   bool
		got  any
	}{
		{"textDocumentSync.openClose", caps.TextDocumentSync.OpenClose, caps.TextDocumentSync.OpenClose},
		{"textDocumentSync.change is incremental", caps.TextDocumentSync.Change == int(protocol.TextDocumentSyncKindIncremental), caps.TextDocumentSync.Change},
		{"workspaceSymbolProvider", caps.WorkspaceSymbolProvider == true, caps.WorkspaceSymbolProvider},
		{"documentSymbolProvider", caps.DocumentSymbolProvider == true, caps.DocumentSymbolProvider},
		{"foldingRangeProvider", caps.FoldingRangeProvider == true, caps.FoldingRangeProvider},
		{"callHierarchyProvider", caps.CallHierarchyProvider == true, caps.CallHierarchyProvider},
		{"workspace.workspaceFolders.supported", caps.Workspace.WorkspaceFolders.Supported, caps.Workspace.WorkspaceFolders.Supported},
		{"workspace.workspaceFolders.changeNotifications", caps.Workspace.WorkspaceFolders.ChangeNotifications == true, caps.Workspace.WorkspaceFolders.ChangeNotifications},
		{"serverInfo.name", res.ServerInfo.Name == "anchorage", res.ServerInfo.Name},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("initialize: %s = %v", ch.name, ch.got)
		}
	}
	if caps.ExecuteCommandProvider == nil {
		t.Fatal("initialize: no executeCommandProvider")
	}
	wantCommands := []string{"anchorage.callers", "anchorage.callees", "anchorage.blastRadius", "anchorage.inheritance", "anchorage.index.status"}
	for _, cmd := range wantCommands {
		if !slices.Contains(caps.ExecuteCommandProvider.Commands, cmd) {
			t.Errorf("executeCommandProvider.commands = %v, want %s among them", caps.ExecuteCommandProvider.Commands, cmd)
		}
	}

	from := c.mark()
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}

	t.Run("configuration pulled", func(t *testing.T) {
		f := c.wait(t, from, eventTimeout, "workspace/configuration", func(f frame) bool { return f.Method == "workspace/configuration" && f.isCall })
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(f.Params, &p); err != nil || len(p.Items) != 1 || p.Items[0].Section != "anchorage" {
			t.Errorf("workspace/configuration %s, want one item of section anchorage", f.Params)
		}
	})

	t.Run("watched files registered", func(t *testing.T) {
		f := c.wait(t, from, eventTimeout, "client/registerCapability", func(f frame) bool { return f.Method == "client/registerCapability" && f.isCall })
		var p struct {
			Registrations []struct {
				ID              string `json:"id"`
				Method          string `json:"method"`
				RegisterOptions struct {
					Watchers []struct {
						GlobPattern string `json:"globPattern"`
					} `json:"watchers"`
				} `json:"registerOptions"`
			} `json:"registrations"`
		}
		if err := json.Unmarshal(f.Params, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Registrations) != 1 || p.Registrations[0].Method != "workspace/didChangeWatchedFiles" || p.Registrations[0].ID == "" ||
			len(p.Registrations[0].RegisterOptions.Watchers) == 0 || p.Registrations[0].RegisterOptions.Watchers[0].GlobPattern == "" {
			t.Errorf("client/registerCapability %s, want one registration of workspace/didChangeWatchedFiles with watchers", f.Params)
		}
	})

	t.Run("indexing progress", func(t *testing.T) {
		create := c.wait(t, from, eventTimeout, "window/workDoneProgress/create", func(f frame) bool {
			return f.Method == "window/workDoneProgress/create" && f.isCall
		})
		var cp struct {
			Token json.RawMessage `json:"token"`
		}
		if err := json.Unmarshal(create.Params, &cp); err != nil || len(cp.Token) == 0 {
			t.Fatalf("window/workDoneProgress/create %s: no token", create.Params)
		}
		token := string(cp.Token)
		type value struct {
			Kind       string  `json:"kind"`
			Title      string  `json:"title"`
			Message    string  `json:"message"`
			Percentage *uint32 `json:"percentage"`
		}
		progressOf := func(f frame) (value, bool) {
			var p struct {
				Token json.RawMessage `json:"token"`
				Value value           `json:"value"`
			}
			if f.Method != "$/progress" || json.Unmarshal(f.Params, &p) != nil || string(p.Token) != token {
				return value{}, false
			}
			return p.Value, true
		}
		c.wait(t, from, eventTimeout, "the end of the indexing progress", func(f frame) bool {
			v, ok := progressOf(f)
			return ok && v.Kind == "end"
		})
		var kinds []string
		var values []value
		for _, f := range c.all()[from:] {
			if v, ok := progressOf(f); ok {
				kinds = append(kinds, v.Kind)
				values = append(values, v)
			}
		}
		if len(kinds) < 3 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" {
			t.Fatalf("progress %v, want begin, report(s), end", kinds)
		}
		for _, k := range kinds[1 : len(kinds)-1] {
			if k != "report" {
				t.Fatalf("progress %v, want begin, report(s), end", kinds)
			}
		}
		if !strings.Contains(values[0].Title, "Indexing") {
			t.Errorf("progress begin title %q, want Indexing…", values[0].Title)
		}
		last := uint32(0)
		for _, v := range values[1 : len(values)-1] {
			if v.Percentage == nil || *v.Percentage < last || *v.Percentage > 100 {
				t.Errorf("report percentages %+v: want rising, at most 100", values)
				break
			}
			last = *v.Percentage
		}
		if final := values[len(values)-2]; final.Percentage == nil || *final.Percentage != 100 || !strings.Contains(final.Message, "files") {
			t.Errorf("last report %+v, want 100%% with a count of files", final)
		}
		if end := values[len(values)-1]; !strings.Contains(end.Message, "files") || !strings.Contains(end.Message, "symbols") {
			t.Errorf("progress end message %q, want counts of files and symbols", end.Message)
		}
		c.waitIndexed(t, from, root)
	})
}

// TestE2EInitializedAnswersClientRequests checks that the server's own
// requests to the editor during initialized (workspace/configuration,
// client/registerCapability) get their answers, so that settings apply
// and indexing starts at once.
func TestE2EInitializedAnswersClientRequests(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	// The editor's settings exclude the Python worker from the index.
	c.configuration = map[string]any{"excludedDirectories": []string{"worker"}}
	c.initialize(t, clientOptions{all: true}, root)
	from := c.mark()
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.waitIndexed(t, from, root)
	// The answer to workspace/configuration reached the server before it
	// indexed: the worker is not in the index.
	if syms := c.symbols(t, "UsersClient"); len(syms) != 0 {
		t.Errorf("the excluded worker's UsersClient is indexed:%s", describe(syms))
	}
	if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
		t.Error("FindByID is not indexed")
	}
	for _, f := range c.all()[from:] {
		if f.Method == "$/cancelRequest" {
			t.Errorf("the server cancelled its own request: %v", f)
		}
	}
	c.noSymbol(t, "fetch_user", "fetch_user", fileURI(root, "worker/client.py"))
}

// TestE2EWorkspaceSymbol searches the sample app by exact name and by
// initials.
func TestE2EWorkspaceSymbol(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	repo := fileURI(root, "users/repo.go")
	decl := strings.Index(readFile(t, root, "users/repo.go"), "func (r *UserRepository) FindByID")
	wantPos := positionAt(readFile(t, root, "users/repo.go"), decl)

	tests := []struct {
		query string
		first bool // the method is the first answer
	}{
		{"FindByID", true},
		{"findbyid", false},
		{"FBI", false},
		{"fbi", false},
		{"FindBy", false},
		{"ByID", false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			syms := c.symbols(t, tt.query)
			got := symbolsIn(syms, "FindByID", repo)
			if len(got) != 1 {
				t.Fatalf("want UserRepository.FindByID in %s, got:%s", repo, describe(syms))
			}
			s := got[0]
			if s.Kind != protocol.SymbolKindMethod || s.ContainerName != "UserRepository" {
				t.Errorf("kind %v, container %q; want Method in UserRepository", s.Kind, s.ContainerName)
			}
			if s.Location.Range.Start != wantPos {
				t.Errorf("starts at %v, want %v", s.Location.Range.Start, wantPos)
			}
			if tt.first && syms[0].Name != "FindByID" {
				t.Errorf("first answer %s, want an exact match", describe(syms[:1]))
			}
		})
	}
	t.Run("no match", func(t *testing.T) {
		if syms := c.symbols(t, "NoSuchSymbolAnywhere"); len(syms) != 0 {
			t.Errorf("got:%s", describe(syms))
		}
	})
	t.Run("empty query", func(t *testing.T) {
		c.symbols(t, "") // answered, whatever it holds
	})
}

// TestE2EIncrementalEdits edits users/repo.go (and users/service.go) in
// the editor and checks that every answer follows the edits at once.
func TestE2EIncrementalEdits(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	repo, service := fileURI(root, "users/repo.go"), fileURI(root, "users/service.go")
	d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
	const helper = "// AddedHelper is new.\nfunc AddedHelper(r *UserRepository) error {\n\treturn nil\n}\n\n"

	t.Run("add a function", func(t *testing.T) {
		d.insertBefore(t, "// Save inserts", helper)
		s := c.findSymbol(t, "AddedHelper", "AddedHelper", repo)
		if want := d.pos(t, "func AddedHelper"); s.Location.Range.Start != want {
			t.Errorf("AddedHelper at %v, want %v", s.Location.Range.Start, want)
		}
		if s.Kind != protocol.SymbolKindFunction || s.ContainerName != "users" {
			t.Errorf("AddedHelper: kind %v in %q, want Function in users", s.Kind, s.ContainerName)
		}
	})

	t.Run("rename a method", func(t *testing.T) {
		d.replace(t, "FindByID(ctx context.Context", "LoadByID(ctx context.Context")
		s := c.findSymbol(t, "LoadByID", "LoadByID", repo)
		if want := d.pos(t, "func (r *UserRepository) LoadByID"); s.Location.Range.Start != want || s.Kind != protocol.SymbolKindMethod || s.ContainerName != "UserRepository" {
			t.Errorf("LoadByID: %s; want a method of UserRepository at %v", describe([]protocol.SymbolInformation{s}), want)
		}
		c.noSymbol(t, "FindByID", "FindByID", repo)
		c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/user.go")) // Reader.FindByID stays

		item := c.prepareOne(t, repo, d.pos(t, "ByID(ctx"), "LoadByID")
		if item.Detail != "UserRepository.LoadByID" || item.Kind != protocol.SymbolKindMethod || item.URI != repo {
			t.Errorf("item %+v, want method UserRepository.LoadByID in %s", item, repo)
		}
		if want := d.find(t, "LoadByID", 0); item.SelectionRange != want {
			t.Errorf("item selection %v, want %v", item.SelectionRange, want)
		}
		// service.go still calls FindByID: nothing calls LoadByID.
		if in := c.incoming(t, item); len(in) != 0 {
			t.Errorf("incoming calls of LoadByID: %+v, want none", in)
		}
	})

	t.Run("new caller", func(t *testing.T) {
		d.insertBefore(t, "// Save inserts", "func callsLoad(r *UserRepository) {\n\tr.LoadByID(nil, \"1\")\n\tAddedHelper(r)\n}\n\n")
		item := c.prepareOne(t, repo, d.pos(t, "callsLoad("), "callsLoad")
		out := c.outgoing(t, item)
		got := map[string][]protocol.Range{}
		for _, o := range out {
			got[o.To.Detail] = o.FromRanges
		}
		want := map[string][]protocol.Range{
			"UserRepository.LoadByID": {d.findIn(t, "r.LoadByID(nil", "LoadByID")},
			"users.AddedHelper":       {d.findIn(t, "AddedHelper(r)", "AddedHelper")},
		}
		for name, ranges := range want {
			if !slices.Equal(got[name], ranges) {
				t.Errorf("outgoing calls of callsLoad to %s: %v, want %v (all: %+v)", name, got[name], ranges, out)
			}
		}
		if len(out) != len(want) {
			t.Errorf("outgoing calls of callsLoad: %+v, want %d", out, len(want))
		}
		load := c.prepareOne(t, repo, d.pos(t, "LoadByID(ctx"), "LoadByID")
		in := c.incoming(t, load)
		if want := d.findIn(t, "r.LoadByID(nil", "LoadByID"); len(in) != 1 || in[0].From.Detail != "users.callsLoad" || !slices.Equal(in[0].FromRanges, []protocol.Range{want}) {
			t.Errorf("incoming calls of LoadByID: %+v, want callsLoad at %v", in, want)
		}
	})

	t.Run("caller in another open document", func(t *testing.T) {
		sd := c.open(t, service, "go", readFile(t, root, "users/service.go"))
		sd.replace(t, "s.repo.FindByID(", "s.repo.LoadByID(")
		load := c.prepareOne(t, repo, d.pos(t, "LoadByID(ctx"), "LoadByID")
		in := c.incoming(t, load)
		callers := map[string]protocol.Range{}
		for _, call := range in {
			if len(call.FromRanges) != 1 {
				t.Errorf("incoming call from %s: ranges %v, want one", call.From.Detail, call.FromRanges)
				continue
			}
			callers[call.From.Detail] = call.FromRanges[0]
		}
		want := sd.findIn(t, "s.repo.LoadByID(", "LoadByID")
		if got, ok := callers["Service.GetUser"]; !ok || got != want {
			t.Errorf("incoming calls of LoadByID: %+v, want Service.GetUser at %v", in, want)
		}
		if _, ok := callers["users.callsLoad"]; !ok || len(in) != 2 {
			t.Errorf("incoming calls of LoadByID: %+v, want GetUser and callsLoad", in)
		}
	})

	t.Run("delete a function", func(t *testing.T) {
		stale := c.prepareOne(t, repo, d.pos(t, "callsLoad("), "callsLoad")
		d.change(t, edit(d.find(t, helper, 0), ""))
		c.noSymbol(t, "AddedHelper", "AddedHelper", "")
		// The item from before the edit still works: callsLoad moved up.
		out := c.outgoing(t, stale)
		var names []string
		for _, o := range out {
			names = append(names, o.To.Detail)
		}
		if !slices.Equal(names, []string{"UserRepository.LoadByID"}) {
			t.Errorf("outgoing calls of callsLoad after AddedHelper was deleted: %v, want [UserRepository.LoadByID]", names)
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		syms := c.documentSymbols(t, repo)
		all := flatten(syms, "")
		for _, name := range []string{"UserRepository", "UserRepository/LoadByID", "UserRepository/Save", "NewUserRepository", "callsLoad"} {
			if _, ok := all[name]; !ok {
				t.Errorf("outline %v lacks %s", outlineNames(syms), name)
			}
		}
		for _, name := range []string{"UserRepository/FindByID", "FindByID", "AddedHelper"} {
			if _, ok := all[name]; ok {
				t.Errorf("outline %v still has %s", outlineNames(syms), name)
			}
		}
		load := all["UserRepository/LoadByID"]
		if want := d.find(t, "LoadByID", 0); load.SelectionRange != want {
			t.Errorf("LoadByID selection %v, want %v", load.SelectionRange, want)
		}
		if load.Kind != protocol.SymbolKindMethod || !strings.Contains(load.Detail, "LoadByID(ctx context.Context") {
			t.Errorf("LoadByID: kind %v, detail %q", load.Kind, load.Detail)
		}
		for name, s := range all {
			if !rangeContains(s.Range, s.SelectionRange) {
				t.Errorf("%s: selection %v outside its range %v", name, s.SelectionRange, s.Range)
			}
		}
		// The outline of the other open document follows its edit too.
		svc := flatten(c.documentSymbols(t, service), "")
		if _, ok := svc["Service/GetUser"]; !ok {
			t.Errorf("service.go outline %v lacks Service/GetUser", slices.Collect(maps.Keys(svc)))
		}
	})

	t.Run("folding ranges", func(t *testing.T) {
		folds, err := c.server.FoldingRanges(callCtx(t), &protocol.FoldingRangeParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: repo}}})
		if err != nil {
			t.Fatal(err)
		}
		start := d.pos(t, "func (r *UserRepository) LoadByID").Line
		end := positionAt(d.text, strings.Index(d.text[offsetAt(d.text, pos(start, 0)):], "\n}\n")+offsetAt(d.text, pos(start, 0))+1).Line
		found := false
		for _, f := range folds {
			if f.StartLine > f.EndLine {
				t.Errorf("folding range %+v ends before it starts", f)
			}
			found = found || f.StartLine == start && f.EndLine == end
		}
		if !found {
			t.Errorf("folding ranges %+v lack LoadByID's lines %d-%d", folds, start, end)
		}
	})
}

// rangeContains reports whether inner lies within outer.
func rangeContains(outer, inner protocol.Range) bool {
	before := func(a, b protocol.Position) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
	}
	return before(outer.Start, inner.Start) && before(inner.End, outer.End)
}

// outlineSymbol returns the symbol at path (names joined by /) in the
// outline of u.
func (c *lspClient) outlineSymbol(t *testing.T, u protocol.DocumentURI, path string) protocol.DocumentSymbol {
	t.Helper()
	syms := c.documentSymbols(t, u)
	s, ok := flatten(syms, "")[path]
	if !ok {
		t.Fatalf("the outline of %s has no %s: %v", u, path, outlineNames(syms))
	}
	return s
}

// TestE2EEditEncodings edits a document with CRLF line endings and
// characters outside the BMP (two UTF-16 units each), and at the very end
// of the file, and checks the positions of symbols after each edit.
func TestE2EEditEncodings(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	u := fileURI(root, "users/encodings.go") // never saved: only in the editor
	d := c.open(t, u, "go", "package users\r\n\r\n// First is first.\r\nfunc First() {}\r\n\r\nfunc Second() int {\r\n\treturn 2\r\n}\r\n")

	// check compares the outline's positions of the named functions with
	// where their names are in the editor's copy.
	check := func(t *testing.T, names ...string) {
		t.Helper()
		all := flatten(c.documentSymbols(t, u), "")
		for _, name := range names {
			s, ok := all[name]
			if !ok {
				t.Errorf("the outline lacks %s:\n%q", name, d.text)
				continue
			}
			decl := d.pos(t, "func "+name+"(")
			if s.Range.Start != decl {
				t.Errorf("%s: range starts at %v, want %v (text %q)", name, s.Range.Start, decl, d.text)
			}
			if want := d.findIn(t, "func "+name+"(", name); s.SelectionRange != want {
				t.Errorf("%s: selection %v, want %v (text %q)", name, s.SelectionRange, want, d.text)
			}
		}
		if len(all) != len(names) {
			t.Errorf("outline %v, want %v", slices.Sorted(maps.Keys(all)), names)
		}
	}
	check(t, "First", "Second")

	steps := []struct {
		name  string
		edits []protocol.TextDocumentContentChangeEvent
		want  []string
	}{
		{"emoji before a function on its line", []protocol.TextDocumentContentChangeEvent{edit(rng(3, 0, 3, 0), "/* 😀😀 */ ")}, []string{"First", "Second"}},
		{"insert between two surrogate pairs", []protocol.TextDocumentContentChangeEvent{edit(rng(3, 5, 3, 5), "é")}, []string{"First", "Second"}},
		{"range inside a surrogate pair", []protocol.TextDocumentContentChangeEvent{edit(rng(3, 4, 3, 4), "x")}, []string{"First", "Second"}},
		{"past the end of a CRLF line", []protocol.TextDocumentContentChangeEvent{edit(rng(3, 999, 3, 999), " // 🚀 trailing")}, []string{"First", "Second"}},
		{"emoji in a name's line, CRLF inserted", []protocol.TextDocumentContentChangeEvent{edit(rng(5, 0, 5, 0), "// 🦀 doc\r\n")}, []string{"First", "Second"}},
		{"join lines across CRLF", []protocol.TextDocumentContentChangeEvent{edit(rng(4, 0, 5, 0), "")}, []string{"First", "Second"}},
		{"append at the very end", nil, []string{"First", "Second", "Last"}},
		{"append past the end without a newline", nil, []string{"First", "Second", "Last", "Final"}},
		{"several edits in one change", nil, []string{"First", "Second", "Last", "Final", "Both"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			edits := st.edits
			switch st.name {
			case "append at the very end":
				end := positionAt(d.text, len(d.text))
				edits = []protocol.TextDocumentContentChangeEvent{edit(protocol.Range{Start: end, End: end}, "\r\nfunc Last() string { return \"😀\" }\r\n")}
			case "append past the end without a newline":
				edits = []protocol.TextDocumentContentChangeEvent{edit(rng(9999, 9999, 9999, 9999), "func 𝔉inal() {}\r\nfunc Final() {}")}
			case "several edits in one change":
				// Each edit is in the coordinates the previous one left.
				edits = []protocol.TextDocumentContentChangeEvent{
					edit(rng(1, 0, 1, 0), "// 😀\r\n"),
					edit(rng(0, 13, 0, 13), " // users"),
					edit(rng(2, 0, 2, 0), "func Both() { First() }\r\n"),
				}
			}
			d.change(t, edits...)
			if st.name == "append past the end without a newline" {
				st.want = append(st.want, "𝔉inal")
			}
			if st.name == "several edits in one change" {
				st.want = append(st.want, "𝔉inal")
			}
			check(t, st.want...)
		})
	}
	t.Run("workspace symbol positions", func(t *testing.T) {
		s := c.findSymbol(t, "Last", "Last", u)
		if want := d.pos(t, "func Last("); s.Location.Range.Start != want {
			t.Errorf("Last at %v, want %v", s.Location.Range.Start, want)
		}
		s = c.findSymbol(t, "Final", "Final", u)
		if want := d.pos(t, "func Final("); s.Location.Range.Start != want {
			t.Errorf("Final at %v, want %v", s.Location.Range.Start, want)
		}
	})
	t.Run("call site columns after surrogate pairs", func(t *testing.T) {
		item := c.prepareOne(t, u, d.findIn(t, "func Both(", "Both").Start, "Both")
		out := c.outgoing(t, item)
		if want := d.findIn(t, "{ First() }", "First"); len(out) != 1 || out[0].To.Name != "First" || !slices.Equal(out[0].FromRanges, []protocol.Range{want}) {
			t.Errorf("outgoing calls of Both: %+v, want First at %v", out, want)
		}
	})
}

// TestE2EInsertAtStartOfFile inserts text at line 0, character 0.
func TestE2EInsertAtStartOfFile(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	repo := fileURI(root, "users/repo.go")
	d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
	d.change(t, edit(rng(0, 0, 0, 0), "// Header.\n"))
	s := c.outlineSymbol(t, repo, "UserRepository/FindByID")
	if want := d.findIn(t, "func (r *UserRepository) FindByID", "FindByID"); s.SelectionRange != want {
		t.Errorf("FindByID selection %v, want %v", s.SelectionRange, want)
	}
	c.findSymbol(t, "FindByID", "FindByID", repo)
}

// TestE2EDidClose checks that a closed document returns to its content on
// disk, and that a document never saved disappears.
func TestE2EDidClose(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	repo := fileURI(root, "users/repo.go")

	t.Run("edited file", func(t *testing.T) {
		d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
		d.replace(t, "FindByID(ctx context.Context", "EditorByID(ctx context.Context")
		end := positionAt(d.text, len(d.text))
		d.change(t, edit(protocol.Range{Start: end, End: end}, "\nfunc EditorOnly() {}\n"))
		// A request that comes while a parse of an earlier text is under
		// way (the index's write of the open document after a pause, which
		// a busy machine makes likely between the two changes) answers from
		// that parse; asked again, from the newest text.
		c.symbolAppears(t, "EditorOnly", "EditorOnly", repo)
		c.findSymbol(t, "EditorOnly", "EditorOnly", repo)
		c.findSymbol(t, "EditorByID", "EditorByID", repo)
		c.noSymbol(t, "FindByID", "FindByID", repo)
		d.close(t)
		c.symbolGone(t, "EditorOnly", "EditorOnly", repo)
		c.symbolGone(t, "EditorByID", "EditorByID", repo)
		c.symbolAppears(t, "FindByID", "FindByID", repo)
		// documentSymbol now reads the index: the file as on disk.
		c.outlineSymbol(t, repo, "UserRepository/FindByID")
	})

	t.Run("never saved", func(t *testing.T) {
		u := fileURI(root, "users/unsaved.go")
		d := c.open(t, u, "go", "package users\n\nfunc UnsavedOnly() {}\n")
		c.findSymbol(t, "UnsavedOnly", "UnsavedOnly", u)
		d.close(t)
		c.symbolGone(t, "UnsavedOnly", "UnsavedOnly", "")
	})

	t.Run("unchanged file", func(t *testing.T) {
		d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
		c.findSymbol(t, "FindByID", "FindByID", repo)
		d.close(t)
		// Once a later refresh has run (a new file shows it), nothing of
		// the file was lost.
		marker := filepath.Join(root, "users", "marker.go")
		if err := os.WriteFile(marker, []byte("package users\n\nfunc CloseMarker() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c.notify(t, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
			{Type: protocol.FileChangeTypeCreated, URI: uri.File(marker)},
		}})
		c.symbolAppears(t, "CloseMarker", "CloseMarker", "")
		c.findSymbol(t, "FindByID", "FindByID", repo)
		c.findSymbol(t, "Save", "Save", repo)
	})

	t.Run("close twice and close unopened", func(t *testing.T) {
		d := &document{c: c, uri: fileURI(root, "users/service.go")}
		d.close(t)
		d.close(t)
		c.findSymbol(t, "GetUser", "GetUser", d.uri)
	})
}

// TestE2EWatchedFiles changes files on disk and tells the server with
// workspace/didChangeWatchedFiles.
func TestE2EWatchedFiles(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	path := filepath.Join(root, "users", "extra.go")
	u := fileURI(root, "users/extra.go")
	changed := func(typ protocol.FileChangeType, u protocol.DocumentURI) {
		c.notify(t, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{{Type: typ, URI: uri.URI(u)}}})
	}

	t.Run("created", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("package users\n\n// ExtraOnDisk was written outside the editor.\nfunc ExtraOnDisk() int { return 1 }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		changed(protocol.FileChangeTypeCreated, u)
		s := c.symbolAppears(t, "ExtraOnDisk", "ExtraOnDisk", u)
		if s.Location.Range.Start != pos(3, 0) {
			t.Errorf("ExtraOnDisk at %v, want 3:0", s.Location.Range.Start)
		}
	})
	t.Run("changed", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("package users\n\nfunc ExtraRenamed() int { return 2 }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		changed(protocol.FileChangeTypeChanged, u)
		c.symbolAppears(t, "ExtraRenamed", "ExtraRenamed", u)
		c.symbolGone(t, "ExtraOnDisk", "ExtraOnDisk", "")
	})
	t.Run("deleted", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		changed(protocol.FileChangeTypeDeleted, u)
		c.symbolGone(t, "ExtraRenamed", "ExtraRenamed", "")
	})
	t.Run("open documents keep the editor's text", func(t *testing.T) {
		repo := fileURI(root, "users/repo.go")
		disk := readFile(t, root, "users/repo.go")
		d := c.open(t, repo, "go", disk)
		end := positionAt(d.text, len(d.text))
		d.change(t, edit(protocol.Range{Start: end, End: end}, "\nfunc EditorWins() {}\n"))
		if err := os.WriteFile(filepath.Join(root, "users", "repo.go"), []byte(disk+"\nfunc DiskOnly() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// A second file changes with it, to know when the refresh ran.
		if err := os.WriteFile(path, []byte("package users\n\nfunc RefreshMarker() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c.notify(t, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
			{Type: protocol.FileChangeTypeChanged, URI: uri.URI(repo)},
			{Type: protocol.FileChangeTypeCreated, URI: uri.URI(u)},
		}})
		c.symbolAppears(t, "RefreshMarker", "RefreshMarker", u)
		c.noSymbol(t, "DiskOnly", "DiskOnly", "")
		c.findSymbol(t, "EditorWins", "EditorWins", repo)
		d.close(t)
		c.symbolAppears(t, "DiskOnly", "DiskOnly", repo)
		c.symbolGone(t, "EditorWins", "EditorWins", "")
	})
	t.Run("outside the workspace", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "x.go")
		changed(protocol.FileChangeTypeCreated, protocol.DocumentURI(uri.File(other)))
		c.findSymbol(t, "GetUser", "GetUser", fileURI(root, "users/service.go"))
	})
}

// positionIn returns the position of the first occurrence of sub in a
// file's text.
func positionIn(t *testing.T, text, sub string) protocol.Position {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q not found", sub)
	}
	return positionAt(text, i)
}

// TestE2ECallHierarchy walks calls around Service.GetUser in the sample
// app as indexed (no open documents).
func TestE2ECallHierarchy(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	service, repo, handlers := fileURI(root, "users/service.go"), fileURI(root, "users/repo.go"), fileURI(root, "api/handlers.go")
	serviceText, repoText := readFile(t, root, "users/service.go"), readFile(t, root, "users/repo.go")
	call := positionIn(t, serviceText, "FindByID(ctx, id)")
	callRange := protocol.Range{Start: call, End: pos(call.Line, call.Character+8)}

	getUser := c.prepareOne(t, service, positionIn(t, serviceText, "GetUser(ctx context.Context"), "GetUser")
	t.Run("prepare", func(t *testing.T) {
		name := positionIn(t, serviceText, "GetUser(ctx context.Context")
		if getUser.Detail != "Service.GetUser" || getUser.Kind != protocol.SymbolKindMethod || getUser.URI != service ||
			getUser.SelectionRange != (protocol.Range{Start: name, End: pos(name.Line, name.Character+7)}) ||
			getUser.Range.Start != positionIn(t, serviceText, "func (s *Service) GetUser") {
			t.Errorf("item %+v", getUser)
		}
		// Inside the body, the innermost symbol is GetUser too.
		c.prepareOne(t, service, call, "GetUser")
		// Outside every function: nothing.
		if items := c.prepare(t, service, pos(0, 0)); len(items) != 0 {
			t.Errorf("prepareCallHierarchy on the package clause: %s, want none", itemNames(items))
		}
	})
	t.Run("outgoing calls of GetUser", func(t *testing.T) {
		out := c.outgoing(t, getUser)
		found := false
		for _, o := range out {
			if o.To.Detail == "UserRepository.FindByID" {
				found = true
				if o.To.URI != repo || !slices.Equal(o.FromRanges, []protocol.Range{callRange}) {
					t.Errorf("call to FindByID: %+v, want in %s from %v", o, repo, callRange)
				}
			}
		}
		if !found {
			t.Errorf("outgoing calls of GetUser %+v lack UserRepository.FindByID", out)
		}
	})
	t.Run("incoming calls of FindByID", func(t *testing.T) {
		find := c.prepareOne(t, repo, positionIn(t, repoText, "ByID(ctx"), "FindByID")
		in := c.incoming(t, find)
		var got *protocol.CallHierarchyIncomingCall
		for i := range in {
			if in[i].From.Detail == "Service.GetUser" {
				got = &in[i]
			}
		}
		if got == nil {
			t.Fatalf("incoming calls of FindByID %+v lack Service.GetUser", in)
		}
		if got.From.URI != service || !slices.Equal(got.FromRanges, []protocol.Range{callRange}) {
			t.Errorf("call from GetUser: %+v, want in %s from %v", got, service, callRange)
		}
	})
	t.Run("incoming calls of GetUser", func(t *testing.T) {
		in := c.incoming(t, getUser)
		from := map[string]protocol.DocumentURI{}
		for _, call := range in {
			from[call.From.Detail] = call.From.URI
		}
		if from["Service.Rename"] != service || from["Handler.ServeUser"] != handlers {
			t.Errorf("incoming calls of GetUser %+v, want Service.Rename and Handler.ServeUser", in)
		}
	})
	t.Run("item without data", func(t *testing.T) {
		item := getUser
		item.Data = nil
		_, err := c.server.IncomingCalls(callCtx(t), &protocol.CallHierarchyIncomingCallsParams{Item: item})
		wantCode(t, "incomingCalls of an item without data", err, jsonrpc2.InvalidParams)
	})
}

// TestE2EExecuteCommand runs the server's commands.
func TestE2EExecuteCommand(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)

	type definition struct {
		Definition struct {
			QualifiedName string `json:"qualified_name"`
			Path          string `json:"path"`
		} `json:"definition"`
		Result json.RawMessage `json:"result"`
	}
	type answer struct {
		Symbol      string       `json:"symbol"`
		Operation   string       `json:"operation"`
		Definitions []definition `json:"definitions"`
	}
	tests := []struct {
		name    string
		command string
		args    []any
		op      string
		defs    []string // qualified names of the definitions
		result  string   // a fragment of the first definition's result
	}{
		{"callers by object", "anchorage.callers", []any{map[string]any{"symbol": "UserRepository.FindByID"}}, "callers",
			[]string{"UserRepository.FindByID"}, `"qualified_name":"Service.GetUser"`},
		{"callers by name", "anchorage.callers", []any{"FindByID"}, "callers",
			[]string{"UserRepository.FindByID", "Reader.FindByID"}, `"qualified_name":"Service.GetUser"`},
		{"callees", "anchorage.callees", []any{"Service.GetUser"}, "callees",
			[]string{"Service.GetUser"}, `"qualified_name":"UserRepository.FindByID"`},
		{"blast radius with depth", "anchorage.blastRadius", []any{"UserRepository.FindByID", 2}, "blast-radius",
			[]string{"UserRepository.FindByID"}, `"qualified_name":"Service.GetUser"`},
		{"inheritance", "anchorage.inheritance", []any{map[string]any{"symbol": "Admin"}}, "inheritance",
			[]string{"users.Admin"}, `"qualified_name":"users.Auditable"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := c.command(t, tt.command, tt.args...)
			if err != nil {
				t.Fatalf("%s %v: %v", tt.command, tt.args, err)
			}
			var a answer
			if err := json.Unmarshal(raw, &a); err != nil {
				t.Fatalf("%s: %v in %s", tt.command, err, raw)
			}
			if a.Operation != tt.op {
				t.Errorf("operation %q, want %q", a.Operation, tt.op)
			}
			var defs []string
			for _, d := range a.Definitions {
				defs = append(defs, d.Definition.QualifiedName)
			}
			for _, want := range tt.defs {
				if !slices.Contains(defs, want) {
					t.Errorf("definitions %v lack %s", defs, want)
				}
			}
			if len(a.Definitions) == 0 || !strings.Contains(string(a.Definitions[0].Result), tt.result) {
				t.Errorf("result %s lacks %s", raw, tt.result)
			}
		})
	}

	t.Run("index status", func(t *testing.T) {
		raw, err := c.command(t, "anchorage.index.status")
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Folders []struct {
				Root     string `json:"root"`
				Indexing bool   `json:"indexing"`
				Files    int    `json:"files"`
				Symbols  int    `json:"symbols"`
				Database string `json:"database"`
			} `json:"folders"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("%v in %s", err, raw)
		}
		if len(st.Folders) != 1 || st.Folders[0].Root != root || st.Folders[0].Files == 0 || st.Folders[0].Symbols == 0 {
			t.Fatalf("index status %s, want one folder %s with files and symbols", raw, root)
		}
		if !strings.HasPrefix(st.Folders[0].Database, c.dataDir) {
			t.Errorf("database %s, want it under the data directory %s", st.Folders[0].Database, c.dataDir)
		}
	})

	errorTests := []struct {
		name    string
		command string
		args    []any
		says    string // what the error must say: the field at fault
	}{
		{"unknown command", "anchorage.noSuchCommand", nil, "unknown command"},
		{"no arguments", "anchorage.callers", nil, `"symbol"`},
		{"empty symbol", "anchorage.callers", []any{map[string]any{"symbol": ""}}, `field "symbol"`},
		{"depth not a number", "anchorage.blastRadius", []any{"FindByID", "two"}, `field "depth"`},
		{"depth of the wrong type", "anchorage.callees", []any{map[string]any{"symbol": "FindByID", "depth": "2"}}, `field "depth"`},
		{"unknown symbol", "anchorage.callers", []any{"NoSuchSymbolAnywhere"}, "NoSuchSymbolAnywhere"},
		{"arguments of the wrong shape", "anchorage.callers", []any{[]any{1, 2}}, `field "symbol"`},
		{"search top_k of the wrong type", "anchorage.search", []any{map[string]any{"query": "users", "top_k": "ten"}}, `field "top_k"`},
		{"slot of the former name", "anchorage.anchors.set", []any{"Q", "rule:1"}, `field "slot"`},
	}
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.command(t, tt.command, tt.args...)
			wantCode(t, tt.command, err, jsonrpc2.InvalidParams)
			if err != nil && !strings.Contains(err.Error(), tt.says) {
				t.Errorf("%s %v: error %q, want it to say %s", tt.command, tt.args, err, tt.says)
			}
		})
	}
}

// TestE2EMultiRoot opens two copies of the sample app as workspace
// folders, then removes and adds one.
func TestE2EMultiRoot(t *testing.T) {
	t.Parallel()
	a, b := sampleApp(t), sampleApp(t)
	if err := os.WriteFile(filepath.Join(b, "users", "onlyb.go"), []byte("package users\n\nfunc OnlyInB() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startClient(t)
	c.start(t, clientOptions{}, a, b)
	repoA, repoB := fileURI(a, "users/repo.go"), fileURI(b, "users/repo.go")

	t.Run("symbols from both", func(t *testing.T) {
		syms := c.symbols(t, "FindByID")
		if len(symbolsIn(syms, "FindByID", repoA)) != 1 || len(symbolsIn(syms, "FindByID", repoB)) != 1 {
			t.Errorf("workspace/symbol FindByID, want it in both folders, got:%s", describe(syms))
		}
		c.findSymbol(t, "OnlyInB", "OnlyInB", fileURI(b, "users/onlyb.go"))
		raw, err := c.command(t, "anchorage.callers", "UserRepository.FindByID")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(raw), `"qualified_name":"UserRepository.FindByID","module"`); n < 2 {
			t.Errorf("anchorage.callers: %d definitions of UserRepository.FindByID, want one per folder: %s", n, raw)
		}
	})
	t.Run("documents go to their folder", func(t *testing.T) {
		d := c.open(t, repoB, "go", readFile(t, b, "users/repo.go"))
		end := positionAt(d.text, len(d.text))
		d.change(t, edit(protocol.Range{Start: end, End: end}, "\nfunc EditedInB() {}\n"))
		c.findSymbol(t, "EditedInB", "EditedInB", repoB)
		d.close(t)
		c.symbolGone(t, "EditedInB", "EditedInB", "")
	})
	t.Run("remove a folder", func(t *testing.T) {
		c.notify(t, "workspace/didChangeWorkspaceFolders", &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
			Removed: []protocol.WorkspaceFolder{{URI: string(uri.File(b)), Name: "b"}},
		}})
		c.symbolGone(t, "OnlyInB", "OnlyInB", "")
		syms := c.symbols(t, "FindByID")
		if len(symbolsIn(syms, "FindByID", repoA)) != 1 || len(symbolsIn(syms, "FindByID", repoB)) != 0 {
			t.Errorf("workspace/symbol FindByID, want it in %s only, got:%s", a, describe(syms))
		}
		raw, err := c.command(t, "anchorage.index.status")
		if err != nil || strings.Contains(string(raw), b+`"`) {
			t.Errorf("index status after removing %s: %s, %v", b, raw, err)
		}
		// A document of the removed folder is outside the workspace now.
		c.open(t, fileURI(b, "users/onlyb.go"), "go", "package users\n\nfunc OpenedAfterRemoval() {}\n")
		c.noSymbol(t, "OpenedAfterRemoval", "OpenedAfterRemoval", "")
	})
	t.Run("add it back", func(t *testing.T) {
		from := c.mark()
		c.notify(t, "workspace/didChangeWorkspaceFolders", &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
			Added: []protocol.WorkspaceFolder{{URI: string(uri.File(b)), Name: "b"}},
		}})
		c.waitIndexed(t, from, b)
		c.findSymbol(t, "OnlyInB", "OnlyInB", fileURI(b, "users/onlyb.go"))
	})
}

// TestE2ELifecycle checks the exit codes the protocol asks for and the
// answers around initialize and shutdown.
func TestE2ELifecycle(t *testing.T) {
	t.Parallel()
	exit := func(t *testing.T, c *lspClient) {
		t.Helper()
		if err := c.server.Exit(callCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	shutdown := func(t *testing.T, c *lspClient) {
		t.Helper()
		if err := c.server.Shutdown(callCtx(t)); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	}
	tests := []struct {
		name string
		run  func(t *testing.T, c *lspClient)
		code int
	}{
		{"shutdown then exit", func(t *testing.T, c *lspClient) {
			root := sampleApp(t)
			c.start(t, clientOptions{}, root)
			d := c.open(t, fileURI(root, "users/repo.go"), "go", readFile(t, root, "users/repo.go"))
			d.replace(t, "FindByID(ctx context.Context", "LoadByID(ctx context.Context")
			shutdown(t, c)
			exit(t, c)
		}, 0},
		{"exit without shutdown", func(t *testing.T, c *lspClient) {
			c.start(t, clientOptions{})
			exit(t, c)
		}, 1},
		{"exit before initialize", exit, 1},
		{"input closed", func(t *testing.T, c *lspClient) {
			c.start(t, clientOptions{})
			c.stdin.Close()
		}, 1},
		{"input closed before initialize", func(t *testing.T, c *lspClient) {
			c.stdin.Close()
		}, 1},
		{"requests after shutdown are refused", func(t *testing.T, c *lspClient) {
			c.start(t, clientOptions{})
			shutdown(t, c)
			_, err := c.server.Symbols(callCtx(t), &protocol.WorkspaceSymbolParams{Query: "x"})
			wantCode(t, "workspace/symbol after shutdown", err, jsonrpc2.InvalidRequest)
			// Notifications are dropped; exit still works.
			c.notify(t, "textDocument/didOpen", &protocol.DidOpenTextDocumentParams{})
			exit(t, c)
		}, 0},
		{"initialize twice", func(t *testing.T, c *lspClient) {
			c.start(t, clientOptions{})
			err := c.call(t, "initialize", &protocol.InitializeParams{}, nil)
			wantCode(t, "second initialize", err, jsonrpc2.InvalidRequest)
			shutdown(t, c)
			exit(t, c)
		}, 0},
		{"rootPath instead of folders", func(t *testing.T, c *lspClient) {
			root := sampleApp(t)
			if err := c.call(t, "initialize", &protocol.InitializeParams{RootPath: root, Capabilities: capabilities(clientOptions{})}, nil); err != nil {
				t.Fatal(err)
			}
			if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
				t.Fatal(err)
			}
			c.waitIndexed(t, 0, root)
			c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/repo.go"))
			shutdown(t, c)
			exit(t, c)
		}, 0},
		{"no workspace at all", func(t *testing.T, c *lspClient) {
			c.start(t, clientOptions{})
			if syms := c.symbols(t, "FindByID"); len(syms) != 0 {
				t.Errorf("workspace/symbol without folders:%s", describe(syms))
			}
			u := protocol.DocumentURI(uri.File(filepath.Join(t.TempDir(), "a.go")))
			d := c.open(t, u, "go", "package a\n\nfunc A() {}\n")
			d.change(t, edit(rng(2, 5, 2, 6), "B"))
			shutdown(t, c)
			exit(t, c)
		}, 0},
		{"shutdown before initialize", func(t *testing.T, c *lspClient) {
			wantCode(t, "shutdown before initialize", c.server.Shutdown(callCtx(t)), jsonrpc2.ServerNotInitialized)
			exit(t, c)
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := startClient(t)
			tt.run(t, c)
			if code := c.waitExit(t); code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
		})
	}
}

// TestE2EBadFrames writes malformed frames to the server and checks that
// each is answered with a parse error (when it is a frame at all) and that
// the server serves the next request.
func TestE2EBadFrames(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startRaw(t)
	repo := fileURI(root, "users/repo.go")

	t.Run("request before initialize", func(t *testing.T) {
		from := c.mark()
		c.notification(t, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": string(repo), "languageId": "go", "version": 1, "text": "package users\n"}})
		c.request(t, 1, "workspace/symbol", map[string]any{"query": "FindByID"})
		f := c.response(t, from, "1")
		if f.Error == nil || f.Error.Code != int64(jsonrpc2.ServerNotInitialized) {
			t.Fatalf("workspace/symbol before initialize: %v, want code %d", f, jsonrpc2.ServerNotInitialized)
		}
	})
	c.start(t, root)

	valid := `{"jsonrpc":"2.0","id":"valid","method":"workspace/symbol","params":{"query":"FindByID"}}`
	tests := []struct {
		name       string
		raw        string
		parseError bool
	}{
		{"invalid JSON", framed(`{"jsonrpc":"2.0","id":3,"method":`), true},
		{"binary garbage body", framed("\x00\xff\xfe{"), true},
		{"JSON that is not a message", framed(`{}`), true},
		{"JSON array", framed(`[1,2,3]`), true},
		{"JSON string", framed(`"hello"`), true},
		{"non-numeric Content-Length", "Content-Length: abc\r\n\r\n", true},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n", true},
		{"zero Content-Length", "Content-Length: 0\r\n\r\n", true},
		{"huge Content-Length", "Content-Length: 99999999999999999999\r\n\r\n", true},
		{"Content-Length above the limit", "Content-Length: 67108865\r\n\r\n", true},
		{"missing Content-Length", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n", true},
		{"header line without a colon", "Garbage\r\nContent-Length: 2\r\n\r\n{}", true},
		{"stray blank lines", "\r\n\n\r\n", false},
		{"lower-case header, extra headers, LF only", fmt.Sprintf("content-type: application/json\ncontent-length: %d\nX-Extra: 1\n\n%s", len(valid), valid), false},
		{"spaces around the length", fmt.Sprintf("Content-Length:   %d  \r\n\r\n%s", len(valid), valid), false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := c.mark()
			c.send(t, tt.raw)
			if tt.parseError {
				c.parseErrorAfter(t, from)
			}
			if strings.Contains(tt.raw, `"id":"valid"`) {
				f := c.response(t, from, `"valid"`)
				if f.Error != nil || !strings.Contains(string(f.Result), "FindByID") {
					t.Errorf("request in an unusual frame: %v", f)
				}
			}
			syms := c.serves(t, 100+i, "FindByID")
			if len(symbolsIn(syms, "FindByID", repo)) != 1 {
				t.Errorf("after %s, workspace/symbol FindByID:%s", tt.name, describe(syms))
			}
		})
	}

	t.Run("unknown method", func(t *testing.T) {
		from := c.mark()
		c.request(t, 200, "textDocument/signatureHelp", map[string]any{"textDocument": map[string]any{"uri": string(repo)}, "position": map[string]any{"line": 0, "character": 0}})
		c.request(t, 201, "anchorage/noSuchMethod", nil)
		c.notification(t, "anchorage/noSuchNotification", map[string]any{"x": 1})
		for _, id := range []string{"200", "201"} {
			if f := c.response(t, from, id); f.Error == nil || f.Error.Code != int64(jsonrpc2.MethodNotFound) {
				t.Errorf("unknown method (id %s): %v, want code %d", id, f, jsonrpc2.MethodNotFound)
			}
		}
		c.serves(t, 202, "FindByID")
	})
	t.Run("invalid params", func(t *testing.T) {
		from := c.mark()
		c.request(t, 210, "workspace/symbol", map[string]any{"query": 5})
		if f := c.response(t, from, "210"); f.Error == nil || f.Error.Code != int64(jsonrpc2.InvalidParams) {
			t.Errorf("workspace/symbol with a number for query: %v, want code %d", f, jsonrpc2.InvalidParams)
		}
		c.sendJSON(t, `{"jsonrpc":"2.0","method":"textDocument/didChange","params":"oops"}`)
		c.wait(t, from, eventTimeout, "a warning about didChange's params", isLog(protocol.MessageTypeWarning, "textDocument/didChange"))
		c.serves(t, 211, "FindByID")
	})
	t.Run("string ids", func(t *testing.T) {
		from := c.mark()
		c.sendJSON(t, `{"jsonrpc":"2.0","id":"abc","method":"workspace/symbol","params":{"query":"GetUser"}}`)
		if f := c.response(t, from, `"abc"`); f.Error != nil || !strings.Contains(string(f.Result), "GetUser") {
			t.Errorf("request with a string id: %v", f)
		}
	})
}

// TestE2EBadContentLengthWithBody sends a frame whose Content-Length is
// unreadable but which has a body, then valid requests.
func TestE2EBadContentLengthWithBody(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startRaw(t)
	c.start(t, root)
	from := c.mark()
	c.send(t, "Content-Length: abc\r\n\r\n"+`{"jsonrpc":"2.0","id":1,"method":"workspace/symbol","params":{"query":"x"}}`)
	c.parseErrorAfter(t, from)
	for i := range 3 {
		c.serves(t, 10+i, "FindByID")
	}
}

// TestE2EWrongContentLength sends frames whose Content-Length does not
// match their body, each followed by requests: no request after the bad
// frame is lost, and a frame that cannot be read is answered with a parse
// error.
func TestE2EWrongContentLength(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startRaw(t)
	c.start(t, root)
	req := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/symbol","params":{"query":"FindByID"}}`, id)
	}
	bigText := strings.Repeat(`Content-Length: 12\r\n\r\n{} `, maxFrame/24+1)
	oversized := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + string(fileURI(root, "big.txt")) + `","languageId":"plaintext","version":1,"text":"` + bigText + `"}}}`
	tests := []struct {
		name       string
		raw        string
		answered   []int // requests answered without error
		parseError bool
	}{
		{"Content-Length larger than its message", "Content-Length: 5000\r\n\r\n" + req(300) + framed(req(301)) + framed(req(302)), []int{300, 301, 302}, false},
		{"Content-Length larger than a body cut short", "Content-Length: 5000\r\n\r\n" + req(310)[:25] + framed(req(311)) + framed(req(312)), []int{311, 312}, true},
		{"a frame over 64 MiB that contains Content-Length:", framed(oversized) + framed(req(320)), []int{320}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := c.mark()
			c.send(t, tt.raw)
			if tt.parseError {
				c.parseErrorAfter(t, from)
			}
			for _, id := range tt.answered {
				f := c.response(t, from, strconv.Itoa(id))
				if f.Error != nil || !strings.Contains(string(f.Result), "FindByID") {
					t.Errorf("request %d after the bad frame: %v", id, f)
				}
			}
		})
	}
}

// TestE2EBadNotifications sends document notifications the server must
// refuse or repair, and checks that it keeps serving after each.
func TestE2EBadNotifications(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	service := fileURI(root, "users/service.go")
	serves := func(t *testing.T) {
		t.Helper()
		c.findSymbol(t, "GetUser", "GetUser", service)
	}

	t.Run("didChange of an unopened document", func(t *testing.T) {
		from := c.mark()
		d := &document{c: c, uri: fileURI(root, "users/user.go"), text: readFile(t, root, "users/user.go"), version: 1}
		d.sendChange(t, 2, edit(rng(0, 0, 0, 7), "package"))
		c.wait(t, from, eventTimeout, "a warning that the document is not open", isLog(protocol.MessageTypeWarning, "not open"))
		serves(t)
		// Nothing was applied: the file's symbols are as on disk.
		c.findSymbol(t, "Admin", "Admin", d.uri)
	})

	t.Run("ranges out of bounds are clamped", func(t *testing.T) {
		u := fileURI(root, "users/clamp.go")
		d := c.open(t, u, "go", "package users\n\nfunc A() {}\n\nfunc B() {}\n")
		d.change(t, edit(rng(9999, 0, 9999, 5), "\nfunc Clamped() {}\n"))
		s := c.findSymbol(t, "Clamped", "Clamped", u)
		if want := d.pos(t, "func Clamped"); s.Location.Range.Start != want {
			t.Errorf("Clamped at %v, want %v", s.Location.Range.Start, want)
		}
		d.change(t, edit(rng(2, 500, 2, 9999), " // past the end of the line"))
		if !strings.Contains(d.text, "func A() {} // past the end of the line\n") {
			t.Fatalf("test bug: %q", d.text)
		}
		// An end before its start is the same range the other way round.
		d.change(t, edit(rng(3, 0, 2, 0), ""))
		c.noSymbol(t, "A", "A", u)
		all := flatten(c.documentSymbols(t, u), "")
		if _, ok := all["A"]; ok || len(all) != 2 {
			t.Errorf("outline %v, want B and Clamped", slices.Sorted(maps.Keys(all)))
		}
		if want := d.findIn(t, "func B(", "B"); all["B"].SelectionRange != want {
			t.Errorf("B selection %v, want %v (text %q)", all["B"].SelectionRange, want, d.text)
		}
		serves(t)
	})

	t.Run("stale version", func(t *testing.T) {
		u := fileURI(root, "users/stale.go")
		d := c.open(t, u, "go", "package users\n\nfunc Fresh() {}\n")
		d.change(t, edit(rng(2, 5, 2, 10), "Newer"))
		from := c.mark()
		for _, v := range []int32{d.version, d.version - 1, 0, -3} {
			d.sendChange(t, v, edit(rng(2, 0, 2, 0), "func Stale() {}\n"))
		}
		w := c.wait(t, from, eventTimeout, "a warning about the stale version", isLog(protocol.MessageTypeWarning, "not newer"))
		if !strings.Contains(string(w.Params), "stale.go") {
			t.Errorf("warning %s does not name the file", w.Params)
		}
		c.noSymbol(t, "Stale", "Stale", "")
		c.findSymbol(t, "Newer", "Newer", u)
		// The next version applies.
		d.change(t, edit(rng(2, 5, 2, 10), "Latest"))
		c.findSymbol(t, "Latest", "Latest", u)
		serves(t)
	})

	t.Run("document outside the workspace", func(t *testing.T) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "outside.go")
		text := "package outside\n\nfunc OutsideOnly() {}\n\ntype T struct {\n\tA int\n}\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		u := protocol.DocumentURI(uri.File(path))
		doc := protocol.TextDocumentIdentifier{URI: u}
		d := c.open(t, u, "go", text)
		d.change(t, edit(rng(2, 5, 2, 16), "OutsideEdited"))
		c.noSymbol(t, "OutsideOnly", "OutsideOnly", "")
		c.noSymbol(t, "OutsideEdited", "OutsideEdited", "")
		// Requests about it are answered quietly, as gopls does: the
		// outline and folds of the open text, nothing from the graph.
		outline := func() []string {
			var res []protocol.DocumentSymbol
			if err := c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: doc}, &res); err != nil {
				t.Fatalf("documentSymbol of a file outside the workspace: %v", err)
			}
			var names []string
			for _, s := range res {
				names = append(names, s.Name)
			}
			return names
		}
		if got := outline(); !slices.Equal(got, []string{"OutsideEdited", "T"}) {
			t.Errorf("outline of a file outside the workspace: %q, want the edited text's [OutsideEdited T]", got)
		}
		var folds []protocol.FoldingRange
		if err := c.call(t, protocol.MethodTextDocumentFoldingRange, &protocol.FoldingRangeParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc}}, &folds); err != nil ||
			len(folds) != 1 || folds[0].StartLine != 4 || folds[0].EndLine != 6 {
			t.Errorf("folds of a file outside the workspace: %+v, %v; want the struct's, lines 4-6", folds, err)
		}
		var items []protocol.CallHierarchyItem
		if err := c.call(t, protocol.MethodTextDocumentPrepareCallHierarchy, &protocol.CallHierarchyPrepareParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos(2, 6)},
		}, &items); err != nil || len(items) != 0 {
			t.Errorf("prepareCallHierarchy outside the workspace: %+v, %v; want nothing, no error", items, err)
		}
		var hover *protocol.Hover
		if err := c.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos(2, 6)},
		}, &hover); err != nil || hover != nil {
			t.Errorf("hover outside the workspace: %+v, %v; want nothing, no error", hover, err)
		}
		var lenses []protocol.CodeLens
		if err := c.call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: doc}, &lenses); err != nil || len(lenses) != 0 {
			t.Errorf("codeLens outside the workspace: %+v, %v; want none, no error", lenses, err)
		}
		var actions []protocol.CodeAction
		if err := c.call(t, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: doc, Range: rng(2, 0, 2, 1)}, &actions); err != nil || len(actions) != 0 {
			t.Errorf("codeAction outside the workspace: %+v, %v; want none, no error", actions, err)
		}
		d.close(t)
		if got := outline(); len(got) != 0 {
			t.Errorf("outline of a closed file outside the workspace: %q, want none", got)
		}
		// A sibling of the folder whose name starts the same is outside too.
		sibling := root + "-sibling"
		if err := os.MkdirAll(sibling, 0o755); err != nil {
			t.Fatal(err)
		}
		su := protocol.DocumentURI(uri.File(filepath.Join(sibling, "x.go")))
		c.open(t, su, "go", "package x\n\nfunc SiblingOnly() {}\n")
		c.noSymbol(t, "SiblingOnly", "SiblingOnly", "")
		serves(t)
	})

	t.Run("full document change", func(t *testing.T) {
		u := fileURI(root, "users/full.go")
		c.open(t, u, "go", "package users\n\nfunc BeforeFull() {}\n")
		// A change without a range replaces the whole text.
		c.notify(t, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": string(u), "version": 2},
			"contentChanges": []any{map[string]any{"text": "package users\n\n\nfunc AfterFull() {}\n"}},
		})
		s := c.findSymbol(t, "AfterFull", "AfterFull", u)
		if s.Location.Range.Start != pos(3, 0) {
			t.Errorf("AfterFull at %v, want 3:0", s.Location.Range.Start)
		}
		c.noSymbol(t, "BeforeFull", "BeforeFull", "")
		serves(t)
	})

	t.Run("other documents the server does not handle", func(t *testing.T) {
		readme := fileURI(root, "README.md")
		d := c.open(t, readme, "markdown", "# Title\n")
		d.change(t, edit(rng(0, 0, 0, 1), "##"))
		d.close(t)
		untitled := &document{c: c, uri: "untitled:Untitled-1", text: "func X() {}", version: 1}
		if err := c.server.DidOpen(callCtx(t), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: untitled.uri, LanguageID: "go", Version: 1, Text: untitled.text}}); err != nil {
			t.Fatal(err)
		}
		untitled.change(t, edit(rng(0, 0, 0, 4), "func"))
		untitled.close(t)
		serves(t)
	})
}

// TestE2ECancelRequest cancels requests in flight, by numeric and string
// id, on a workspace large enough for a deep blast radius to take a while:
// every request must still be answered, with its result or with
// RequestCancelled.
func TestE2ECancelRequest(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "chain")
	// A chain of calls F0000 → F0001 → … → F1199 across 40 files: the
	// blast radius of the last walks back over every function, one level
	// at a time.
	const files, perFile = 40, 30
	for f := range files {
		var b strings.Builder
		b.WriteString("package chain\n\n")
		for i := range perFile {
			n := f*perFile + i
			if n+1 < files*perFile {
				fmt.Fprintf(&b, "func F%04d() { F%04d() }\n\n", n, n+1)
			} else {
				fmt.Fprintf(&b, "func F%04d() {}\n", n)
			}
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	last := fmt.Sprintf("F%04d", files*perFile-1)
	c := startRaw(t)
	c.start(t, root)

	// answered waits for the answer to id: a result or RequestCancelled.
	answered := func(t *testing.T, from int, id string) (cancelled bool) {
		t.Helper()
		f := c.response(t, from, id)
		if f.Error != nil {
			if f.Error.Code != -32800 {
				t.Errorf("cancelled request %s: %v, want its result or code -32800", id, f)
			}
			return true
		}
		return false
	}
	blast := map[string]any{"command": "anchorage.blastRadius", "arguments": []any{last, 10}} // the deepest walk allowed

	t.Run("numeric id", func(t *testing.T) {
		from := c.mark()
		c.request(t, 7, "workspace/executeCommand", blast)
		c.notification(t, "$/cancelRequest", map[string]any{"id": 7})
		t.Logf("cancelled: %v", answered(t, from, "7"))
		c.serves(t, 8, last)
	})
	t.Run("string id", func(t *testing.T) {
		from := c.mark()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "slow", "method": "workspace/executeCommand", "params": blast})
		c.sendJSON(t, string(b))
		c.sendJSON(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"slow"}}`)
		t.Logf("cancelled: %v", answered(t, from, `"slow"`))
		c.serves(t, 9, last)
	})
	t.Run("uncancelled request completes", func(t *testing.T) {
		from := c.mark()
		c.request(t, 10, "workspace/executeCommand", map[string]any{"command": "anchorage.blastRadius", "arguments": []any{last, 5}})
		f := c.response(t, from, "10")
		if f.Error != nil || strings.Count(string(f.Result), `"via":"calls"`) != 5 {
			t.Errorf("blast radius of depth 5: %v, want 5 callers", f)
		}
	})
	t.Run("unknown and malformed cancels", func(t *testing.T) {
		c.notification(t, "$/cancelRequest", map[string]any{"id": 123456})
		c.notification(t, "$/cancelRequest", map[string]any{"id": "nobody"})
		c.notification(t, "$/cancelRequest", map[string]any{"id": 1.5})
		c.notification(t, "$/cancelRequest", map[string]any{})
		c.sendJSON(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":"oops"}`)
		c.serves(t, 11, last)
	})
	t.Run("cancel after the answer", func(t *testing.T) {
		c.serves(t, 12, "F0001")
		c.notification(t, "$/cancelRequest", map[string]any{"id": 12})
		c.serves(t, 13, "F0002")
	})
}

// TestE2ESettings changes what is indexed through initializationOptions
// and workspace/didChangeConfiguration.
func TestE2ESettings(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	params := &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		Capabilities:          capabilities(clientOptions{}),
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: "sampleapp"}},
		InitializationOptions: map[string]any{"anchorage": map[string]any{"excludedDirectories": []string{"worker"}}},
	}
	if err := c.call(t, "initialize", params, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.waitIndexed(t, 0, root)
	client := fileURI(root, "worker/client.py")

	t.Run("initializationOptions", func(t *testing.T) {
		c.noSymbol(t, "fetch_user", "fetch_user", client)
		c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/repo.go"))
	})
	t.Run("didChangeConfiguration", func(t *testing.T) {
		from := c.mark()
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{
			"anchorage": map[string]any{"excludedDirectories": []string{"users"}},
		}})
		c.waitIndexed(t, from, root)
		if got := symbolsIn(c.symbols(t, "fetch_user"), "fetch_user", client); len(got) == 0 {
			t.Errorf("worker/client.py is not indexed again")
		}
		c.noSymbol(t, "FindByID", "FindByID", "")
	})
	t.Run("unwrapped settings and a size cap", func(t *testing.T) {
		from := c.mark()
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{
			"excludedDirectories": []string{}, "maxFileSize": 600,
		}})
		c.waitIndexed(t, from, root)
		// users/repo.go is larger than 600 bytes, users/user.go smaller.
		c.noSymbol(t, "FindByID", "FindByID", fileURI(root, "users/repo.go"))
		c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/user.go"))
		raw, err := c.command(t, "anchorage.index.status")
		if err != nil || !strings.Contains(string(raw), `"files":`) {
			t.Fatalf("index status: %s, %v", raw, err)
		}
	})
	t.Run("bad settings are reported", func(t *testing.T) {
		from := c.mark()
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{"maxFileSize": "big"}})
		c.wait(t, from, eventTimeout, "a warning about the settings", isLog(protocol.MessageTypeWarning, "settings"))
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{"logLevel": "loud"}})
		c.wait(t, from, eventTimeout, "a warning about the log level", isLog(protocol.MessageTypeWarning, "loud"))
		c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/user.go"))
	})
	t.Run("bad settings in the anchorage section are reported", func(t *testing.T) {
		from := c.mark()
		c.notify(t, "workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: map[string]any{
			"anchorage": map[string]any{"maxFileSize": "big"},
		}})
		c.wait(t, from, eventTimeout, "a warning about the settings", isLog(protocol.MessageTypeWarning, "settings"))
	})
	t.Run("bad initializationOptions", func(t *testing.T) {
		c2 := startClient(t)
		err := c2.call(t, "initialize", &protocol.InitializeParams{InitializationOptions: []any{1, 2}}, nil)
		wantCode(t, "initialize with an array for initializationOptions", err, jsonrpc2.InvalidParams)
	})
}

// TestE2EEditorProcessGone starts the server with the process id of a
// process that then dies: the server must exit on its own.
func TestE2EEditorProcessGone(t *testing.T) {
	t.Parallel()
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	c := startClient(t)
	params := &protocol.InitializeParams{ProcessID: int32(editor.Process.Pid), Capabilities: capabilities(clientOptions{})}
	if err := c.call(t, "initialize", params, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.symbols(t, "x") // the server serves while the editor lives
	editor.Process.Kill()
	editor.Wait() // reaped: kill(pid, 0) now fails
	if code := c.waitExit(t); code != 1 {
		t.Errorf("exit code %d after the editor died, want 1", code)
	}
}

// TestE2ERestart ends a session with unsaved edits written to the index
// (shutdown flushes open documents), then starts another on the same data
// directory: the files must be read from disk again, not the editor's
// unsaved text.
func TestE2ERestart(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	dataDir := t.TempDir()
	repo := fileURI(root, "users/repo.go")

	t.Run("first session", func(t *testing.T) {
		c := connect(t, startProcIn(t, dataDir))
		c.start(t, clientOptions{}, root)
		d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
		d.replace(t, "FindByID(ctx context.Context", "UnsavedByID(ctx context.Context")
		c.findSymbol(t, "UnsavedByID", "UnsavedByID", repo)
		if err := c.server.Shutdown(callCtx(t)); err != nil {
			t.Fatal(err)
		}
		if err := c.server.Exit(callCtx(t)); err != nil {
			t.Fatal(err)
		}
		if code := c.waitExit(t); code != 0 {
			t.Fatalf("exit code %d, want 0", code)
		}
	})
	t.Run("second session", func(t *testing.T) {
		c := connect(t, startProcIn(t, dataDir))
		c.start(t, clientOptions{}, root)
		c.noSymbol(t, "UnsavedByID", "UnsavedByID", "")
		c.findSymbol(t, "FindByID", "FindByID", repo)
		// Unchanged files were not parsed again.
		msgs := c.logMessages()
		if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1].Message, "(1 parsed)") {
			t.Logf("log messages: %+v", msgs)
		}
	})
}

// TestE2ENoProgressSupport checks that a client without work done
// progress gets none.
func TestE2ENoProgressSupport(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{noProgress: true}, root)
	for _, f := range c.all() {
		if f.Method == "$/progress" || f.Method == "window/workDoneProgress/create" || f.isCall {
			t.Errorf("client without capabilities received %v", f)
		}
	}
}

// TestE2EProgressCancel cancels the indexing from the editor as soon as it
// begins: it ends (cancelled or done), the server serves, and the next
// refresh completes the index.
func TestE2EProgressCancel(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	addGenerated(t, root, 300, 10)
	c := startClient(t)
	c.initialize(t, clientOptions{}, root)
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	begin := c.wait(t, 0, eventTimeout, "progress begin", func(f frame) bool {
		return f.Method == "$/progress" && strings.Contains(string(f.Params), `"kind":"begin"`)
	})
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Cancellable bool `json:"cancellable"`
		} `json:"value"`
	}
	if err := json.Unmarshal(begin.Params, &p); err != nil {
		t.Fatal(err)
	}
	if !p.Value.Cancellable {
		t.Errorf("indexing progress is not cancellable: %s", begin.Params)
	}
	c.notify(t, "window/workDoneProgress/cancel", map[string]any{"token": p.Token})
	end := c.wait(t, 0, eventTimeout, "progress end", func(f frame) bool {
		return f.Method == "$/progress" && strings.Contains(string(f.Params), `"kind":"end"`) && strings.Contains(string(f.Params), string(p.Token))
	})
	t.Logf("end: %s", end.Params)
	// Cancel an unknown token, then make the server refresh.
	c.notify(t, "window/workDoneProgress/cancel", map[string]any{"token": "no-such-token"})
	c.notify(t, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
		{Type: protocol.FileChangeTypeChanged, URI: uri.URI(fileURI(root, "users/repo.go"))},
	}})
	c.symbolAppears(t, "FindByID", "FindByID", fileURI(root, "users/repo.go"))
	c.symbolAppears(t, "UsersClient", "UsersClient", fileURI(root, "worker/client.py"))
	c.symbolAppears(t, "UserService", "UserService", fileURI(root, "java/src/main/java/com/example/users/UserService.java"))
}

// TestE2EUnusualPaths opens a workspace whose path has a space, a
// non-ASCII letter and a #, and one reached through a symbolic link.
func TestE2EUnusualPaths(t *testing.T) {
	t.Parallel()
	src := sampleApp(t)
	odd := filepath.Join(filepath.Dir(src), "my app ü#1")
	if err := os.Rename(src, odd); err != nil {
		t.Fatal(err)
	}

	t.Run("escaped characters", func(t *testing.T) {
		c := startClient(t)
		c.start(t, clientOptions{}, odd)
		repo := fileURI(odd, "users/repo.go")
		if !strings.Contains(string(repo), "%20") {
			t.Fatalf("test bug: %s is not escaped", repo)
		}
		c.findSymbol(t, "FindByID", "FindByID", repo)
		d := c.open(t, repo, "go", readFile(t, odd, "users/repo.go"))
		d.replace(t, "FindByID(ctx context.Context", "LoadByID(ctx context.Context")
		c.findSymbol(t, "LoadByID", "LoadByID", repo)
		c.outlineSymbol(t, repo, "UserRepository/LoadByID")
		d.close(t)
		c.symbolAppears(t, "FindByID", "FindByID", repo)
	})

	t.Run("symbolic link", func(t *testing.T) {
		link := filepath.Join(filepath.Dir(odd), "link")
		if err := os.Symlink(odd, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
		c := startClient(t)
		c.initialize(t, clientOptions{}, link)
		if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
			t.Fatal(err)
		}
		c.wait(t, 0, eventTimeout, "the indexing", isLog(protocol.MessageTypeInfo, "indexed "))
		repo := fileURI(link, "users/repo.go")
		d := c.open(t, repo, "go", readFile(t, link, "users/repo.go"))
		d.replace(t, "FindByID(ctx context.Context", "LoadByID(ctx context.Context")
		c.findSymbol(t, "LoadByID", "LoadByID", repo)
		if item := c.prepareOne(t, repo, d.pos(t, "ByID(ctx"), "LoadByID"); item.URI != repo {
			t.Errorf("call hierarchy item in %s, want %s", item.URI, repo)
		}
	})
}

// TestE2EPythonEdits edits a Python file: methods nest under their class.
func TestE2EPythonEdits(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	u := fileURI(root, "worker/client.py")
	d := c.open(t, u, "python", readFile(t, root, "worker/client.py"))
	d.insertBefore(t, "    def fetch_user(self, user_id):", "    def delete_user(self, user_id):\n        \"\"\"Deletes 😀 a user.\"\"\"\n        return self._get(\"/users/%s\" % user_id)\n\n")
	s := c.outlineSymbol(t, u, "UsersClient/delete_user")
	if want := d.findIn(t, "def delete_user(", "delete_user"); s.SelectionRange != want || s.Kind != protocol.SymbolKindMethod {
		t.Errorf("delete_user: kind %v, selection %v; want method at %v", s.Kind, s.SelectionRange, want)
	}
	w := c.findSymbol(t, "delete_user", "delete_user", u)
	if w.ContainerName != "UsersClient" {
		t.Errorf("delete_user in %q, want UsersClient", w.ContainerName)
	}
	item := c.prepareOne(t, u, s.SelectionRange.Start, "delete_user")
	out := c.outgoing(t, item)
	if len(out) != 1 || out[0].To.Name != "_get" || !slices.Equal(out[0].FromRanges, []protocol.Range{d.findIn(t, "self._get(\"/users/%s\" % user_id)", "_get")}) {
		t.Errorf("outgoing calls of delete_user: %+v, want _get", out)
	}
	// Dedent it out of the class: a function of the module now.
	r := d.find(t, "    def delete_user(self, user_id):", 0)
	d.change(t, edit(protocol.Range{Start: r.Start, End: pos(r.Start.Line, 4)}, ""))
	all := flatten(c.documentSymbols(t, u), "")
	if _, ok := all["UsersClient/delete_user"]; ok {
		t.Errorf("delete_user still under UsersClient after the dedent: %v", slices.Sorted(maps.Keys(all)))
	}
}

// TestE2EProgressCancelStopsIndexing cancels a long indexing from the
// editor and expects it to stop.
func TestE2EProgressCancelStopsIndexing(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	addGenerated(t, root, 1500, 10)
	c := startClient(t)
	c.initialize(t, clientOptions{}, root)
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	begin := c.wait(t, 0, eventTimeout, "progress begin", func(f frame) bool {
		return f.Method == "$/progress" && strings.Contains(string(f.Params), `"kind":"begin"`)
	})
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(begin.Params, &p); err != nil {
		t.Fatal(err)
	}
	c.notify(t, "window/workDoneProgress/cancel", map[string]any{"token": p.Token})
	end := c.wait(t, 0, eventTimeout, "progress end", func(f frame) bool {
		return f.Method == "$/progress" && strings.Contains(string(f.Params), `"kind":"end"`)
	})
	if !strings.Contains(string(end.Params), "Cancelled") {
		t.Errorf("progress after the editor cancelled it: %s, want it to end Cancelled", end.Params)
	}
}

// TestE2ENestedFolders opens the sample app and its users directory as
// two workspace folders: each file must be answered for once, as the
// editor has it.
func TestE2ENestedFolders(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root, filepath.Join(root, "users"))
	repo := fileURI(root, "users/repo.go")
	c.findSymbol(t, "FindByID", "FindByID", repo)
	d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
	d.replace(t, "FindByID(ctx context.Context", "LoadByID(ctx context.Context")
	c.findSymbol(t, "LoadByID", "LoadByID", repo)
	c.noSymbol(t, "FindByID", "FindByID", repo)
}

// TestE2EFolderAddedTwice adds a workspace folder that is already open.
func TestE2EFolderAddedTwice(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	c.notify(t, "workspace/didChangeWorkspaceFolders", &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added: []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: "again"}},
	}})
	c.findSymbol(t, "GetUser", "GetUser", fileURI(root, "users/service.go"))
}

// TestE2ENonFileFolder sends workspace folders whose URIs are not file:
// URIs.
func TestE2ENonFileFolder(t *testing.T) {
	t.Parallel()
	c := startClient(t)
	err := c.call(t, "initialize", &protocol.InitializeParams{WorkspaceFolders: []protocol.WorkspaceFolder{{URI: "http://example.com/x", Name: "x"}}}, nil)
	wantCode(t, "initialize with an http folder", err, jsonrpc2.InvalidParams)
}

// TestE2ERoutedWorkspaceSymbol sends a question, not a name, to
// workspace/symbol: the router answers it from the graph.
func TestE2ERoutedWorkspaceSymbol(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	c.symbolAppears(t, "what calls UserRepository.FindByID", "GetUser", fileURI(root, "users/service.go"))
	c.symbolAppears(t, "subclasses of Job", "EmailJob", fileURI(root, "worker/jobs.py"))
}

// TestE2EDependencyFolder opens a workspace folder that is a dependency
// directory (a node_modules package) beside a project: the server says
// why it does not index the dependency, indexes the project, and answers
// the dependency's files quietly (an outline of the open text).
func TestE2EDependencyFolder(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	dep := filepath.Join(filepath.Dir(root), "node_modules", "leftpad")
	if err := os.MkdirAll(dep, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "export function leftPad(s, n) {\n  return s.padStart(n);\n}\n"
	if err := os.WriteFile(filepath.Join(dep, "index.js"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startClient(t)
	c.initialize(t, clientOptions{}, root, dep)
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 0, eventTimeout, "why the dependency is not indexed", isLog(protocol.MessageTypeWarning, "not indexing "+dep+": it is a node_modules directory"))
	c.waitIndexed(t, 0, root)
	c.noSymbol(t, "leftPad", "leftPad", "")
	for _, f := range c.all() {
		if isLog(protocol.MessageTypeInfo, "indexed "+dep+":")(f) {
			t.Errorf("the dependency was indexed: %s", f.Params)
		}
	}
	// Its file, opened, is answered from the editor's text.
	u := protocol.DocumentURI(uri.File(filepath.Join(dep, "index.js")))
	c.open(t, u, "javascript", text)
	var res []protocol.DocumentSymbol
	if err := c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &res); err != nil ||
		len(res) != 1 || res[0].Name != "leftPad" {
		t.Errorf("outline of the dependency's file: %+v, %v; want leftPad", res, err)
	}
}
