package cli

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
	if out, err := exec.Command("cp", "-r", sampleApp, dst).CombinedOutput(); err != nil {
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
	for _, args := range [][]string{{"--languages", "cobol"}, {"--max-file-size", "0"}, {"--max-file-size", "-5"}, {"--exclude", "docs/[a"}, {"--exclude", "[z-a]"}} {
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

// TestNumberFlags checks that numbers out of range are refused with an
// error naming the flag and the range, before anything runs.
func TestNumberFlags(t *testing.T) {
	common := []string{"--data-dir", t.TempDir(), "--root", sampleApp}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"graph", "inheritance", "Job", "--depth", "0"}, "--depth 0 is out of range: want 1 to 10"},
		{[]string{"graph", "inheritance", "Job", "--depth", "-1"}, "--depth -1 is out of range"},
		{[]string{"graph", "blast-radius", "Job", "--depth", "1000"}, "--depth 1000 is out of range"},
		{[]string{"search", "--top-k", "-5", "retry"}, "--top-k -5 is out of range: want 1 to 100"},
		{[]string{"search", "--budget", "-1", "retry"}, "--budget -1 is out of range: want 0 to 32000"},
		{[]string{"graph", "symbols", "Job", "--limit", "0"}, "--limit 0 is out of range"},
		{[]string{"index", "--max-file-size", "-1"}, "--max-file-size -1"},
	}
	for _, tt := range tests {
		args := append(append(append([]string{}, common...), tt.args...), "--no-refresh")
		if tt.args[0] == "index" {
			args = append([]string{"--data-dir", t.TempDir(), "--root", t.TempDir()}, tt.args...)
		}
		_, _, err := runBoth(t, args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.want)
		}
	}
	for _, args := range [][]string{{"memory", "search", "x", "--top-k", "0"}, {"memory", "search", "x", "--radius", "7"}} {
		if _, _, err := runBoth(t, append([]string{"--data-dir", t.TempDir(), "--root", t.TempDir()}, args...)...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestRouteEmptyAndHybrid(t *testing.T) {
	for _, q := range []string{"", "   "} {
		if _, _, err := runBoth(t, "route", q); err == nil || !strings.Contains(err.Error(), "empty query") {
			t.Errorf("route %q: error %v, want the empty query error of search", q, err)
		}
	}
	out, _, err := runBoth(t, "route", "the auth code and what depends on it")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "structural query: blast_radius of the best semantic result") || strings.Contains(out, "blast_radius \n") {
		t.Errorf("route of a hybrid query:\n%s", out)
	}
}

// TestIndexNotesOneRunFlags: a flag of index that changes what is
// indexed holds for one run; index says so and prints the settings file's
// lines that keep it, and says nothing when the file holds the value.
func TestIndexNotesOneRunFlags(t *testing.T) {
	root := copySampleApp(t)
	common := []string{"--data-dir", t.TempDir(), "--root", root}
	tests := []struct {
		file  string // the settings file, none when empty
		args  []string
		lines []string // the lines to set, none for no note
	}{
		{"", []string{"--exclude", "worker"}, []string{"--exclude is for this run only", "exclude:", `  - "worker"`}},
		{"", []string{"--languages", "go,python", "--max-file-size", "2000"},
			[]string{"--languages and --max-file-size are for this run only", "languages: [go, python]", "max_file_size: 2000"}},
		{"exclude: [worker]\n", []string{"--exclude", "worker"}, nil},
		{"exclude: [worker]\n", []string{"--exclude", ""}, []string{"exclude: []"}},
		{"", nil, nil},
	}
	for _, tt := range tests {
		os.RemoveAll(filepath.Join(root, ".anchorage"))
		if tt.file != "" {
			writeSettings(t, root, tt.file)
		}
		_, stderr, err := runBoth(t, append(append(common, "index"), tt.args...)...)
		if err != nil {
			t.Fatalf("index %v: %v", tt.args, err)
		}
		if len(tt.lines) == 0 {
			if strings.Contains(stderr, "this run only") {
				t.Errorf("file %q, index %v: a note when the flag changes nothing:\n%s", tt.file, tt.args, stderr)
			}
			continue
		}
		for _, l := range tt.lines {
			if !strings.Contains(stderr, l) {
				t.Errorf("file %q, index %v: stderr lacks %q:\n%s", tt.file, tt.args, l, stderr)
			}
		}
		// The lines printed, as the settings file, keep the flag's
		// values: the same run then changes nothing.
		var kept strings.Builder
		for _, l := range strings.Split(stderr, "\n") {
			if rest, ok := strings.CutPrefix(l, "  "); ok {
				kept.WriteString(rest + "\n")
			}
		}
		writeSettings(t, root, kept.String())
		_, stderr, err = runBoth(t, append(append(common, "index"), tt.args...)...)
		if err != nil || strings.Contains(stderr, "this run only") || strings.Contains(stderr, "warning") {
			t.Errorf("index %v with the printed lines as the settings file:\n%s\n%v\n%s", tt.args, kept.String(), err, stderr)
		}
	}
}
