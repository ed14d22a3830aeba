package memdoc

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/retrieval/budget"
)

const selectDoc = `---
title: Retry policy
---
# Retry policy

<!-- ANCHOR:summary -->
Retry idempotent calls only.
<!-- /ANCHOR:summary -->

<!-- ANCHOR:state -->
Three retries, exponential backoff.
<!-- ANCHOR:detail -->
Jitter of 20%.
<!-- /ANCHOR:detail -->
<!-- /ANCHOR:state -->

<!-- ANCHOR:broken -->
never closed
`

func TestSelect(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		ids         []string
		want        string
		wantMissing []string
	}{
		{"one", selectDoc, []string{"summary"}, "Retry idempotent calls only.", nil},
		{"order of ids", selectDoc, []string{"detail", "summary"}, "Jitter of 20%.\n\n---\n\nRetry idempotent calls only.", nil},
		{"nested body keeps inner markers", selectDoc, []string{"state"},
			"Three retries, exponential backoff.\n<!-- ANCHOR:detail -->\nJitter of 20%.\n<!-- /ANCHOR:detail -->", nil},
		{"missing and broken", selectDoc, []string{"nope", "summary", "broken"}, "Retry idempotent calls only.", []string{"nope", "broken"}},
		{"repeated id once", selectDoc, []string{"summary", "summary"}, "Retry idempotent calls only.", nil},
		{"no ids", selectDoc, nil, "", nil},
		{"empty content", "", []string{"a"}, "", []string{"a"}},
		{"duplicate takes first", "<!-- ANCHOR:a -->one<!-- /ANCHOR:a -->\n<!-- ANCHOR:a -->two<!-- /ANCHOR:a -->", []string{"a"}, "one", nil},
		{"marker in front matter is not a section", "---\nx: <!-- ANCHOR:a -->b<!-- /ANCHOR:a -->\n---\n", []string{"a"}, "", []string{"a"}},
		{"marker in code fence is text", "```\n<!-- ANCHOR:a -->\nx\n<!-- /ANCHOR:a -->\n```\n", []string{"a"}, "", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missing := Select(tt.content, tt.ids)
			if got != tt.want {
				t.Errorf("selected = %q, want %q", got, tt.want)
			}
			if !slices.Equal(missing, tt.wantMissing) {
				t.Errorf("missing = %q, want %q", missing, tt.wantMissing)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	full := strings.Repeat("retry idempotent calls only with backoff ", 50)
	returned := "retry idempotent calls only"
	tests := []struct {
		name           string
		full, returned string
		wantPct        float64
	}{
		{"empty full", "", "", 0},
		{"empty full, some returned", "", "x", 0},
		{"all returned", full, full, 0},
		{"nothing returned", full, "", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Metrics(tt.full, tt.returned)
			if m.SavingsPct != tt.wantPct {
				t.Errorf("savings = %v, want %v", m.SavingsPct, tt.wantPct)
			}
			if m.FullTokens != budget.Estimate(tt.full) || m.ReturnedTokens != budget.Estimate(tt.returned) {
				t.Errorf("tokens = %+v, want the estimator's counts", m)
			}
		})
	}
	t.Run("partial rounds to one decimal", func(t *testing.T) {
		m := Metrics(full, returned)
		f, r := float64(budget.Estimate(full)), float64(budget.Estimate(returned))
		want := 100 * (1 - r/f)
		if m.SavingsPct < want-0.05 || m.SavingsPct > want+0.05 || math.Abs(m.SavingsPct*10-math.Round(m.SavingsPct*10)) > 1e-9 {
			t.Errorf("savings = %v, want %v rounded to one decimal", m.SavingsPct, want)
		}
		if m.SavingsPct <= 90 {
			t.Errorf("savings = %v, want > 90 for a fiftieth of the text", m.SavingsPct)
		}
	})
}
