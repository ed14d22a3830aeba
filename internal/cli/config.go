package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/internal/config"
)

// configSetting is one setting as `anchorage config --json` prints it.
type configSetting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// configOutput is what `anchorage config --json` prints.
type configOutput struct {
	Root       string           `json:"root"`
	File       string           `json:"file"`
	FileExists bool             `json:"file_exists"`
	Settings   []configSetting  `json:"settings"`
	Warnings   []config.Warning `json:"warnings"`
}

func newConfigCmd(g *globalFlags) *cobra.Command {
	f := &indexFlags{}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the workspace's settings in force and where each came from",
		Long: `Prints the settings in force for --root: what to index (exclude, in
.gitignore syntax; max_file_size; languages), the memory documents'
globs and the embedding server, each with where it came from: "default",
the line of ` + config.RelPath + ` that sets it, or the flag that overrides
it for this run. The settings file is read by every command, by the
language server (where the editor's settings take precedence) and by
anchorage mcp. Problems in the file are warnings naming the line; the
default is used instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r := g.settings
			root, err := filepath.Abs(g.root)
			if err != nil {
				return err
			}
			out := configOutput{Root: root, File: filepath.Join(root, filepath.FromSlash(config.RelPath)), Warnings: []config.Warning{}}
			if r.File != nil {
				out.File, out.FileExists = r.File.Path, r.File.Exists
				out.Warnings = append(out.Warnings, r.File.Warnings...)
			}
			s := r.Settings
			values := map[string]any{
				config.KeyExclude: nonNil(s.Exclude), config.KeyMaxFileSize: s.MaxFileSize,
				config.KeyLanguages: nonNil(s.Languages), config.KeyMemoryDocuments: nonNil(s.MemoryDocuments),
				config.KeyEmbeddingProvider: s.Embedding.Provider, config.KeyEmbeddingURL: s.Embedding.URL,
				config.KeyEmbeddingModel: s.Embedding.Model, config.KeyEmbeddingKeyEnv: s.Embedding.APIKeyEnv,
			}
			for _, k := range config.Keys() {
				out.Settings = append(out.Settings, configSetting{Key: k, Value: values[k], Source: r.Sources[k]})
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			state := "not found, defaults apply"
			if out.FileExists {
				state = "read"
			}
			fmt.Fprintf(w, "Settings of %s\n  file: %s (%s)\n\n", root, out.File, state)
			for _, k := range config.Keys() {
				fmt.Fprintf(w, "  %-22s %-48s %s\n", k, r.Value(k), r.Sources[k])
			}
			if len(out.Warnings) > 0 {
				fmt.Fprintf(w, "\n%d warning(s), shown above on stderr: the defaults are used for what they name\n", len(out.Warnings))
			}
			return nil
		},
	}
	// The flags that override settings for one run, so that their effect
	// can be checked here.
	f.register(cmd.Flags(), "")
	cmd.Flags().StringSlice("memory-docs", nil, "globs of the memory documents")
	return cmd
}
