package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFull(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f := Parse("full.yaml", data)
	if len(f.Warnings) != 0 {
		t.Fatalf("warnings: %v", f.Warnings)
	}
	want := Settings{
		Exclude:         []string{"worker/", "*.generated.go", "!vendor/"},
		MaxFileSize:     512 << 10,
		Languages:       []string{"go", "python"},
		MemoryDocuments: []string{"docs/rules/*.md"},
		Embedding:       Embedding{Provider: "ollama", Model: "nomic-embed-text", URL: "http://localhost:11434"},
	}
	if !reflect.DeepEqual(f.Settings, want) {
		t.Errorf("settings\n got %+v\nwant %+v", f.Settings, want)
	}
	wantLines := map[string]int{KeyExclude: 2, KeyMaxFileSize: 6, KeyLanguages: 7, KeyMemoryDocuments: 8,
		KeyEmbeddingProvider: 11, KeyEmbeddingModel: 12, KeyEmbeddingURL: 13}
	if !reflect.DeepEqual(f.Lines, wantLines) {
		t.Errorf("lines %v, want %v", f.Lines, wantLines)
	}
}

// TestParseWarnings checks that each bad input warns on its line and
// leaves the setting at its default, keeping the good settings around it.
func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		warning    string // in the message
		want       Settings
	}{
		{"unknown key", "exlude: [a]\nmax_file_size: 10\n", 1, `unknown key "exlude" (ignored); did you mean "exclude"?`, Settings{MaxFileSize: 10}},
		{"unknown key far from any", "colour: red\n", 1, "known keys: embedding, exclude", Settings{}},
		{"size not a number", "max_file_size: lots\nlanguages: [go]\n", 1, `want a size such as 1048576`, Settings{Languages: []string{"go"}}},
		{"size negative", "max_file_size: -1\n", 1, "more than 0", Settings{}},
		{"size zero", "max_file_size: 0\n", 1, "more than 0", Settings{}},
		{"size huge", "max_file_size: 99999999999999999999\n", 1, "at most 1TiB", Settings{}},
		{"size a list", "max_file_size: [1]\n", 1, "got a list", Settings{}},
		{"exclude a mapping", "\n\nexclude:\n  a: b\n", 4, "want a list of strings, got a mapping", Settings{}},
		{"exclude an empty pattern", "exclude:\n  - ''\n  - build/\n", 2, "empty pattern", Settings{Exclude: []string{"build/"}}},
		{"exclude a nested list", "exclude:\n  - [a]\n", 2, "want a string, got a list", Settings{Exclude: []string{}}},
		{"exclude an open bracket", "exclude:\n  - build/\n  - 'docs/[a.md'\n", 3, "not a valid pattern", Settings{Exclude: []string{"build/"}}},
		{"exclude a trailing backslash", "exclude:\n  - 'gen\\'\n", 2, "not a valid pattern", Settings{Exclude: []string{}}},
		{"exclude a reversed range", "exclude:\n  - '[z-a]*.go'\n  - '!keep/[a-z]x/**'\n", 2, "range z-a", Settings{Exclude: []string{"!keep/[a-z]x/**"}}},
		{"exclude a reversed range negated", "exclude: ['!src/[^9-0]']\n", 1, "range 9-0", Settings{Exclude: []string{}}},
		{"language unknown", "languages:\n  - go\n  - cobol\n", 3, `unknown language "cobol"`, Settings{Languages: []string{"go"}}},
		{"languages all unknown", "languages: [cobol]\n", 1, "no known language", Settings{}},
		{"glob invalid", "memory_documents: ['docs/[a.md']\n", 1, "not a valid glob", Settings{}},
		{"glob outside", "memory_documents: [../x/*.md, /etc/*.md]\n", 1, "outside the workspace", Settings{}},
		{"provider unknown", "embedding:\n  provider: magic\n  model: m\n", 2, `unknown provider "magic"`, Settings{}},
		{"provider without model", "embedding:\n  provider: ollama\n", 1, "needs a model", Settings{}},
		{"openai without url", "embedding:\n  provider: openai\n  model: m\n", 1, "needs a url", Settings{}},
		{"api key in the file", "embedding:\n  provider: ollama\n  model: m\n  api_key: sk-123\n", 4, "does not belong", Settings{Embedding: Embedding{Provider: "ollama", Model: "m"}}},
		{"embedding unknown key", "embedding:\n  provider: ollama\n  modle: m\n", 3, `unknown key "embedding.modle"`, Settings{}},
		{"url without a scheme", "embedding:\n  provider: ollama\n  model: m\n  url: localhost:11434\n", 4, "want an http or https URL", Settings{Embedding: Embedding{Provider: "ollama", Model: "m"}}},
		{"url not a url", "embedding:\n  provider: ollama\n  model: m\n  url: 'http://%zz'\n", 4, "want an http or https URL", Settings{Embedding: Embedding{Provider: "ollama", Model: "m"}}},
		{"openai with a bad url", "embedding:\n  provider: openai\n  model: m\n  url: ftp://x\n", 4, "want an http or https URL", Settings{}},
		{"embedding a string", "embedding: ollama\n", 1, "want provider, model", Settings{}},
		{"repeated key", "max_file_size: 10\nmax_file_size: 20\n", 2, "set again (first on line 1)", Settings{MaxFileSize: 20}},
		{"not a mapping", "- exclude\n", 1, `want settings as "key: value" lines, got a list`, Settings{}},
		{"a scalar", "hello\n", 1, `got "hello"`, Settings{}},
		{"bad yaml", "exclude: [a\nmax_file_size: 1\n", 1, "not valid YAML", Settings{}},
		{"tab indentation", "exclude:\n\t- a\n", 2, "not valid YAML", Settings{}},
		{"key not a scalar", "? [a]\n: b\n", 1, "want a key name", Settings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("c.yaml", []byte(tt.yaml))
			var found bool
			for _, w := range f.Warnings {
				if w.Line == tt.line && strings.Contains(w.Message, tt.warning) {
					found = true
				}
			}
			if !found {
				t.Errorf("warnings %v, want one on line %d with %q", f.Warnings, tt.line, tt.warning)
			}
			if !reflect.DeepEqual(f.Settings, tt.want) {
				t.Errorf("settings %+v, want %+v", f.Settings, tt.want)
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n", "~\n", "---\n"} {
		f := Parse("c.yaml", []byte(text))
		if len(f.Warnings) != 0 || !reflect.DeepEqual(f.Settings, Settings{}) {
			t.Errorf("%q: settings %+v, warnings %v; want nothing set and no warning", text, f.Settings, f.Warnings)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"512KiB", 512 << 10}, {"2MB", 2e6}, {"2 mib", 2 << 20}, {"1_000", 1000}, {"10B", 10}, {"1GiB", 1 << 30},
	}
	for _, tt := range tests {
		if got, err := ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "KiB", "1.5MB", "-2", "0", "2TB", "1e6", "12 parsecs"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
}

func TestLoad(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		f, err := Load(t.TempDir())
		if err != nil || f.Exists || len(f.Warnings) != 0 {
			t.Fatalf("Load = %+v, %v; want a file that does not exist, no warning", f, err)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".anchorage", "config.yaml"), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := Load(root)
		if err != nil || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Message, "is a directory") {
			t.Fatalf("Load = %+v, %v; want a warning that it is a directory", f, err)
		}
	})
	t.Run("read", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".anchorage"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".anchorage", "config.yaml"), []byte("exclude: [worker/]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(root)
		if err != nil || !f.Exists || !reflect.DeepEqual(f.Settings.Exclude, []string{"worker/"}) {
			t.Fatalf("Load = %+v, %v", f, err)
		}
		if want := filepath.Join(root, ".anchorage", "config.yaml"); f.Path != want {
			t.Errorf("path %s, want %s", f.Path, want)
		}
	})
}

func TestResolve(t *testing.T) {
	f := Parse("c.yaml", []byte("max_file_size: 100\nembedding:\n  provider: ollama\n  model: m1\n"))
	r := Resolve(f)
	if r.Sources[KeyMaxFileSize] != RelPath+":1" || r.Sources[KeyExclude] != SourceDefault || r.Sources[KeyEmbeddingModel] != RelPath+":4" {
		t.Errorf("sources %v", r.Sources)
	}
	if r.Settings.MemoryDocuments == nil || r.Settings.MaxFileSize != 100 {
		t.Errorf("settings %+v: want the file's size over the defaults", r.Settings)
	}
	// A flag for the model keeps the file's provider.
	r.Override(Settings{Embedding: Embedding{Model: "m2"}}, "--embedding-model")
	if e := r.Settings.Embedding; e.Provider != "ollama" || e.Model != "m2" || r.Sources[KeyEmbeddingModel] != "--embedding-model" || r.Sources[KeyEmbeddingProvider] != RelPath+":3" {
		t.Errorf("embedding %+v, sources %v", e, r.Sources)
	}
	// Another provider replaces the whole server.
	r.Override(Settings{Embedding: Embedding{Provider: "openai", URL: "http://h"}}, SourceEditor)
	if e := r.Settings.Embedding; e != (Embedding{Provider: "openai", URL: "http://h"}) || r.Sources[KeyEmbeddingModel] != SourceEditor {
		t.Errorf("embedding %+v, sources %v", e, r.Sources)
	}
	// An empty list given is a setting (exclude nothing from the file).
	r.Override(Settings{Exclude: []string{}}, "--exclude")
	if r.Sources[KeyExclude] != "--exclude" {
		t.Errorf("sources %v", r.Sources)
	}
	if r.Value(KeyLanguages) != "(all)" || r.Value(KeyMaxFileSize) != "100 bytes" {
		t.Errorf("values %q %q", r.Value(KeyLanguages), r.Value(KeyMaxFileSize))
	}
}
