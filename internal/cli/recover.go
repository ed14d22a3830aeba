package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"
	"github.com/spf13/cobra"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/state"
)

// Run runs the command line with args, writing to stdout and stderr. The index is a cache: when a
// command that only reads it (and writes nothing the user made) fails
// because a database cannot be read, and the workspace's index is that
// database, the index is rebuilt, this is said once on stderr, and the
// command runs again. The user's database is never rebuilt.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root, g := newRootCmdFlags(stdout, stderr)
	root.SetArgs(args)
	ran, err := root.ExecuteContextC(ctx)
	if err == nil {
		return nil
	}
	if !analysis.IsCorrupt(err) || !rerunnable(ran) {
		return explainFullDisk(err, g)
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
	return explainFullDisk(again.ExecuteContext(ctx), g)
}

// minFreeSpace is the free space under which a disk counts as full.
const minFreeSpace = 1 << 20

// explainFullDisk says that a disk is full when err is an I/O error and a
// disk holding Anchorage's state has (almost) no space left: SQLite then
// reports "disk I/O error" (the shared memory index of the write-ahead
// log cannot grow) or "database or disk is full".
func explainFullDisk(err error, g *globalFlags) error {
	if err == nil || !(errors.Is(err, sqlite3.IOERR) || errors.Is(err, sqlite3.FULL) || errors.Is(err, syscall.ENOSPC)) {
		return err
	}
	dirs, derr := state.Resolve(g.dataDir)
	if derr != nil {
		return err
	}
	for _, dir := range []string{dirs.Data, dirs.Cache} {
		free, ok := freeSpace(dir)
		if ok && free < minFreeSpace {
			return fmt.Errorf("the disk holding %s is full (%d KiB free): free some space and run the command again; nothing already stored was lost (%w)", dir, free>>10, err)
		}
	}
	return err
}

// freeSpace returns the space available to this user on the file system
// of dir, or of its nearest existing parent.
func freeSpace(dir string) (uint64, bool) {
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err == nil {
			return st.Bavail * uint64(st.Bsize), true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return 0, false
		}
		dir = parent
	}
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
	sess, err := session.New(ctx, dirs, session.Options{Index: func(string) (analysis.Options, error) {
		return analysis.Options{Check: analysis.CheckAll}, nil
	}})
	if err != nil {
		return path, false, err
	}
	defer sess.Close()
	ix, err := sess.Index(ctx, root)
	if err != nil {
		return path, false, err
	}
	return path, ix.Rebuilt, nil
}
