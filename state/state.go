// Package state decides where Anchorage keeps its state: one index
// database per workspace under the user cache directory, and the user's
// memories under the user data directory. A data directory given with
// --data-dir or ANCHORAGE_HOME holds all of it instead.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvHome is the environment variable that relocates all state.
const EnvHome = "ANCHORAGE_HOME"

// Dirs are the directories Anchorage writes to.
type Dirs struct {
	// Cache holds rebuildable data: the workspace indexes.
	Cache string
	// Data holds what users made: memories, approvals, corrections.
	Data string
}

// Resolve returns the state directories: dataDir when set (--data-dir),
// else $ANCHORAGE_HOME, else the user cache and data directories.
func Resolve(dataDir string) (Dirs, error) {
	if dataDir == "" {
		dataDir = os.Getenv(EnvHome)
	}
	if dataDir != "" {
		abs, err := filepath.Abs(dataDir)
		if err != nil {
			return Dirs{}, fmt.Errorf("data directory %s: %w", dataDir, err)
		}
		return Dirs{Cache: filepath.Join(abs, "cache"), Data: filepath.Join(abs, "data")}, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return Dirs{}, fmt.Errorf("find cache directory: %w (set %s or --data-dir)", err, EnvHome)
	}
	data, err := userDataDir()
	if err != nil {
		return Dirs{}, fmt.Errorf("find data directory: %w (set %s or --data-dir)", err, EnvHome)
	}
	return Dirs{Cache: filepath.Join(cache, "anchorage"), Data: filepath.Join(data, "anchorage")}, nil
}

// userDataDir follows the XDG base directory rules ($XDG_DATA_HOME, else
// ~/.local/share), and the platform's configuration directory elsewhere.
func userDataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err == nil && runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		return filepath.Join(home, ".local", "share"), nil
	}
	return os.UserConfigDir()
}

// IndexPath returns the index database of the workspace at root (an
// absolute, cleaned path): one directory per workspace, named after it and
// a hash of its path so that two checkouts never share an index.
func (d Dirs) IndexPath(root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(root))
	return filepath.Join(d.Cache, "index", name+"-"+hex.EncodeToString(sum[:6]), "index.db")
}

// MemoryPath returns the user's memory database.
func (d Dirs) MemoryPath() string {
	return filepath.Join(d.Data, "memory.db")
}

// FeedbackPath returns the database of routing statistics (see
// Profile Stats): beside the memory database, apart from it, so that
// reads never write to the user's rules.
func (d Dirs) FeedbackPath() string {
	return filepath.Join(d.Data, "feedback.db")
}

// ErrEmptyDatabase reports a user database file of 0 bytes. SQLite would
// take it for a new, empty database and write a fresh schema into it; an
// emptied memory database is more likely a mistake or a failed copy, so
// it is reported and left as it is.
var ErrEmptyDatabase = errors.New("the database file is empty (0 bytes)")

// CheckUserDatabase checks the user database at path before it is opened:
// a missing file may be created, but one of 0 bytes is an error wrapping
// ErrEmptyDatabase that says what to do.
func CheckUserDatabase(path string) error {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > 0 {
		return nil // opening reports anything else
	}
	// A database is being created by another process when its journal
	// is there already.
	for _, suffix := range []string{"-wal", "-journal"} {
		if _, err := os.Stat(path + suffix); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s: %w: it was left as it is; restore it from a backup, or remove it to start with no memories", path, ErrEmptyDatabase)
}
