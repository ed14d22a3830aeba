package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/internal/limits"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/retrieval/embedding"
)

// loadSettings reads the settings file of --root, prints its warnings on
// stderr and puts the flags cmd was given over it, into g.settings and
// g.embedding. The language server reads each workspace folder's file
// itself, so serve does not.
func (g *globalFlags) loadSettings(cmd *cobra.Command) error {
	if cmd.Name() == "serve" {
		g.settings = config.Resolve(nil)
		// Only the team database: the server reads each folder's
		// settings file itself, and the editor's settings override it.
		g.settings.ApplyEnv(os.Getenv)
		if fs := cmd.Flags(); fs.Changed("team-url") {
			u, _ := fs.GetString("team-url")
			g.settings.Override(config.Settings{TeamURL: u}, "--team-url")
		}
		return checkSettingFlags(g.settings)
	}
	f, err := config.Load(g.root)
	if err != nil {
		return err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "anchorage: warning: %s\n", w)
	}
	g.settings = config.Resolve(f)
	g.settings.ApplyEnv(os.Getenv)
	applyFlags(g.settings, cmd.Flags())
	if err := checkNumberFlags(cmd.Flags()); err != nil {
		return err
	}
	if err := checkSettingFlags(g.settings); err != nil {
		return err
	}
	e := g.settings.Settings.Embedding
	g.embedding = embedding.Config{Kind: e.Provider, URL: e.URL, Model: e.Model, APIKeyEnv: e.APIKeyEnv}
	return nil
}

// settingFlags maps each flag that overrides a setting for one run to the
// field it sets.
var settingFlags = []struct {
	flag string
	set  func(s *config.Settings, fs *pflag.FlagSet, name string)
}{
	{"exclude", func(s *config.Settings, fs *pflag.FlagSet, name string) {
		s.Exclude, _ = fs.GetStringSlice(name)
		if s.Exclude == nil {
			s.Exclude = []string{}
		}
	}},
	{"max-file-size", func(s *config.Settings, fs *pflag.FlagSet, name string) { s.MaxFileSize, _ = fs.GetInt64(name) }},
	{"languages", func(s *config.Settings, fs *pflag.FlagSet, name string) {
		s.Languages, _ = fs.GetStringSlice(name)
		if s.Languages == nil {
			s.Languages = []string{}
		}
	}},
	{"memory-docs", func(s *config.Settings, fs *pflag.FlagSet, name string) {
		s.MemoryDocuments, _ = fs.GetStringSlice(name)
	}},
	{"glob", func(s *config.Settings, fs *pflag.FlagSet, name string) {
		s.MemoryDocuments, _ = fs.GetStringSlice(name)
	}},
	{"embedding-provider", func(s *config.Settings, fs *pflag.FlagSet, name string) { s.Embedding.Provider, _ = fs.GetString(name) }},
	{"embedding-url", func(s *config.Settings, fs *pflag.FlagSet, name string) { s.Embedding.URL, _ = fs.GetString(name) }},
	{"embedding-model", func(s *config.Settings, fs *pflag.FlagSet, name string) { s.Embedding.Model, _ = fs.GetString(name) }},
	{"embedding-api-key-env", func(s *config.Settings, fs *pflag.FlagSet, name string) {
		s.Embedding.APIKeyEnv, _ = fs.GetString(name)
	}},
	{"team-url", func(s *config.Settings, fs *pflag.FlagSet, name string) { s.TeamURL, _ = fs.GetString(name) }},
}

// applyFlags puts the setting flags given on the command line over r,
// each recorded as its source.
func applyFlags(r *config.Resolved, fs *pflag.FlagSet) {
	for _, sf := range settingFlags {
		if fs.Lookup(sf.flag) == nil || !fs.Changed(sf.flag) {
			continue
		}
		var o config.Settings
		sf.set(&o, fs, sf.flag)
		r.Override(o, "--"+sf.flag)
	}
}

// numberFlags are the bounds of the numeric flags, wherever a command has
// one: the same as the language server's commands and the MCP tools
// (package limits).
var numberFlags = map[string]func(name string, v int) error{
	"depth":  limits.Depth,
	"top-k":  limits.TopK,
	"budget": limits.Budget,
	"limit":  limits.Symbols,
	"radius": func(name string, v int) error { return limits.Check(name, v, 0, recall.MaxRadius) },
}

// checkNumberFlags refuses numeric flags out of range with an error that
// names the flag and the range.
func checkNumberFlags(fs *pflag.FlagSet) error {
	if f := fs.Lookup("max-file-size"); f != nil && fs.Changed(f.Name) {
		if n, _ := fs.GetInt64(f.Name); n <= 0 {
			return fmt.Errorf("--max-file-size %d: want a size in bytes above 0", n)
		}
	}
	var errs []error
	for name, check := range numberFlags {
		f := fs.Lookup(name)
		if f == nil || f.Value.Type() != "int" {
			continue
		}
		v, err := fs.GetInt(name)
		if err != nil {
			continue
		}
		if err := check("--"+name, v); err != nil {
			errs = append(errs, err)
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// checkSettingFlags refuses bad values given on the command line (the
// settings file's are warned about and replaced by defaults instead).
func checkSettingFlags(r *config.Resolved) error {
	s := r.Settings
	if src := r.Sources[config.KeyTeamURL]; src == "--team-url" || src == "$"+config.TeamURLEnv {
		if err := config.CheckTeamURL(s.TeamURL); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
	if r.Sources[config.KeyExclude] == "--exclude" {
		for _, p := range s.Exclude {
			if problem := config.PatternProblem(p); problem != "" {
				return fmt.Errorf("--exclude %q %s", p, problem)
			}
		}
	}
	if r.Sources[config.KeyLanguages] == "--languages" {
		known := analysis.Names()
		for i, l := range s.Languages {
			s.Languages[i] = strings.ToLower(strings.TrimSpace(l))
			if !slices.Contains(known, s.Languages[i]) {
				return fmt.Errorf("--languages: unknown language %q; known: %s", l, strings.Join(known, ", "))
			}
		}
	}
	return nil
}

// languagesFlagHelp is the help of --languages.
func languagesFlagHelp(names []string) string {
	return "only index these languages (" + strings.Join(names, ", ") + "; default: all, or the settings file's languages)"
}

// noteOneRunFlags tells the user of index that a flag which changes what
// is indexed (--exclude, --languages, --max-file-size) holds for this run
// only: every later command refreshes the index with the settings file's
// values, so what the flag left out comes back. It prints the lines to
// put in the settings file to keep it, and nothing when the flag's value
// is the file's (or the default) already.
func noteOneRunFlags(w io.Writer, r *config.Resolved) {
	kept := config.Resolve(r.File).Settings
	s := r.Settings
	var flags, lines []string
	if r.Sources[config.KeyExclude] == "--exclude" && !slices.Equal(s.Exclude, kept.Exclude) {
		flags = append(flags, "--exclude")
		if len(s.Exclude) == 0 {
			lines = append(lines, config.KeyExclude+": []")
		} else {
			lines = append(lines, config.KeyExclude+":")
			for _, p := range s.Exclude {
				lines = append(lines, "  - "+strconv.Quote(p))
			}
		}
	}
	if r.Sources[config.KeyLanguages] == "--languages" && !slices.Equal(s.Languages, kept.Languages) {
		flags = append(flags, "--languages")
		lines = append(lines, config.KeyLanguages+": ["+strings.Join(s.Languages, ", ")+"]")
	}
	if r.Sources[config.KeyMaxFileSize] == "--max-file-size" && s.MaxFileSize != kept.MaxFileSize {
		flags = append(flags, "--max-file-size")
		lines = append(lines, config.KeyMaxFileSize+": "+strconv.FormatInt(s.MaxFileSize, 10))
	}
	if len(flags) == 0 {
		return
	}
	verb, pronoun := "is", "it"
	if len(flags) > 1 {
		verb, pronoun = "are", "they"
	}
	fmt.Fprintf(w, "anchorage: %s %s for this run only: later commands refresh the index by the settings (see anchorage config) and bring back what %s left out. To keep %s, set this in %s:\n",
		strings.Join(flags, " and "), verb, pronoun, pronoun, config.RelPath)
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}
