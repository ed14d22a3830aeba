package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/state"
)

// execute runs the command line with args. The index is a cache: when a
// command that only reads it (and writes nothing the user made) fails
// because a database cannot be read, and the workspace's index is that
// database, the index is rebuilt, this is said once on stderr, and the
// command runs again. The user's database is never rebuilt.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root, g := newRootCmdFlags(stdout, stderr)
	root.SetArgs(args)
	ran, err := root.ExecuteContextC(ctx)
	if err == nil || !analysis.IsCorrupt(err) || !rerunnable(ran) {
		return err
	}
	path, rebuilt, rerr := rebuildDamagedIndex(ctx, g)
	if rerr != nil {
		return fmt.Errorf("%w (and checking the index failed: %v)", err, rerr)
	}
	if !rebuilt {
		return err // another database: never rebuilt
	}
	fmt.Fprintf(stderr, "anchorage: the index database %s was unreadable and has been rebuilt\n", path)
	again := newRootCmd(stdout, stderr)
	again.SetArgs(args)
	return again.ExecuteContext(ctx)
}

// rerunnable reports whether cmd may run again after a failure: it
// answers from the index and records nothing but routing statistics.
func rerunnable(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	switch cmd.CommandPath() {
	case "anchorage index", "anchorage search", "anchorage route",
		"anchorage memory inject", "anchorage memory anchor-test":
		return true
	}
	return cmd.Parent() != nil && cmd.Parent().CommandPath() == "anchorage graph"
}

// rebuildDamagedIndex checks the whole index of the --root workspace and
// rebuilds it (empty: the next command indexes again) if it cannot be
// read. It returns the index's path and whether it was rebuilt.
func rebuildDamagedIndex(ctx context.Context, g *globalFlags) (string, bool, error) {
	dirs, err := state.Resolve(g.dataDir)
	if err != nil {
		return "", false, err
	}
	root, err := filepath.Abs(g.root)
	if err != nil {
		return "", false, err
	}
	path := dirs.IndexPath(root)
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: path, Check: analysis.CheckAll})
	if err != nil {
		return path, false, err
	}
	defer ix.Close()
	return path, ix.Rebuilt, nil
}
