package mcp_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/mcp"
)

// benchRoot is the workspace the benchmarks serve: ANCHORAGE_MCP_BENCH_ROOT
// (for example the Go standard library, $(go env GOROOT)/src, with
// ANCHORAGE_MCP_BENCH_SYMBOL naming a symbol of it for the graph tools),
// else a copy of the sample app.
func benchRoot(b *testing.B) string {
	if root := os.Getenv("ANCHORAGE_MCP_BENCH_ROOT"); root != "" {
		return root
	}
	root, _ := workspace(b)
	return root
}

// BenchmarkStartToFirstCall times what an agent waits for: the server
// process starting, initialize, and the first tool call answered. Cold
// starts with no index (the call is answered while indexing runs); warm
// with the index of an earlier run.
func BenchmarkStartToFirstCall(b *testing.B) {
	root := benchRoot(b)
	warmData := b.TempDir()
	first := connect(b, root, warmData, "all")
	waitIndexedB(b, first)
	first.Close()
	for _, bc := range []struct {
		name string
		data func() string
	}{
		{"cold", func() string { return b.TempDir() }},
		{"warm", func() string { return warmData }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				data := bc.data()
				start := time.Now()
				cs := connect(b, root, data, "all")
				callB(b, cs, mcp.ToolSymbols, map[string]any{"query": "FindByID"})
				times = append(times, time.Since(start))
				cs.Close()
			}
			reportPercentiles(b, times)
		})
	}
}

// BenchmarkToolCall times tool calls over stdio on an indexed workspace,
// protocol included.
func BenchmarkToolCall(b *testing.B) {
	root := benchRoot(b)
	cs := connect(b, root, b.TempDir(), "all")
	waitIndexedB(b, cs)
	symbol := os.Getenv("ANCHORAGE_MCP_BENCH_SYMBOL")
	if symbol == "" {
		symbol = "FindByID"
	}
	for _, bc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"search semantic", mcp.ToolSearch, map[string]any{"query": "how are users loaded from the database?"}},
		{"search structural", mcp.ToolSearch, map[string]any{"query": "what calls FindByID"}},
		{"search keyword", mcp.ToolSearch, map[string]any{"query": "lines containing 'context.Context'"}},
		{"callers", mcp.ToolCallers, map[string]any{"symbol": symbol}},
		{"blast_radius", mcp.ToolBlastRadius, map[string]any{"symbol": symbol}},
		{"memory_search", mcp.ToolMemorySearch, map[string]any{"query": "how are users loaded?", "includeContent": true, "anchors": []string{"summary"}}},
		{"inject_context", mcp.ToolInjectContext, map[string]any{"query": "errors"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				callB(b, cs, bc.tool, bc.args)
				times = append(times, time.Since(start))
			}
			reportPercentiles(b, times)
		})
	}
}

func callB(b *testing.B, cs *sdk.ClientSession, name string, args map[string]any) {
	b.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %s", name, text(res))
	}
}

func waitIndexedB(b *testing.B, cs *sdk.ClientSession) {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolSymbols, Arguments: map[string]any{"query": "main"}})
		if err != nil {
			b.Fatal(err)
		}
		if m, ok := res.StructuredContent.(map[string]any); ok && m["partial"] == false {
			return
		}
	}
	b.Fatal("still indexing")
}

// reportPercentiles reports the median and 95th percentile in ms.
func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}
