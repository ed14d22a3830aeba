package memory

import (
	"slices"
	"testing"
)

func TestMemoryAnalyzeProse(t *testing.T) {
	tests := []struct {
		text      string
		tokens    []string
		negative  bool
		directive bool
	}{
		{"Keep summaries concise", []string{"concise", "summary"}, false, true},
		{"keep it short", []string{"concise"}, false, true},
		{"be terse", []string{"concise"}, false, true},
		{"Don't be verbose", []string{"concise"}, false, true}, // forbids verbosity: asks for concision
		{"Avoid verbose output", []string{"concise", "output"}, false, true},
		{"Never use panic in production Go code", []string{"go", "panic", "production"}, true, true},
		{"don't panic", []string{"panic"}, true, true},
		{"don’t panic", []string{"panic"}, true, true}, // typographic apostrophe
		{"avoid panic()", []string{"panic"}, true, true},
		{"You should not use panic", []string{"panic"}, true, true},
		{"panic is not allowed", []string{"allow", "panic"}, true, true},
		{"Don't forget to close files", []string{"clos", "fil"}, false, true},
		{"Skip the tests", []string{"test"}, true, true},
		{"Use errors.Is, not ==", []string{"error"}, false, true},
		{"Use PortalTabs for all portal pages", []string{"pag", "portal", "tab"}, false, true},
		{"HTTPServer logging_level", []string{"http", "level", "log", "server"}, false, false},
		{"it's the repo's README", []string{"readm", "repository"}, false, false},
		{"", nil, false, false},
		{"no", nil, true, true},
		// A negation inside a hyphenated name is not one of the sentence.
		{"Return a typed not-found error from repositories", []string{"error", "found", "not", "repository", "return", "typ"}, false, false},
		{"Always return a typed not-found error", []string{"error", "found", "not", "return", "typ"}, false, true},
		{"Never return non-nil errors with a value", []string{"error", "nil", "non", "return", "valu"}, true, true},
	}
	for _, tt := range tests {
		f := analyzeProse(tt.text)
		if !slices.Equal(f.tokens, tt.tokens) || f.negative != tt.negative || f.directive != tt.directive {
			t.Errorf("analyzeProse(%q) = %v negative %v directive %v; want %v %v %v",
				tt.text, f.tokens, f.negative, f.directive, tt.tokens, tt.negative, tt.directive)
		}
	}
}

func TestMemoryStem(t *testing.T) {
	// Forms of a word meet.
	groups := [][]string{
		{"page", "pages"},
		{"name", "names", "naming", "named"},
		{"string", "strings"},
		{"nest", "nested", "nesting"},
		{"summary", "summaries"},
		{"box", "boxes"},
		{"match", "matches"},
	}
	for _, g := range groups {
		want := stemProseWord(g[0])
		for _, w := range g[1:] {
			if got := stemProseWord(w); got != want {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", w, got, g[0], want)
			}
		}
	}
	for _, w := range []string{"class", "status", "analysis", "go", "use"} {
		if got := stemProseWord(w); got != w && w != "use" {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestMemorySimilarity(t *testing.T) {
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{"Use tabs", "use tabs", 1, 1},
		{"Never use panic in production Go code", "avoid panic()", 0.6, 0.7},
		{"Keep summaries concise", "be terse", 0.7, 0.8},
		{"Use tabs", "Never use tabs", 0, 0},             // opposite polarity
		{"Don't be verbose", "Keep it short", 1, 1},      // same meaning through the antonym
		{"Use tabs", "Use the repository pattern", 0, 0}, // nothing shared
		{"no", "no", 0, 0},                               // nothing to compare
	}
	for _, tt := range tests {
		got := proseSimilarity(analyzeProse(tt.a), analyzeProse(tt.b))
		if got < tt.min-1e-9 || got > tt.max+1e-9 {
			t.Errorf("similarity(%q, %q) = %.3f, want %.2f..%.2f", tt.a, tt.b, got, tt.min, tt.max)
		}
		if back := proseSimilarity(analyzeProse(tt.b), analyzeProse(tt.a)); back != got {
			t.Errorf("similarity is not symmetric for %q, %q: %v, %v", tt.a, tt.b, got, back)
		}
	}
}
