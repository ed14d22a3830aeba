package memory

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// memPropose records corrections and proposes; it expects one proposal.
func memPropose(t *testing.T, s *Store, texts ...string) Proposal {
	t.Helper()
	memCorrect(t, s, texts...)
	ps, err := s.Propose(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d proposals from %q, want 1: %+v", len(ps), texts, ps)
	}
	return ps[0]
}

func TestMemoryApproveAndReject(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	p := memPropose(t, s, "never use panic in Go", "don't panic")
	a, err := s.Approve(ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Proposal.Status != StatusApproved || a.Proposal.RuleID != a.Rule.ID || a.Proposal.DecidedAt == nil ||
		a.Rule.Scope != "language:go" || a.Rule.Category != CategoryRule || a.Rule.Corrections != 2 ||
		!slices.Equal(a.Rule.Variants, []string{"never use panic in Go", "don't panic"}) {
		t.Errorf("Approve = %+v", a)
	}

	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"approve twice", func() error { _, err := s.Approve(ctx, p.ID, ""); return err }, ErrAlreadyDecided},
		{"reject approved", func() error { return s.Reject(ctx, p.ID) }, ErrAlreadyDecided},
		{"approve unknown", func() error { _, err := s.Approve(ctx, 999, ""); return err }, ErrUnknownProposal},
		{"reject unknown", func() error { return s.Reject(ctx, 999) }, ErrUnknownProposal},
		{"read unknown", func() error { _, err := s.Proposal(ctx, -1); return err }, ErrUnknownProposal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			t.Logf("%v", err)
		})
	}
	if _, err := s.Approve(ctx, p.ID, ""); err == nil || !strings.Contains(err.Error(), "approved as rule") {
		t.Errorf("approving twice: %v, want it to name the rule", err)
	}

	r := memPropose(t, s, "use tabs")
	if err := s.Reject(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Reject(ctx, r.ID); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("rejecting twice: %v", err)
	}
	if _, err := s.Approve(ctx, r.ID, ""); !errors.Is(err, ErrAlreadyDecided) || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("approving a rejected proposal: %v", err)
	}
	if rules, _ := s.Rules(ctx, RuleFilter{}); len(rules) != 1 {
		t.Errorf("%d rules, want only the approved one", len(rules))
	}
	if ps, _ := s.Propose(ctx); len(ps) != 0 {
		t.Errorf("rejected corrections proposed again: %+v", ps)
	}
}

func TestMemoryApproveScopeOverride(t *testing.T) {
	tests := []struct {
		name     string
		project  string
		file     string
		override string
		want     string
		wantErr  error
	}{
		{"as proposed", "app", "", "", "project:app", nil},
		{"universal", "app", "", "universal", "universal", nil},
		{"project kind", "app", "", "project", "project:app", nil},
		{"language kind from the file", "app", "ui/Tabs.tsx", "language", "language:typescript", nil},
		{"full language", "app", "", "language:Rust", "language:rust", nil},
		{"full project", "app", "", "project:other", "project:other", nil},
		{"language unknown", "app", "", "language", "", ErrInvalidScope},
		{"project unknown", "", "", "project", "", ErrInvalidScope},
		{"nonsense", "app", "", "everywhere", "", ErrInvalidScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			var opts []Option
			if tt.project != "" {
				opts = append(opts, WithProject(tt.project))
			}
			s := memTemp(t, opts...)
			if _, err := s.RecordCorrection(ctx, Correction{Text: "Use PortalTabs for all portal pages", File: tt.file}); err != nil {
				t.Fatal(err)
			}
			ps, err := s.Propose(ctx)
			if err != nil || len(ps) != 1 {
				t.Fatalf("Propose = %+v, %v", ps, err)
			}
			a, err := s.Approve(ctx, ps[0].ID, tt.override)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("Approve(%q) = %+v, %v; want %v", tt.override, a, err, tt.wantErr)
				}
				// Nothing changed: the proposal is still pending.
				if p, _ := s.Proposal(ctx, ps[0].ID); p.Status != StatusPending {
					t.Errorf("after a failed approval the proposal is %s", p.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Rule.Scope != tt.want || a.Proposal.Scope != tt.want {
				t.Errorf("approved as %s (proposal %s), want %s", a.Rule.Scope, a.Proposal.Scope, tt.want)
			}
		})
	}
}

func TestMemoryApproveMerges(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t, WithProject("app"))
	first := memPropose(t, s, "Never use panic in production Go code", "don't panic")
	a1, err := s.Approve(ctx, first.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	// The same rule, corrected again in a later session.
	second := memPropose(t, s, "Don't use panic in production Go code")
	if second.DuplicateOf != a1.Rule.ID || !strings.Contains(second.Conflict, "merges") {
		t.Errorf("proposal duplicate_of %d, conflict %q; want rule %d named", second.DuplicateOf, second.Conflict, a1.Rule.ID)
	}
	a2, err := s.Approve(ctx, second.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if !a2.Merged || a2.Rule.ID != a1.Rule.ID || a2.Rule.Corrections != 3 || len(a2.Rule.Variants) != 3 ||
		a2.Rule.Confidence <= a1.Rule.Confidence || a2.Rule.Content != a1.Rule.Content {
		t.Errorf("merge: %+v, before %+v", a2.Rule, a1.Rule)
	}
	if rules, _ := s.Rules(ctx, RuleFilter{IncludeSuperseded: true}); len(rules) != 1 {
		t.Errorf("%d rules after a merge, want 1", len(rules))
	}

	// Approved as universal, a repeat widens the rule's scope.
	third := memPropose(t, s, "never use panic in production code")
	a3, err := s.Approve(ctx, third.ID, "universal")
	if err != nil {
		t.Fatal(err)
	}
	if !a3.Merged || a3.Rule.ID != a1.Rule.ID || a3.Rule.Scope != "universal" {
		t.Errorf("a universal repeat: %+v", a3.Rule)
	}
}

func TestMemoryApproveContradiction(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name       string
		old        string // scope of the existing rule
		override   string // scope of the approval
		superseded bool
	}{
		{"same scope supersedes", "project:app", "", true},
		{"wider scope supersedes", "project:app", "universal", true},
		{"narrower scope keeps both", "universal", "", false},
		{"language and project keep both", "language:go", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memTemp(t, WithProject("app"))
			old, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: tt.old, Content: "Use tabs for indentation", Confidence: 0.9})
			if err != nil {
				t.Fatal(err)
			}
			p := memPropose(t, s, "Never use tabs for indentation")
			if p.Contradicts != old.ID || p.DuplicateOf != 0 || !strings.Contains(p.Conflict, "contradicts rule") {
				t.Errorf("proposal contradicts %d, conflict %q; want rule %d", p.Contradicts, p.Conflict, old.ID)
			}
			t.Logf("conflict: %s", p.Conflict)
			a, err := s.Approve(ctx, p.ID, tt.override)
			if err != nil {
				t.Fatal(err)
			}
			if a.Merged || a.Rule.ID == old.ID {
				t.Errorf("a contradiction merged: %+v", a)
			}
			after, err := s.Rule(ctx, old.ID)
			if err != nil {
				t.Fatal(err)
			}
			active, _ := s.Rules(ctx, RuleFilter{})
			if tt.superseded {
				if after.SupersededBy != a.Rule.ID || !slices.Equal(a.Superseded, []int64{old.ID}) || len(active) != 1 {
					t.Errorf("old rule %+v, approval %+v, %d active; want it superseded", after, a, len(active))
				}
			} else if after.SupersededBy != 0 || !slices.Equal(a.KeptConflicting, []int64{old.ID}) || len(active) != 2 {
				t.Errorf("old rule %+v, approval %+v, %d active; want both kept", after, a, len(active))
			}
		})
	}
}

func TestMemoryApproveAll(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	memCorrect(t, s, "Keep summaries concise", "never use panic in Go", "Use PortalTabs for all portal pages")
	ps, err := s.Propose(ctx)
	if err != nil || len(ps) != 3 {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	// Without a project, "project" cannot be resolved: nothing is
	// approved.
	if _, err := s.ApproveAll(ctx, "project"); !errors.Is(err, ErrInvalidScope) {
		t.Errorf("ApproveAll(project) without a project: %v", err)
	}
	if pending, _ := s.Proposals(ctx, StatusPending); len(pending) != 3 {
		t.Errorf("%d pending after a failed ApproveAll, want 3", len(pending))
	}
	as, err := s.ApproveAll(ctx, "")
	if err != nil || len(as) != 3 {
		t.Fatalf("ApproveAll = %+v, %v", as, err)
	}
	for i, a := range as {
		if a.Proposal.ID != ps[i].ID || a.Rule.Scope != ps[i].Scope {
			t.Errorf("approval %d: %+v, want proposal %d", i, a, ps[i].ID)
		}
	}
	if as, err := s.ApproveAll(ctx, ""); err != nil || len(as) != 0 {
		t.Errorf("ApproveAll with nothing pending = %+v, %v", as, err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rules != 3 || st.Proposals[StatusApproved] != 3 || st.OpenCorrections != 0 || st.RulesByScope["universal"] != 2 {
		t.Errorf("stats %+v", st)
	}
	t.Log(st)
}

func TestMemoryConcurrentProposeAndApprove(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/memory.db"
	a, b := memOpen(t, path), memOpen(t, path)
	memCorrect(t, a, "Keep summaries concise", "never use panic in Go", "Use PortalTabs for all portal pages", "be terse")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() { _, errs[i] = s.Propose(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	pending, err := a.Proposals(ctx, StatusPending)
	if err != nil || len(pending) != 3 {
		t.Fatalf("%d pending after concurrent proposing (%v), want 3", len(pending), err)
	}
	// Racing approvals of one proposal: exactly one wins.
	var wins, decided atomic.Int32
	for i := range 6 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			_, err := s.Approve(ctx, pending[0].ID, "")
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrAlreadyDecided):
				decided.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || decided.Load() != 5 {
		t.Errorf("%d approvals succeeded and %d were refused, want 1 and 5", wins.Load(), decided.Load())
	}
	if rules, _ := a.Rules(ctx, RuleFilter{}); len(rules) != 1 {
		t.Errorf("%d rules, want 1", len(rules))
	}
}
