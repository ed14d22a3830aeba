package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that any settings file parses without a panic, that
// every warning names a line within the file (or none), and that what is
// set is valid.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "full.yaml")); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		"", "exclude: [a\n", "max_file_size: 1MiB\n", "languages: go\n", "embedding:\n  provider: openai\n",
		"? [a]\n: b\n", "a: &x [1]\nb: *x\n", "exclude: !!binary aGk=\n", "- - -\n", "max_file_size: 1e3\n",
		"embedding: {provider: ollama, model: m, api_key: k}\n", "\xff\xfe", "key: \"\\u0000\"\n",
		"memory:\n  team:\n    url: postgres://a:b@c/d\n", "memory: {team: {url: \"host=x password='p q'\"}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Parse("c.yaml", data)
		// YAML ends a line at \n, \r or \r\n.
		lines := strings.Count(string(data), "\n") + strings.Count(string(data), "\r") + 2
		for _, w := range file.Warnings {
			if w.Line < 0 || w.Line > lines {
				t.Errorf("warning on line %d of a %d-line file: %s", w.Line, lines, w)
			}
		}
		s := file.Settings
		if s.MaxFileSize < 0 {
			t.Errorf("negative size %d", s.MaxFileSize)
		}
		for _, p := range s.Exclude {
			if strings.TrimSpace(p) == "" {
				t.Errorf("empty exclude pattern kept")
			}
		}
		if p := s.Embedding.Provider; p != "" && p != "ollama" && p != "openai" {
			t.Errorf("provider %q kept", p)
		}
		if u := s.TeamURL; u != "" {
			if err := CheckTeamURL(u); err != nil {
				t.Errorf("team URL %q kept: %v", u, err)
			}
			if v := Resolve(file).Value(KeyTeamURL); HasPassword(v) {
				t.Errorf("printed team URL %q has a password", v)
			}
		}
		Resolve(file).Value(KeyExclude)
	})
}
