package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
)

// TestMemoryCLISessions checks that corrections carry the session of
// --session or $ANCHORAGE_SESSION, and that propose takes only that
// session's corrections, or every open one without a session or with
// "*".
func TestMemoryCLISessions(t *testing.T) {
	data := t.TempDir()
	root := filepath.Join(t.TempDir(), "xcalibr")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	mem := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"--data-dir", data, "--root", root, "memory"}, args...)...)
		if err != nil {
			t.Fatalf("memory %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	correct := func(t *testing.T, args ...string) memory.Correction {
		t.Helper()
		var c memory.Correction
		if out := mem(t, append([]string{"correct", "--json"}, args...)...); json.Unmarshal([]byte(out), &c) != nil {
			t.Fatalf("correct: %s", out)
		}
		return c
	}
	propose := func(t *testing.T, args ...string) []string {
		t.Helper()
		var got proposeOutput
		if out := mem(t, append([]string{"propose", "--json"}, args...)...); json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("propose: %s", out)
		}
		var texts []string
		for _, p := range got.Proposals {
			texts = append(texts, p.Content)
		}
		slices.Sort(texts)
		return texts
	}

	t.Setenv(memory.SessionEnv, "")
	if c := correct(t, "--session", "review-12", "Never use panic in production Go code"); c.Session != "review-12" {
		t.Errorf("--session: correction %+v", c)
	}
	t.Setenv(memory.SessionEnv, "review-12")
	if c := correct(t, "don't panic in production code"); c.Session != "review-12" {
		t.Errorf("$%s: correction %+v", memory.SessionEnv, c)
	}
	if c := correct(t, "--session", "pairing", "Use tabs for indentation"); c.Session != "pairing" {
		t.Errorf("--session over $%s: correction %+v", memory.SessionEnv, c)
	}
	if c := correct(t, "--session", "*", "Keep summaries concise"); c.Session != "" {
		t.Errorf(`--session "*": correction %+v, want no session`, c)
	}
	if out := mem(t, "correct", "--session", "pairing", "Prefer table driven tests"); !strings.Contains(out, "in session pairing") {
		t.Errorf("correct says: %s", out)
	}

	tests := []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"the session of the environment", "review-12", nil, []string{"Never use panic in production Go code"}},
		{"--session", "review-12", []string{"--session", "pairing"}, []string{"Prefer table driven tests", "Use tabs for indentation"}},
		{"all, with *", "review-12", []string{"--session", "*"}, []string{"Keep summaries concise", "Never use panic in production Go code", "Prefer table driven tests", "Use tabs for indentation"}},
		{"all, without a session", "", nil, []string{"Keep summaries concise", "Never use panic in production Go code", "Prefer table driven tests", "Use tabs for indentation"}},
		{"an unknown session", "", []string{"--session", "nobody"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(memory.SessionEnv, tt.env)
			if got := propose(t, tt.args...); !slices.Equal(got, tt.want) {
				t.Errorf("propose %q: %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}
