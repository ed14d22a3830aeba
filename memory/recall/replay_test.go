package recall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

type replayFile struct {
	Memories []struct {
		Key, Scope, Text string
	}
	Steps []struct {
		Focus, Query, Want string
	}
}

// replayResult is what a replay measured.
type replayResult struct {
	queries, hits, fallbacks, found int
}

// runReplay plays testdata/replay.json over its memories and n
// generated distractors. A query is a hit when the localized search
// returns the memory the step wants without falling back; found counts
// the queries whose wanted memory is in the results either way.
func runReplay(t testing.TB, distractors int) replayResult {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "replay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rf replayFile
	if err := json.Unmarshal(raw, &rf); err != nil {
		t.Fatal(err)
	}
	ms, _ := synthMemories(loadTopics(t), distractors, 7)
	ids := map[string]string{}
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, m := range rf.Memories {
		id := RuleID(int64(100000 + i))
		ids[m.Key] = id
		ms = append(ms, Memory{ID: id, Kind: KindRule, Title: m.Text, Text: m.Text, Scope: m.Scope,
			Tags: []string{"scope:" + m.Scope, "category:rule"}, Time: at.Add(time.Duration(i) * time.Minute), UpdatedAt: at})
	}
	clock := at.Add(24 * time.Hour)
	s := openStore(t, ms, WithClock(func() time.Time { clock = clock.Add(time.Second); return clock }))
	ctx := context.Background()
	var res replayResult
	for i, st := range rf.Steps {
		if st.Focus != "" {
			if _, err := s.Focus(ctx, st.Focus); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, ok := ids[st.Want]
		if !ok {
			t.Fatalf("step %d wants unknown memory %q", i, st.Want)
		}
		resp, err := s.Search(ctx, Query{Text: st.Query})
		if err != nil {
			t.Fatal(err)
		}
		res.queries++
		got := slices.IndexFunc(resp.Results, func(r Result) bool { return r.ID == want }) >= 0
		if got {
			res.found++
		}
		if resp.Fallback {
			res.fallbacks++
		}
		local := len(resp.Results) > 0 && resp.Results[0].Via == ViaSlot
		if local && got {
			res.hits++
		}
		if testing.Verbose() {
			top := ""
			if len(resp.Results) > 0 {
				top = resp.Results[0].Title
			}
			t.Logf("%-50q slot=%s local=%v fallback=%v found=%v top=%q", st.Query, resp.Slot, local, resp.Fallback, got, top)
		}
	}
	return res
}

// TestReplay checks the local hit rate target (at least 60 %) on the
// topic-switching session replay, over 2,000 generated distractors.
func TestReplay(t *testing.T) {
	res := runReplay(t, 2000)
	rate := float64(res.hits) / float64(res.queries)
	t.Logf("replay: %d queries, %d local hits (%.0f%%), %d fallbacks, wanted memory returned for %d",
		res.queries, res.hits, 100*rate, res.fallbacks, res.found)
	if rate < 0.6 {
		t.Errorf("local hit rate %.2f, want at least 0.60", rate)
	}
}
