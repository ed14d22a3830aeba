package analysis

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// benchFile is a large real Go file present on every machine with Go.
var benchFile = filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")

func loadBenchFile(b *testing.B) (*Language, []byte) {
	src, err := os.ReadFile(benchFile)
	if err != nil {
		b.Skipf("no benchmark corpus: %v", err)
	}
	lang, err := NewLanguages().ByName("go")
	if err != nil {
		b.Fatal(err)
	}
	return lang, src
}

// BenchmarkParse measures tree-sitter alone on net/http/server.go.
func BenchmarkParse(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		tree, err := p.Parse(context.Background(), lang, src, nil)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
	}
}

// BenchmarkExtract measures parsing plus symbol and edge extraction.
func BenchmarkExtract(b *testing.B) {
	lang, src := loadBenchFile(b)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := p.Extract(context.Background(), lang, "net/http/server.go", src); err != nil {
			b.Fatal(err)
		}
	}
}
