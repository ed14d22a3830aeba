package lsp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// largeMessage is the size from which a notification is read without
// jsonrpc2.DecodeMessage, which copies and scans its whole body twice: a
// document of tens of megabytes would cost as many again in memory and
// time before its handler runs.
const largeMessage = 1 << 20

// largeNotification is a notification whose params are a slice of the
// frame's body, not a copy.
type largeNotification struct {
	*jsonrpc2.Notification // for the interfaces' unexported methods
	method                 string
	params                 json.RawMessage
}

// Method implements jsonrpc2.Request.
func (n *largeNotification) Method() string { return n.method }

// Params implements jsonrpc2.Request.
func (n *largeNotification) Params() json.RawMessage { return n.params }

// MarshalJSON implements json.Marshaler.
func (n *largeNotification) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", n.method, n.params})
}

// decodeLargeNotification reads a notification's envelope in one pass
// that skips over its params without decoding them. It is false for
// anything else (a call, a response, an envelope it does not read
// exactly as jsonrpc2.DecodeMessage would): that is left to DecodeMessage.
func decodeLargeNotification(body []byte) (jsonrpc2.Message, bool) {
	fields, ok := objectFields(body)
	if !ok {
		return nil, false
	}
	var version, method string
	var params json.RawMessage
	for _, f := range fields {
		switch f.key {
		case "jsonrpc":
			if json.Unmarshal(f.value, &version) != nil || version != "2.0" {
				return nil, false
			}
		case "method":
			if json.Unmarshal(f.value, &method) != nil || method == "" {
				return nil, false
			}
		case "params":
			params = f.value
		default:
			return nil, false // an id, or a key DecodeMessage would match another way
		}
	}
	if version == "" || method == "" {
		return nil, false
	}
	if bytes.Equal(params, []byte("null")) {
		params = nil
	}
	return &largeNotification{Notification: &jsonrpc2.Notification{}, method: method, params: params}, true
}

// field is a key of a JSON object and the text of its value.
type field struct {
	key   string
	value []byte
}

// objectFields splits a JSON object into its fields, skipping over the
// values: strings at the speed of a byte search. It is false when b is not
// one object or a key is escaped or repeated.
func objectFields(b []byte) ([]field, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	var out []field
	if i < len(b) && b[i] == '}' {
		return out, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, ok := skipString(b, i)
		if !ok || bytes.IndexByte(b[i+1:end-1], '\\') >= 0 {
			return nil, false
		}
		key := string(b[i+1 : end-1])
		for _, f := range out {
			if f.key == key {
				return nil, false
			}
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		start := skipWS(b, i+1)
		end, ok = skipValue(b, start)
		if !ok {
			return nil, false
		}
		out = append(out, field{key, b[start:end]})
		i = skipWS(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return out, skipWS(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] (a
// quote).
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		i += j
		n := 0 // backslashes before the quote
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i, true
		}
	}
}

// skipValue returns the offset after the JSON value starting at b[i]. It
// checks the nesting of objects and arrays, not the values themselves:
// the handler that decodes them does.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var stack []byte
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				stack = append(stack, c)
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
					return 0, false
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	default:
		start := i
		for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
			i++
		}
		return i, i > start
	}
}

// errNotString is returned for a JSON value that is not a string.
var errNotString = errors.New("not a JSON string")

// appendUnquoted appends the contents of the JSON string s (quotes
// included) to dst, as encoding/json decodes it: escapes resolved, invalid
// UTF-8 and lone surrogates replaced by U+FFFD. Runs without escapes are
// found eight bytes at a time and copied whole.
func appendUnquoted(dst, s []byte) ([]byte, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return dst, errNotString
	}
	s = s[1 : len(s)-1]
	for len(s) > 0 {
		j := plainRun(s)
		dst = append(dst, s[:j]...)
		s = s[j:]
		if len(s) == 0 {
			break
		}
		switch c := s[0]; {
		case c == '\\':
			if len(s) < 2 {
				return dst, fmt.Errorf("%w: truncated escape", errNotString)
			}
			switch s[1] {
			case '"', '\\', '/':
				dst = append(dst, s[1])
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := hex4(s[2:])
				if !ok {
					return dst, fmt.Errorf("%w: bad \\u escape", errNotString)
				}
				s = s[6:]
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
						r2, ok = hex4(s[2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						s = s[6:]
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, fmt.Errorf("%w: bad escape", errNotString)
			}
			s = s[2:]
		case c < 0x20 || c == '"':
			return dst, fmt.Errorf("%w: control character or quote", errNotString)
		default:
			r, size := utf8.DecodeRune(s)
			dst = utf8.AppendRune(dst, r) // U+FFFD for invalid bytes, as encoding/json
			s = s[size:]
		}
	}
	return dst, nil
}

// unquoteInPlace decodes the JSON string s (quotes included) as
// appendUnquoted does, into s's own bytes, and returns the decoded text, a
// slice of s: a document of tens of megabytes is not copied again. A
// string whose decoding could be longer than it (invalid UTF-8 becomes
// U+FFFD) is decoded into a new array instead. s is changed even when an
// error is returned.
func unquoteInPlace(s []byte) ([]byte, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, errNotString
	}
	if !utf8.Valid(s) {
		return appendUnquoted(nil, s)
	}
	// Every escape decodes to fewer bytes than it takes, and every other
	// byte to itself: the decoded text is written behind the reading.
	return appendUnquoted(s[1:1], s)
}

// plainRun returns the length of the run at the start of s that decodes
// to itself: no backslash, quote, control character or byte of a
// multi-byte character.
func plainRun(s []byte) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	j := 0
	for ; j+8 <= len(s); j += 8 {
		x := binary.LittleEndian.Uint64(s[j:])
		// A byte of x is at or over 0x80, under 0x20, '"' or '\\' when
		// the high bit of its lane is set in any of these (the usual
		// "has a zero byte" and "has a byte less than n" tricks, exact
		// once bytes with the high bit set are ruled out by the first).
		q, b := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			break
		}
	}
	for j < len(s) && s[j] != '\\' && s[j] >= 0x20 && s[j] != '"' && s[j] < utf8.RuneSelf {
		j++
	}
	return j
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
