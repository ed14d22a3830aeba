package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/state"
)

func TestRoutingStats(t *testing.T) {
	t.Run("no database yet", func(t *testing.T) {
		data := t.TempDir()
		out, err := run(t, "--data-dir", data, "routing-stats")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "No routing feedback yet") {
			t.Errorf("output %q, want no routing feedback", out)
		}
		out, err = run(t, "--data-dir", data, "routing-stats", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var rs struct {
			Strategies []any `json:"strategies"`
		}
		if err := json.Unmarshal([]byte(out), &rs); err != nil || rs.Strategies == nil || len(rs.Strategies) != 0 {
			t.Errorf("JSON %s (%v): want an empty list of strategies", out, err)
		}
		dirs, _ := state.Resolve(data)
		if _, err := os.Stat(dirs.MemoryPath()); err == nil {
			t.Errorf("routing-stats created %s", dirs.MemoryPath())
		}
	})

	data := t.TempDir()
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := feedback.Open(t.Context(), dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		entry feedback.Entry
		used  []string
	}{
		{feedback.Entry{Query: "how are users loaded", Strategy: "semantic", Confidence: 0.6, Results: 10}, []string{"users/repo.go", "users/service.go"}},
		{feedback.Entry{Query: "auth flow", Strategy: "semantic", Confidence: 0.8, Results: 4}, nil},
		{feedback.Entry{Query: "what calls FindByID", Strategy: "structural", Confidence: 0.9, Results: 1}, []string{"users/service.go"}},
	} {
		id, err := s.Record(t.Context(), e.entry)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range e.used {
			if err := s.Used(t.Context(), id, f, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()

	t.Run("table", func(t *testing.T) {
		out, err := run(t, "--data-dir", data, "routing-stats")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		want := [][]string{
			{"STRATEGY", "QUERIES", "AVG", "CONFIDENCE", "AVG", "RESULTS", "RESULTS", "USED", "UTILISATION"},
			{"semantic", "2", "0.70", "7.0", "2", "50.0%"},
			{"structural", "1", "0.90", "1.0", "1", "100.0%"},
		}
		if len(lines) < len(want) {
			t.Fatalf("output:\n%s", out)
		}
		for i, w := range want {
			if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("line %d = %q, want fields %q", i, lines[i], w)
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		out, err := run(t, "--data-dir", data, "routing-stats", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var rs struct {
			Database   string                   `json:"database"`
			Strategies []feedback.StrategyStats `json:"strategies"`
		}
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		// Recorded in memory.db as versions before did, the statistics
		// are imported into feedback.db.
		if rs.Database != dirs.FeedbackPath() || len(rs.Strategies) != 2 {
			t.Fatalf("JSON %s", out)
		}
		sem := rs.Strategies[0]
		if sem.Strategy != "semantic" || sem.Queries != 2 || sem.Used != 2 || sem.SearchesUsed != 1 || sem.Utilisation != 0.5 {
			t.Errorf("semantic = %+v", sem)
		}
		for _, key := range []string{`"avg_confidence"`, `"avg_results"`, `"utilisation"`, `"searches_used"`} {
			if !strings.Contains(out, key) {
				t.Errorf("JSON has no %s: %s", key, out)
			}
		}
	})

	t.Run("corrupt database", func(t *testing.T) {
		data := t.TempDir()
		dirs, _ := state.Resolve(data)
		if err := os.MkdirAll(dirs.Data, 0o700); err != nil {
			t.Fatal(err)
		}
		notes := []byte(strings.Repeat("not a database\n", 100))
		if err := os.WriteFile(dirs.MemoryPath(), notes, 0o600); err != nil {
			t.Fatal(err)
		}
		// The statistics are kept apart from the rules: a damaged
		// memory.db has none to import, and is only read.
		if _, err := run(t, "--data-dir", data, "routing-stats"); err != nil {
			t.Errorf("routing-stats beside a corrupt memory.db: %v", err)
		}
		// A damaged feedback.db holds statistics only: it is recreated.
		if err := os.WriteFile(dirs.FeedbackPath(), notes, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			os.Remove(dirs.FeedbackPath() + suffix)
		}
		out, err := run(t, "--data-dir", data, "routing-stats")
		if err != nil || !strings.Contains(out, "No routing feedback yet") {
			t.Errorf("routing-stats with a corrupt feedback.db: %v\n%s", err, out)
		}
		if b, _ := os.ReadFile(dirs.MemoryPath()); string(b) != string(notes) {
			t.Error("routing-stats changed a corrupt database")
		}
	})
}
