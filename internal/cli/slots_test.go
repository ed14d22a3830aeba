package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/state"
)

// TestCLIAnchorsAndMemorySearch runs anchors status|set|pin|unpin|
// bootstrap and memory search [--slot --radius --no-fallback --anchors
// --include-content --json] on a real memory database with rules and a
// memory document.
func TestCLISlotsAndMemorySearch(t *testing.T) {
	data := t.TempDir()
	root := t.TempDir()
	doc := "---\ntitle: Release checklist\ntrigger_phrases: [release checklist]\nimportance_tier: critical\n---\n" +
		"# Release\n<!-- ANCHOR:summary -->\nTag the release after the changelog is updated.\n<!-- /ANCHOR:summary -->\n" +
		"<!-- ANCHOR:steps -->\n" + strings.Repeat("Run the full test suite and the fuzzers before tagging.\n", 20) + "<!-- /ANCHOR:steps -->\n"
	if err := os.MkdirAll(filepath.Join(root, ".anchorage", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".anchorage", "memory", "release.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data-dir", data, "--root", root}
	must := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := run(t, append(append([]string{}, common...), args...)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}

	t.Run("search without a database", func(t *testing.T) {
		// Issue 16: the workspace's memory documents are found without
		// "memory docs" having run first (a data directory of its own,
		// so that the slots below start fresh).
		out, err := run(t, "--data-dir", t.TempDir(), "--root", root, "memory", "search", "release checklist", "--json")
		var got recall.Response
		if err != nil || json.Unmarshal([]byte(out), &got) != nil || len(got.Results) == 0 || got.Results[0].ID != "doc:.anchorage/memory/release.md" {
			t.Errorf("search = %s, %v; want the release checklist document", out, err)
		}
		// Without documents, reading still creates no database.
		empty := t.TempDir()
		if out, err := run(t, "--data-dir", empty, "--root", t.TempDir(), "memory", "search", "release", "--json"); err != nil || !strings.Contains(out, "no memory yet") {
			t.Errorf("search in an empty workspace = %s, %v", out, err)
		}
		if entries, _ := os.ReadDir(empty); len(entries) != 0 {
			t.Errorf("search in an empty workspace created %v", entries)
		}
	})

	dirs, _ := state.Resolve(data)
	ctx := context.Background()
	ms, err := memory.Open(ctx, dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range []string{"Wrap errors with fmt.Errorf and the %w verb", "Compare wrapped errors with errors.Is",
		"Open SQLite databases in WAL mode with a busy timeout"} {
		r, err := ms.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: "universal", Content: c, Confidence: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, recall.RuleID(r.ID))
	}
	ms.Close()

	t.Run("bootstrap", func(t *testing.T) {
		var sum recall.SyncSummary
		if err := json.Unmarshal([]byte(must(t, "slots", "bootstrap", "--json")), &sum); err != nil {
			t.Fatal(err)
		}
		if n := sum.Added + sum.Updated + sum.Unchanged; n != 4 {
			t.Errorf("bootstrap = %+v, want 4 memories (3 rules, 1 document)", sum)
		}
	})

	status := func(t *testing.T, args ...string) recall.Status {
		t.Helper()
		var st recall.Status
		out := must(t, append(append([]string{"slots"}, args...), "--json")...)
		if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Slots) != 3 {
			t.Fatalf("slots %v = %s (%v)", args, out, err)
		}
		return st
	}
	t.Run("slots", func(t *testing.T) {
		if st := status(t, "status"); st.Slots[0].Anchor != nil || st.Slots[0].LastUsed != "" {
			t.Errorf("fresh slot A = %+v", st.Slots[0])
		}
		st := status(t, "set", "A", ids[0])
		if a := st.Slots[0]; a.Anchor == nil || a.Anchor.ID != ids[0] || a.Anchor.Kind != "rule" || a.Anchor.Title == "" || a.Pinned {
			t.Errorf("after set, A = %+v", a)
		}
		st = status(t, "pin", "b", "doc:.anchorage/memory/release.md")
		if b := st.Slots[1]; b.Anchor == nil || b.Anchor.Kind != "document" || !b.Pinned || b.HopBudget != 2 {
			t.Errorf("after pin, B = %+v", b)
		}
		if st = status(t, "unpin", "B"); st.Slots[1].Pinned {
			t.Errorf("after unpin, B = %+v", st.Slots[1])
		}
		if out := must(t, "slots", "status"); !strings.Contains(out, "A: "+ids[0]) {
			t.Errorf("status text:\n%s", out)
		}
		// The former name, kept for one release, runs the same command.
		if out := must(t, "anchors", "status"); !strings.Contains(out, "A: "+ids[0]) {
			t.Errorf("anchors status (the former name) text:\n%s", out)
		}
		for _, bad := range [][]string{{"set", "D", ids[0]}, {"set", "A", "rule:999"}, {"set", "A", "nonsense"}, {"unpin", "Q"}} {
			if out, err := run(t, append(append([]string{}, common...), append([]string{"slots"}, bad...)...)...); err == nil {
				t.Errorf("slots %v succeeded:\n%s", bad, out)
			}
		}
	})

	search := func(t *testing.T, args ...string) recall.Response {
		t.Helper()
		var r recall.Response
		out := must(t, append(append([]string{"memory", "search"}, args...), "--json")...)
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("search %v = %s (%v)", args, out, err)
		}
		return r
	}
	t.Run("search", func(t *testing.T) {
		must(t, "slots", "set", "A", ids[0])
		r := search(t, "compare wrapped errors", "--slot", "A", "--radius", "1")
		if r.Slot != "A" || r.Fallback || len(r.Results) == 0 || r.Results[0].ID != ids[1] || r.Results[0].Via != "slot" {
			t.Errorf("local search = %+v", r)
		}
		r = search(t, "sqlite busy timeout", "--slot", "A", "--radius", "1", "--no-fallback")
		if r.Fallback || len(r.Results) != 0 || len(r.Notices) == 0 {
			t.Errorf("search without fallback = %+v, want nothing and a notice", r)
		}
		r = search(t, "release checklist tagging", "--slot", "C", "--anchors", "summary,nosuch", "--include-content")
		if len(r.Results) == 0 || r.Results[0].Kind != "document" {
			t.Fatalf("document search = %+v", r)
		}
		d := r.Results[0]
		if d.Content != "Tag the release after the changelog is updated." || len(d.MissingAnchors) != 1 || d.MissingAnchors[0] != "nosuch" ||
			d.TokenMetrics == nil || d.TokenMetrics.SavingsPct <= 50 {
			t.Errorf("document result = %+v", d)
		}
		if out := must(t, "memory", "search", "wrap errors", "--slot", "A"); !strings.Contains(out, ids[0]) {
			t.Errorf("text search:\n%s", out)
		}
		if _, err := run(t, append(append([]string{}, common...), "memory", "search", "x", "--radius", "99")...); err == nil {
			t.Errorf("radius 99 accepted")
		}
	})

	t.Run("stats", func(t *testing.T) {
		var st struct {
			Rules int             `json:"rules"`
			Graph *recall.Metrics `json:"graph"`
		}
		if err := json.Unmarshal([]byte(must(t, "memory", "stats", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		if st.Rules != 3 || st.Graph == nil || st.Graph.Searches < 4 || st.Graph.Nodes != 4 || st.Graph.LocalHits < 1 {
			t.Errorf("stats = %+v %+v", st, st.Graph)
		}
		if out := must(t, "memory", "stats"); !strings.Contains(out, "Memory graph: 4 memories") {
			t.Errorf("stats text:\n%s", out)
		}
	})
}
