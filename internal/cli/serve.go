package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/anchorage-dev/anchorage/internal/gcfloor"
	"github.com/anchorage-dev/anchorage/lsp"
)

// version is the release reported to editors.
const version = "0.1.0-dev"

func newServeCmd(g *globalFlags) *cobra.Command {
	var logFile, logLevel, profile string
	var slotFlush time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the language server over stdio",
		Long: `Runs the Language Server Protocol server on standard input and output, as
editors start it (--stdio, which some editors add, changes nothing). Logs
go to standard error, or to --log-file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			level := zap.NewAtomicLevel()
			var err error
			if err = level.UnmarshalText([]byte(logLevel)); err != nil {
				return err
			}
			out := zapcore.Lock(os.Stderr)
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					return err
				}
				defer f.Close()
				out = zapcore.Lock(f)
			}
			enc := zap.NewProductionEncoderConfig()
			enc.EncodeTime = zapcore.ISO8601TimeEncoder
			logger := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), out, level))
			defer logger.Sync()
			var prof *serveProfiler
			if profile != "" {
				if prof, err = startServeProfiler(profile); err != nil {
					return fmt.Errorf("--profile: %w", err)
				}
			}
			// Once the workspace is indexed little stays live, and
			// every keystroke allocates: the collector runs less often.
			floor := gcfloor.Start(gcfloor.DefaultFloor)
			s := lsp.New(lsp.Options{DataDir: g.dataDir, Logger: logger, Level: level, Version: version, SlotFlushEvery: slotFlush, TeamURL: g.settings.Settings.TeamURL})
			code := s.Serve(cmd.Context(), os.Stdin, os.Stdout)
			floor.Stop()
			if prof != nil {
				prof.stop() // os.Exit runs no deferred calls
			}
			logger.Sync()
			os.Exit(code)
			return nil
		},
	}
	cmd.Flags().StringVar(&logFile, "log-file", "", "write the log to this file instead of standard error")
	cmd.Flags().DurationVar(&slotFlush, "slot-flush", 0, "how long working-memory slot moves wait in memory before they are written (0: 30s; negative: only on exit)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	// For the project's benchmarks: a CPU profile and an execution trace
	// of the server, in phases that SIGUSR1 separates (serveProfiler).
	cmd.Flags().StringVar(&profile, "profile", "", "write a CPU profile and an execution trace to PREFIX.N.cpu and PREFIX.N.trace; each SIGUSR1 starts the next N")
	cmd.Flags().MarkHidden("profile")
	// Editors' client libraries add --stdio when told the server speaks
	// over stdio (VS Code's TransportKind.stdio): it is the only way this
	// server speaks, so the flag is accepted and changes nothing.
	cmd.Flags().Bool("stdio", true, "serve over standard input and output (the default and only transport)")
	return cmd
}
