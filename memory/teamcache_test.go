package memory

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTeamScopes(t *testing.T) {
	tests := []struct {
		in, want, personal string
		ok                 bool
	}{
		{"team", "team", "universal", true},
		{" TEAM ", "team", "universal", true},
		{"team universal", "team", "universal", true},
		{"team language:golang", "team language:go", "language:go", true},
		{"team   project: App ", "team project:App", "project:App", true},
		{"team team", "", "", false},
		{"team language:", "", "", false},
		{"teams", "", "", false},
		{"team:x", "", "", false},
		{"teamlanguage:go", "", "", false},
	}
	for _, tt := range tests {
		got, err := NormalizeScope(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("NormalizeScope(%q) = %q, %v; want %q (ok %v)", tt.in, got, err, tt.want, tt.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidScope) {
				t.Errorf("NormalizeScope(%q) error %v is not ErrInvalidScope", tt.in, err)
			}
			continue
		}
		if !IsTeamScope(got) || PersonalScope(got) != tt.personal || TeamScope(tt.personal) != got {
			t.Errorf("%q: IsTeamScope %v, PersonalScope %q, TeamScope(%q) %q", got, IsTeamScope(got), PersonalScope(got), tt.personal, TeamScope(tt.personal))
		}
	}
	want := []string{"universal", "language:go", "project:app", "team", "team language:go", "team project:app"}
	if got := TeamScopesFor("golang", "app"); !slices.Equal(got, want) {
		t.Errorf("TeamScopesFor = %v, want %v", got, want)
	}
	if !scopesOverlap("team language:go", "language:go") || scopesOverlap("team language:go", "language:python") {
		t.Error("a team scope overlaps like its personal part")
	}
}

// teamChange is a team rule as the team database would send it.
func teamChange(id string, seq int64, status, scope, content string) TeamRule {
	return TeamRule{ID: id, Seq: seq, Status: status, Category: CategoryRule, Scope: scope, Content: content,
		ExampleFile: "users/repo.go", ExampleSymbol: "UserRepository.FindByID", ProposedBy: "alice",
		CreatedAt: time.UnixMilli(1_700_000_000_000)}
}

func TestTeamCacheApply(t *testing.T) {
	ctx := t.Context()
	var log changeLog
	s := memTemp(t, WithTeam(true), WithOnChange(log.record))
	personal := memTemp(t) // no team: RulesFor leaves team scopes out
	const team = "postgres://db.example/anchorage"
	if _, err := s.UseTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	id := "0b6c2c7e-7d5a-4a44-9a55-2f1d7a0c0001"
	const content = "Wrap database errors with the query that failed"

	// Each step applies changes and says what RulesFor("go", "app")
	// must hold after it, and the last sequence number.
	steps := []struct {
		name     string
		changes  []TeamRule
		wantText []string
		lastSeq  int64
		changed  bool
	}{
		{"proposed is not in force", []TeamRule{teamChange(id, 3, TeamProposed, "team language:go", content)}, nil, 3, false},
		{"approved is", []TeamRule{teamChange(id, 5, TeamApproved, "team language:go", content)}, []string{content}, 5, true},
		{"an older change is skipped", []TeamRule{teamChange(id, 4, TeamProposed, "team language:go", content)}, []string{content}, 5, false},
		{"an edit changes the text", []TeamRule{teamChange(id, 7, TeamApproved, "team language:go", content+" and its arguments")}, []string{content + " and its arguments"}, 7, true},
		{"another language does not apply", []TeamRule{teamChange("x-py", 8, TeamApproved, "team language:python", "Use pathlib")}, []string{content + " and its arguments"}, 8, true},
		{"retired is gone", []TeamRule{teamChange(id, 9, TeamRetired, "team language:go", content)}, nil, 9, true},
	}
	for _, st := range steps {
		log.take()
		applied, err := s.ApplyTeamChanges(ctx, team, st.changes)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if applied.LastSeq != st.lastSeq {
			t.Errorf("%s: last seq %d, want %d", st.name, applied.LastSeq, st.lastSeq)
		}
		if got := len(log.take()) > 0; got != st.changed {
			t.Errorf("%s: change hook called %v, want %v", st.name, got, st.changed)
		}
		rules, err := s.RulesFor(ctx, "go", "app")
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, r := range rules {
			if r.Team == "" {
				t.Errorf("%s: rule %d is not marked as a team rule", st.name, r.ID)
			}
			texts = append(texts, r.Content)
		}
		if !slices.Equal(texts, st.wantText) {
			t.Errorf("%s: rules in force %q, want %q", st.name, texts, st.wantText)
		}
	}
	state, err := s.TeamState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.Team != team || state.LastSeq != 9 || state.Cached != 2 || state.Approved != 1 {
		t.Errorf("state %+v", state)
	}
	if rules, err := personal.RulesFor(ctx, "go", "app"); err != nil || len(rules) != 0 {
		t.Errorf("a store without a team: %v, %v", rules, err)
	}

	// The python rule is a local rule that cannot be changed locally.
	tr, err := s.TeamRule(ctx, "x-py")
	if err != nil || tr.RuleID == 0 {
		t.Fatalf("TeamRule: %+v, %v", tr, err)
	}
	r, err := s.Rule(ctx, tr.RuleID)
	if err != nil {
		t.Fatal(err)
	}
	r.Content = "Use os.path"
	if _, err := s.UpdateRule(ctx, r); !errors.Is(err, ErrTeamRule) {
		t.Errorf("UpdateRule of a team rule: %v, want ErrTeamRule", err)
	}
	if err := s.DeleteRule(ctx, r.ID); !errors.Is(err, ErrTeamRule) {
		t.Errorf("DeleteRule of a team rule: %v, want ErrTeamRule", err)
	}
	if _, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: "team", Content: "x", Confidence: 0.5}); !errors.Is(err, ErrInvalidScope) {
		t.Errorf("AddRule with a team scope: %v, want ErrInvalidScope", err)
	}
	if byLocal, err := s.TeamRule(ctx, "  "+strconv.FormatInt(tr.RuleID, 10)); err != nil || byLocal.ID != "x-py" {
		t.Errorf("TeamRule by local id: %+v, %v", byLocal, err)
	}

	// Another team empties the cache.
	reset, err := s.UseTeam(ctx, "postgres://other/db")
	if err != nil || !reset {
		t.Fatalf("UseTeam of another team: %v, %v", reset, err)
	}
	if state, _ := s.TeamState(ctx); state.Cached != 0 || state.LastSeq != 0 {
		t.Errorf("after a reset: %+v", state)
	}
	if rules, _ := s.Rules(ctx, RuleFilter{}); len(rules) != 0 {
		t.Errorf("after a reset, rules %v", rules)
	}
	if _, err := s.ApplyTeamChanges(ctx, team, nil); err == nil {
		t.Error("changes of a team the cache is not of were applied")
	}
}

func TestTeamOutbox(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	const team = "postgres://db.example/anchorage"
	prop := TeamRule{ID: "p-1", Scope: "language:go", Content: "  Never log passwords  "}
	for range 2 { // the same proposal queued twice is one item
		if _, err := s.EnqueueTeam(ctx, team, TeamOutboxItem{Action: TeamActionPropose, Rule: &prop}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnqueueTeam(ctx, team, TeamOutboxItem{Action: TeamActionApprove, RuleID: "p-0"}); err != nil {
		t.Fatal(err)
	}
	bad := []TeamOutboxItem{
		{Action: "delete", RuleID: "p-1"},
		{Action: TeamActionApprove},
		{Action: TeamActionPropose},
		{Action: TeamActionPropose, Rule: &TeamRule{ID: "p-2", Content: strings.Repeat("x", MaxRuleBytes+1)}},
		{Action: TeamActionPropose, Rule: &TeamRule{ID: "p-3", Content: "x", Scope: "galaxy"}},
	}
	for _, it := range bad {
		if _, err := s.EnqueueTeam(ctx, team, it); err == nil {
			t.Errorf("EnqueueTeam(%+v) queued", it)
		}
	}
	items, err := s.TeamOutbox(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Action != TeamActionPropose || items[0].Rule == nil ||
		items[0].Rule.Content != "Never log passwords" || items[0].Rule.Scope != "team language:go" || items[1].RuleID != "p-0" {
		t.Fatalf("outbox %+v", items)
	}
	if err := s.TeamOutboxFailed(ctx, items[0].ID, "connection refused"); err != nil {
		t.Fatal(err)
	}
	if err := s.TeamOutboxDone(ctx, items[1].ID); err != nil {
		t.Fatal(err)
	}
	items, _ = s.TeamOutbox(ctx, team)
	if len(items) != 1 || items[0].Attempts != 1 || items[0].LastError != "connection refused" {
		t.Errorf("outbox after a failure and a send: %+v", items)
	}
	if other, _ := s.TeamOutbox(ctx, "postgres://other/db"); len(other) != 0 {
		t.Errorf("another team's outbox: %+v", other)
	}
}
