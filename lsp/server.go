// Package lsp is Anchorage's language server: it speaks the Language Server
// Protocol over a stream and translates between the protocol and the
// services of the analysis package. Handlers decode, call a service and
// encode; they hold no business logic. One file per method family.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Options configure a server.
type Options struct {
	// DataDir relocates all state (the --data-dir flag); settings sent by
	// the editor may override it.
	DataDir string
	// Logger receives the server's log; the level can change at run time.
	Logger *zap.Logger
	Level  zap.AtomicLevel
	// Version is reported to the editor.
	Version string
	// ProcessPoll is how often the editor's process is checked for life;
	// 0 means every 2 seconds.
	ProcessPoll time.Duration
	// SlotFlushEvery is how long the working-memory slots' moves and
	// counters, which hovers and edits change, wait in memory before
	// they are written to the memory database, off the request path; 0
	// means DefaultSlotFlushEvery, and a negative value means only when
	// the server stops.
	SlotFlushEvery time.Duration
	// TeamURL is the team database's connection string of --team-url or
	// $ANCHORAGE_TEAM_URL; the editor's memory.team.url overrides it,
	// and it overrides the folders' settings files.
	TeamURL string
}

// DefaultSlotFlushEvery is Options.SlotFlushEvery's default.
const DefaultSlotFlushEvery = 30 * time.Second

// serverState is where the server is in the protocol's lifecycle.
type serverState int

const (
	stateNew serverState = iota
	stateInitialized
	stateShutdown
)

// Server is a language server session with one editor.
type Server struct {
	opts   Options
	log    *zap.Logger
	conn   jsonrpc2.Conn
	st     *stream // conn's: replies are written to it directly
	client protocol.Client
	// timing, when set (by benchmarks, before Serve), receives where each
	// request's time went.
	timing func(requestTiming)

	mu       sync.Mutex
	state    serverState
	caps     protocol.ClientCapabilities
	settings Settings
	folders  []*folder
	requests map[string]context.CancelFunc // in-flight requests by JSON id
	// oversized holds the open documents over the size cap whose user
	// was told so.
	oversized map[protocol.DocumentURI]bool
	// progressCancels cancels cancellable work by progress token.
	progressCancels map[string]context.CancelFunc

	// router classifies workspace/symbol queries that are not identifiers.
	router *retrieval.Router
	// vectors are semantic search's vector signal, set up once.
	// fileEmbedding is the embedding server the first folder's settings
	// file names (its zero value for none); the editor's takes precedence.
	fileEmbedding *config.Embedding
	vectorsOnce   sync.Once
	vectors       vectorSignal
	// sess owns the memory database's pool and the stores sharing it,
	// and the routing statistics; made on first use (see session).
	sessMu sync.Mutex
	sess   *session.Session
	// mem is the user's memory of coding rules, opened on first use.
	mem memoryState
	// docs are the open memory documents and the diagnostics published.
	docs memoryDocuments
	// rec is the memory graph and the working-memory slots.
	rec recallState
	// team is what the server knows of the team database.
	team teamState
	// outside are the open documents outside every workspace folder,
	// parsed for their outline only.
	outside outsideDocuments

	reqHandlers  map[string]handlerFunc
	noteHandlers map[string]func(context.Context, json.RawMessage) error

	bg     context.Context // lives until exit; background work uses it
	stopBg context.CancelFunc
	bgWork sync.WaitGroup

	exitOnce sync.Once
	exited   chan struct{}
	exitCode int
}

// New returns a server ready to Serve.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.ProcessPoll <= 0 {
		opts.ProcessPoll = 2 * time.Second
	}
	bg, stop := context.WithCancel(context.Background())
	s := &Server{
		opts: opts, log: opts.Logger, requests: map[string]context.CancelFunc{},
		progressCancels: map[string]context.CancelFunc{},
		router:          retrieval.DefaultRouter(),
		bg:              bg, stopBg: stop, exited: make(chan struct{}), exitCode: 1,
	}
	s.reqHandlers = s.requestHandlers()
	s.noteHandlers = s.notificationHandlers()
	return s
}

// Serve runs the session over in and out until the editor sends exit, the
// input ends, or ctx is cancelled. It returns the process exit code the
// protocol asks for: 0 after shutdown and exit, 1 otherwise. When out is
// a pipe, on Linux, it is grown first (growOutputPipe).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	if n := growOutputPipe(out); n > 0 {
		s.log.Debug("output pipe", zap.Int("capacity", n))
	}
	st := newStream(in, out, nil, func(format string, args ...any) {
		s.log.Warn(fmt.Sprintf(format, args...))
	})
	s.st = st
	s.conn = jsonrpc2.NewConn(st)
	s.client = protocol.ClientDispatcher(s.conn, s.log)
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.conn.Done():
		s.log.Info("connection closed", zap.Error(s.conn.Err()))
	case <-s.exited:
	case <-ctx.Done():
	}
	s.stop()
	return s.exitCode
}

// exit ends the session with the given code.
func (s *Server) exit(code int) {
	s.exitOnce.Do(func() {
		s.exitCode = code
		close(s.exited)
	})
}

// stop cancels background work, waits for it, and writes what open
// documents hold.
func (s *Server) stop() {
	s.stopBg()
	s.bgWork.Wait()
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	for _, f := range folders {
		s.closeFolder(context.Background(), f)
	}
	s.outside.closeAll()
	s.closeRecall()
	s.mem.mu.Lock()
	s.mem.store = nil
	s.mem.mu.Unlock()
	s.closeSession()
	if s.conn != nil {
		s.conn.Close()
	}
}

// handle receives every message in arrival order. Notifications run here,
// one after the other, so edits apply in order; requests run on their own
// goroutines with a context that $/cancelRequest cancels.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	call, isCall := req.(*jsonrpc2.Call)

	switch method {
	case "exit":
		s.mu.Lock()
		code := 1
		if s.state == stateShutdown {
			code = 0
		}
		s.mu.Unlock()
		s.exit(code)
		return nil
	case "$/cancelRequest":
		s.cancelRequest(req.Params())
		return nil
	}

	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case state == stateNew && method != "initialize":
		if isCall {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first"))
		}
		return nil
	case state == stateShutdown:
		if isCall {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down"))
		}
		return nil
	}

	if !isCall {
		if trace.IsEnabled() {
			// A region of the execution trace (anchorage serve --profile)
			// for each message, to tell what a slow one waited for.
			defer trace.StartRegion(ctx, method).End()
		}
		if err := s.notify(ctx, method, req.Params()); err != nil {
			s.warn("%s: %v", method, err)
		}
		return nil
	}

	id := requestKey(call.ID())
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.requests[id] = cancel
	s.mu.Unlock()
	var t *requestTiming
	var parseWait *atomic.Int64
	if s.timing != nil {
		t, parseWait = &requestTiming{Method: method, ID: id, Received: time.Now()}, new(atomic.Int64)
		ctx = analysis.WithParseWait(ctx, parseWait)
	}
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.requests, id)
			s.mu.Unlock()
			cancel()
		}()
		if t != nil {
			t.Started = time.Now()
		}
		if trace.IsEnabled() {
			defer trace.StartRegion(ctx, method).End()
		}
		result, err := s.call(ctx, method, req.Params())
		s.checkDamage(err)
		if ctx.Err() != nil && err != nil {
			err = jsonrpc2.NewError(requestCancelled, "request cancelled")
		}
		if t != nil {
			t.Handled = time.Now()
		}
		if err := s.reply(ctx, reply, call.ID(), result, err); err != nil {
			s.log.Warn("reply failed", zap.String("method", method), zap.Error(err))
		}
		if t != nil {
			t.Replied = time.Now()
			t.ParseWait = time.Duration(parseWait.Load())
			s.timing(*t)
		}
	}()
	return nil
}

// reply answers a request. A result is encoded and framed before the
// output's lock is taken, and written in one call: a large answer (an
// outline) holds up the other replies for the time of its write only. A
// result that is JSON already (json.RawMessage, as the memos hold) is
// written as it is. Errors are jsonrpc2's to encode.
func (s *Server) reply(ctx context.Context, reply jsonrpc2.Replier, id jsonrpc2.ID, result any, err error) error {
	if err != nil || s.st == nil {
		return reply(ctx, result, err)
	}
	raw, ok := result.(json.RawMessage)
	if !ok {
		b, merr := json.Marshal(result)
		if merr != nil {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "encode the result: %v", merr))
		}
		raw = b
	}
	frame, err := responseFrame(id, raw)
	if err != nil {
		return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "encode the response: %v", err))
	}
	if _, err := s.st.writeFrame(frame); err != nil {
		return fmt.Errorf("write the response: %w", err)
	}
	return nil
}

// requestTiming is where one request's time went, from when the server
// read it to when its answer was written: for the benchmarks, which set
// Server.timing.
type requestTiming struct {
	Method, ID string
	// Received is when the request was read (the notifications before it
	// applied); Started when its goroutine ran; Handled when its handler
	// returned; Replied when its answer was written.
	Received, Started, Handled, Replied time.Time
	// ParseWait is the part of the handler's time spent on parses of open
	// documents (waiting for one, or running it).
	ParseWait time.Duration
}

// requestCancelled is the LSP error code of a request cancelled by the
// client.
const requestCancelled jsonrpc2.Code = -32800

// requestKey names a request id in the in-flight table. (jsonrpc2.ID
// marshals only through a pointer: as a value it encodes as {}, the same
// for every request.)
func requestKey(id jsonrpc2.ID) string {
	b, _ := json.Marshal(&id)
	return string(b)
}

// cancelKey reads the id of $/cancelRequest's params as a requestKey. The
// id may be a number or a string (go.lsp.dev/protocol's own handler only
// accepts int32 and string, and JSON numbers arrive as float64).
func cancelKey(params json.RawMessage) (string, bool) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.ID) == 0 {
		return "", false
	}
	var n int32
	if err := json.Unmarshal(p.ID, &n); err == nil {
		return requestKey(jsonrpc2.NewNumberID(n)), true
	}
	var str string
	if err := json.Unmarshal(p.ID, &str); err == nil {
		return requestKey(jsonrpc2.NewStringID(str)), true
	}
	return "", false
}

// cancelRequest cancels an in-flight request.
func (s *Server) cancelRequest(params json.RawMessage) {
	key, ok := cancelKey(params)
	if !ok {
		s.log.Warn("malformed $/cancelRequest", zap.ByteString("params", params))
		return
	}
	s.mu.Lock()
	cancel := s.requests[key]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// call dispatches a request to its handler.
func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", zap.String("method", method), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
		}
	}()
	h, ok := s.reqHandlers[method]
	if !ok {
		return nil, unimplemented(method)
	}
	return h(ctx, params)
}

// notify dispatches a notification to its handler.
func (s *Server) notify(ctx context.Context, method string, params json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", zap.String("method", method), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	h, ok := s.noteHandlers[method]
	if !ok {
		s.log.Debug("notification ignored", zap.String("method", method))
		return nil
	}
	return h(ctx, params)
}

// handlerFunc is a decoded-params-to-result adapter around a handler.
type handlerFunc func(ctx context.Context, params json.RawMessage) (any, error)

// request adapts a typed request handler.
func request[P, R any](fn func(context.Context, *P) (R, error)) handlerFunc {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
			}
		}
		return fn(ctx, &p)
	}
}

// notification adapts a typed notification handler.
func notification[P any](fn func(context.Context, *P) error) func(context.Context, json.RawMessage) error {
	return func(ctx context.Context, raw json.RawMessage) error {
		var p P
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &p); err != nil {
				return fmt.Errorf("invalid params: %w", err)
			}
		}
		return fn(ctx, &p)
	}
}

// requestHandlers maps request methods to handlers.
func (s *Server) requestHandlers() map[string]handlerFunc {
	return map[string]handlerFunc{
		"initialize":                        request(s.initialize),
		"shutdown":                          request(s.shutdown),
		"workspace/symbol":                  request(s.workspaceSymbol),
		"workspace/executeCommand":          request(s.executeCommand),
		"textDocument/documentSymbol":       request(s.documentSymbol),
		"textDocument/foldingRange":         request(s.foldingRange),
		"textDocument/prepareCallHierarchy": request(s.prepareCallHierarchy),
		"callHierarchy/incomingCalls":       request(s.incomingCalls),
		"callHierarchy/outgoingCalls":       request(s.outgoingCalls),
		"textDocument/hover":                request(s.hover),
		"textDocument/codeLens":             request(s.codeLens),
		"codeLens/resolve":                  request(s.codeLensResolve),
		"textDocument/codeAction":           request(s.codeAction),
		"workspace/willRenameFiles":         request(s.willRenameFiles),
	}
}

// notificationHandlers maps notification methods to handlers.
func (s *Server) notificationHandlers() map[string]func(context.Context, json.RawMessage) error {
	return map[string]func(context.Context, json.RawMessage) error{
		"initialized":                         notification(s.initialized),
		"textDocument/didOpen":                s.didOpenNotification,
		"textDocument/didChange":              notification(s.didChangeDocument),
		"textDocument/didClose":               notification(s.didCloseDocument),
		"textDocument/didSave":                notification(s.didSaveDocument),
		"workspace/didChangeWatchedFiles":     notification(s.didChangeWatchedFiles),
		"workspace/didChangeWorkspaceFolders": notification(s.didChangeWorkspaceFolders),
		"workspace/didChangeConfiguration":    notification(s.didChangeConfiguration),
		"window/workDoneProgress/cancel":      notification(s.workDoneProgressCancel),
		"workspace/didRenameFiles":            notification(s.didRenameFiles),
	}
}

// warn logs a warning and shows it in the editor's log.
func (s *Server) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Warn(msg)
	s.logMessage(protocol.MessageTypeWarning, msg)
}

// info logs a notable event and shows it in the editor's log.
func (s *Server) info(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Info(msg)
	s.logMessage(protocol.MessageTypeInfo, msg)
}

func (s *Server) logMessage(typ protocol.MessageType, msg string) {
	if s.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if err := s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: "anchorage: " + msg}); err != nil {
		s.log.Debug("window/logMessage failed", zap.Error(err))
	}
}

// goBackground runs fn until it returns or the session ends.
func (s *Server) goBackground(fn func(ctx context.Context)) {
	s.bgWork.Add(1)
	go func() {
		defer s.bgWork.Done()
		fn(s.bg)
	}()
}

// watchClient ends the session when the editor's process dies, as the
// protocol asks (initialize's processId).
func (s *Server) watchClient(pid int32) {
	if pid <= 0 {
		return
	}
	s.goBackground(func(ctx context.Context) {
		t := time.NewTicker(s.opts.ProcessPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := syscall.Kill(int(pid), 0); errors.Is(err, syscall.ESRCH) {
					s.log.Info("the editor's process is gone; exiting", zap.Int32("pid", pid))
					s.exit(1)
					return
				}
			}
		}
	})
}

// setLevel changes the log level from a setting ("debug", "info", …).
func (s *Server) setLevel(level string) {
	if level == "" {
		return
	}
	var l zapcore.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		s.warn("unknown log level %q", level)
		return
	}
	s.opts.Level.SetLevel(l)
}
