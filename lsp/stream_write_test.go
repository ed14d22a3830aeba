package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestResponseFrame: a successful response written with its result as it
// is, in one frame with its header, reads back as the same JSON as
// jsonrpc2's own encoding.
func TestResponseFrame(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     jsonrpc2.ID
		result any
	}{
		{"number id, object", jsonrpc2.NewNumberID(7), map[string]any{"a": []int{1, 2}, "b": "é\u2028"}},
		{"string id, array", jsonrpc2.NewStringID("x\"y"), []string{"one", "two"}},
		{"null result", jsonrpc2.NewNumberID(0), nil},
		{"raw result", jsonrpc2.NewNumberID(3), json.RawMessage(` { "spaced" : true } `)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := jsonrpc2.NewResponse(tc.id, tc.result, nil)
			if err != nil {
				t.Fatal(err)
			}
			frame, err := responseFrame(resp.ID(), resp.Result())
			if err != nil {
				t.Fatal(err)
			}
			header, got, ok := strings.Cut(string(frame), "\r\n\r\n")
			if want := fmt.Sprintf("Content-Length: %d", len(got)); !ok || header != want {
				t.Fatalf("frame header %q, want %q", header, want)
			}
			want, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Fatalf("the frame %s is not JSON: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("frame %s, jsonrpc2 writes %s", got, want)
			}
		})
	}
}

// TestStreamWritesOneFrameEach writes a successful response, an error
// response and a notification through the stream: each is one frame,
// written in one call, and reads back with its result or error.
func TestStreamWritesOneFrameEach(t *testing.T) {
	var out countingWriter
	st := newStream(strings.NewReader(""), &out, nil, func(string, ...any) {})
	ok, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(1), json.RawMessage(`{"a":1}`), nil)
	bad, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(2), nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad"))
	note, _ := jsonrpc2.NewNotification("window/logMessage", map[string]any{"message": "x"})
	for _, m := range []jsonrpc2.Message{ok, bad, note} {
		if _, err := st.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	if out.writes != 3 {
		t.Errorf("%d writes for 3 messages, want one each", out.writes)
	}
	msgs := written(t, out.Bytes())
	if len(msgs) != 3 {
		t.Fatalf("%d frames read back, want 3", len(msgs))
	}
	if r, _ := msgs[0]["result"].(map[string]any); r["a"] != 1.0 {
		t.Errorf("response %v, want result {\"a\":1}", msgs[0])
	}
	if e, _ := msgs[1]["error"].(map[string]any); e["message"] != "bad" || e["code"] != float64(jsonrpc2.InvalidParams) {
		t.Errorf("error response %v, want InvalidParams \"bad\"", msgs[1])
	}
	if msgs[2]["method"] != "window/logMessage" {
		t.Errorf("notification %v", msgs[2])
	}
}

// countingWriter is a buffer that counts the calls to Write.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}
