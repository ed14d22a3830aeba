package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/state"
)

// injectApp copies the sample app into a directory named sampleapp and
// returns its root, links resolved.
func injectApp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "sampleapp")
	if err := os.CopyFS(root, os.DirFS(sampleApp)); err != nil {
		t.Fatal(err)
	}
	return root
}

// addInjectRules stores rules in the memory database of data dir, each
// anchored (when file is set) as the anchor engine anchors in root.
func addInjectRules(t *testing.T, data, root string, rules ...[4]string) {
	t.Helper()
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := memory.Open(ctx, dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range rules {
		scope, content, file, symbol := r[0], r[1], r[2], r[3]
		rule, err := st.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: scope, Content: content, Confidence: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		if file == "" {
			continue
		}
		meta, _ := json.Marshal(map[string]any{"root": root, "line": 1})
		if err := st.SetAnchor(ctx, rule.ID, memory.RuleAnchor{File: file, Symbol: symbol, Score: 0.9, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCLIMemoryInject(t *testing.T) {
	data := t.TempDir()
	root := injectApp(t)
	common := []string{"--data-dir", data, "--root", root}
	inject := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := run(t, append(append([]string{"memory", "inject"}, common...), args...)...)
		if err != nil {
			t.Fatalf("anchorage memory inject %s: %v", strings.Join(args, " "), err)
		}
		return out
	}

	t.Run("no memory yet", func(t *testing.T) {
		out := inject(t, "--file", "users/repo.go")
		if out != "No coding rules apply here yet (universal, language:go, project:sampleapp).\n" {
			t.Errorf("output %q", out)
		}
		dirs, _ := state.Resolve(data)
		if _, err := os.Stat(dirs.MemoryPath()); err == nil {
			t.Error("inject created the memory database")
		}
	})

	addInjectRules(t, data, root,
		[4]string{"language:go", "Return ErrNotFound, wrapped with the id, when a user does not exist", "users/repo.go", "UserRepository.FindByID"},
		[4]string{"project:sampleapp", "Wrap database errors with the operation that failed", "internal/db/db.go", "db.Open"},
		[4]string{"language:python", "Log job failures with the job key", "worker/runner.py", "Runner._run_one"},
		[4]string{"universal", "Keep the old helper", "users/repo.go", "UserRepository.Gone"},
	)

	t.Run("markdown", func(t *testing.T) {
		out := inject(t, "--file", "users/repo.go")
		for _, want := range []string{
			"## Coding rules\n- Return ErrNotFound, wrapped with the id, when a user does not exist\n  Example: users/repo.go:25 (UserRepository.FindByID)\n  ```go\n  func (r *UserRepository) FindByID(",
			"- Wrap database errors with the operation that failed\n  Example: internal/db/db.go:",
			"- Keep the old helper (example not found)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
		if strings.Contains(out, "job failures") {
			t.Errorf("a python rule for a go file:\n%s", out)
		}
	})

	t.Run("json and budget", func(t *testing.T) {
		out := inject(t, "--file", filepath.Join(root, "internal", "db", "db.go"), "--budget", "120", "--json")
		var inj memory.Injection
		if err := json.Unmarshal([]byte(out), &inj); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		var fields map[string]json.RawMessage
		json.Unmarshal([]byte(out), &fields)
		for _, k := range []string{"markdown", "rules", "tokens", "truncated"} {
			if _, ok := fields[k]; !ok {
				t.Errorf("JSON has no %q: %s", k, out)
			}
		}
		tk := inj.Tokens
		if tk.Budget != 120 || tk.Total > 120 || tk.Rules > 48 || tk.Examples > 72 || inj.File != "internal/db/db.go" {
			t.Errorf("tokens %+v for file %s", tk, inj.File)
		}
		if len(inj.Rules) == 0 || inj.Rules[0].Content != "Wrap database errors with the operation that failed" || !inj.Rules[0].InFile {
			t.Errorf("rules %+v, want the rule anchored in db.go first", inj.Rules)
		}
	})

	t.Run("query without a file", func(t *testing.T) {
		out := inject(t, "--query", "wrap database errors", "--language", "go", "--json")
		var inj memory.Injection
		if err := json.Unmarshal([]byte(out), &inj); err != nil {
			t.Fatal(err)
		}
		if len(inj.Rules) == 0 || !strings.HasPrefix(inj.Rules[0].Content, "Wrap database errors") {
			t.Errorf("rules %+v", inj.Rules)
		}
	})

	t.Run("follows the file", func(t *testing.T) {
		file := filepath.Join(root, "users", "repo.go")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(src), "// FindByID loads", "// Count is new.\nfunc Count() int { return 0 }\n\n// FindByID loads", 1)
		edited = strings.Replace(edited, "\tvar u User\n", "\tvar u User // edited\n", 1)
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		out := inject(t, "--file", "users/repo.go")
		if !strings.Contains(out, "Example: users/repo.go:28 (UserRepository.FindByID)\n  ```go\n  func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {\n  \tvar u User // edited\n") {
			t.Errorf("example is not the edited source:\n%s", out)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, args := range [][]string{
			{"--file", ".env"},
			{"--file", "users/nope.go"},
			{"--file", "/etc/hostname"},
			{"--budget", "0"},
			{"--budget", "-3"},
			{"--language", "!!"},
		} {
			if out, err := run(t, append(append([]string{"memory", "inject"}, common...), args...)...); err == nil {
				t.Errorf("memory inject %v accepted: %s", args, out)
			}
		}
		_, err := run(t, append(append([]string{"memory", "inject"}, common...), "--file", ".env")...)
		if err == nil || !strings.Contains(err.Error(), "credentials") {
			t.Errorf("--file .env: %v", err)
		}
	})
}
