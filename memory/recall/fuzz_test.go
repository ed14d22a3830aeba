package recall

import (
	"context"
	"testing"
)

func t0() context.Context { return context.Background() }

// FuzzVecUnmarshal checks that a stored topic vector that is corrupt
// is refused, never a panic, and that what decodes encodes back the same.
func FuzzVecUnmarshal(f *testing.F) {
	e, err := NewEmbedder()
	if err != nil {
		f.Fatal(err)
	}
	for _, text := range []string{"", "wrap errors", "sqlite WAL busy timeout errors.Is"} {
		b, _ := e.Embed(text).MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var v Vec
		if err := v.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := v.MarshalBinary()
		if string(again) != string(b) {
			t.Errorf("decoded %x, encodes back as %x", b, again)
		}
		_ = Similarity(v, v)
		_ = Blend(v, e.Embed("errors"), 0.3)
	})
}

// FuzzIDs checks memory ids and slot names as users type them: no
// panic, and an accepted rule id round-trips.
func FuzzIDs(f *testing.F) {
	for _, s := range []string{"rule:12", "rule:0", "doc:notes/a.md", "A", " b ", "rule:99999999999999999999", "doc:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := ParseRuleID(s); ok {
			if RuleID(n) != s || CheckID(s) != nil {
				t.Errorf("rule id %q parsed as %d", s, n)
			}
		}
		if name, err := ParseSlot(s); err == nil && slotIndex(name) < 0 {
			t.Errorf("slot %q parsed as %q", s, name)
		}
	})
}

// FuzzSearch checks that any query is answered or refused with an error,
// never a panic.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{"wrap errors", "", "\x00", "sqlite WAL", "日本語 のテキスト"} {
		f.Add(s, "A", 2)
	}
	ms, _ := synthMemories(loadTopics(f), 200, 1)
	s := openStore(f, ms)
	if _, err := s.Set(t0(), "A", ms[0].ID); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, slot string, radius int) {
		_, _ = s.Search(t0(), Query{Text: text, Slot: slot, Radius: radius})
		_, _ = s.Focus(t0(), text)
	})
}
