package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
)

// ErrOutsideRoot reports a path argument outside the workspace: it is
// refused without being read.
var ErrOutsideRoot = errors.New("outside the workspace")

// ResolveFile returns the path of a file argument relative to root (an
// absolute directory whose links are resolved), with forward slashes. A
// relative path is taken from root. The path must name an existing
// regular file inside root once its links are resolved; a path that
// leaves root, before or after resolving links, is ErrOutsideRoot, and
// nothing outside root is opened or read (only the link targets inside
// the path are looked up).
func ResolveFile(root, file string) (string, error) {
	switch {
	case strings.TrimSpace(file) == "":
		return "", errors.New("empty path")
	case len(file) > MaxPathBytes:
		return "", fmt.Errorf("path of %d bytes: the limit is %d", len(file), MaxPathBytes)
	case !utf8.ValidString(file) || strings.ContainsRune(file, 0):
		return "", fmt.Errorf("path %q is not a file name", file)
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, filepath.FromSlash(file))
	}
	abs = filepath.Clean(abs)
	// Refuse a path that leaves the root as written, before looking at
	// the disk at all.
	if _, err := analysis.RelPath(root, abs); err != nil {
		return "", fmt.Errorf("%s is %w %s", file, ErrOutsideRoot, root)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such file in the workspace", file)
	} else if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	rel, err := analysis.RelPath(root, resolved)
	if err != nil {
		return "", fmt.Errorf("%s leads %w %s (through a link)", file, ErrOutsideRoot, root)
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", file)
	}
	return rel, nil
}
