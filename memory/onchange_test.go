package memory

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// changeLog records the calls of a WithOnChange function.
type changeLog struct {
	mu    sync.Mutex
	calls [][]int64
}

func (l *changeLog) record(_ context.Context, ids []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, slices.Clone(ids))
}

// take returns the calls so far and forgets them.
func (l *changeLog) take() [][]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

func TestMemoryOnChange(t *testing.T) {
	ctx := t.Context()
	var log changeLog
	s := memTemp(t, WithProject("app"), WithOnChange(log.record))

	// Each step writes and names the calls it must make; ids are filled
	// in as rules are made.
	var old, contra Rule
	var approved Approval
	steps := []struct {
		name string
		do   func(t *testing.T)
		want func() [][]int64
	}{
		{"record and propose change no rule", func(t *testing.T) {
			memCorrect(t, s, "Never use tabs for indentation")
			if _, err := s.Propose(ctx); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return nil }},
		{"add", func(t *testing.T) {
			var err error
			old, err = s.AddRule(ctx, Rule{Category: CategoryRule, Scope: "project:app", Content: "Use tabs for indentation", Confidence: 0.9})
			if err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return [][]int64{{old.ID}} }},
		{"update", func(t *testing.T) {
			old.Rationale = "gofmt does"
			if _, err := s.UpdateRule(ctx, old); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return [][]int64{{old.ID}} }},
		{"set anchor", func(t *testing.T) {
			if err := s.SetAnchor(ctx, old.ID, RuleAnchor{File: "main.go", Symbol: "main", Score: 0.8}); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return [][]int64{{old.ID}} }},
		{"clear anchor", func(t *testing.T) {
			if err := s.ClearAnchor(ctx, old.ID); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return [][]int64{{old.ID}} }},
		{"approve a contradiction supersedes", func(t *testing.T) {
			ps, err := s.Propose(ctx)
			if err != nil || len(ps) != 1 || ps[0].Contradicts != old.ID {
				t.Fatalf("Propose = %+v, %v; want one proposal contradicting rule %d", ps, err, old.ID)
			}
			if approved, err = s.Approve(ctx, ps[0].ID, ""); err != nil {
				t.Fatal(err)
			}
			contra = approved.Rule
		}, func() [][]int64 { return [][]int64{sortedIDs(contra.ID, old.ID)} }},
		{"delete revives the superseded rule", func(t *testing.T) {
			if err := s.DeleteRule(ctx, contra.ID); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return [][]int64{sortedIDs(contra.ID, old.ID)} }},
		{"approve all merges", func(t *testing.T) {
			memCorrect(t, s, "use tabs for indentation please")
			if _, err := s.Propose(ctx); err != nil {
				t.Fatal(err)
			}
			as, err := s.ApproveAll(ctx, "")
			if err != nil || len(as) != 1 || !as[0].Merged {
				t.Fatalf("ApproveAll = %+v, %v; want one merge", as, err)
			}
		}, func() [][]int64 { return [][]int64{{old.ID}} }},
		{"reject changes no rule", func(t *testing.T) {
			memCorrect(t, s, "prefer table driven tests")
			ps, err := s.Propose(ctx)
			if err != nil || len(ps) != 1 {
				t.Fatalf("Propose = %+v, %v", ps, err)
			}
			if err := s.Reject(ctx, ps[0].ID); err != nil {
				t.Fatal(err)
			}
		}, func() [][]int64 { return nil }},
		{"failed writes change nothing", func(t *testing.T) {
			if err := s.DeleteRule(ctx, 999); err == nil {
				t.Error("deleting an unknown rule succeeded")
			}
			if err := s.SetAnchor(ctx, 999, RuleAnchor{File: "x.go", Score: 0.5}); err == nil {
				t.Error("anchoring an unknown rule succeeded")
			}
			if _, err := s.Approve(ctx, approved.Proposal.ID, ""); err == nil {
				t.Error("approving twice succeeded")
			}
		}, func() [][]int64 { return nil }},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			log.take()
			st.do(t)
			got, want := log.take(), st.want()
			if !slices.EqualFunc(got, want, slices.Equal[[]int64]) {
				t.Errorf("OnChange calls %v, want %v", got, want)
			}
		})
	}
}

// sortedIDs returns ids in ascending order.
func sortedIDs(ids ...int64) []int64 {
	slices.Sort(ids)
	return ids
}

// TestMemoryOnChangeAfterCommit checks that the function sees the write:
// another connection reads the rule it is told about.
func TestMemoryOnChangeAfterCommit(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/memory.db"
	reader := memOpen(t, path)
	var seen []string
	s := memOpen(t, path, WithOnChange(func(ctx context.Context, ids []int64) {
		for _, id := range ids {
			r, err := reader.Rule(ctx, id)
			if err != nil {
				t.Errorf("rule %d is not visible to another connection: %v", id, err)
				continue
			}
			seen = append(seen, r.Content)
		}
	}))
	if _, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: ScopeUniversal, Content: "Wrap errors with context", Confidence: 0.8}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"Wrap errors with context"}) {
		t.Errorf("OnChange saw %q", seen)
	}
}
