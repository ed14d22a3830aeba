package feedback

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenStats opens the statistics database beside a user database
// that holds feedback of an earlier version: it is imported once, the
// user database is only read, and a corrupt statistics file is recreated.
func TestOpenStats(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "memory.db")
	old := open(t, legacy)
	id := record(t, old, Entry{Query: "who calls FindByID", Strategy: "structural", Confidence: 0.9, Results: 2})
	if err := old.Used(t.Context(), id, "users/service.go", 12); err != nil {
		t.Fatal(err)
	}
	old.Close()
	before, err := os.ReadFile(legacy)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "feedback.db")
	for _, tc := range []struct {
		name     string
		harm     func(t *testing.T)
		searches int
	}{
		{"new: imported", func(*testing.T) {}, 1},
		{"existing: not imported again", func(*testing.T) {}, 2},
		{"corrupt: recreated and imported", func(t *testing.T) {
			for _, suffix := range []string{"-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 300), 0o600); err != nil {
				t.Fatal(err)
			}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.harm(t)
			s, err := OpenStats(t.Context(), path, legacy)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tc.searches == 2 {
				record(t, s, Entry{Query: "retry jobs", Strategy: "semantic", Confidence: 0.5, Results: 3})
			}
			n := 0
			st, err := s.Stats(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range st {
				n += x.Queries
			}
			if n != tc.searches {
				t.Errorf("%d searches, want %d: %+v", n, tc.searches, st)
			}
		})
	}
	after, err := os.ReadFile(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the user database changed (%d bytes, now %d)", len(before), len(after))
	}
}
