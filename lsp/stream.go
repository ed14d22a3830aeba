package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame is the largest message body accepted (a whole file's text fits).
const maxFrame = 64 << 20

// stream reads and writes LSP frames (Content-Length headers and a JSON
// body) and, unlike jsonrpc2's own stream, survives bad input: a frame with
// a malformed header is skipped, a body that is not a JSON-RPC message is
// answered with a parse error, and reading goes on with the next frame.
// Only the end of the input ends the stream.
type stream struct {
	in  *bufio.Reader
	src *replayReader // what in reads: bytes given back, then the input
	out io.Writer
	c   io.Closer
	log func(format string, args ...any)
	// pending is the start of a header line found while skipping a bad
	// frame.
	pending string

	mu sync.Mutex // serialises writes
}

func newStream(r io.Reader, w io.Writer, c io.Closer, log func(string, ...any)) *stream {
	src := &replayReader{r: r}
	return &stream{in: bufio.NewReaderSize(src, 64<<10), src: src, out: w, c: c, log: log}
}

// replayReader reads bytes given back to the stream before its input.
type replayReader struct {
	back []byte
	r    io.Reader
}

func (r *replayReader) Read(p []byte) (int, error) {
	if len(r.back) > 0 {
		n := copy(p, r.back)
		r.back = r.back[n:]
		return n, nil
	}
	return r.r.Read(p)
}

// unread gives b back to the stream: the next reads return b first, then
// what was buffered, then the rest of the input.
func (s *stream) unread(b []byte) {
	buffered, _ := s.in.Peek(s.in.Buffered())
	back := make([]byte, 0, len(b)+len(buffered)+len(s.src.back))
	back = append(append(append(back, b...), buffered...), s.src.back...)
	s.src.back = back
	s.in.Reset(s.src)
}

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			if err == errBadFrame {
				continue
			}
			return nil, n, err
		}
		if len(body) >= largeMessage {
			if msg, ok := decodeLargeNotification(body); ok {
				return msg, n, nil
			}
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.log("invalid message (%d bytes): %v", len(body), err)
			s.writeRaw(parseError(err))
			continue
		}
		return msg, n, nil
	}
}

// errBadFrame marks a frame that was skipped.
var errBadFrame = fmt.Errorf("bad frame")

// readFrame reads one frame's headers and body. A frame whose headers are
// malformed is reported and skipped: up to the end of its body when its
// length is known, else up to the next Content-Length header; errBadFrame
// is returned.
func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	bad := ""
	sawHeader := false
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if s.pending != "" {
			line, s.pending = s.pending+line, ""
		}
		if err != nil {
			if err == io.EOF && (sawHeader || line != "") {
				return nil, total, io.ErrUnexpectedEOF
			}
			return nil, total, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = fmt.Sprintf("header line %q", truncate(line, 80))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n <= 0 {
				bad = fmt.Sprintf("Content-Length %q", truncate(strings.TrimSpace(value), 40))
				length = -1
				continue
			}
			if n > maxFrame {
				bad = fmt.Sprintf("Content-Length %d is over the limit of %d bytes", n, maxFrame)
			}
			length = n
		}
	}
	if length < 0 && bad == "" {
		bad = "no Content-Length header"
	}
	if bad != "" {
		s.log("malformed frame skipped: %s", bad)
		if length > maxFrame {
			// Answered at once: the sender may wait for it before it
			// sends more.
			s.writeRaw(parseError(fmt.Errorf("malformed frame: %s", bad)))
			n, err := s.skipBody(length)
			return nil, total + n, cmpErr(err, errBadFrame)
		}
		if length > 0 {
			n, err := s.skipBody(length)
			if err != nil {
				return nil, total + n, err
			}
			s.writeRaw(parseError(fmt.Errorf("malformed frame: %s", bad)))
			return nil, total + n, errBadFrame
		}
		s.writeRaw(parseError(fmt.Errorf("malformed frame: %s", bad)))
		n, err := s.resync()
		return nil, total + n, cmpErr(err, errBadFrame)
	}
	body, err := s.readBody(int(length))
	total += int64(len(body))
	if err != nil {
		return nil, total, fmt.Errorf("read %d-byte body: %w", length, err)
	}
	if h := findHeader(body); h >= 0 {
		// The Content-Length was larger than the message: the next
		// frame's header is inside what was read. What follows it is
		// given back, so that no later message is lost.
		s.unread(body[h:])
		total -= int64(len(body) - h)
		msg := bytes.TrimSpace(body[:h])
		if json.Valid(msg) {
			s.log("Content-Length %d is larger than its message (%d bytes); reading on from the next header", length, h)
			return msg, total, nil
		}
		s.log("malformed frame skipped: Content-Length %d is larger than its %d-byte body, which is cut short", length, h)
		s.writeRaw(parseError(fmt.Errorf("malformed frame: Content-Length %d is larger than its %d-byte body", length, h)))
		return nil, total, errBadFrame
	}
	return body, total, nil
}

// readBody reads a body of length bytes. When the input stops before the
// body is complete (the sender waits for an answer) and what came holds
// the next frame's header, the Content-Length was wrong: it returns what
// was read, for readFrame to resynchronise, rather than waiting forever.
func (s *stream) readBody(length int) ([]byte, error) {
	body := make([]byte, length)
	got, scanned := 0, 0
	for got < length {
		if got > 0 && s.in.Buffered() == 0 && findHeader(body[scanned:got]) >= 0 {
			return body[:got], nil
		}
		scanned = max(0, got-maxHeaderLen)
		n, err := s.in.Read(body[got:])
		got += n
		if err != nil {
			if findHeader(body[scanned:got]) >= 0 {
				return body[:got], nil // the error comes again on the next read
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return body[:got], err
		}
	}
	return body, nil
}

// skipBody discards the length-byte body of a frame that is not read (its
// Content-Length is over the limit). A frame header found in it ends the
// body early: the Content-Length was wrong, and the input resumes there.
func (s *stream) skipBody(length int64) (int64, error) {
	buf := make([]byte, 64<<10)
	var skipped int64
	keep := 0 // bytes of buf kept from the last read, for a header cut in two
	for skipped < length {
		want := int(min(int64(len(buf)-keep), length-skipped))
		n, err := s.in.Read(buf[keep : keep+want])
		if h := findHeader(buf[:keep+n]); h >= 0 {
			s.unread(buf[h : keep+n])
			return skipped + int64(h-keep), nil
		}
		skipped += int64(n)
		if err != nil {
			return skipped, err
		}
		tail := min(keep+n, maxHeaderLen)
		copy(buf, buf[keep+n-tail:keep+n])
		keep = tail
	}
	return skipped, nil
}

// maxHeaderLen bounds the length of a Content-Length header line that
// findHeader recognises.
const maxHeaderLen = 64

// findHeader returns the offset of the first line in b that is a
// Content-Length header ("Content-Length: 123" and a line break, any
// case), or -1. No JSON message holds one: a line break inside a JSON
// string is escaped, so a raw header line is proof that a frame ended
// before it.
func findHeader(b []byte) int {
	for off := 0; ; {
		i := indexFold(b[off:], contentLength)
		if i < 0 {
			return -1
		}
		at := off + i
		off = at + 1
		j := at + len(contentLength)
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		digits := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' && j-digits < 20 {
			j++
		}
		if j == digits {
			continue
		}
		if j < len(b) && b[j] == '\r' {
			j++
		}
		if j < len(b) && b[j] == '\n' {
			return at
		}
	}
}

// indexFold is bytes.Index for a lower-case ASCII pattern that ends in a
// byte other than a letter, ignoring the case of b. That byte is searched
// for (a byte search, at memory speed: a body of tens of megabytes is
// scanned for frame headers as it arrives), then what comes before it.
func indexFold(b []byte, pattern string) int {
	last := pattern[len(pattern)-1]
	n := len(pattern) - 1
	for i := n; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], last)
		if j < 0 {
			return -1
		}
		i += j
		k := 0
		for k < n {
			c := b[i-n+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != pattern[k] {
				break
			}
			k++
		}
		if k == n {
			return i - n
		}
	}
	return -1
}

// contentLength is the header that starts every frame, lower-cased.
const contentLength = "content-length:"

// resync skips input up to the next Content-Length header, whose line the
// next readFrame reads.
func (s *stream) resync() (int64, error) {
	var n int64
	matched := 0
	for {
		b, err := s.in.ReadByte()
		if err != nil {
			return n, err
		}
		n++
		c := b
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == contentLength[matched]:
			matched++
		case c == contentLength[0]:
			matched = 1
		default:
			matched = 0
		}
		if matched == len(contentLength) {
			s.pending = "Content-Length:"
			return n, nil
		}
	}
}

// cmpErr returns err, or ok when err is nil.
func cmpErr(err, ok error) error {
	if err != nil {
		return err
	}
	return ok
}

// Write sends a message.
//
// A successful response's result is already JSON (jsonrpc2 marshals it
// before it takes the connection's write lock): it is copied into the
// frame as it is, not validated and compacted a second time. Every frame
// is made whole before the stream's lock is taken and written in one
// call, so that the time under that lock, which every other reply and
// notification waits for, is one write of the bytes.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if r, ok := msg.(*jsonrpc2.Response); ok && r.Err() == nil {
		frame, err := responseFrame(r.ID(), r.Result())
		if err == nil {
			return s.writeFrame(frame)
		}
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("encode message: %w", err)
	}
	return s.writeRaw(data)
}

// responseFrame frames a successful response, header included, its result
// as it is (JSON already; empty means null).
func responseFrame(id jsonrpc2.ID, result json.RawMessage) ([]byte, error) {
	idJSON, err := json.Marshal(&id) // jsonrpc2.ID marshals through a pointer
	if err != nil {
		return nil, fmt.Errorf("encode response id: %w", err)
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	n := len(head) + len(idJSON) + len(mid) + len(result) + 1
	frame := make([]byte, 0, n+32)
	frame = fmt.Appendf(frame, "Content-Length: %d\r\n\r\n", n)
	frame = append(frame, head...)
	frame = append(frame, idJSON...)
	frame = append(frame, mid...)
	frame = append(frame, result...)
	return append(frame, '}'), nil
}

// writeRaw frames a message's body and writes it.
func (s *stream) writeRaw(body []byte) (int64, error) {
	frame := make([]byte, 0, len(body)+32)
	frame = fmt.Appendf(frame, "Content-Length: %d\r\n\r\n", len(body))
	return s.writeFrame(append(frame, body...))
}

// writeFrame writes a whole frame, header and body, in one call.
func (s *stream) writeFrame(frame []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.out.Write(frame)
	return int64(n), err
}

// Close closes the connection.
func (s *stream) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}

// parseError is the JSON-RPC response to a message that could not be read.
func parseError(err error) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": jsonrpc2.ParseError, "message": err.Error()},
	})
	return b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
