package lsp

import (
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestInjectArgs(t *testing.T) {
	tests := []struct {
		args []any
		want injectArgs
		bad  bool
	}{
		{nil, injectArgs{}, false},
		{[]any{nil}, injectArgs{}, false},
		{[]any{map[string]any{}}, injectArgs{}, false},
		{[]any{map[string]any{"uri": "file:///w/a.go", "query": "errors", "budget": 900.0}}, injectArgs{URI: "file:///w/a.go", Query: "errors", Budget: 900}, false},
		{[]any{map[string]any{"language": "golang"}}, injectArgs{Language: "golang"}, false},
		{[]any{map[string]any{"budget": -5.0}}, injectArgs{}, true},
		{[]any{map[string]any{"budget": 1.5}}, injectArgs{}, true},
		{[]any{map[string]any{"budget": "ten"}}, injectArgs{}, true},
		{[]any{map[string]any{"language": "?!"}}, injectArgs{}, true},
		{[]any{"file:///w/a.go"}, injectArgs{}, true},
	}
	for _, tt := range tests {
		got, err := decodeInjectArgs(tt.args)
		var rpcErr *jsonrpc2.Error
		switch {
		case tt.bad && (err == nil || !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams):
			t.Errorf("decodeInjectArgs(%v) = %+v, %v; want invalid params", tt.args, got, err)
		case !tt.bad && (err != nil || got != tt.want):
			t.Errorf("decodeInjectArgs(%v) = %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
}
