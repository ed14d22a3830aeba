package analysis

import (
	"fmt"
	"strings"
	"testing"
)

// largeSource is about n bytes of JavaScript-like code: functions that
// call g, each after a doc comment line when oneLine is false; on one
// line (a minified bundle) when oneLine is true. It returns the text and
// a graph of it as extraction would give: a module symbol, a function
// symbol for each function and a call reference in each.
func largeSource(n int, oneLine bool) ([]byte, *FileGraph, []span) {
	var b strings.Builder
	b.Grow(n + 128)
	g := &FileGraph{Path: "big.js", Language: "javascript"}
	g.Symbols = append(g.Symbols, Symbol{Parent: -1, Kind: KindModule, Name: "big", QualifiedName: "big"})
	var comments []span
	for i := 0; b.Len() < n; i++ {
		if !oneLine {
			start := b.Len()
			fmt.Fprintf(&b, "// f%d adds %d.\n", i, i)
			comments = append(comments, span{uint32(start), uint32(b.Len() - 1)})
		}
		start := b.Len()
		fmt.Fprintf(&b, "function f%d(a) {", i)
		if !oneLine {
			b.WriteString("\n  ")
		}
		call := b.Len()
		fmt.Fprintf(&b, "return g(a) + %d;", i)
		if !oneLine {
			b.WriteString("\n")
		}
		b.WriteString("}")
		end := b.Len()
		if oneLine {
			b.WriteString(";")
		} else {
			b.WriteString("\n")
		}
		name := fmt.Sprintf("f%d", i)
		g.Symbols = append(g.Symbols, Symbol{Index: len(g.Symbols), Parent: 0, Kind: KindFunction, Name: name, QualifiedName: name,
			Range: Range{Start: Position{Offset: start}, End: Position{Offset: end}}})
		g.Refs = append(g.Refs, Ref{Source: len(g.Symbols) - 1, Kind: EdgeCalls, Name: "g",
			Range: Range{Start: Position{Offset: call + 7}, End: Position{Offset: call + 8}}})
	}
	src := []byte(b.String())
	g.Symbols[0].Range = Range{End: Position{Offset: len(src)}}
	return src, g, comments
}

// BenchmarkChunkLarge chunks files of 1 to 64 MB, on one line and on many
// lines: time and allocations per byte stay flat as the size grows
// (chunking is linear in the text; long lines are not scanned again for
// each of their parts).
func BenchmarkChunkLarge(b *testing.B) {
	for _, shape := range []struct {
		name    string
		oneLine bool
	}{{"one-line", true}, {"lines", false}} {
		for _, mb := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				src, g, comments := largeSource(mb<<20, shape.oneLine)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lines := newLineIndex(src)
					if chunks := chunkFile(g, src, lines, comments); len(chunks) == 0 {
						b.Fatal("no chunks")
					}
				}
			})
		}
	}
}

// BenchmarkLinePositionsLong converts the offset of every symbol of a file
// of 1 to 64 MB to a line and column, as extraction does: on one line, the
// cost per position stays flat as the line grows.
func BenchmarkLinePositionsLong(b *testing.B) {
	for _, shape := range []struct {
		name    string
		oneLine bool
	}{{"one-line", true}, {"lines", false}} {
		for _, mb := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				src, g, _ := largeSource(mb<<20, shape.oneLine)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lines := newLineIndex(src)
					for _, s := range g.Symbols {
						lines.rangeOf(uint32(s.Range.Start.Offset), uint32(s.Range.End.Offset))
					}
				}
			})
		}
	}
}
