// Package config reads a workspace's settings file, .anchorage/config.yaml,
// which the command line, the language server and the MCP server all
// honour, and resolves the settings in force with where each came from:
// a built-in default, a line of the file, a command-line flag or the
// editor.
//
// The file is YAML:
//
//	# paths not to index, in .gitignore syntax ("!" brings a path back)
//	exclude:
//	  - worker/
//	  - "*.generated.go"
//	max_file_size: 512KiB      # bytes, or with KB, MB, KiB, MiB
//	languages: [go, python]    # only these (default: every supported one)
//	memory_documents:          # globs of Markdown memory documents
//	  - .anchorage/memory/**/*.md
//	embedding:                 # default: built-in word vectors, offline
//	  provider: ollama         # or openai
//	  model: nomic-embed-text
//	  url: http://localhost:11434
//	  api_key_env: OPENAI_API_KEY
//	memory:
//	  team:                    # the team's rules (default: none)
//	    url: postgres://db.example.com/anchorage?sslmode=verify-full
//
// A file that cannot be read or parsed, an unknown key or a bad value is
// not an error: it gives a Warning naming the line, and the default is
// used for what was wrong.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// RelPath is the settings file's path relative to the workspace root,
// next to the memory documents in .anchorage/memory.
const RelPath = ".anchorage/config.yaml"

// MaxFileBytes is the largest settings file read; a larger one is
// ignored with a warning.
const MaxFileBytes = 1 << 20

// Keys of the settings, as written in the file and printed by `anchorage
// config`.
const (
	KeyExclude           = "exclude"
	KeyMaxFileSize       = "max_file_size"
	KeyLanguages         = "languages"
	KeyMemoryDocuments   = "memory_documents"
	KeyEmbeddingProvider = "embedding.provider"
	KeyEmbeddingURL      = "embedding.url"
	KeyEmbeddingModel    = "embedding.model"
	KeyEmbeddingKeyEnv   = "embedding.api_key_env"
	KeyTeamURL           = "memory.team.url"
)

// TeamURLEnv is the environment variable naming the team database when
// neither a flag nor the editor does; it overrides the settings file.
const TeamURLEnv = "ANCHORAGE_TEAM_URL"

// Keys lists every setting in the order they are printed.
func Keys() []string {
	return []string{KeyExclude, KeyMaxFileSize, KeyLanguages, KeyMemoryDocuments,
		KeyEmbeddingProvider, KeyEmbeddingURL, KeyEmbeddingModel, KeyEmbeddingKeyEnv, KeyTeamURL}
}

// SourceDefault is the source of a setting nobody set.
const SourceDefault = "default"

// Embedding names an embedding server for semantic search.
type Embedding struct {
	// Provider is "ollama" or "openai"; "" means the built-in word
	// vectors.
	Provider string `json:"provider,omitempty"`
	URL      string `json:"url,omitempty"`
	Model    string `json:"model,omitempty"`
	// APIKeyEnv names the environment variable holding the API key.
	APIKeyEnv string `json:"api_key_env,omitempty"`
}

// Settings are a workspace's settings. A zero field is unset: nil lists,
// a zero size, empty strings.
type Settings struct {
	// Exclude are paths not to index, in .gitignore syntax, relative to
	// the workspace root; they add to the built-in exclusions
	// (analysis.DefaultExclude) and the .gitignore files, and a negated
	// pattern brings a path back (analysis.Options.Ignore).
	Exclude []string `json:"exclude"`
	// MaxFileSize is the size in bytes above which files are not indexed.
	MaxFileSize int64 `json:"max_file_size"`
	// Languages, when not empty, are the only languages indexed.
	Languages []string `json:"languages"`
	// MemoryDocuments are globs of the Markdown memory documents.
	MemoryDocuments []string `json:"memory_documents"`
	// Embedding names an embedding server; its zero value means the
	// built-in word vectors.
	Embedding Embedding `json:"embedding"`
	// TeamURL is the PostgreSQL connection string (a URL or key=value
	// DSN) of the team's rules (package memory/team); "" means no team.
	// It is printed only through RedactURL.
	TeamURL string `json:"team_url,omitempty"`
}

// Defaults returns the settings that apply when nothing sets them.
func Defaults() Settings {
	return Settings{
		Exclude:         []string{},
		MaxFileSize:     analysis.DefaultMaxFileSize,
		Languages:       []string{},
		MemoryDocuments: memdoc.DefaultGlobs(),
	}
}

// Warning is a problem found in a settings file: the line is 1-based, 0
// when the problem is with the whole file.
type Warning struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message)
	}
	return fmt.Sprintf("%s: %s", w.Path, w.Message)
}

// File is what a settings file sets.
type File struct {
	// Path is the file's name as given to Parse or found by Load.
	Path string
	// Exists reports whether the file was found.
	Exists bool
	// Settings holds the values the file sets; the others are zero.
	Settings Settings
	// Lines gives, for each key the file sets, the line it is set on.
	Lines map[string]int
	// Warnings are the problems found, in the order of the file.
	Warnings []Warning
}

// Load reads root's settings file. A missing file sets nothing; one that
// cannot be read sets nothing and has a warning. The error is reserved for
// a root that cannot be made absolute.
func Load(root string) (*File, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("settings of %s: %w", root, err)
	}
	path := filepath.Join(abs, filepath.FromSlash(RelPath))
	f := &File{Path: path, Lines: map[string]int{}}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		f.warn(0, "cannot be read, defaults used: %v", err)
		return f, nil
	case info.IsDir():
		f.warn(0, "is a directory, not a file; defaults used")
		return f, nil
	case info.Size() > MaxFileBytes:
		f.warn(0, "is %d bytes, more than the %d a settings file may have; defaults used", info.Size(), MaxFileBytes)
		return f, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.warn(0, "cannot be read, defaults used: %v", err)
		return f, nil
	}
	return Parse(path, data), nil
}

// Parse reads settings from the YAML text of a file named path. It never
// fails: what it cannot use is reported in the File's Warnings.
func Parse(path string, data []byte) *File {
	f := &File{Path: path, Exists: true, Lines: map[string]int{}}
	if len(data) > MaxFileBytes {
		f.warn(0, "is %d bytes, more than the %d a settings file may have; defaults used", len(data), MaxFileBytes)
		return f
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		f.warn(line, "not valid YAML, defaults used: %s", msg)
		return f
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return f // empty file, or only comments
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return f
	}
	if top.Kind != yaml.MappingNode {
		f.warn(top.Line, "want settings as \"key: value\" lines, got %s; defaults used", describe(top))
		return f
	}
	f.mapping(top, "", map[string]func(k, v *yaml.Node, key string){
		"exclude":          f.exclude,
		"max_file_size":    f.maxFileSize,
		"languages":        f.languages,
		"memory_documents": f.memoryDocuments,
		"embedding":        f.embedding,
		"memory":           f.memory,
	})
	return f
}

func (f *File) warn(line int, format string, args ...any) {
	f.Warnings = append(f.Warnings, Warning{Path: f.Path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// mapping reads the keys of a mapping node with the handlers, warning
// about unknown and repeated keys. prefix is the mapping's own key and a
// dot, for nested mappings.
func (f *File) mapping(n *yaml.Node, prefix string, handlers map[string]func(k, v *yaml.Node, key string)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			f.warn(k.Line, "want a key name, got %s (ignored)", describe(k))
			continue
		}
		key := prefix + k.Value
		h, ok := handlers[k.Value]
		if !ok {
			names := make([]string, 0, len(handlers))
			for name := range handlers {
				names = append(names, prefix+name)
			}
			slices.Sort(names)
			msg := fmt.Sprintf("unknown key %q (ignored)", key)
			if near := nearest(key, names); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else {
				msg += "; known keys: " + strings.Join(names, ", ")
			}
			f.warn(k.Line, "%s", msg)
			continue
		}
		if line, dup := seen[key]; dup {
			f.warn(k.Line, "%s is set again (first on line %d); the later value is used", key, line)
		}
		seen[key] = k.Line
		h(k, v, key)
	}
}

// item is a string of a list, with its line.
type item struct {
	value string
	line  int
}

// stringList reads a list of strings, or a single string as a list of one.
// It returns false and warns when the value is neither.
func (f *File) stringList(v *yaml.Node, key string) ([]item, bool) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return []item{}, true
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		return []item{{v.Value, v.Line}}, true
	case v.Kind == yaml.SequenceNode:
		out := []item{}
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
				f.warn(it.Line, "%s: want a string, got %s (ignored)", key, describe(it))
				continue
			}
			out = append(out, item{it.Value, it.Line})
		}
		return out, true
	}
	f.warn(v.Line, "%s: want a list of strings, got %s; the default is used", key, describe(v))
	return nil, false
}

func (f *File) exclude(k, v *yaml.Node, key string) {
	pats, ok := f.stringList(v, key)
	if !ok {
		return
	}
	out := []string{}
	for _, p := range pats {
		if strings.TrimSpace(p.value) == "" || strings.HasPrefix(p.value, "#") {
			f.warn(p.line, "%s: an empty pattern or a comment excludes nothing (ignored)", key)
			continue
		}
		if problem := PatternProblem(p.value); problem != "" {
			f.warn(p.line, "%s: %q %s (ignored)", key, p.value, problem)
			continue
		}
		out = append(out, p.value)
	}
	f.Settings.Exclude = out
	f.Lines[KeyExclude] = k.Line
}

// PatternProblem says what is wrong with an exclude pattern (.gitignore syntax)
// that matches nothing: a bracket or escape left open (a syntax error
// of path.Match, which the matcher reports by never matching), or a
// character range from a higher character to a lower one ("[z-a]"). It
// returns "" for a usable pattern.
func PatternProblem(pattern string) string {
	p := strings.TrimPrefix(pattern, "!")
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if seg == "**" || seg == "" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return "is not a valid pattern (a bracket or a backslash left open)"
		}
		if lo, hi, ok := reversedRange(seg); ok {
			return fmt.Sprintf("has the range %c-%c, from a higher character to a lower one, which matches nothing", lo, hi)
		}
	}
	return ""
}

// reversedRange finds a range of a character class of a pattern whose
// first character comes after its last.
func reversedRange(seg string) (lo, hi rune, ok bool) {
	r := []rune(seg)
	for i := 0; i < len(r); i++ {
		switch r[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(r) && (r[j] == '^' || r[j] == '!') {
				j++
			}
			for first := true; j < len(r) && (first || r[j] != ']'); first = false {
				c := r[j]
				if c == '\\' && j+1 < len(r) {
					j++
					c = r[j]
				}
				j++
				if j+1 < len(r) && r[j] == '-' && r[j+1] != ']' {
					d := r[j+1]
					if d == '\\' && j+2 < len(r) {
						j++
						d = r[j+1]
					}
					if c > d {
						return c, d, true
					}
					j += 2
				}
			}
			i = j
		}
	}
	return 0, 0, false
}

func (f *File) maxFileSize(k, v *yaml.Node, key string) {
	if v.Kind != yaml.ScalarNode {
		f.warn(v.Line, "%s: want a size such as 1048576, 512KiB or 2MB, got %s; the default is used", key, describe(v))
		return
	}
	n, err := ParseSize(v.Value)
	if err != nil {
		f.warn(v.Line, "%s: %v; the default is used", key, err)
		return
	}
	f.Settings.MaxFileSize = n
	f.Lines[KeyMaxFileSize] = k.Line
}

func (f *File) languages(k, v *yaml.Node, key string) {
	names, ok := f.stringList(v, key)
	if !ok {
		return
	}
	known := analysis.Names()
	out := []string{}
	for _, name := range names {
		l := strings.ToLower(strings.TrimSpace(name.value))
		if !slices.Contains(known, l) {
			f.warn(name.line, "%s: unknown language %q (ignored); known: %s", key, name.value, strings.Join(known, ", "))
			continue
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(out) == 0 && len(names) > 0 {
		f.warn(k.Line, "%s: no known language listed; every language is indexed", key)
		return
	}
	f.Settings.Languages = out
	f.Lines[KeyLanguages] = k.Line
}

func (f *File) memoryDocuments(k, v *yaml.Node, key string) {
	globs, ok := f.stringList(v, key)
	if !ok {
		return
	}
	out := []string{}
	for _, it := range globs {
		g := it.value
		switch {
		case strings.TrimSpace(g) == "":
			f.warn(it.line, "%s: an empty glob matches nothing (ignored)", key)
			continue
		case filepath.IsAbs(g) || strings.HasPrefix(g, "../") || g == "..":
			f.warn(it.line, "%s: %q is outside the workspace; globs are relative to its root (ignored)", key, g)
			continue
		case !doublestar.ValidatePattern(g):
			f.warn(it.line, "%s: %q is not a valid glob (ignored)", key, g)
			continue
		}
		out = append(out, g)
	}
	if len(out) == 0 && len(globs) > 0 {
		f.warn(k.Line, "%s: no usable glob; the default is used", key)
		return
	}
	f.Settings.MemoryDocuments = out
	f.Lines[KeyMemoryDocuments] = k.Line
}

func (f *File) embedding(k, v *yaml.Node, key string) {
	if v.Kind != yaml.MappingNode {
		f.warn(v.Line, "%s: want provider, model, url and api_key_env under it, got %s; the built-in word vectors are used", key, describe(v))
		return
	}
	var e Embedding
	lines := map[string]int{}
	scalar := func(dst *string, full string) func(k, v *yaml.Node, key string) {
		return func(k, v *yaml.Node, key string) {
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				f.warn(v.Line, "%s: want a string, got %s (ignored)", key, describe(v))
				return
			}
			*dst = strings.TrimSpace(v.Value)
			lines[full] = k.Line
		}
	}
	f.mapping(v, key+".", map[string]func(k, v *yaml.Node, key string){
		"provider":    scalar(&e.Provider, KeyEmbeddingProvider),
		"url":         scalar(&e.URL, KeyEmbeddingURL),
		"model":       scalar(&e.Model, KeyEmbeddingModel),
		"api_key_env": scalar(&e.APIKeyEnv, KeyEmbeddingKeyEnv),
		"api_key": func(k, v *yaml.Node, key string) {
			f.warn(k.Line, "%s: an API key does not belong in a file that gets shared (ignored); name the environment variable that holds it with api_key_env", key)
		},
	})
	if e.URL != "" {
		if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			f.warn(lines[KeyEmbeddingURL], "%s.url: want an http or https URL such as http://localhost:11434, got %q (ignored)", key, e.URL)
			e.URL = ""
			delete(lines, KeyEmbeddingURL)
		}
	}
	e.Provider = strings.ToLower(e.Provider)
	switch e.Provider {
	case "", "none", "builtin", "wordvec":
		if e.Provider == "" && (e.Model != "" || e.URL != "" || e.APIKeyEnv != "") {
			f.warn(k.Line, "%s: no provider (ollama or openai) is named; the built-in word vectors are used", key)
		}
		if e.Provider != "" {
			lines = map[string]int{KeyEmbeddingProvider: lines[KeyEmbeddingProvider]}
		} else {
			lines = map[string]int{}
		}
		e = Embedding{}
	case "ollama", "openai":
		if e.Model == "" {
			f.warn(k.Line, "%s: provider %s needs a model; the built-in word vectors are used", key, e.Provider)
			return
		}
		if e.Provider == "openai" && e.URL == "" {
			f.warn(k.Line, "%s: provider openai needs a url, so that no code leaves the machine unless you say where to; the built-in word vectors are used", key)
			return
		}
	default:
		f.warn(lines[KeyEmbeddingProvider], "%s.provider: unknown provider %q, want ollama or openai; the built-in word vectors are used", key, e.Provider)
		return
	}
	f.Settings.Embedding = e
	for k, line := range lines {
		f.Lines[k] = line
	}
}

// ParseSize reads a size in bytes: a whole number, optionally followed by
// B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			mult, t = u.mult, strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("want a size such as 1048576, 512KiB or 2MB (more than 0, at most 1TiB), got %q", s)
	}
	return n * mult, nil
}

// describe names a YAML node's kind for a warning.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return strconv.Quote(v)
	}
	return "an empty document"
}

// yamlErrorLine splits "yaml: line 3: did not find expected key" into the
// line and the message.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, tail
			}
		}
	}
	return 0, msg
}

// nearest returns the name closest to key when it is a likely misspelling
// (an edit distance of at most 2), else "".
func nearest(key string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(key, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (f *File) memory(k, v *yaml.Node, key string) {
	if v.Kind != yaml.MappingNode {
		f.warn(v.Line, "%s: want team.url under it, got %s (ignored)", key, describe(v))
		return
	}
	f.mapping(v, key+".", map[string]func(k, v *yaml.Node, key string){
		"team": func(k, v *yaml.Node, key string) {
			if v.Kind != yaml.MappingNode {
				f.warn(v.Line, "%s: want url under it, got %s (ignored)", key, describe(v))
				return
			}
			f.mapping(v, key+".", map[string]func(k, v *yaml.Node, key string){
				"url": f.teamURL,
			})
		},
	})
}

func (f *File) teamURL(k, v *yaml.Node, key string) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		f.warn(v.Line, "%s: want a PostgreSQL connection string, got %s (ignored)", key, describe(v))
		return
	}
	u := strings.TrimSpace(v.Value)
	if err := CheckTeamURL(u); err != nil {
		f.warn(v.Line, "%s: %v (ignored)", key, err)
		return
	}
	if HasPassword(u) {
		f.warn(v.Line, "%s: a password does not belong in a file that gets shared; put it in ~/.pgpass or $PGPASSWORD (the URL is used, and never printed with it)", key)
	}
	f.Settings.TeamURL = u
	f.Lines[KeyTeamURL] = k.Line
}
