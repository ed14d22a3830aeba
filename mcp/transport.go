package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessage is the longest message a LineTransport reads when its
// MaxMessage is 0.
const DefaultMaxMessage = 4 << 20

// LineTransport serves MCP over newline-delimited JSON-RPC messages (the
// stdio transport of the MCP specification), and answers malformed
// messages itself: a line that is not JSON gets a parse error (-32700),
// and one that is JSON but not a JSON-RPC 2.0 request, notification or
// response gets an invalid request error (-32600), with the request's id
// when it has a usable one. The session goes on. Batches are refused
// (MCP 2025-06-18 removed them) with an error for each request in them.
// Only the end of the input, a read error or a message longer than
// MaxMessage ends the session.
type LineTransport struct {
	// Reader is where messages come from (standard input).
	Reader io.Reader
	// Writer is where answers go (standard output).
	Writer io.Writer
	// MaxMessage is the longest message read, in bytes, without its line
	// end; 0 means DefaultMaxMessage.
	MaxMessage int
	// Log, if set, receives a line for each malformed message.
	Log *log.Logger
}

// ErrMessageTooLarge ends a session whose client sent a message longer
// than the transport's MaxMessage.
var ErrMessageTooLarge = errors.New("message too large")

// Connect implements sdk.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	limit := t.MaxMessage
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	c := &lineConn{
		w:        t.Writer,
		log:      t.Log,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
		pending:  make(map[jsonrpc.ID]bool),
		answered: make(chan struct{}, 1),
	}
	if cl, ok := t.Reader.(io.Closer); ok {
		c.rc = cl
	}
	// Reads run in their own goroutine so that Close unblocks Read even
	// when the underlying reader (standard input) cannot be interrupted.
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10), limit)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is a LineTransport's connection.
type lineConn struct {
	w   io.Writer
	rc  io.Closer
	log *log.Logger

	incoming chan readResult

	writeMu sync.Mutex

	// pending are the requests read and not answered yet: at the end of
	// the input, the session ends once they are answered.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{} // signalled when pending shrinks

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

func (c *lineConn) readLoop(r *bufio.Reader, limit int) {
	for {
		line, err := readLine(r, limit)
		if errors.Is(err, ErrMessageTooLarge) {
			c.reply(errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("message of more than %d bytes: the session ends", limit)))
			err = fmt.Errorf("read message: %w (the limit is %d bytes)", ErrMessageTooLarge, limit)
		}
		if len(line) > 0 {
			msg, rep := DecodeMessage(line)
			if rep != nil {
				if c.log != nil {
					c.log.Printf("answered a malformed message with %s", clip(rep, 300))
				}
				c.reply(rep)
			} else if msg != nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					c.pendingMu.Lock()
					c.pending[req.ID] = true
					c.pendingMu.Unlock()
				}
				if !c.deliver(readResult{msg: msg}) {
					return
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && !c.drain() {
				return
			}
			c.deliver(readResult{err: err})
			return
		}
	}
}

// drainLimit bounds how long the end of the input waits for answers.
const drainLimit = time.Minute

// drain waits until every request read has been answered (for at most
// drainLimit), so that a client that sends its requests and closes its
// end still gets every answer. It reports false if the connection was
// closed meanwhile.
func (c *lineConn) drain() bool {
	limit := time.NewTimer(drainLimit)
	defer limit.Stop()
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-c.answered:
		case <-limit.C:
			return true
		case <-c.closed:
			return false
		}
	}
}

// deliver hands a read to Read; it reports false once the connection is
// closed.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLine returns the next line without its line end; at the end of
// the input it returns the last line, if any, with io.EOF. A line longer
// than limit is an ErrMessageTooLarge error.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > limit+2 { // room for "\r\n"
			return nil, ErrMessageTooLarge
		}
		if err == bufio.ErrBufferFull {
			line = append(line, part...)
			continue
		}
		if line == nil {
			line = append([]byte(nil), part...)
		} else {
			line = append(line, part...)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > limit {
			return nil, ErrMessageTooLarge
		}
		return line, err
	}
}

// Read implements sdk.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements sdk.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.write(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.pendingMu.Lock()
		delete(c.pending, resp.ID)
		c.pendingMu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// reply writes an answer the transport made itself; a failure shows up
// on the next Write.
func (c *lineConn) reply(data []byte) { c.write(data) }

func (c *lineConn) write(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	data = append(data, '\n')
	if _, err := c.w.Write(data); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

// Close implements sdk.Connection.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		if c.rc != nil {
			c.closeErr = c.rc.Close()
		}
		close(c.closed)
	})
	return c.closeErr
}

// SessionID implements sdk.Connection: a stream has no session id.
func (c *lineConn) SessionID() string { return "" }

// maxSafeID bounds numeric request ids: JSON numbers beyond ±2^53 do not
// survive a round trip through a float64 (as the SDK decodes ids), and an
// answer must carry its request's id exactly.
const maxSafeID = 1 << 53

// DecodeMessage checks one line of input. A well-formed JSON-RPC 2.0
// message is returned as such; anything else yields the error answer to
// send back (a JSON-RPC response object, or an array of them for a
// batch) and no message. A blank line yields neither.
func DecodeMessage(line []byte) (jsonrpc.Message, []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !json.Valid(line) {
		return nil, errorReply(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: "+syntaxError(line))
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, batchReply(line)
	default:
		return nil, errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"invalid request: a JSON-RPC message is an object, not "+kindOf(line[0]))
	}
	var w struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+clipString(err.Error(), 200))
	}
	id, idErr := parseID(w.ID)
	invalid := func(why string) (jsonrpc.Message, []byte) {
		if w.Method == nil {
			// Not a request: an answer with its id would look like the
			// answer to one of the client's own requests.
			id = jsonrpc.ID{}
		}
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
	}
	if string(w.JSONRPC) != `"2.0"` {
		if w.JSONRPC == nil {
			return invalid(`"jsonrpc" is missing: want "2.0"`)
		}
		return invalid(`"jsonrpc" is ` + clipString(string(w.JSONRPC), 40) + `: want "2.0"`)
	}
	if idErr != nil {
		return invalid(idErr.Error())
	}
	if w.Method != nil {
		if w.Method[0] != '"' {
			return invalid(`"method" must be a string`)
		}
		if w.Params != nil && w.Params[0] != '{' && w.Params[0] != '[' && string(w.Params) != "null" {
			return invalid(`"params" must be an object`)
		}
		if w.Result != nil || w.Error != nil {
			return invalid(`a request has no "result" or "error"`)
		}
	} else {
		switch {
		case w.ID == nil:
			return invalid(`neither a request (no "method") nor a response (no "id")`)
		case (w.Result == nil) == (w.Error == nil):
			return invalid(`a response has exactly one of "result" and "error"`)
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return invalid(clipString(err.Error(), 200))
	}
	return msg, nil
}

// parseID checks a request id: absent (a notification), a string, or an
// integer within ±2^53.
func parseID(raw json.RawMessage) (jsonrpc.ID, error) {
	if raw == nil {
		return jsonrpc.ID{}, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, fmt.Errorf(`"id": %v`, err)
		}
		return jsonrpc.MakeID(s)
	case 'n':
		return jsonrpc.ID{}, errors.New(`"id" must be a string or an integer, not null`)
	case '{', '[', 't', 'f':
		return jsonrpc.ID{}, errors.New(`"id" must be a string or an integer, not ` + kindOf(raw[0]))
	}
	bad := fmt.Errorf(`"id" %s is not an integer within ±2^53`, clipString(string(raw), 40))
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		if n > maxSafeID || n < -maxSafeID {
			return jsonrpc.ID{}, bad
		}
		return jsonrpc.MakeID(float64(n))
	}
	// 1e3, 2.0: integers written otherwise; below 2^53, a float64 is exact.
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= maxSafeID {
		return jsonrpc.ID{}, bad
	}
	return jsonrpc.MakeID(f)
}

// batchReply answers a batch: an error for each request in it that has
// a usable id, or a single error when there is none.
func batchReply(line []byte) []byte {
	const why = "invalid request: batches are not supported (MCP 2025-06-18 removed them): send each message on a line of its own"
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		return errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
	}
	var out [][]byte
	for _, e := range elems {
		var w struct {
			ID     json.RawMessage `json:"id"`
			Method json.RawMessage `json:"method"`
		}
		if len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &w) != nil || w.Method == nil || w.ID == nil {
			continue
		}
		id, err := parseID(w.ID)
		if err != nil || !id.IsValid() {
			continue
		}
		out = append(out, errorReply(id, jsonrpc.CodeInvalidRequest, why))
	}
	if len(out) == 0 {
		return errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, why)
	}
	return append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']')
}

// errorReply encodes an error response.
func errorReply(id jsonrpc.ID, code int64, message string) []byte {
	resp := struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: message}}
	data, err := json.Marshal(resp)
	if err != nil { // cannot happen: every field is plain data
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return data
}

// syntaxError describes why line is not JSON, briefly.
func syntaxError(line []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(line))
	err := d.Decode(&v)
	if err == nil {
		// One value and then more: "{} {}".
		return fmt.Sprintf("more than one JSON value on a line (at byte %d)", d.InputOffset())
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", clipString(se.Error(), 120), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of input"
	}
	return clipString(err.Error(), 120)
}

// kindOf names the kind of JSON value that starts with b.
func kindOf(b byte) string {
	switch b {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// clip returns data as text of at most n bytes.
func clip(data []byte, n int) string { return clipString(string(data), n) }

// clipString cuts s to at most n bytes, on a rune boundary, marking the
// cut.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
