// Command anchorage is a language server and command-line tool that keeps a
// code graph of a workspace, answers questions about the code, and keeps
// coding rules anchored to real examples in it.
//
// Usage:
//
//	anchorage index [--root DIR] [--json]
//	anchorage graph callers|callees|inheritance|imports|blast-radius SYMBOL
//	anchorage graph symbols QUERY
//	anchorage bench [--root DIR] [--json]
//	anchorage mcp [--root DIR] [--tools core|graph|memory|all]
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/anchorage-dev/anchorage/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "anchorage:", err)
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}
