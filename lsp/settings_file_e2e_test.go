package lsp

// End-to-end test of a workspace folder's settings file
// (.anchorage/config.yaml) in the server: it sets what is indexed, its
// problems are shown naming the line, a change to it applies at once, and
// the editor's settings take precedence over it.

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/anchorage-dev/anchorage/internal/config"
)

func writeSettingsFile(t *testing.T, root, text string) string {
	t.Helper()
	path := filepath.Join(root, ".anchorage", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestE2ESettingsFile(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	path := writeSettingsFile(t, root, "exclude:\n  - worker/\nlanguags: [go]\n")
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	c.wait(t, 0, eventTimeout, "the settings file's warning", isLog(protocol.MessageTypeWarning, path+`:3: unknown key "languags"`))
	jobs := fileURI(root, "worker/jobs.py")
	if got := symbolsIn(c.symbols(t, "retry"), "retry", jobs); len(got) != 0 {
		t.Errorf("worker/jobs.py indexed although the settings file excludes worker/:%s", describe(got))
	}
	c.findSymbol(t, "FindByID", "FindByID", fileURI(root, "users/repo.go"))

	// Editing the file applies at once.
	writeSettingsFile(t, root, "exclude: []\n")
	c.notify(t, "workspace/didChangeWatchedFiles", &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
		{Type: protocol.FileChangeTypeChanged, URI: uri.File(path)},
	}})
	c.symbolAppears(t, "retry", "retry", jobs)
}

// TestIndexSettingsPrecedence checks that what the editor sets wins over
// the settings file, and the file over the defaults.
func TestIndexSettingsPrecedence(t *testing.T) {
	file := config.Parse("c.yaml", []byte("exclude: [worker/]\nmax_file_size: 100\nlanguages: [go]\n"))
	tests := []struct {
		name        string
		editor      Settings
		exclude     []string
		ignore      []string
		maxFileSize int64
	}{
		{"file only", Settings{}, nil, []string{"worker/"}, 100},
		{"editor size", Settings{MaxFileSize: 7}, nil, []string{"worker/"}, 7},
		{"editor exclusions replace the file's", Settings{ExcludedDirectories: []string{"gen"}}, []string{"gen"}, nil, 100},
	}
	for _, tt := range tests {
		exclude, ignore, size, langs := indexSettings(tt.editor, file)
		if !reflect.DeepEqual(exclude, tt.exclude) || !reflect.DeepEqual(ignore, tt.ignore) || size != tt.maxFileSize || !reflect.DeepEqual(langs, []string{"go"}) {
			t.Errorf("%s: got %v %v %d %v", tt.name, exclude, ignore, size, langs)
		}
	}
}

// TestE2EWorkspaceSymbolModuleCode is issue 16's report: workspace/symbol
// named module-level code by the first line of its text (a docstring).
func TestE2EWorkspaceSymbolModuleCode(t *testing.T) {
	t.Parallel()
	root := sampleApp(t)
	c := startClient(t)
	c.start(t, clientOptions{}, root)
	found := false
	for _, s := range c.symbols(t, "worker package entry point imports logging os sys") {
		if strings.HasPrefix(s.Name, `"""`) || strings.HasPrefix(s.Name, "//") || strings.HasPrefix(s.Name, "package ") || strings.HasPrefix(s.Name, "import ") {
			t.Errorf("symbol named by its text: %q in %s", s.Name, s.Location.URI)
		}
		if s.Location.URI == fileURI(root, "worker/__init__.py") && s.Name == "__init__.py (module-level code)" && s.ContainerName == "worker" {
			found = true
		}
	}
	if !found {
		t.Errorf("no module-level code of worker/__init__.py named by its file")
	}
}
