package feedback

import (
	"path/filepath"
	"testing"
)

// BenchmarkRecord records a search in the user database (Open: the User
// profile, synchronous=FULL, as before) and in the statistics database
// (OpenStats: synchronous=OFF, as anchorage search now does).
func BenchmarkRecord(b *testing.B) {
	for _, bc := range []struct {
		name string
		open func(path string) (*Store, error)
	}{
		{"user-db", func(path string) (*Store, error) { return Open(b.Context(), path) }},
		{"stats-db", func(path string) (*Store, error) { return OpenStats(b.Context(), path, "") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := bc.open(filepath.Join(b.TempDir(), "x.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			e := Entry{Query: "who calls FindByID", Strategy: "structural", Confidence: 0.9, Results: 3}
			for b.Loop() {
				if _, err := s.Record(b.Context(), e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
