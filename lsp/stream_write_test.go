package lsp

import (
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
