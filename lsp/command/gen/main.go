// Command gen writes the editors' command constants generated from the
// declaration in package command: go generate ./lsp/command.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/anchorage-dev/anchorage/lsp/command"
)

func main() {
	// go generate runs in lsp/command; the files are the repository's.
	root := filepath.Join("..", "..")
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	for _, f := range []struct {
		path string
		text []byte
	}{
		{command.TypeScriptFile, command.TypeScript()},
		{command.LuaFile, command.Lua()},
	} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f.path)), f.text, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
	}
}
