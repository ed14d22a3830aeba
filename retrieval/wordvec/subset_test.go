package wordvec

import (
	"slices"
	"testing"
)

// TestSubset checks that a subset knows the words of its texts that the
// model knows, with the same vectors and ranks, and no other word.
func TestSubset(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	text := "Find the user in the database; retry failed jobs. Qzxvwk"
	s, err := m.Subset(text, "user database")
	if err != nil {
		t.Fatal(err)
	}
	var known []string
	for _, w := range SplitWords(text) {
		if m.Row(w) >= 0 && !slices.Contains(known, w) {
			known = append(known, w)
		}
	}
	if s.Len() != len(known) {
		t.Errorf("subset holds %d words, want %d (%q)", s.Len(), len(known), known)
	}
	for _, w := range known {
		a, _ := m.Vector(w)
		b, ok := s.Vector(w)
		if !ok {
			t.Errorf("subset lacks %q", w)
			continue
		}
		if c := Cosine(a, b); c < 0.999 {
			t.Errorf("%q: cosine %v between the model's vector and the subset's", w, c)
		}
		if got, want := s.Rank(s.Row(w)), m.Rank(m.Row(w)); got != want {
			t.Errorf("%q: rank %d, want %d", w, got, want)
		}
	}
	if s.Row("qzxvwk") >= 0 || s.Row("cat") >= 0 {
		t.Error("subset knows a word of none of its texts")
	}
	for _, n := range s.Neighbors("user", 5) {
		if !slices.Contains(known, n.Word) {
			t.Errorf("neighbour %q of user is not a word of the texts", n.Word)
		}
	}
	if _, err := m.Subset("qzxvwk"); err == nil {
		t.Error("a subset of no known word: no error")
	}
}
