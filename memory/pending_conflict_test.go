package memory

import (
	"fmt"
	"strings"
	"testing"
)

// proposalsByContent proposes and returns the pending proposals by
// content.
func proposalsByContent(t *testing.T, s *Store) map[string]Proposal {
	t.Helper()
	ps, err := s.Propose(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Proposal{}
	for _, p := range ps {
		out[p.Content] = p
	}
	return out
}

func TestMemoryPendingContradictions(t *testing.T) {
	ctx := t.Context()
	const use, never, other = "Use tabs for indentation", "Never use tabs for indentation", "Prefer table driven tests"
	setup := func(t *testing.T) (*Store, Proposal, Proposal, Proposal) {
		s := memTemp(t, WithProject("app"))
		memCorrect(t, s, use, never, other)
		ps := proposalsByContent(t, s)
		if len(ps) != 3 {
			t.Fatalf("%d proposals, want 3: %+v", len(ps), ps)
		}
		return s, ps[use], ps[never], ps[other]
	}

	t.Run("flagged against each other", func(t *testing.T) {
		s, a, b, c := setup(t)
		for _, tt := range []struct{ p, against Proposal }{{a, b}, {b, a}} {
			want := fmt.Sprintf("contradicts pending proposal %d", tt.against.ID)
			if tt.p.ContradictsProposal != tt.against.ID || !strings.Contains(tt.p.Conflict, want) || tt.p.Contradicts != 0 {
				t.Errorf("proposal %q: contradicts proposal %d, conflict %q; want %q", tt.p.Content, tt.p.ContradictsProposal, tt.p.Conflict, want)
			}
		}
		if c.ContradictsProposal != 0 || c.Conflict != "" {
			t.Errorf("unrelated proposal flagged: %+v", c)
		}
		// Proposing again keeps the flags; reading a proposal shows them.
		again := proposalsByContent(t, s)
		if again[use].ContradictsProposal != b.ID || again[use].ID != a.ID {
			t.Errorf("after proposing again: %+v", again[use])
		}
		if got, err := s.Proposal(ctx, b.ID); err != nil || got.ContradictsProposal != a.ID {
			t.Errorf("Proposal(%d) = %+v, %v", b.ID, got, err)
		}
	})

	t.Run("approve all leaves the pair to the user", func(t *testing.T) {
		s, a, b, c := setup(t)
		as, err := s.ApproveAll(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 1 || as[0].Proposal.ID != c.ID {
			t.Fatalf("ApproveAll approved %+v, want only proposal %d", as, c.ID)
		}
		pending, err := s.Proposals(ctx, StatusPending)
		if err != nil || len(pending) != 2 {
			t.Fatalf("pending %+v, %v; want the pair", pending, err)
		}
		for _, p := range pending {
			if p.ID != a.ID && p.ID != b.ID || p.ContradictsProposal == 0 {
				t.Errorf("pending %+v", p)
			}
		}
	})

	t.Run("approving one turns the other's conflict into one with the rule", func(t *testing.T) {
		s, a, b, _ := setup(t)
		ap, err := s.Approve(ctx, a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if ap.Proposal.ContradictsProposal != 0 {
			t.Errorf("approved proposal still names a proposal: %+v", ap.Proposal)
		}
		got, err := s.Proposal(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ContradictsProposal != 0 || got.Contradicts != ap.Rule.ID ||
			!strings.Contains(got.Conflict, fmt.Sprintf("contradicts rule %d", ap.Rule.ID)) || strings.Contains(got.Conflict, "pending proposal") {
			t.Errorf("the other proposal: contradicts rule %d, proposal %d, conflict %q; want rule %d", got.Contradicts, got.ContradictsProposal, got.Conflict, ap.Rule.ID)
		}
	})

	t.Run("rejecting one clears the other", func(t *testing.T) {
		s, a, b, _ := setup(t)
		if err := s.Reject(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		got, err := s.Proposal(ctx, a.ID)
		if err != nil || got.ContradictsProposal != 0 || got.Conflict != "" {
			t.Errorf("after rejecting %d: %+v, %v", b.ID, got, err)
		}
	})
}

func TestMemoryPendingContradictionsScopes(t *testing.T) {
	p := func(id int64, scope, content string) Proposal {
		return Proposal{ID: id, Scope: scope, Content: content, Status: StatusPending}
	}
	tests := []struct {
		name string
		a, b Proposal
		want bool
	}{
		{"same scope", p(1, "universal", "Use tabs for indentation"), p(2, "universal", "Never use tabs for indentation"), true},
		{"universal and a language", p(1, "universal", "Use tabs for indentation"), p(2, "language:go", "Avoid tabs for indentation"), true},
		{"two languages", p(1, "language:go", "Use tabs for indentation"), p(2, "language:python", "Never use tabs for indentation"), false},
		{"two projects", p(1, "project:a", "Use tabs for indentation"), p(2, "project:b", "Never use tabs for indentation"), false},
		{"same polarity", p(1, "universal", "Use tabs for indentation"), p(2, "universal", "Always use tabs for indentation"), false},
		{"unrelated", p(1, "universal", "Use tabs for indentation"), p(2, "universal", "Never panic in library code"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pendingContradictions([]Proposal{tt.a, tt.b})
			if flagged := len(got[1]) == 1 && len(got[2]) == 1; flagged != tt.want {
				t.Errorf("pendingContradictions = %+v, want flagged %v", got, tt.want)
			}
		})
	}
}
