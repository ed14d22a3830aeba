package lsp

import (
	"go.lsp.dev/jsonrpc2"
)

// unimplemented answers a request for a method the server does not
// support. Only what works is advertised in initialize; a client that asks
// anyway gets MethodNotFound.
func unimplemented(method string) error {
	return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not supported: %s", method)
}
