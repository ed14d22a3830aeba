package mcp

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// malformed are the lines of issue 21 that ended a session, and more of
// their kind; they seed FuzzDecodeMessage.
var malformed = []string{
	`{not json}`, `[]`, `null`, `42`, `"str"`, `true`, `{"foo":1}`, `"jsonrpc":"1.0"`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":"x","method":"ping"}]`,
	`[1,{"jsonrpc":"2.0","method":"n"}]`, "\xff\xfe", strings.Repeat("[", 100000),
	strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","method":"ping","params":"x"}`, `{} {}`,
}

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		line string
		code int64  // 0: a message
		id   string // of the error answer
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":4,"result":{}}`, 0, ""},
		{`  {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r", 0, ""},
		{`{not json}`, -32700, "null"},
		{"\xff\xfe", -32700, "null"},
		{strings.Repeat("[", 100000), -32700, "null"},
		{`"jsonrpc":"1.0"`, -32700, "null"},
		{`[]`, -32600, "null"},
		{`null`, -32600, "null"},
		{`42`, -32600, "null"},
		{`{"foo":1}`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, "1"},
		{`{"JSONRPC":"2.0","id":1,"method":"ping"}`, -32600, "1"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":"s","method":"x","params":"p"}`, -32600, `"s"`},
		{`{"jsonrpc":"2.0","id":"s","method":"x","result":1}`, -32600, `"s"`},
		{`{"jsonrpc":"2.0","id":4}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":"x"}}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}}`, -32600, "1"},
	}
	for _, tt := range tests {
		msg, rep := DecodeMessage([]byte(tt.line))
		name := clipString(tt.line, 60)
		if tt.code == 0 {
			if msg == nil || rep != nil {
				t.Errorf("%s: got %v, answer %s; want a message", name, msg, rep)
			}
			continue
		}
		if msg != nil {
			t.Errorf("%s: passed on as %#v", name, msg)
			continue
		}
		var a struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   jsonrpc.Error   `json:"error"`
		}
		if err := json.Unmarshal(rep, &a); err != nil {
			t.Errorf("%s: answer %s: %v", name, rep, err)
			continue
		}
		if a.JSONRPC != "2.0" || a.Error.Code != tt.code || string(a.ID) != tt.id || a.Error.Message == "" {
			t.Errorf("%s: answer %s, want code %d id %s", name, rep, tt.code, tt.id)
		}
	}
	if msg, rep := DecodeMessage([]byte("  \r")); msg != nil || rep != nil {
		t.Errorf("a blank line: %v %s", msg, rep)
	}
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("ab\r\n"+strings.Repeat("x", 40)+"\n"+strings.Repeat("y", 41)+"\nlast"), 16)
	for _, want := range []string{"ab", strings.Repeat("x", 40)} {
		got, err := readLine(r, 40)
		if err != nil || string(got) != want {
			t.Fatalf("readLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readLine(r, 40); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("a line of 41 bytes: %v, want ErrMessageTooLarge", err)
	}
	r = bufio.NewReader(strings.NewReader("last"))
	if got, err := readLine(r, 40); string(got) != "last" || err != io.EOF {
		t.Fatalf("the last line: %q, %v", got, err)
	}
}

// FuzzDecodeMessage checks that any line is either passed on as a
// message or answered with a JSON-RPC error, never both, never a panic.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range malformed {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, rep := DecodeMessage(line)
		if msg != nil && rep != nil {
			t.Fatalf("both a message and an answer for %q", line)
		}
		if rep != nil {
			if !json.Valid(rep) {
				t.Fatalf("answer %q is not JSON", rep)
			}
			var answers []struct {
				JSONRPC string        `json:"jsonrpc"`
				Error   jsonrpc.Error `json:"error"`
			}
			if rep[0] != '[' {
				rep = append(append([]byte{'['}, rep...), ']')
			}
			if err := json.Unmarshal(rep, &answers); err != nil || len(answers) == 0 {
				t.Fatalf("answer %s: %v", rep, err)
			}
			for _, a := range answers {
				if a.JSONRPC != "2.0" || (a.Error.Code != -32700 && a.Error.Code != -32600) {
					t.Fatalf("answer %s for %q", rep, line)
				}
			}
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			// What is passed on encodes again.
			if _, err := jsonrpc.EncodeMessage(req); err != nil {
				t.Fatalf("request %q does not encode: %v", line, err)
			}
		}
	})
}
