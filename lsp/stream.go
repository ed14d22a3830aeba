package lsp

import (
	"bufio"
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
	out io.Writer
	c   io.Closer
	log func(format string, args ...any)
	// pending is the start of a header line found while skipping a bad
	// frame.
	pending string

	mu sync.Mutex // serialises writes
}

func newStream(r io.Reader, w io.Writer, c io.Closer, log func(string, ...any)) *stream {
	return &stream{in: bufio.NewReaderSize(r, 64<<10), out: w, c: c, log: log}
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
			if err != nil || n <= 0 || n > maxFrame {
				bad = fmt.Sprintf("Content-Length %q", truncate(strings.TrimSpace(value), 40))
				length = -1
				continue
			}
			length = n
		}
	}
	if length < 0 && bad == "" {
		bad = "no Content-Length header"
	}
	if bad != "" {
		s.log("malformed frame skipped: %s", bad)
		if length > 0 {
			if n, err := s.in.Discard(int(length)); err != nil {
				return nil, total + int64(n), err
			}
			s.writeRaw(parseError(fmt.Errorf("malformed frame: %s", bad)))
			return nil, total, errBadFrame
		}
		s.writeRaw(parseError(fmt.Errorf("malformed frame: %s", bad)))
		n, err := s.resync()
		return nil, total + n, cmpErr(err, errBadFrame)
	}
	body := make([]byte, length)
	n, err := io.ReadFull(s.in, body)
	total += int64(n)
	if err != nil {
		return nil, total, fmt.Errorf("read %d-byte body: %w", length, err)
	}
	return body, total, nil
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
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("encode message: %w", err)
	}
	return s.writeRaw(data)
}

func (s *stream) writeRaw(data []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(data))
	if err != nil {
		return int64(n), err
	}
	m, err := s.out.Write(data)
	return int64(n + m), err
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
