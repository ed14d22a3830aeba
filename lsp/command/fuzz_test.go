package command

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecode feeds any JSON, or bytes that are not JSON, as a command's
// arguments: decoding never panics, and a failure is an *ArgError naming
// the command.
func FuzzDecode(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"symbol":"Find","depth":2}`, ``},
		{`"Find"`, `"two"`},
		{`[1,2]`, ``},
		{`{"text":"x","range":{"start":{"line":5},"end":{"line":4}},"uri":"file:///a"}`, ``},
		{`3.5`, ``},
		{`{"ids":[1,-2]}`, ``},
		{`null`, `null`},
		{`{`, ``},
	} {
		f.Add(seed[0], seed[1])
	}
	decoders := []struct {
		c   *Command
		run func(*Command, []json.RawMessage) error
	}{
		{Callers.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[SymbolArgs](c, a); return err }},
		{MemoryRecordCorrection.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[CorrectionArgs](c, a); return err }},
		{MemoryApprove.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[IDArgs](c, a); return err }},
		{Search.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[SearchArgs](c, a); return err }},
		{SlotsSet.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[SlotArgs](c, a); return err }},
		{MemoryScopeChoices.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[ScopeChoicesArgs](c, a); return err }},
		{ContextInject.c, func(c *Command, a []json.RawMessage) error { _, err := Decode[InjectArgs](c, a); return err }},
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		args := []json.RawMessage{json.RawMessage(first)}
		if second != "" {
			args = append(args, json.RawMessage(second))
		}
		for _, d := range decoders {
			err := d.run(d.c, args)
			var ae *ArgError
			if err != nil && (!errors.As(err, &ae) || ae.Command != d.c.Name || ae.Error() == "") {
				t.Errorf("%s %q %q: error %v (%T), want an *ArgError naming the command", d.c.Name, first, second, err, err)
			}
		}
	})
}
