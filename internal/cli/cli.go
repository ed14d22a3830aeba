// Package cli implements the anchorage command line: one file per command
// group (index, graph, search and route, memory, slots, serve and mcp,
// bench, config). The anchorage binary's main calls [Run].
package cli

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/internal/config"
	"github.com/anchorage-dev/anchorage/retrieval/embedding"
)

// globalFlags are the flags every command takes.
type globalFlags struct {
	dataDir string
	root    string
	json    bool
	// embedding configures an embedding server for semantic search;
	// without one, built-in word vectors are used.
	embedding embedding.Config
	// settings are the workspace's settings in force: the settings file
	// of --root with this run's flags over it. Set before any command
	// runs (see loadSettings).
	settings *config.Resolved
	// teamURL is --team-url (see settings for the URL in force).
	teamURL string
	// stderr is the command line's standard error.
	stderr io.Writer
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root, _ := newRootCmdFlags(stdout, stderr)
	return root
}

// newRootCmdFlags returns the command line and the global flags it sets.
func newRootCmdFlags(stdout, stderr io.Writer) (*cobra.Command, *globalFlags) {
	g := &globalFlags{stderr: stderr}
	root := &cobra.Command{
		Use:           "anchorage",
		Short:         "A code graph, a search router and anchored coding rules, for editors and the command line",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.loadSettings(cmd)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", "", "directory for all of Anchorage's state (default: user cache and data directories; env ANCHORAGE_HOME)")
	root.PersistentFlags().StringVar(&g.root, "root", ".", "workspace root directory")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print JSON")
	root.PersistentFlags().StringVar(&g.embedding.Kind, "embedding-provider", "", "embed code for semantic search with a server: ollama or openai (default: built-in word vectors, offline)")
	root.PersistentFlags().StringVar(&g.embedding.URL, "embedding-url", "", "the embedding server's URL (default for ollama: "+embedding.DefaultOllamaURL+")")
	root.PersistentFlags().StringVar(&g.embedding.Model, "embedding-model", "", "the embedding model")
	root.PersistentFlags().StringVar(&g.embedding.APIKeyEnv, "embedding-api-key-env", "", "environment variable holding the embedding server's API key")
	root.PersistentFlags().StringVar(&g.teamURL, "team-url", "", "the team's rules database, a PostgreSQL URL or DSN (default: $"+config.TeamURLEnv+", else memory.team.url of the settings file; a password is never printed)")
	root.AddCommand(newIndexCmd(g), newGraphCmd(g), newBenchCmd(g), newServeCmd(g), newRouteCmd(g), newSearchCmd(g), newRoutingStatsCmd(g), newMemoryCmd(g))
	root.AddCommand(newMCPCmd(g))
	root.AddCommand(newSlotsCmd(g))
	root.AddCommand(newConfigCmd(g))
	return root, g
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
