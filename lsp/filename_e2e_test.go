package lsp

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// nonUTF8Name is a file name in Latin-1, as an old archive or a Windows
// share mounted without iconv leaves it: "grüße.go" with ü as the single
// byte 0xFC, which is not valid UTF-8.
const nonUTF8Name = "gr\xfc\xc3\x9fe.go"

// nonUTF8Workspace writes a Go package whose definitions live in a file
// named nonUTF8Name and are called from a file with an ordinary name.
func nonUTF8Workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ws")
	files := map[string]string{
		"pkg/" + nonUTF8Name: "package pkg\n\n// Greet says hello.\nfunc Greet() string { return hi() }\n\nfunc hi() string { return \"hi\" }\n",
		"pkg/caller.go":      "package pkg\n\n// Caller greets.\nfunc Caller() { _ = Greet() }\n",
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses a file name that is not UTF-8: %v", err)
		}
	}
	return root
}

// TestNonUTF8FileName: a file whose name is not valid UTF-8 is indexed
// and parsed; workspace/symbol gives its URI with the raw bytes
// percent-encoded (RFC 3986), which decodes to the name on disk, and
// documentSymbol, hover and the call hierarchy accept that URI, opened in
// the editor or not.
func TestNonUTF8FileName(t *testing.T) {
	root := nonUTF8Workspace(t)
	want := filepath.Join(root, "pkg", nonUTF8Name)

	c := startClient(t)
	c.start(t, clientOptions{}, root)

	syms := c.symbols(t, "Greet")
	var u protocol.DocumentURI
	for _, s := range syms {
		if s.Name == "Greet" {
			u = s.Location.URI
		}
	}
	if u == "" {
		t.Fatalf("workspace/symbol Greet: no Greet in %+v", syms)
	}
	if !strings.HasSuffix(string(u), "/pkg/gr%FC%C3%9Fe.go") {
		t.Errorf("URI %s: want the name's bytes percent-encoded, ending in /pkg/gr%%FC%%C3%%9Fe.go", u)
	}
	parsed, err := url.Parse(string(u))
	if err != nil {
		t.Fatalf("the URI %s does not parse: %v", u, err)
	}
	if parsed.Scheme != "file" || parsed.Path != want {
		t.Fatalf("URI %s decodes to %q, want %q", u, parsed.Path, want)
	}
	if _, err := os.Stat(parsed.Path); err != nil {
		t.Fatalf("the decoded URI names no file: %v", err)
	}

	// documentSymbol from the index (the file is not open), then from the
	// open text, which has one more function.
	names := func(ds []protocol.DocumentSymbol) string {
		var ns []string
		for _, d := range ds {
			ns = append(ns, d.Name)
		}
		return strings.Join(ns, ",")
	}
	if got := names(c.documentSymbols(t, u)); got != "Greet,hi" {
		t.Errorf("documentSymbol of the closed file = %q, want Greet,hi", got)
	}
	text, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	open := string(text) + "\nfunc Later() {}\n"
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: open},
	})
	if got := names(c.documentSymbols(t, u)); got != "Greet,hi,Later" {
		t.Errorf("documentSymbol of the open file = %q, want Greet,hi,Later", got)
	}

	// The call hierarchy crosses from the ordinary file into this one and
	// back with the same URI.
	item := c.prepareOne(t, u, protocol.Position{Line: 3, Character: 6}, "Greet")
	if item.URI != u {
		t.Errorf("prepareCallHierarchy item URI %s, want %s", item.URI, u)
	}
	in := c.incoming(t, item)
	if len(in) != 1 || in[0].From.Name != "Caller" {
		t.Fatalf("incomingCalls of Greet = %+v, want Caller", in)
	}
	out := c.outgoing(t, c.prepareOne(t, in[0].From.URI, protocol.Position{Line: 3, Character: 6}, "Caller"))
	if len(out) != 1 || out[0].To.URI != u {
		t.Fatalf("outgoingCalls of Caller = %+v, want Greet at %s", out, u)
	}
}

// TestMalformedURI: a URI that is not a valid file: URI (a bad percent
// escape) is an invalid-params error naming it, and the server goes on.
func TestMalformedURI(t *testing.T) {
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	var res []protocol.DocumentSymbol
	err := c.call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI("file://" + root + "/a%zz.go")},
	}, &res)
	if err == nil || !strings.Contains(err.Error(), "a%zz.go") {
		t.Fatalf("documentSymbol of a malformed URI: %v, want an error naming it", err)
	}
	if syms := c.symbols(t, "FindByID"); len(syms) == 0 {
		t.Fatal("workspace/symbol after the malformed URI: nothing")
	}
}
