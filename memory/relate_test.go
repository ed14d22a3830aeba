package memory

import (
	"fmt"
	"strings"
	"testing"
)

func TestRelate(t *testing.T) {
	rules := []Rule{
		{ID: 1, Scope: "language:go", Content: "wrap database errors with the query that failed"},
		{ID: 2, Scope: "universal", Content: "use tabs for indentation in every file"},
		{ID: 3, Scope: "language:python", Content: "never use bare except clauses"},
		{ID: 4, Scope: "language:go", Content: "log the request id in every handler", SupersededBy: 9},
	}
	tests := []struct {
		name           string
		content, scope string
		dup, contra    int64
		msgHas         string
	}{
		{"repeat", "wrap database errors with the query that failed", "language:go", 1, 0, "repeats rule 1"},
		{"contradiction", "never use tabs for indentation in every file", "language:go", 0, 2, "contradicts rule 2"},
		{"other scope", "use bare except clauses", "language:go", 0, 0, ""},
		{"same scope contradiction", "always use bare except clauses", "language:python", 0, 3, "contradicts rule 3"},
		{"superseded rules do not count", "log the request id in every handler", "language:go", 0, 0, ""},
		{"unrelated", "prefer table-driven tests", "universal", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dup, contra, msg := Relate(tt.content, tt.scope, rules)
			if dup != tt.dup || contra != tt.contra {
				t.Errorf("Relate(%q) = repeats %d, contradicts %d; want %d, %d (%s)", tt.content, dup, contra, tt.dup, tt.contra, msg)
			}
			if tt.msgHas == "" && msg != "" || !strings.Contains(msg, tt.msgHas) {
				t.Errorf("Relate(%q) message %q; want one containing %q", tt.content, msg, tt.msgHas)
			}
		})
	}
}

// BenchmarkRelate10k relates one rule text to 10,000 rules, as an
// approval in a team of 10,000 approved rules does.
func BenchmarkRelate10k(b *testing.B) {
	rules := make([]Rule, 10_000)
	for i := range rules {
		rules[i] = Rule{ID: int64(i + 1), Scope: "universal", Content: fmt.Sprintf("wrap errors of kind %x with the %x context", i*7919, i*104729)}
	}
	for b.Loop() {
		Relate("never wrap database errors with the query that failed", "language:go", rules)
	}
}
