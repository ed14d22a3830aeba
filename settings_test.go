package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runBoth runs the command line with args and returns stdout and stderr.
func runBoth(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// copySampleApp copies the sample app to a temporary directory, so that a
// test can add a settings file to it.
func copySampleApp(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "app")
	if out, err := exec.Command("cp", "-r", filepath.Join("testdata", "sampleapp"), dst).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v: %s", err, out)
	}
	return dst
}

func writeSettings(t *testing.T, root, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".anchorage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".anchorage", "config.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSettingsFileExclude is issue 16's report: an exclusion made once
// must hold for the commands after it, which refresh the index.
func TestSettingsFileExclude(t *testing.T) {
	root := copySampleApp(t)
	common := []string{"--data-dir", t.TempDir(), "--root", root}
	out, _, err := runBoth(t, append(common, "graph", "symbols", "retry")...)
	if err != nil || !strings.Contains(out, "worker/jobs.py") {
		t.Fatalf("before: %v\n%s", err, out)
	}
	writeSettings(t, root, "exclude:\n  - worker/\n")
	if _, _, err := runBoth(t, append(common, "index")...); err != nil {
		t.Fatal(err)
	}
	out, _, err = runBoth(t, append(common, "graph", "symbols", "retry")...)
	if err != nil || strings.Contains(out, "worker/jobs.py") {
		t.Errorf("graph symbols retry after the exclusion: %v\n%s", err, out)
	}
	// A flag overrides the file for one run: with nothing excluded,
	// worker/ is back; the next run without the flag drops it again.
	out, _, err = runBoth(t, append(common, "graph", "symbols", "retry", "--exclude", "")...)
	if err != nil || !strings.Contains(out, "worker/jobs.py") {
		t.Errorf("with --exclude '': %v\n%s", err, out)
	}
	out, _, err = runBoth(t, append(common, "graph", "symbols", "retry")...)
	if err != nil || strings.Contains(out, "worker/jobs.py") {
		t.Errorf("after the one run: %v\n%s", err, out)
	}
}

func TestSettingsLanguagesAndSize(t *testing.T) {
	root := copySampleApp(t)
	common := []string{"--data-dir", t.TempDir(), "--root", root}
	writeSettings(t, root, "languages: [go, python]\n")
	out, _, err := runBoth(t, append(common, "index", "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		ByLanguage map[string]int `json:"files_by_language"`
		Skipped    map[string]int `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.ByLanguage) != 2 || sum.ByLanguage["go"] == 0 || sum.ByLanguage["python"] == 0 || sum.Skipped["language_not_selected"] == 0 {
		t.Errorf("by language %v, skipped %v; want only go and python", sum.ByLanguage, sum.Skipped)
	}
	// Bad values on the command line are errors, not warnings.
	for _, args := range [][]string{{"--languages", "cobol"}, {"--max-file-size", "0"}, {"--max-file-size", "-5"}} {
		if _, _, err := runBoth(t, append(append(common, "index"), args...)...); err == nil {
			t.Errorf("index %v: no error", args)
		}
	}
}

func TestConfigCommand(t *testing.T) {
	root := copySampleApp(t)
	common := []string{"--data-dir", t.TempDir(), "--root", root}
	writeSettings(t, root, "# settings\nexclude: [worker/]\nmax_file_size: lots\nlanguags: [go]\nembedding:\n  provider: ollama\n  model: nomic-embed-text\n")

	out, stderr, err := runBoth(t, append(common, "config", "--json", "--embedding-model", "other")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"config.yaml:3: max_file_size: want a size",
		`config.yaml:4: unknown key "languags" (ignored); did you mean "languages"?`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var got configOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if !got.FileExists || len(got.Warnings) != 2 {
		t.Errorf("file exists %v, warnings %v", got.FileExists, got.Warnings)
	}
	sources := map[string]string{}
	values := map[string]any{}
	for _, s := range got.Settings {
		sources[s.Key], values[s.Key] = s.Source, s.Value
	}
	wantSources := map[string]string{
		"exclude": ".anchorage/config.yaml:2", "max_file_size": "default", "languages": "default",
		"memory_documents": "default", "embedding.provider": ".anchorage/config.yaml:6",
		"embedding.model": "--embedding-model", "embedding.url": "default", "embedding.api_key_env": "default",
	}
	for k, want := range wantSources {
		if sources[k] != want {
			t.Errorf("source of %s = %q, want %q", k, sources[k], want)
		}
	}
	if values["embedding.model"] != "other" || values["max_file_size"] != float64(1<<20) {
		t.Errorf("values %v", values)
	}

	// The text form lists every key with its source.
	out, _, err = runBoth(t, append(common, "config")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"exclude                worker/", ".anchorage/config.yaml:2", "2 warning(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}

	// Without a file: defaults, and the file is named as missing.
	out, stderr, err = runBoth(t, "--data-dir", t.TempDir(), "--root", t.TempDir(), "config")
	if err != nil || stderr != "" || !strings.Contains(out, "not found, defaults apply") {
		t.Errorf("no file: %v, stderr %q\n%s", err, stderr, out)
	}
}
