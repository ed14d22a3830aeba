package config

import (
	"fmt"
	"strings"
)

// SourceEditor is the source of a setting the editor sent the language
// server.
const SourceEditor = "editor settings"

// Resolved are the settings in force for a workspace, with where each
// came from.
type Resolved struct {
	// Settings are the values in force; unset fields hold the defaults.
	Settings Settings
	// Sources gives, for each key in Keys, where its value came from:
	// SourceDefault, the settings file and line (".anchorage/config.yaml:3"),
	// a flag ("--exclude") or SourceEditor.
	Sources map[string]string
	// File is the settings file read.
	File *File
}

// Resolve returns the settings of f over the defaults. f may be nil.
func Resolve(f *File) *Resolved {
	r := &Resolved{Settings: Defaults(), Sources: map[string]string{}, File: f}
	for _, k := range Keys() {
		r.Sources[k] = SourceDefault
	}
	if f != nil {
		for k, line := range f.Lines {
			r.Sources[k] = fmt.Sprintf("%s:%d", RelPath, line)
		}
		r.Settings = merge(r.Settings, f.Settings, nil)
	}
	return r
}

// Override sets the fields that o sets, recording source for each (a
// flag's name, or SourceEditor). When o names an embedding provider, it
// replaces every embedding field; else its embedding fields override one
// by one.
func (r *Resolved) Override(o Settings, source string) {
	r.Settings = merge(r.Settings, o, func(key string) { r.Sources[key] = source })
}

// merge returns s with the fields set in o; set, if not nil, is told the
// key of each.
func merge(s, o Settings, set func(key string)) Settings {
	if set == nil {
		set = func(string) {}
	}
	if o.Exclude != nil {
		s.Exclude = o.Exclude
		set(KeyExclude)
	}
	if o.MaxFileSize > 0 {
		s.MaxFileSize = o.MaxFileSize
		set(KeyMaxFileSize)
	}
	if o.Languages != nil {
		s.Languages = o.Languages
		set(KeyLanguages)
	}
	if o.MemoryDocuments != nil {
		s.MemoryDocuments = o.MemoryDocuments
		set(KeyMemoryDocuments)
	}
	if o.TeamURL != "" {
		s.TeamURL = o.TeamURL
		set(KeyTeamURL)
	}
	e := o.Embedding
	if e.Provider != "" && e.Provider != s.Embedding.Provider {
		// Another server: none of the old one's fields apply.
		s.Embedding = e
		for _, k := range []string{KeyEmbeddingProvider, KeyEmbeddingURL, KeyEmbeddingModel, KeyEmbeddingKeyEnv} {
			set(k)
		}
		return s
	}
	for _, f := range []struct {
		key      string
		dst, src *string
	}{
		{KeyEmbeddingProvider, &s.Embedding.Provider, &e.Provider},
		{KeyEmbeddingURL, &s.Embedding.URL, &e.URL},
		{KeyEmbeddingModel, &s.Embedding.Model, &e.Model},
		{KeyEmbeddingKeyEnv, &s.Embedding.APIKeyEnv, &e.APIKeyEnv},
	} {
		if *f.src != "" {
			*f.dst = *f.src
			set(f.key)
		}
	}
	return s
}

// Value returns a setting's value as printed by `anchorage config`.
func (r *Resolved) Value(key string) string {
	s := r.Settings
	list := func(xs []string, none string) string {
		if len(xs) == 0 {
			return none
		}
		return strings.Join(xs, ", ")
	}
	orNone := func(v, none string) string {
		if v == "" {
			return none
		}
		return v
	}
	switch key {
	case KeyExclude:
		return list(s.Exclude, "(none beyond the built-in exclusions and .gitignore)")
	case KeyMaxFileSize:
		return fmt.Sprintf("%d bytes", s.MaxFileSize)
	case KeyLanguages:
		return list(s.Languages, "(all)")
	case KeyMemoryDocuments:
		return list(s.MemoryDocuments, "(none)")
	case KeyEmbeddingProvider:
		return orNone(s.Embedding.Provider, "(built-in word vectors)")
	case KeyEmbeddingURL:
		return orNone(s.Embedding.URL, "(provider's default)")
	case KeyEmbeddingModel:
		return orNone(s.Embedding.Model, "(none)")
	case KeyEmbeddingKeyEnv:
		return orNone(s.Embedding.APIKeyEnv, "(none)")
	case KeyTeamURL:
		return orNone(RedactURL(s.TeamURL), "(none: rules are personal)")
	}
	return ""
}

// ApplyEnv puts the environment's settings over the settings file's:
// $ANCHORAGE_TEAM_URL (TeamURLEnv), recorded as its source. Flags and the
// editor's settings, applied after it with Override, take precedence.
// getenv is os.Getenv or a test's.
func (r *Resolved) ApplyEnv(getenv func(string) string) {
	if u := strings.TrimSpace(getenv(TeamURLEnv)); u != "" {
		r.Override(Settings{TeamURL: u}, "$"+TeamURLEnv)
	}
}
