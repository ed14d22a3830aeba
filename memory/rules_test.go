package memory

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestMemoryRuleCRUD(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	r, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: " Language:Golang ", Content: "  Never use panic  ",
		Variants: []string{"don't panic", "Don't panic ", ""}, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == 0 || r.Scope != "language:go" || r.Content != "Never use panic" || r.Priority != DefaultPriority ||
		len(r.Variants) != 1 || r.Anchor != nil || r.CreatedAt.IsZero() {
		t.Errorf("AddRule = %+v", r)
	}
	got, err := s.Rule(ctx, r.ID)
	if err != nil || got.Content != r.Content || got.Scope != r.Scope {
		t.Errorf("Rule(%d) = %+v, %v", r.ID, got, err)
	}
	r.Content, r.Scope, r.Priority = "Never call panic", "project:xcalibr", 1
	if got, err = s.UpdateRule(ctx, r); err != nil || got.Content != "Never call panic" || got.Scope != "project:xcalibr" || got.Priority != 1 {
		t.Errorf("UpdateRule = %+v, %v", got, err)
	}
	if err := s.DeleteRule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Rule":        func() error { _, err := s.Rule(ctx, r.ID); return err }(),
		"UpdateRule":  func() error { _, err := s.UpdateRule(ctx, r); return err }(),
		"DeleteRule":  s.DeleteRule(ctx, r.ID),
		"SetAnchor":   s.SetAnchor(ctx, r.ID, RuleAnchor{File: "a.go", Score: 0.8}),
		"ClearAnchor": s.ClearAnchor(ctx, r.ID),
	} {
		if !errors.Is(err, ErrUnknownRule) {
			t.Errorf("%s of a deleted rule: %v, want ErrUnknownRule", name, err)
		}
	}
}

func TestMemoryAddRuleValidation(t *testing.T) {
	s := memTemp(t)
	tests := []struct {
		name string
		r    Rule
	}{
		{"no category", Rule{Scope: "universal", Content: "x"}},
		{"unknown category", Rule{Category: "style", Scope: "universal", Content: "x"}},
		{"no scope", Rule{Category: CategoryRule, Content: "x"}},
		{"bad scope", Rule{Category: CategoryRule, Scope: "global", Content: "x"}},
		{"language without name", Rule{Category: CategoryRule, Scope: "language:", Content: "x"}},
		{"project without name", Rule{Category: CategoryRule, Scope: "project: ", Content: "x"}},
		{"empty content", Rule{Category: CategoryRule, Scope: "universal", Content: " \n"}},
		{"NaN confidence", Rule{Category: CategoryRule, Scope: "universal", Content: "x", Confidence: math.NaN()}},
		{"confidence over 1", Rule{Category: CategoryRule, Scope: "universal", Content: "x", Confidence: 1.5}},
		{"negative priority", Rule{Category: CategoryRule, Scope: "universal", Content: "x", Priority: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r, err := s.AddRule(t.Context(), tt.r); err == nil {
				t.Errorf("AddRule(%+v) = %+v, want an error", tt.r, r)
			}
		})
	}
	if rules, _ := s.Rules(t.Context(), RuleFilter{}); len(rules) != 0 {
		t.Errorf("%d rules stored from invalid ones", len(rules))
	}
}

func TestMemoryRulesFilterAndAnchors(t *testing.T) {
	ctx := t.Context()
	s := memTemp(t)
	add := func(scope, content string, priority int) Rule {
		r, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: scope, Content: content, Priority: priority, Confidence: 0.8})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	uni := add("universal", "Keep answers concise", 2)
	goRule := add("language:go", "Never use panic", 1)
	py := add("language:python", "Use type hints", 3)
	proj := add("project:xcalibr", "Use PortalTabs", 3)
	other := add("project:other", "Use Redux", 3)

	meta := json.RawMessage(`{"line":12,"relevance":0.9}`)
	if err := s.SetAnchor(ctx, goRule.ID, RuleAnchor{File: "users/repo.go", Symbol: "UserRepository.FindByID", Score: 0.82, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAnchor(ctx, proj.ID, RuleAnchor{File: "ui/tabs.tsx", Score: 0.75}); err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]RuleAnchor{
		"no file":      {Score: 0.5},
		"score over 1": {File: "a.go", Score: 1.2},
		"NaN score":    {File: "a.go", Score: math.NaN()},
		"bad metadata": {File: "a.go", Score: 0.5, Metadata: json.RawMessage(`{"x":`)},
	} {
		if err := s.SetAnchor(ctx, uni.ID, a); err == nil {
			t.Errorf("SetAnchor with %s succeeded", name)
		}
	}

	ids := func(rs []Rule) []int64 {
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name string
		f    RuleFilter
		want []int64
	}{
		{"all, by priority", RuleFilter{}, []int64{goRule.ID, uni.ID, py.ID, proj.ID, other.ID}},
		{"one scope", RuleFilter{Scopes: []string{"language:go"}}, []int64{goRule.ID}},
		{"scope alias", RuleFilter{Scopes: []string{"language:golang"}}, []int64{goRule.ID}},
		{"kind language", RuleFilter{Scopes: []string{"language"}}, []int64{goRule.ID, py.ID}},
		{"kind project", RuleFilter{Scopes: []string{"project"}}, []int64{proj.ID, other.ID}},
		{"anchored", RuleFilter{Anchored: true}, []int64{goRule.ID, proj.ID}},
		{"anchor file", RuleFilter{AnchorFile: "ui/tabs.tsx"}, []int64{proj.ID}},
		{"applicable", RuleFilter{Scopes: ScopesFor("go", "xcalibr")}, []int64{goRule.ID, uni.ID, proj.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.Rules(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rs); !equalIDs(got, tt.want) {
				t.Errorf("Rules(%+v) = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
	if _, err := s.Rules(ctx, RuleFilter{Scopes: []string{"global"}}); !errors.Is(err, ErrInvalidScope) {
		t.Errorf("Rules with a bad scope: %v", err)
	}

	rs, err := s.RulesFor(ctx, "golang", "xcalibr")
	if err != nil || !equalIDs(ids(rs), []int64{goRule.ID, uni.ID, proj.ID}) {
		t.Errorf("RulesFor(golang, xcalibr) = %v, %v", ids(rs), err)
	}
	r, err := s.Rule(ctx, goRule.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Anchor; a == nil || a.File != "users/repo.go" || a.Symbol != "UserRepository.FindByID" || a.Score != 0.82 || string(a.Metadata) != string(meta) {
		t.Errorf("anchor = %+v", r.Anchor)
	}
	if err := s.ClearAnchor(ctx, goRule.ID); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Rule(ctx, goRule.ID); r.Anchor != nil {
		t.Errorf("anchor after ClearAnchor = %+v", r.Anchor)
	}
	if r, _ := s.Rule(ctx, proj.ID); r.Anchor == nil || r.Anchor.Symbol != "" || r.Anchor.Metadata != nil {
		t.Errorf("file anchor = %+v", r.Anchor)
	}
}

// equalIDs compares two lists of ids.
func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMemoryScopes(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"universal", "universal", true},
		{" Universal ", "universal", true},
		{"language:Go", "language:go", true},
		{"language: golang", "language:go", true},
		{"language:TSX", "language:typescript", true},
		{"language:kotlin", "language:kotlin", true},
		{"language:c++", "language:c++", true},
		{"language:", "", false},
		{"language:9lives", "", false},
		{"project:xcalibr", "project:xcalibr", true},
		{"project:  My App ", "project:My App", true},
		{"project:", "", false},
		{"project", "", false},
		{"universal:x", "", false},
		{"global", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := NormalizeScope(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("NormalizeScope(%q) = %q, %v; want %q (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidScope) {
			t.Errorf("NormalizeScope(%q) error %v is not ErrInvalidScope", tt.in, err)
		}
	}
	for path, want := range map[string]string{"a/b.go": "go", "x.TSX": "typescript", "x.pyi": "python", "Makefile": "", "x.md": ""} {
		if got := LanguageOfFile(path); got != want {
			t.Errorf("LanguageOfFile(%q) = %q, want %q", path, got, want)
		}
	}
	if got := ProjectName("/home/me/src/xcalibr/"); got != "xcalibr" {
		t.Errorf("ProjectName = %q", got)
	}
	if got := ScopesFor("", ""); len(got) != 1 || got[0] != ScopeUniversal {
		t.Errorf("ScopesFor(\"\", \"\") = %v", got)
	}
}
