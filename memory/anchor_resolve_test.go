package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestResolveExamples resolves examples from disk without an index: one
// in place, one whose definition was deleted, one in a file that is
// gone, one in another project's workspace and a rule without anchor.
func TestResolveExamples(t *testing.T) {
	root := t.TempDir()
	const src = "package db\n\n// Open opens.\nfunc Open() error {\n\treturn nil\n}\n"
	if err := os.WriteFile(filepath.Join(root, "db.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := []Rule{
		{ID: 1, Scope: "universal", Anchor: &RuleAnchor{File: "db.go", Symbol: "db.Open"}},
		{ID: 2, Scope: "universal", Anchor: &RuleAnchor{File: "db.go", Symbol: "db.Close"}},
		{ID: 3, Scope: "universal", Anchor: &RuleAnchor{File: "gone.go", Symbol: "db.Open"}},
		{ID: 4, Scope: "project:other", Anchor: &RuleAnchor{File: "db.go", Symbol: "db.Open"}},
		{ID: 5, Scope: "universal"},
	}
	got, err := ResolveExamples(context.Background(), InjectDeps{Root: root}, "mine", rules)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]ExampleState{
		1: {Status: ExampleShown, File: "db.go", Symbol: "db.Open", Line: 4},
		2: {Status: ExampleLost},
		3: {Status: ExampleLost},
		4: {Status: ExampleElsewhere, File: "db.go", Symbol: "db.Open"},
		5: {Status: ExampleNone},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("rule %d: %+v, want %+v", id, got[id], w)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ResolveExamples(ctx, InjectDeps{Root: root}, "mine", rules); err == nil {
		t.Error("ResolveExamples with a cancelled context succeeded")
	}
}
