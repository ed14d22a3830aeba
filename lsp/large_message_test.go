package lsp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Strings whose decoding the fast path must share with encoding/json.
var unquoteSeeds = []string{
	`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u4e16"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", `"é😀"`,
	`"\u00"`, `"\x"`, `"0123456789abcdef\"0123456789é012345\u0041"`, "\"01234567\x1f012345\"", `"tab` + "\t" + `"`, `"unterminated`, `x`, `"\\"`, `"a\`,
}

// FuzzAppendUnquoted checks the decoding of JSON strings against
// encoding/json: the same text for every string it accepts, an error
// for every string it refuses.
func FuzzAppendUnquoted(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// appendUnquoted reads a value's exact span: no white space
		// around it.
		in = bytes.Trim(in, " \t\r\n")
		var want string
		wantErr := json.Unmarshal(in, &want)
		isString := len(in) > 0 && in[0] == '"'
		got, err := appendUnquoted(nil, in)
		switch {
		case wantErr == nil && isString && err != nil:
			t.Fatalf("appendUnquoted(%q): %v; encoding/json reads %q", in, err, want)
		case wantErr == nil && isString && string(got) != want:
			t.Fatalf("appendUnquoted(%q) = %q, encoding/json reads %q", in, got, want)
		case wantErr != nil && err == nil && isString:
			t.Fatalf("appendUnquoted(%q) = %q, encoding/json refuses it: %v", in, got, wantErr)
		}
		// Decoded in place, the same text and the same verdict.
		inPlace, err2 := unquoteInPlace(bytes.Clone(in))
		if (err == nil) != (err2 == nil) || err == nil && string(inPlace) != string(got) {
			t.Fatalf("unquoteInPlace(%q) = %q, %v; appendUnquoted: %q, %v", in, inPlace, err2, got, err)
		}
	})
}

// FuzzLargeNotification checks the one-pass envelope reader against
// jsonrpc2.DecodeMessage: whatever it reads, DecodeMessage reads as the
// same notification, with the same params.
func FuzzLargeNotification(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"a\"}b"}}}`,
		`{"method":"x","jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"x","params":null}`,
		`{"jsonrpc":"2.0","method":"x","params":[1,{"a":"]"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","method":"x","params":{}} `,
		`{"jsonrpc":"2.0","method":"x","method":"y"}`,
		`{"jsonrpc":"2.0","Method":"x"}`,
		`{"jsonrpc":"1.0","method":"x"}`,
		`{"jsonrpc":"2.0","method":"\u0078"}`,
		`{"jsonrpc":"2.0","method":"x","params":{"a":[}}`,
		`{"jsonrpc":"2.0","method":"x"}{}`,
		`[]`, `{}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, ok := decodeLargeNotification(body)
		if !ok {
			return
		}
		n := msg.(*largeNotification)
		want, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			// The envelope reader does not check the params' own syntax:
			// their handler's decoding does. It must still be one value.
			if json.Valid(n.params) || len(n.params) == 0 {
				t.Fatalf("read %q as notification %s, DecodeMessage refuses it: %v", body, n.method, err)
			}
			return
		}
		wn, isNote := want.(*jsonrpc2.Notification)
		if !isNote || wn.Method() != n.method || !bytes.Equal(bytes.TrimSpace(wn.Params()), n.params) && !(len(n.params) == 0 && (len(wn.Params()) == 0 || string(wn.Params()) == "null")) {
			t.Fatalf("read %q as %s %s, DecodeMessage as %T %v", body, n.method, n.params, want, want)
		}
		// What was read can be written again.
		if _, err := json.Marshal(n); err != nil {
			t.Fatalf("marshal %s: %v", n.method, err)
		}
	})
}

// TestDecodeLargeDidOpen decodes a large didOpen's params, the text in
// the params' own bytes, as encoding/json decodes them.
func TestDecodeLargeDidOpen(t *testing.T) {
	text := strings.Repeat("línea \"quoted\" \\ \t tab\r\n😀 \x01", largeMessage/30+1)
	raw, err := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": "file:///w/a.js", "languageId": "javascript", "version": 7, "text": text}})
	if err != nil {
		t.Fatal(err)
	}
	p, quoted, ok := decodeLargeDidOpen(raw)
	if !ok {
		t.Fatal("decodeLargeDidOpen refused valid params")
	}
	got, err := unquoteInPlace(quoted)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &quoted[1] {
		t.Error("the text was copied, not decoded in place")
	}
	if string(got) != text || p.TextDocument.URI != "file:///w/a.js" || p.TextDocument.LanguageID != "javascript" || p.TextDocument.Version != 7 {
		t.Errorf("decoded %s %s %d and %d bytes of text (equal: %v)", p.TextDocument.URI, p.TextDocument.LanguageID, p.TextDocument.Version, len(got), string(got) == text)
	}
	for _, bad := range []string{`{"textDocument":{"uri":1,"text":""}}`, `{"textDocument":{"text":1}}`, `{"textDocument":[]}`, `{"other":1}`} {
		if _, _, ok := decodeLargeDidOpen(json.RawMessage(bad)); ok {
			t.Errorf("decodeLargeDidOpen(%s) accepted it", bad)
		}
	}
	// A text that is not a valid JSON string is refused when it is
	// decoded.
	if _, quoted, ok := decodeLargeDidOpen(json.RawMessage(`{"textDocument":{"text":"\q"}}`)); !ok {
		t.Error("decodeLargeDidOpen refused params whose text is only decoded later")
	} else if text, err := unquoteInPlace(quoted); err == nil {
		t.Errorf("unquoteInPlace(%s) = %q, want an error", quoted, text)
	}
}
