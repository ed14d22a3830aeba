package cli

import (
	"fmt"
	"log"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/mcp"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// mcpMaxLine is the largest JSON-RPC message the MCP server reads; a
// larger one ends the session (tool arguments have their own, smaller
// limits).
const mcpMaxLine = 4 << 20

func newMCPCmd(g *globalFlags) *cobra.Command {
	var (
		f       graphFlags
		profile string
		project string
		llm     memory.OllamaConfig
	)
	cmd := &cobra.Command{
		Use:   "mcp [--root DIR] [--tools core|graph|memory|all]",
		Short: "Serve the code graph, search and coding rules to AI agents over MCP (stdio)",
		Long: fmt.Sprintf(`Runs a Model Context Protocol server on stdin and stdout for an AI agent:
routed code search, the code graph (callers, callees, blast radius, symbols)
and the user's coding rules (rules and examples for a task, corrections and
proposals; approving a rule stays the user's action). The --root workspace
is indexed in the background; tools answer from what is indexed so far and
mark their answers partial meanwhile.

--tools chooses the tools served:
  core    %s
  graph   %s
  memory  %s
  all     every tool (the default)

Logs go to stderr.`, strings.Join(mcp.ProfileCore.Tools(), ", "), strings.Join(mcp.ProfileGraph.Tools(), ", "),
			strings.Join(mcp.ProfileMemory.Tools(), ", ")),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			p, err := mcp.ParseProfile(profile)
			if err != nil {
				return err
			}
			llmOpt, err := memory.LLMOption(llm)
			if err != nil {
				return fmt.Errorf("mcp: %w", err)
			}
			var memOpts []memory.Option
			if llmOpt != nil {
				memOpts = append(memOpts, llmOpt)
			}
			root, err := memdoc.CleanRoot(g.root)
			if err != nil {
				return err
			}
			// A server runs long: damage is looked for before it starts.
			sess, err := openSession(ctx, g, analysis.CheckRows, false)
			if err != nil {
				return err
			}
			// The MCP server writes the slots as it moves them (it has
			// no periodic flush): only short commands defer them.
			defer sess.Close()
			if tm := sess.Team(); tm != nil {
				tm.Start() // the team's rules stay up to date while agents read them
			}
			ix, err := sess.Index(ctx, root)
			if err != nil {
				return err
			}
			if ix.Rebuilt {
				fmt.Fprintf(cmd.ErrOrStderr(), "anchorage: the index database %s was unreadable and has been rebuilt\n", ix.Path())
			}
			// A server searches many times: searches rank from the
			// chunks' terms in memory once loaded.
			ix.KeepTermsInMemory()
			proj := strings.TrimSpace(project)
			svc, err := mcp.New(mcp.Options{
				Session: sess, Index: ix, Vectors: indexVectors(ix),
				Project: proj, Profile: p, Version: version, Log: cmd.ErrOrStderr(), NoIndex: f.noRefresh,
				MemoryDocuments: g.settings.Settings.MemoryDocuments, MemoryOptions: memOpts,
			})
			if err != nil {
				return err
			}
			defer svc.Close()
			return svc.Run(ctx, &mcp.LineTransport{
				Reader: cmd.InOrStdin(), Writer: cmd.OutOrStdout(), MaxMessage: mcpMaxLine,
				Log: log.New(cmd.ErrOrStderr(), "anchorage mcp: ", log.LstdFlags),
			})
		},
	}
	cmd.Flags().StringVar(&profile, "tools", string(mcp.ProfileAll), "the tools to serve: "+strings.Join(mcp.Profiles(), ", "))
	cmd.Flags().StringSlice("memory-docs", nil, "globs of the workspace's memory documents for memory_search (default: "+strings.Join(memdoc.DefaultGlobs(), ",")+", or the settings file's memory_documents)")
	cmd.Flags().StringVar(&llm.URL, "llm-url", "", "URL of an Ollama-compatible server to phrase proposals (default with --llm-model: "+memory.DefaultOllamaURL+")")
	cmd.Flags().StringVar(&llm.Model, "llm-model", "", "the LLM that phrases proposals (default: none, the deterministic fallback)")
	cmd.Flags().StringVar(&llm.API, "llm-api", memory.APIGenerate, "the LLM server's API: generate or chat")
	cmd.Flags().DurationVar(&llm.Timeout, "llm-timeout", memory.DefaultLLMTimeout, "how long to wait for each LLM answer")
	cmd.Flags().StringVar(&project, "project", "", "project name for project rule scopes (default: the base name of --root)")
	f.addFlags(cmd.Flags(), "answer from the index as it is, without indexing in the background")
	return cmd
}
