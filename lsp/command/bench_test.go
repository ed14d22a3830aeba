package command

import (
	"encoding/json"
	"testing"
)

// BenchmarkDecode measures decoding a command's argument into its
// declared type, as every workspace/executeCommand does.
func BenchmarkDecode(b *testing.B) {
	cases := []struct {
		name string
		c    *Command
		args []json.RawMessage
		run  func(*Command, []json.RawMessage) error
	}{
		{"symbol object", Callers.c, []json.RawMessage{json.RawMessage(`{"symbol":"UserRepository.FindByID","depth":2}`)},
			func(c *Command, a []json.RawMessage) error { _, err := Decode[SymbolArgs](c, a); return err }},
		{"symbol positional", Callers.c, []json.RawMessage{json.RawMessage(`"FindByID"`), json.RawMessage(`2`)},
			func(c *Command, a []json.RawMessage) error { _, err := Decode[SymbolArgs](c, a); return err }},
		{"correction", MemoryRecordCorrection.c, []json.RawMessage{json.RawMessage(`{"text":"Wrap errors with %w","uri":"file:///w/a.go","range":{"start":{"line":3,"character":0},"end":{"line":4,"character":2}}}`)},
			func(c *Command, a []json.RawMessage) error { _, err := Decode[CorrectionArgs](c, a); return err }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.run(tc.c, tc.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
