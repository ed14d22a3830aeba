package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleApp is the sample application the tests run the commands on.
var sampleApp = filepath.Join("..", "..", "testdata", "sampleapp")

// run runs the command line with args and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// lineOf returns the 1-based line of the first occurrence of text in a
// sample app file.
func lineOf(t *testing.T, rel, text string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleApp, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), text)
	if i < 0 {
		t.Fatalf("%q not in %s", text, rel)
	}
	return strings.Count(string(b[:i]), "\n") + 1
}

func TestCLI(t *testing.T) {
	data := t.TempDir()
	root := sampleApp
	common := []string{"--data-dir", data, "--root", root}

	t.Run("index json", func(t *testing.T) {
		out, err := run(t, append(common, "index", "--json")...)
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Files      int            `json:"files"`
			ByLanguage map[string]int `json:"files_by_language"`
			Symbols    int            `json:"symbols"`
			Skipped    map[string]int `json:"skipped"`
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		for _, lang := range []string{"go", "python", "javascript", "typescript", "tsx", "rust", "java"} {
			if sum.ByLanguage[lang] == 0 {
				t.Errorf("no %s file indexed: %v", lang, sum.ByLanguage)
			}
		}
		if sum.Skipped["secret"] != 1 {
			t.Errorf("skipped %v, want the .env counted as a secret", sum.Skipped)
		}
	})

	t.Run("callers json", func(t *testing.T) {
		out, err := run(t, append(common, "graph", "callers", "UserRepository.FindByID", "--json")...)
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			Definitions []struct {
				Definition struct {
					Path string `json:"path"`
					Line int    `json:"line"`
				} `json:"definition"`
				Result []struct {
					Path   string `json:"path"`
					Line   int    `json:"line"`
					Caller struct {
						QualifiedName string `json:"qualified_name"`
					} `json:"caller"`
				} `json:"result"`
			} `json:"definitions"`
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if len(a.Definitions) != 1 {
			t.Fatalf("definitions %+v, want one", a.Definitions)
		}
		d := a.Definitions[0]
		if d.Definition.Path != "users/repo.go" || d.Definition.Line != lineOf(t, "users/repo.go", "func (r *UserRepository) FindByID") {
			t.Errorf("definition at %s:%d", d.Definition.Path, d.Definition.Line)
		}
		if len(d.Result) != 1 || d.Result[0].Path != "users/service.go" || d.Result[0].Caller.QualifiedName != "Service.GetUser" ||
			d.Result[0].Line != lineOf(t, "users/service.go", "s.repo.FindByID") {
			t.Errorf("callers %+v, want Service.GetUser at users/service.go:%d", d.Result, lineOf(t, "users/service.go", "s.repo.FindByID"))
		}
	})

	t.Run("several definitions are labelled", func(t *testing.T) {
		out, err := run(t, append(common, "graph", "callers", "FindByID", "--no-refresh")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "[1/2] method UserRepository.FindByID") || !strings.Contains(out, "[2/2] method Reader.FindByID") {
			t.Errorf("output does not label both definitions:\n%s", out)
		}
	})

	t.Run("symbols by initials", func(t *testing.T) {
		out, err := run(t, append(common, "graph", "symbols", "FBI", "--json", "--no-refresh")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"qualified_name": "UserRepository.FindByID"`) || !strings.Contains(out, `"match": "initials"`) {
			t.Errorf("FBI did not find FindByID by initials:\n%s", out)
		}
	})

	t.Run("unknown symbol", func(t *testing.T) {
		_, err := run(t, append(common, "graph", "callees", "NoSuchThing", "--no-refresh")...)
		if err == nil || !strings.Contains(err.Error(), `no symbol named "NoSuchThing"`) {
			t.Errorf("err = %v, want no symbol named", err)
		}
	})

	t.Run("imports json", func(t *testing.T) {
		out, err := run(t, append(common, "graph", "imports", "users", "--json", "--no-refresh")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"path": "api/handlers.go"`) {
			t.Errorf("api/handlers.go does not import users:\n%s", out)
		}
	})

	t.Run("route json", func(t *testing.T) {
		out, err := run(t, "route", "--json", "what", "calls", "users.NewService")
		if err != nil {
			t.Fatal(err)
		}
		var rt map[string]any
		if err := json.Unmarshal([]byte(out), &rt); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		for _, key := range []string{"strategy", "confidence", "reasoning", "semantic_query", "structural_query", "structural_operation", "keyword_query"} {
			if _, ok := rt[key]; !ok {
				t.Errorf("route JSON has no %q: %s", key, out)
			}
		}
		if rt["strategy"] != "structural" || rt["structural_operation"] != "callers" || rt["structural_query"] != "users.NewService" {
			t.Errorf("route = %s", out)
		}
	})

	t.Run("root that is not a directory", func(t *testing.T) {
		_, err := run(t, "--data-dir", data, "--root", filepath.Join(root, "go.mod"), "index")
		if err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("err = %v, want not a directory", err)
		}
	})
}
