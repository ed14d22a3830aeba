package memory

import (
	"slices"
	"testing"
)

// memCorrections makes corrections with ids 1, 2, … from texts.
func memCorrections(texts ...string) []Correction {
	cs := make([]Correction, len(texts))
	for i, t := range texts {
		cs[i] = Correction{ID: int64(i + 1), Text: t}
	}
	return cs
}

func TestMemoryClusterCorrections(t *testing.T) {
	// The reference's three scenarios, interleaved, plus noise.
	cs := memCorrections(
		"Keep summaries concise",
		"Never use panic in production Go code",
		"Use PortalTabs for all portal pages",
		"keep it short",
		"don't panic",
		"add tabs",
		"be terse",
		"avoid panic()",
		"use portal tabs",
		"no",                     // nothing to make a rule of
		"always panic on errors", // opposite polarity: not with the panic cluster
	)
	clusters := clusterCorrections(cs)
	type summary struct {
		canonical string
		ids       []int64
	}
	var got []summary
	for _, c := range clusters {
		got = append(got, summary{c.canonicalText(), c.correctionIDs()})
	}
	want := []summary{
		// Three corrections each; the most cohesive cluster first.
		{"Keep summaries concise", []int64{1, 4, 7}},
		{"Never use panic in production Go code", []int64{2, 5, 8}},
		{"Use PortalTabs for all portal pages", []int64{3, 6, 9}},
		{"Always panic on errors", []int64{11}},
	}
	if len(got) != len(want) {
		t.Fatalf("clusters %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].canonical != want[i].canonical || !slices.Equal(got[i].ids, want[i].ids) {
			t.Errorf("cluster %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, c := range clusters[:3] {
		if c.frequency() != 3 || c.confidence < 0.85 || c.confidence > 0.99 || c.cohesion < 0.5 {
			t.Errorf("cluster %q: frequency %d, confidence %.2f, cohesion %.2f", c.canonicalText(), c.frequency(), c.confidence, c.cohesion)
		}
	}
	if single := clusters[3]; single.confidence >= clusters[0].confidence {
		t.Errorf("a single correction (%.2f) is as confident as three (%.2f)", single.confidence, clusters[0].confidence)
	}
}

func TestMemoryClusterOrder(t *testing.T) {
	// Frequency × confidence: the correction made three times first,
	// then twice, then the directive made once before the remark made
	// once.
	cs := memCorrections(
		"the function returns nil here", // not a directive
		"use tabs", "Use tabs!",
		"Use the repository pattern",
		"never use global variables", "avoid global variables", "No global variables",
	)
	var got []string
	for _, c := range clusterCorrections(cs) {
		got = append(got, c.canonicalText())
	}
	want := []string{"Never use global variables", "Use tabs", "Use the repository pattern", "The function returns nil here"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func TestMemoryClusterEmpty(t *testing.T) {
	if got := clusterCorrections(nil); len(got) != 0 {
		t.Errorf("clusters of nothing: %v", got)
	}
	if got := clusterCorrections(memCorrections("no", "don't", "!!")); len(got) != 0 {
		t.Errorf("clusters of content-free corrections: %d", len(got))
	}
}

func TestMemoryInferScope(t *testing.T) {
	tests := []struct {
		name    string
		texts   []string
		langs   map[string]int
		project string
		want    string
	}{
		{"concise is universal", []string{"Keep summaries concise", "keep it short"}, nil, "xcalibr", "universal"},
		{"token budget", []string{"Save tokens in answers"}, nil, "xcalibr", "universal"},
		{"file size phrase", []string{"Respect the file size of 300 lines"}, nil, "x", "universal"},
		{"panic is Go", []string{"Never use panic", "don't panic"}, nil, "xcalibr", "language:go"},
		{"Go named", []string{"In Go, return errors"}, nil, "x", "language:go"},
		{"go code named", []string{"go code must be gofmt'd"}, nil, "x", "language:go"},
		{"go the verb", []string{"go ahead and refactor"}, nil, "x", "project:x"},
		{"Go first word is not the language", []string{"Go ahead and refactor"}, nil, "x", "project:x"},
		{"rust unwrap", []string{"Don't call unwrap() on results"}, nil, "x", "language:rust"},
		{"python named", []string{"Use f-strings in Python"}, nil, "x", "language:python"},
		{"async alone is ambiguous", []string{"Prefer async handlers"}, nil, "x", "project:x"},
		{"async in typescript files", []string{"Prefer async handlers"}, map[string]int{"typescript": 2}, "x", "language:typescript"},
		{"important is not import", []string{"Important: name things clearly"}, map[string]int{"python": 1}, "x", "project:x"},
		{"project component", []string{"Use PortalTabs for all portal pages"}, nil, "xcalibr", "project:xcalibr"},
		{"no project: universal", []string{"Use PortalTabs for all portal pages"}, nil, "", "universal"},
		{"language beats universal", []string{"Keep Go functions short"}, nil, "x", "language:go"},
		{"two languages tie", []string{"Use Python and Rust"}, nil, "x", "project:x"},
		{"tie broken by files", []string{"Use Python and Rust"}, map[string]int{"rust": 1}, "x", "language:rust"},
		// Issue 16: a Go correction about fmt.Errorf is about Go.
		{"fmt.Errorf is Go", []string{"Wrap errors with fmt.Errorf and %w"}, nil, "x", "language:go"},
		{"Go's %w verb", []string{"Wrap errors with %w, not %v"}, nil, "x", "language:go"},
		{"errors.Is is Go", []string{"Compare errors with errors.Is"}, nil, "x", "language:go"},
		{"console.log is JavaScript", []string{"Remove console.log calls before committing"}, nil, "x", "language:javascript"},
		{"Box::new is Rust", []string{"Avoid Box::new in hot loops"}, nil, "x", "language:rust"},
		{"the project's own names are not a language", []string{"Call users.NewService to wire the handlers"}, nil, "x", "project:x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := inferScope(tt.texts, tt.langs, tt.project)
			if g.scope != tt.want || g.reason == "" {
				t.Errorf("inferScope(%q) = %+v, want %s", tt.texts, g, tt.want)
			}
			if scopeKind(g.scope) == KindLanguage && g.language != scopeName(g.scope) {
				t.Errorf("language %q for scope %s", g.language, g.scope)
			}
		})
	}
}

func TestMemoryInferCategory(t *testing.T) {
	tests := map[string]string{
		"Keep summaries concise":                CategoryPreference,
		"Prefer table-driven tests":             CategoryPreference,
		"Use tabs for indentation":              CategoryPreference,
		"Never use panic in production Go code": CategoryRule,
		"Use PortalTabs for all portal pages":   CategoryRule,
		"The function returns nil here":         CategoryCorrection,
	}
	for text, want := range tests {
		if got := inferCategory(text); got != want {
			t.Errorf("inferCategory(%q) = %s, want %s", text, got, want)
		}
	}
}
