package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Where the workspaces of the size test's rule sets live, as a user's
// machine would have them.
var sizeTestRoots = map[string]string{
	"sampleapp": "/home/dev/src/github.com/acme/sampleapp",
	"gostdlib":  "/usr/local/go/src",
}

// sizeTestRule is one rule of the size test, with its anchor.
type sizeTestRule struct {
	rule      Rule
	file, sym string
	root      string
}

// sizeTestRules makes n rules from the anchor rule sets (those with a
// known example), cycling through them; repeats get a distinguishing
// package name, as a user's rules about many packages would.
func sizeTestRules(t testing.TB, n int) []sizeTestRule {
	t.Helper()
	var cases []anchorCase
	var roots []string
	for _, name := range []string{"sampleapp", "sampleapp-holdout", "gostdlib", "gostdlib-holdout"} {
		for _, c := range readAnchorCases(t, name+".jsonl") {
			if len(c.File) > 0 && len(c.Symbol) > 0 {
				cases = append(cases, c)
				roots = append(roots, sizeTestRoots[strings.TrimSuffix(name, "-holdout")])
			}
		}
	}
	out := make([]sizeTestRule, n)
	for i := range out {
		c := cases[i%len(cases)]
		content := c.Rule
		if round := i / len(cases); round > 0 {
			content = fmt.Sprintf("%s in package pkg%d", c.Rule, round)
		}
		out[i] = sizeTestRule{
			rule: Rule{
				Category: CategoryRule, Scope: c.Scope, Content: content,
				Rationale:   fmt.Sprintf("You made this correction 2 times (in %s)", c.File[0]),
				Variants:    []string{content, "remember: " + strings.ToLower(content)},
				Confidence:  0.72,
				Corrections: 2,
			},
			file: c.File[0], sym: c.Symbol[0], root: roots[i%len(cases)],
		}
	}
	return out
}

// fillSizeTestStore stores the rules, with the two corrections each came
// from, in one transaction.
func fillSizeTestStore(t testing.TB, s *Store, rules []sizeTestRule) []int64 {
	t.Helper()
	ctx := t.Context()
	ids := make([]int64, len(rules))
	err := s.withTx(ctx, "fill", func(tx *sql.Tx) error {
		now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
		for i, r := range rules {
			checked, err := checkRule(r.rule)
			if err != nil {
				return err
			}
			if ids[i], err = insertRule(ctx, tx, checked, now); err != nil {
				return err
			}
			for _, v := range checked.Variants {
				if _, err := tx.ExecContext(ctx, `INSERT INTO corrections(text, file, language, project, session, created_at)
					VALUES(?, ?, ?, ?, ?, ?)`, v, r.file, LanguageOfFile(r.file), ProjectName(r.root), "lsp-4242-20261121T100000.000", unixMillis(now)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// compactSize returns the size of a compacted copy of the database
// (VACUUM INTO, which also folds in the write-ahead log).
func compactSize(t *testing.T, s *Store) int64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "compact.db")
	if _, err := s.db.ExecContext(t.Context(), `VACUUM INTO ?`, path); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// legacyMetadata is the anchor metadata as stored before it was trimmed.
func legacyMetadata(line int, root string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"line": line, "end_line": line + 14, "kind": "method", "relevance": 0.874, "size": 1, "recency": 0.5,
		"threshold": DefaultAnchorThreshold, "project": ProjectName(root), "root": root, "anchored_at": "2026-11-21T10:00:00Z",
	})
	return b
}

// TestAnchorColumnsSize measures how much anchoring every rule grows the
// memory database: compacted file sizes of the same rules and corrections
// without anchors and with them, in the current metadata format and in
// the format stored before it was trimmed. The target is less than 10 %.
// Proposals are left out, which makes the base smaller and the growth
// larger than in a user's database. Run with -v for the figures.
func TestAnchorColumnsSize(t *testing.T) {
	const n = 1000
	rules := sizeTestRules(t, n)
	var sizes []int64
	for _, format := range []string{"none", "current", "legacy"} {
		s := memTemp(t)
		ids := fillSizeTestStore(t, s, rules)
		if format != "none" {
			for i, r := range rules {
				line := 20 + i%300
				res := &AnchorResult{Scope: r.rule.Scope, Threshold: DefaultAnchorThreshold,
					Anchor: &AnchorCandidate{File: r.file, Symbol: r.sym, Line: line, Quality: 0.812}}
				ra := res.RuleAnchor(r.root, ProjectName(r.root))
				if format == "legacy" {
					ra.Metadata = legacyMetadata(line, r.root)
				}
				if err := s.SetAnchor(context.Background(), ids[i], *ra); err != nil {
					t.Fatal(err)
				}
			}
		}
		sizes = append(sizes, compactSize(t, s))
	}
	growth := func(size int64) float64 { return 100 * float64(size-sizes[0]) / float64(sizes[0]) }
	t.Logf("%d rules and %d corrections: %d bytes without anchors; anchored: %d bytes (+%.1f %%), with the legacy metadata %d bytes (+%.1f %%)",
		n, 2*n, sizes[0], sizes[1], growth(sizes[1]), sizes[2], growth(sizes[2]))
	if g := growth(sizes[1]); g >= 10 {
		t.Errorf("anchors grow the database by %.1f %%, the target is < 10 %%", g)
	}
}

func TestReadAnchorMeta(t *testing.T) {
	tests := []struct {
		name, scope, meta string
		want              AnchorMeta
	}{
		{"project rule", "project:app", `{"l":12}`, AnchorMeta{Line: 12, Project: "app", Threshold: DefaultAnchorThreshold}},
		{"universal rule", "universal", `{"l":3,"r":"/src/app"}`, AnchorMeta{Line: 3, Root: "/src/app", Project: "app", Threshold: DefaultAnchorThreshold}},
		{"renamed project", "language:go", `{"l":3,"r":"/src/app","p":"acme","t":0.5}`, AnchorMeta{Line: 3, Root: "/src/app", Project: "acme", Threshold: 0.5}},
		{"legacy", "universal", string(legacyMetadata(40, "/home/dev/src/app")), AnchorMeta{Line: 40, Root: "/home/dev/src/app", Project: "app", Threshold: DefaultAnchorThreshold}},
		{"none", "universal", ``, AnchorMeta{Threshold: DefaultAnchorThreshold}},
		{"none, project rule", "project:app", ``, AnchorMeta{Project: "app", Threshold: DefaultAnchorThreshold}},
		{"garbage", "universal", `{"l":"x"}`, AnchorMeta{Threshold: DefaultAnchorThreshold}},
		{"not an object", "universal", `[1]`, AnchorMeta{Threshold: DefaultAnchorThreshold}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &RuleAnchor{File: "x.go", Symbol: "X"}
			if tt.meta != "" {
				a.Metadata = json.RawMessage(tt.meta)
			}
			if got := ReadAnchorMeta(Rule{Scope: tt.scope, Anchor: a}); got != tt.want {
				t.Errorf("ReadAnchorMeta(%s) = %+v, want %+v", tt.meta, got, tt.want)
			}
		})
	}
	// What RuleAnchor writes reads back.
	for _, tt := range []struct{ scope, root, project, want string }{
		{"project:app", "/src/app", "app", `{"l":7}`},
		{"universal", "/src/app", "app", `{"l":7,"r":"/src/app"}`},
		{"universal", "/src/app", "acme", `{"l":7,"r":"/src/app","p":"acme"}`},
		{"project:acme", "/src/app", "acme", `{"l":7}`},
	} {
		res := &AnchorResult{Scope: tt.scope, Threshold: DefaultAnchorThreshold, Anchor: &AnchorCandidate{File: "a.go", Symbol: "A", Line: 7, Quality: 0.8}}
		ra := res.RuleAnchor(tt.root, tt.project)
		if string(ra.Metadata) != tt.want {
			t.Errorf("RuleAnchor(%s, %s) for %s: %s, want %s", tt.root, tt.project, tt.scope, ra.Metadata, tt.want)
		}
		if m := ReadAnchorMeta(Rule{Scope: tt.scope, Anchor: ra}); m.Line != 7 || m.Project != tt.project {
			t.Errorf("%s reads back as %+v", ra.Metadata, m)
		}
	}
}

// BenchmarkRulesByAnchorFile measures the lookup of the rules anchored in
// one file (hover, code lenses) among 1000 anchored rules, without an
// index on anchor files.
func BenchmarkRulesByAnchorFile(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "memory.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rules := sizeTestRules(b, 1000)
	ids := fillSizeTestStore(b, s, rules)
	for i, r := range rules {
		res := &AnchorResult{Scope: r.rule.Scope, Threshold: DefaultAnchorThreshold,
			Anchor: &AnchorCandidate{File: r.file, Symbol: r.sym, Line: 20 + i%300, Quality: 0.812}}
		if err := s.SetAnchor(b.Context(), ids[i], *res.RuleAnchor(r.root, ProjectName(r.root))); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Rules(b.Context(), RuleFilter{AnchorFile: rules[0].file})
		if err != nil || len(got) == 0 {
			b.Fatalf("%d rules, %v", len(got), err)
		}
	}
}
