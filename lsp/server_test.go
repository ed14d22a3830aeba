package lsp

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Requests in flight are told apart by id, and $/cancelRequest finds the
// one it names, whether the id is a number or a string.
func TestRequestKeys(t *testing.T) {
	keys := map[string]bool{}
	for _, id := range []jsonrpc2.ID{jsonrpc2.NewNumberID(5), jsonrpc2.NewNumberID(6), jsonrpc2.NewStringID("5"), jsonrpc2.NewStringID("a")} {
		k := requestKey(id)
		if keys[k] {
			t.Errorf("two request ids share the key %s", k)
		}
		keys[k] = true
	}
	tests := []struct {
		params string
		want   jsonrpc2.ID
	}{
		{`{"id": 5}`, jsonrpc2.NewNumberID(5)},
		{`{"id": "5"}`, jsonrpc2.NewStringID("5")},
		{`{"id": "a"}`, jsonrpc2.NewStringID("a")},
	}
	for _, tt := range tests {
		got, ok := cancelKey(json.RawMessage(tt.params))
		if !ok || got != requestKey(tt.want) {
			t.Errorf("cancelKey(%s) = %q, %v; want %q", tt.params, got, ok, requestKey(tt.want))
		}
	}
	for _, bad := range []string{`{}`, `{"id": true}`, `not json`} {
		if _, ok := cancelKey(json.RawMessage(bad)); ok {
			t.Errorf("cancelKey(%s) accepted", bad)
		}
	}
}
