package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/internal/fname"
)

// TestNonUTF8FileNameCLI: a file whose name is not valid UTF-8 ("grüße.go"
// in Latin-1: ü is the byte 0xFC) is indexed with its raw name; graph and
// search print it with a \xNN escape, in text and in JSON, never as
// U+FFFD; the printed name turns back into the bytes on disk
// (fname.Unquote, or Bash's $'…'), and graph imports takes it back.
func TestNonUTF8FileNameCLI(t *testing.T) {
	root := t.TempDir()
	raw := "pkg/gr\xfc\xc3\x9fe.go"
	const shown = `pkg/gr\xfcße.go`
	files := map[string]string{
		raw:             "package pkg\n\nimport \"strings\"\n\n// Greet says hello to the caller.\nfunc Greet() string { return strings.ToUpper(hi()) }\n\nfunc hi() string { return \"hi\" }\n",
		"pkg/caller.go": "package pkg\n\n// Caller greets.\nfunc Caller() { _ = Greet() }\n",
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses a file name that is not UTF-8: %v", err)
		}
	}
	common := []string{"--data-dir", t.TempDir(), "--root", root}
	r := mustRun(t, append(common, "index")...)
	if !strings.Contains(r.stdout, "2 parsed") {
		t.Fatalf("index: want both files parsed:\n%s", r.stdout)
	}

	opens := func(t *testing.T, printed string) {
		t.Helper()
		p, err := fname.Unquote(printed)
		if err != nil {
			t.Fatalf("the printed name %q does not unquote: %v", printed, err)
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !strings.Contains(string(b), "func Greet") {
			t.Fatalf("the printed name %q does not open the file: %v", printed, err)
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"graph symbols", []string{"graph", "symbols", "Greet"}, shown + ":6"},
		{"graph callers", []string{"graph", "callers", "Greet"}, "function pkg.Greet  " + shown + ":6"},
		{"graph callees", []string{"graph", "callees", "Caller"}, "pkg.Greet  " + shown + ":6"},
		{"search", []string{"search", "says hello to the caller"}, shown + ":5"},
		{"graph imports, escaped", []string{"graph", "imports", shown}, "strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, append(common, tc.args...)...).stdout
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
			if strings.ContainsRune(out, '\uFFFD') || strings.Contains(out, "\xfc") {
				t.Errorf("output holds U+FFFD or the raw byte:\n%q", out)
			}
		})
	}

	t.Run("graph symbols --json", func(t *testing.T) {
		var res struct {
			Symbols []struct {
				Name string `json:"name"`
				Path string `json:"path"`
			} `json:"symbols"`
		}
		out := mustRun(t, append(common, "graph", "symbols", "Greet", "--json")...).stdout
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(res.Symbols) == 0 || res.Symbols[0].Path != shown {
			t.Fatalf("symbols = %+v, want Greet at %s", res.Symbols, shown)
		}
		opens(t, res.Symbols[0].Path)
	})
	t.Run("search --json", func(t *testing.T) {
		var res struct {
			Results []struct {
				File   string `json:"file"`
				Symbol string `json:"symbol"`
			} `json:"results"`
		}
		out := mustRun(t, append(common, "search", "--json", "kw:says hello")...).stdout
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(res.Results) == 0 || res.Results[0].File != shown {
			t.Fatalf("results = %+v, want %s first", res.Results, shown)
		}
		opens(t, res.Results[0].File)
	})
}
