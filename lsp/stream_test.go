package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Frames used by the stream tests.
const (
	callBody   = `{"jsonrpc":"2.0","id":1,"method":"workspace/symbol","params":{"query":"x"}}`
	noteBody   = `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	replyBody  = `{"jsonrpc":"2.0","id":7,"result":null}`
	call2Body  = `{"jsonrpc":"2.0","id":"two","method":"shutdown"}`
	unicodeMsg = `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"😀 é\r\n"}}`
)

func framed(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// testStream is a stream over fixed input, with what it writes and logs.
type testStream struct {
	*stream
	out  bytes.Buffer
	logs []string
}

func newTestStream(input string) *testStream {
	ts := &testStream{}
	ts.stream = newStream(bytes.NewReader([]byte(input)), &ts.out, nil, func(format string, args ...any) {
		ts.logs = append(ts.logs, fmt.Sprintf(format, args...))
	})
	return ts
}

// readAll reads messages until an error, at most limit of them.
func (ts *testStream) readAll(t *testing.T, limit int) ([]jsonrpc2.Message, error) {
	t.Helper()
	var msgs []jsonrpc2.Message
	for i := 0; i < limit; i++ {
		msg, _, err := ts.Read(context.Background())
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, msg)
	}
	t.Fatalf("more than %d messages read", limit)
	return nil, nil
}

// describeMsg names a message: "call workspace/symbol 1", "notify
// initialized", "response 7".
func describeMsg(m jsonrpc2.Message) string {
	switch m := m.(type) {
	case *jsonrpc2.Call:
		id := m.ID()
		b, _ := json.Marshal(&id)
		return "call " + m.Method() + " " + string(b)
	case *jsonrpc2.Notification:
		return "notify " + m.Method()
	case *jsonrpc2.Response:
		id := m.ID()
		b, _ := json.Marshal(&id)
		return "response " + string(b)
	}
	return fmt.Sprintf("%T", m)
}

// written parses the frames the stream wrote.
func written(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return msgs
		}
		if err != nil || !strings.HasPrefix(line, "Content-Length: ") || !strings.HasSuffix(line, "\r\n") {
			t.Fatalf("written frame header %q: %v", line, err)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
		if err != nil {
			t.Fatalf("written Content-Length %q", line)
		}
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("written frame: %q after the header, want a blank line", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("written frame body: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("written frame body %q: %v", body, err)
		}
		msgs = append(msgs, m)
	}
}

// isParseError reports whether a written message is a parse error response.
func isParseError(m map[string]any) bool {
	e, ok := m["error"].(map[string]any)
	id, hasID := m["id"]
	return ok && m["jsonrpc"] == "2.0" && hasID && id == nil && e["code"] == float64(jsonrpc2.ParseError) && e["message"] != ""
}

func TestStreamRead(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		want   []string // the messages read, described
		errors int      // parse error responses written
		err    error    // what ends the reading (errors.Is)
	}{
		{"one call", framed(callBody), []string{"call workspace/symbol 1"}, 0, io.EOF},
		{"back to back", framed(callBody) + framed(noteBody) + framed(replyBody) + framed(call2Body),
			[]string{"call workspace/symbol 1", "notify initialized", "response 7", `call shutdown "two"`}, 0, io.EOF},
		{"empty input", "", nil, 0, io.EOF},
		{"multi-byte body", framed(unicodeMsg), []string{"notify textDocument/didOpen"}, 0, io.EOF},
		{"lower-case header", fmt.Sprintf("content-length: %d\r\n\r\n%s", len(callBody), callBody), []string{"call workspace/symbol 1"}, 0, io.EOF},
		{"upper-case header", fmt.Sprintf("CONTENT-LENGTH: %d\r\n\r\n%s", len(callBody), callBody), []string{"call workspace/symbol 1"}, 0, io.EOF},
		{"spaces around the value", fmt.Sprintf("Content-Length:    %d   \r\n\r\n%s", len(callBody), callBody), []string{"call workspace/symbol 1"}, 0, io.EOF},
		{"LF line endings", fmt.Sprintf("Content-Length: %d\n\n%s", len(callBody), callBody), []string{"call workspace/symbol 1"}, 0, io.EOF},
		{"Content-Type before", fmt.Sprintf("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(callBody), callBody),
			[]string{"call workspace/symbol 1"}, 0, io.EOF},
		{"Content-Type after and an unknown header", fmt.Sprintf("Content-Length: %d\r\nContent-Type: application/json\r\nX-Trace: a:b:c\r\n\r\n%s", len(noteBody), noteBody),
			[]string{"notify initialized"}, 0, io.EOF},
		{"stray blank lines between frames", "\r\n" + framed(callBody) + "\r\n\n\r\n" + framed(noteBody), []string{"call workspace/symbol 1", "notify initialized"}, 0, io.EOF},
		{"invalid JSON body, then a frame", framed(`{"jsonrpc":"2.0","id":1,"method":`) + framed(noteBody), []string{"notify initialized"}, 1, io.EOF},
		{"binary body, then a frame", framed("\x00\xff\xfe\xfd") + framed(noteBody), []string{"notify initialized"}, 1, io.EOF},
		{"JSON that is no message, then a frame", framed(`{}`) + framed(`[]`) + framed(`42`) + framed(noteBody), []string{"notify initialized"}, 3, io.EOF},
		{"response without id", framed(`{"jsonrpc":"2.0","result":1}`) + framed(noteBody), []string{"notify initialized"}, 1, io.EOF},
		{"missing Content-Length", "Content-Type: application/json\r\n\r\n" + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"non-numeric Content-Length", "Content-Length: ten\r\n\r\n" + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"negative Content-Length", "Content-Length: -4\r\n\r\n" + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"zero Content-Length", "Content-Length: 0\r\n\r\n" + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"huge Content-Length", "Content-Length: 99999999999999999999999\r\n\r\n" + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"Content-Length above the limit", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxFrame+1) + framed(callBody), []string{"call workspace/symbol 1"}, 1, io.EOF},
		{"header without a colon, known length", "Oops\r\n" + framed(callBody) + framed(noteBody), []string{"notify initialized"}, 1, io.EOF},
		{"truncated body", "Content-Length: 100\r\n\r\n{\"jsonrpc\":", nil, 0, io.ErrUnexpectedEOF},
		{"truncated body after a frame", framed(callBody) + "Content-Length: 100\r\n\r\n{", []string{"call workspace/symbol 1"}, 0, io.ErrUnexpectedEOF},
		{"truncated headers", "Content-Length: 10\r\n", nil, 0, io.ErrUnexpectedEOF},
		{"truncated header line", "Content-Len", nil, 0, io.ErrUnexpectedEOF},
		{"bad frame length known, truncated", "Oops\r\nContent-Length: 50\r\n\r\n{}", nil, 0, io.EOF},
		{"Content-Length larger than its message, then two frames", "Content-Length: 500\r\n\r\n" + callBody + framed(noteBody) + framed(call2Body),
			[]string{"call workspace/symbol 1", "notify initialized", `call shutdown "two"`}, 0, io.EOF},
		{"Content-Length larger than a body cut short, then two frames", "Content-Length: 500\r\n\r\n" + callBody[:30] + framed(noteBody) + framed(call2Body),
			[]string{"notify initialized", `call shutdown "two"`}, 1, io.EOF},
		{"Content-Length larger than its message, LF headers after", "Content-Length: 90\r\n\r\n" + noteBody + fmt.Sprintf("content-length:%d\n\n%s", len(callBody), callBody),
			[]string{"notify initialized", "call workspace/symbol 1"}, 0, io.EOF},
		{"a header inside a JSON string is text", framed(`{"jsonrpc":"2.0","method":"x","params":{"text":"Content-Length: 5\r\n\r\n{}"}}`) + framed(noteBody),
			[]string{"notify x", "notify initialized"}, 0, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestStream(tt.input)
			msgs, err := ts.readAll(t, 20)
			var got []string
			for _, m := range msgs {
				got = append(got, describeMsg(m))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("read %q, want %q", got, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("reading ended with %v, want %v", err, tt.err)
			}
			out := written(t, ts.out.Bytes())
			if len(out) != tt.errors {
				t.Errorf("wrote %d messages %v, want %d parse errors", len(out), out, tt.errors)
			}
			for _, m := range out {
				if !isParseError(m) {
					t.Errorf("wrote %v, want a parse error response with id null", m)
				}
			}
			if tt.errors > 0 && len(ts.logs) < tt.errors {
				t.Errorf("logged %q, want each bad frame reported", ts.logs)
			}
		})
	}
}

// TestStreamBadLengthWithBody sends a frame whose Content-Length cannot
// be used but which has a body: the frames after it must still be read.
func TestStreamBadLengthWithBody(t *testing.T) {
	for _, bad := range []string{"Content-Length: abc", "Content-Length: -4", "Content-Length: 99999999999", "Content-Type: x"} {
		t.Run(bad, func(t *testing.T) {
			ts := newTestStream(bad + "\r\n\r\n" + callBody + framed(noteBody) + framed(call2Body))
			msgs, err := ts.readAll(t, 20)
			var got []string
			for _, m := range msgs {
				got = append(got, describeMsg(m))
			}
			if want := []string{"notify initialized", `call shutdown "two"`}; strings.Join(got, "; ") != strings.Join(want, "; ") || !errors.Is(err, io.EOF) {
				t.Errorf("read %q, ended with %v; want %q then EOF", got, err, want)
			}
		})
	}
}

// TestStreamOversizedFrame sends a frame over the size limit whose body
// holds "Content-Length:" (a file's text that mentions the header): it is
// skipped whole, with one parse error, and the request after it is read.
func TestStreamOversizedFrame(t *testing.T) {
	text := strings.Repeat("Content-Length: 12\\r\\n\\r\\n{} x", maxFrame/30+1)
	big := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"` + text + `"}}}`
	if len(big) <= maxFrame {
		t.Fatalf("the test frame has %d bytes, want more than %d", len(big), maxFrame)
	}
	ts := newTestStream(framed(big) + framed(callBody) + framed(noteBody))
	msgs, err := ts.readAll(t, 20)
	var got []string
	for _, m := range msgs {
		got = append(got, describeMsg(m))
	}
	if want := []string{"call workspace/symbol 1", "notify initialized"}; strings.Join(got, "; ") != strings.Join(want, "; ") || !errors.Is(err, io.EOF) {
		t.Errorf("read %q, ended with %v; want %q then EOF", got, err, want)
	}
	if out := written(t, ts.out.Bytes()); len(out) != 1 || !isParseError(out[0]) {
		t.Errorf("wrote %v, want one parse error", out)
	}
}

// TestStreamLengthLargerThanSent sends, over a pipe, a frame whose
// Content-Length is larger than its message, then a request, and waits
// for the answer as an editor would: the stream must not wait for bytes
// that never come, and reads both messages.
func TestStreamLengthLargerThanSent(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	s := newStream(r, io.Discard, nil, func(string, ...any) {})
	go func() {
		io.WriteString(w, "Content-Length: 4000\r\n\r\n"+noteBody+framed(callBody))
	}()
	read := make(chan string)
	go func() {
		defer close(read)
		for {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				return
			}
			read <- describeMsg(msg)
		}
	}()
	for _, want := range []string{"notify initialized", "call workspace/symbol 1"} {
		if got := <-read; got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
}

func TestStreamReadCounts(t *testing.T) {
	input := framed(callBody) + "\r\n" + framed(noteBody)
	ts := newTestStream(input)
	var total int64
	for i := 0; i < 2; i++ {
		_, n, err := ts.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if first := int64(len(framed(callBody))); total < first || total > int64(len(input)) {
		t.Errorf("read %d bytes in all for %d bytes of input", total, len(input))
	}
}

func TestStreamReadCancelled(t *testing.T) {
	ts := newTestStream(framed(callBody))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ts.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestStreamWriteRoundTrip(t *testing.T) {
	var out bytes.Buffer
	w := newStream(strings.NewReader(""), &out, nil, func(string, ...any) {})
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(3), "workspace/symbol", map[string]string{"query": "😀"})
	if err != nil {
		t.Fatal(err)
	}
	note, err := jsonrpc2.NewNotification("$/progress", map[string]any{"token": "t", "value": map[string]any{"kind": "end"}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := jsonrpc2.NewResponse(jsonrpc2.NewStringID("s"), nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "no"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []jsonrpc2.Message{call, note, resp} {
		n, err := w.Write(context.Background(), m)
		if err != nil || n <= 0 {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if int64(out.Len()) == 0 {
		t.Fatal("nothing written")
	}
	r := newTestStream(out.String())
	msgs, err := r.readAll(t, 10)
	if !errors.Is(err, io.EOF) {
		t.Errorf("reading back ended with %v", err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, describeMsg(m))
	}
	if want := []string{"call workspace/symbol 3", "notify $/progress", `response "s"`}; strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("read back %q, want %q", got, want)
	}
	if c, ok := msgs[0].(*jsonrpc2.Call); !ok || !strings.Contains(string(c.Params()), "😀") {
		t.Errorf("params not kept: %v", msgs[0])
	}
}

// TestStreamConcurrentWrites checks that frames written at once never
// interleave.
func TestStreamConcurrentWrites(t *testing.T) {
	var out bytes.Buffer
	w := newStream(strings.NewReader(""), &out, nil, func(string, ...any) {})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			note, _ := jsonrpc2.NewNotification("window/logMessage", map[string]any{"message": strings.Repeat("x", 1000*i)})
			w.Write(context.Background(), note)
			w.writeRaw(parseError(errors.New("bad")))
		}()
	}
	wg.Wait()
	if got := written(t, out.Bytes()); len(got) != 40 {
		t.Errorf("%d frames read back, want 40", len(got))
	}
}

type countingCloser struct{ closed int }

func (c *countingCloser) Close() error { c.closed++; return nil }

func TestStreamClose(t *testing.T) {
	if err := newStream(strings.NewReader(""), io.Discard, nil, nil).Close(); err != nil {
		t.Errorf("Close without a closer: %v", err)
	}
	c := &countingCloser{}
	if err := newStream(strings.NewReader(""), io.Discard, c, nil).Close(); err != nil || c.closed != 1 {
		t.Errorf("Close: %v, closed %d times", err, c.closed)
	}
}

// FuzzStream reads arbitrary input: reading never panics, ends (each
// message consumes input), returns only messages, and writes only
// well-formed parse error responses.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		framed(callBody),
		framed(callBody) + framed(noteBody) + framed(replyBody),
		"content-length: 2\n\n{}",
		"Content-Length: abc\r\n\r\n" + callBody,
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 0\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Type: x\r\n\r\n" + framed(noteBody),
		"Oops\r\n" + framed(callBody),
		"Content-Length: 100\r\n\r\n{",
		"\r\n\r\n\n\n",
		framed(`{"jsonrpc":"2.0","id":null,"method":"x"}`),
		framed(`{"jsonrpc":"2.0","id":{"a":1},"result":1}`),
		framed(`{"jsonrpc":"2.0","id":1.5,"method":"x","params":[1]}`),
		framed("\x00\xff"),
		"Content-Length: 5\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Length: 500\r\n\r\n" + callBody + framed(noteBody) + framed(call2Body),
		"Content-Length: 500\r\n\r\n" + callBody[:30] + framed(noteBody),
		fmt.Sprintf("Content-Length: %d\r\n\r\n{\"text\":\"Content-Length: 2\\r\\n\"}", maxFrame+1) + framed(callBody),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		s := newStream(bytes.NewReader(input), &out, nil, func(string, ...any) {})
		// Every message or skipped frame consumes at least a byte.
		for i := 0; ; i++ {
			if i > len(input)+1 {
				t.Fatalf("more than %d reads from %d bytes of input", i, len(input))
			}
			msg, _, err := s.Read(context.Background())
			if err != nil {
				if errors.Is(err, errBadFrame) {
					t.Fatalf("Read returned the internal errBadFrame")
				}
				break
			}
			if msg == nil {
				t.Fatal("Read returned no message and no error")
			}
			switch msg.(type) {
			case *jsonrpc2.Call, *jsonrpc2.Notification, *jsonrpc2.Response:
			default:
				t.Fatalf("Read returned a %T", msg)
			}
			// What was read can be written again.
			var again bytes.Buffer
			if _, err := newStream(strings.NewReader(""), &again, nil, nil).Write(context.Background(), msg); err != nil {
				t.Fatalf("writing back %v: %v", describeMsg(msg), err)
			}
		}
		for _, m := range written(t, out.Bytes()) {
			if !isParseError(m) {
				t.Fatalf("wrote %v, want a parse error response", m)
			}
		}
	})
}

// FuzzIndexFold checks the search for a frame header, in any case,
// against bytes.Index over the input with its ASCII letters lower-cased.
func FuzzIndexFold(f *testing.F) {
	for _, s := range []string{"Content-Length: 12\r\n", "xx content-length:", "CONTENT-LENGTH", "content-length;content-LENGTH:", ":::", "", "cContent-Length:", "é Content-Length:"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lower := make([]byte, len(b))
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		want := bytes.Index(lower, []byte(contentLength))
		if got := indexFold(b, contentLength); got != want {
			t.Fatalf("indexFold(%q) = %d, want %d", b, got, want)
		}
	})
}
