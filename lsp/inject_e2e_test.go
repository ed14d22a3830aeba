package lsp

// End-to-end test of anchorage.context.inject over the protocol, against
// the real binary (see e2e_test.go).

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

// seedInjectRules stores rules in the memory database of a data dir,
// anchored as the anchor engine anchors in root: [scope, content, file,
// symbol], no file for no anchor.
func seedInjectRules(t *testing.T, dataDir, root string, rules ...[4]string) []int64 {
	t.Helper()
	dirs, err := state.Resolve(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := memory.Open(ctx, dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []int64
	for _, r := range rules {
		rule, err := st.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: r[0], Content: r[1], Confidence: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rule.ID)
		if r[2] == "" {
			continue
		}
		meta, _ := json.Marshal(map[string]any{"root": root, "line": 1})
		if err := st.SetAnchor(ctx, rule.ID, memory.RuleAnchor{File: r[2], Symbol: r[3], Score: 0.9, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// injectCommand runs anchorage.context.inject and decodes its answer,
// checking the fields every answer has and the budget.
func (c *lspClient) injectCommand(t *testing.T, args ...any) memory.Injection {
	t.Helper()
	raw, err := c.command(t, cmdContextInject, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", cmdContextInject, args, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("%s: %v in %s", cmdContextInject, err, raw)
	}
	for _, k := range []string{"markdown", "rules", "tokens", "truncated"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("%s: the answer has no %q: %s", cmdContextInject, k, raw)
		}
	}
	var inj memory.Injection
	if err := json.Unmarshal(raw, &inj); err != nil {
		t.Fatal(err)
	}
	if tk := inj.Tokens; tk.Total > tk.Budget || tk.Rules > tk.RulesBudget || tk.Examples > tk.ExamplesBudget || inj.Rules == nil {
		t.Errorf("%s: tokens %+v, rules %v", cmdContextInject, tk, inj.Rules)
	}
	return inj
}

func TestE2EInject(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	data := t.TempDir()
	ids := seedInjectRules(t, data, root,
		[4]string{"language:go", "Return ErrNotFound, wrapped with the id, when a user does not exist", "users/repo.go", "UserRepository.FindByID"},
		[4]string{"project:sampleapp", "Wrap database errors with the operation that failed", "internal/db/db.go", "db.Open"},
		[4]string{"language:python", "Log job failures with the job key", "worker/runner.py", "Runner._run_one"},
		[4]string{"universal", "Keep the old helper", "users/repo.go", "UserRepository.Gone"},
	)
	c := connect(t, startProcIn(t, data))
	res := c.initialize(t, clientOptions{}, root)
	if err := c.server.Initialized(callCtx(t), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	c.waitIndexed(t, 0, root)
	repo := fileURI(root, "users/repo.go")
	if p := res.Capabilities.ExecuteCommandProvider; p == nil || !slices.Contains(p.Commands, cmdContextInject) {
		t.Errorf("%s is not advertised: %+v", cmdContextInject, p)
	}

	t.Run("document", func(t *testing.T) {
		inj := c.injectCommand(t, map[string]any{"uri": repo})
		for _, want := range []string{
			"- Return ErrNotFound, wrapped with the id, when a user does not exist\n  Example: users/repo.go:25 (UserRepository.FindByID)\n  ```go\n  func (r *UserRepository) FindByID(",
			"- Wrap database errors with the operation that failed\n  Example: internal/db/db.go:",
			"- Keep the old helper (example not found)\n",
		} {
			if !strings.Contains(inj.Markdown, want) {
				t.Errorf("no %q in\n%s", want, inj.Markdown)
			}
		}
		if strings.Contains(inj.Markdown, "job failures") {
			t.Errorf("a python rule for a go file:\n%s", inj.Markdown)
		}
		if len(inj.Rules) != 3 || !inj.Rules[0].InFile || inj.Rules[0].ID != ids[0] && inj.Rules[0].ID != ids[3] ||
			inj.Tokens.Budget != memory.DefaultInjectBudget || inj.File != "users/repo.go" || inj.Project != "sampleapp" {
			t.Errorf("injection %+v", inj)
		}
	})

	t.Run("query and budget", func(t *testing.T) {
		inj := c.injectCommand(t, map[string]any{"query": "wrap database errors", "budget": 80})
		if inj.Tokens.Budget != 80 || len(inj.Rules) == 0 || inj.Rules[0].ID != ids[1] {
			t.Errorf("injection %+v", inj)
		}
	})

	t.Run("no arguments", func(t *testing.T) {
		inj := c.injectCommand(t)
		// The first folder's project, no language.
		if len(inj.Rules) != 2 || strings.Contains(inj.Markdown, "ErrNotFound") {
			t.Errorf("rules %+v:\n%s", inj.Rules, inj.Markdown)
		}
	})

	t.Run("follows edits", func(t *testing.T) {
		d := c.open(t, repo, "go", readFile(t, root, "users/repo.go"))
		d.insertBefore(t, "// FindByID loads", "// Count is new.\nfunc Count() int { return 0 }\n\n")
		d.replace(t, "\tvar u User\n", "\tvar u User // edited\n")
		inj := c.injectCommand(t, map[string]any{"uri": repo})
		want := "Example: users/repo.go:28 (UserRepository.FindByID)\n  ```go\n  func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {\n  \tvar u User // edited\n"
		if !strings.Contains(inj.Markdown, want) {
			t.Errorf("example is not the edited document's:\n%s", inj.Markdown)
		}
		d.close(t)
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, args := range []any{
			map[string]any{"budget": -1},
			map[string]any{"budget": "many"},
			map[string]any{"uri": fileURI(root, ".env")},
			map[string]any{"uri": fileURI(filepath.Dir(root), "elsewhere.go")},
			map[string]any{"language": "!!"},
			"users/repo.go",
		} {
			if raw, err := c.command(t, cmdContextInject, args); err == nil || !strings.Contains(err.Error(), cmdContextInject) {
				t.Errorf("%s %v: %s, %v; want an error", cmdContextInject, args, raw, err)
			}
		}
	})
}
