package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
)

// documentSymbols is the outline as protocol values, which
// appendOutlineJSON encodes without making: its JSON is what the
// encoder's bytes must be.
func documentSymbols(nodes []*analysis.OutlineNode) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, protocol.DocumentSymbol{
			Name:           n.Symbol.Name,
			Detail:         n.Symbol.Signature,
			Kind:           symbolKind(n.Symbol.Kind),
			Range:          toRange(n.Symbol.Range),
			SelectionRange: selectionRange(n.Symbol),
			Children:       documentSymbols(n.Children),
		})
	}
	return out
}

// checkOutlineJSON fails unless appendOutlineJSON writes the bytes
// json.Marshal makes of the outline's protocol values.
func checkOutlineJSON(t testing.TB, name string, syms []analysis.SymbolInfo) {
	t.Helper()
	want, err := json.Marshal(documentSymbols(analysis.Outline(syms)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := appendOutlineJSON([]byte("prefix"), syms)
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("%s: appendOutlineJSON did not append to its buffer", name)
	}
	if got = got[len("prefix"):]; !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: the outline's JSON differs at byte %d:\n got  …%s\n want …%s", name, i, clip(got, i), clip(want, i))
	}
}

func clip(b []byte, i int) []byte {
	return b[max(0, i-40):min(len(b), i+40)]
}

// TestOutlineJSONFiles checks the outline's JSON of every file of the
// sample app, in every language, and of net/http/server.go, as an open
// document's symbols (numbered 1 to n).
func TestOutlineJSONFiles(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "testdata", "sampleapp"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{} // rel → absolute
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = p
		}
		return nil
	})
	if server := filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"); fileExists(server) {
		files["net/http/server.go"] = server
	}
	ctx := context.Background()
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: filepath.Join(t.TempDir(), "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w := analysis.NewWorkspace(ix)
	defer w.Shutdown(ctx)
	checked := map[string]bool{}
	for rel, abs := range files {
		if !ix.Languages().Supports(rel) {
			continue
		}
		text, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(ctx, rel, 1, text); err != nil {
			t.Fatalf("open %s: %v", rel, err)
		}
		syms, err := w.FileSymbols(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		if len(syms) < 2 {
			continue
		}
		checkOutlineJSON(t, rel, syms)
		lang, _ := ix.Languages().ForPath(rel)
		checked[lang.Name] = true
	}
	for _, lang := range []string{"go", "python", "typescript", "java", "rust"} {
		if !checked[lang] {
			t.Errorf("no %s file of the sample app had an outline to check", lang)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestOutlineJSONCases checks the outline's JSON of symbols an open
// document does not make but the index or bad input may: names that JSON
// escapes, numbers that are not 1 to n, parents that are missing or come
// after their children, nesting, no name range, and no symbols.
func TestOutlineJSONCases(t *testing.T) {
	rng := func(l0, c0, l1, c1 int) analysis.Range {
		return analysis.Range{Start: analysis.Position{Line: l0, Column: c0}, End: analysis.Position{Line: l1, Column: c1}}
	}
	mod := analysis.SymbolInfo{ID: 1, Kind: analysis.KindModule, Name: "m", Range: rng(0, 0, 99, 0)}
	for _, tc := range []struct {
		name string
		syms []analysis.SymbolInfo
	}{
		{"none", nil},
		{"module only", []analysis.SymbolInfo{mod}},
		{"escaped names", []analysis.SymbolInfo{mod,
			{ID: 2, Parent: 1, Kind: analysis.KindFunction, Name: "a<b>&\"c\"\\", Signature: "func(\t\n\r\b\f\x01\x1f\x7f)", Range: rng(1, 0, 2, 1), NameRange: rng(1, 5, 1, 6)},
			{ID: 3, Parent: 1, Kind: analysis.KindClass, Name: "bad \xff\xfe utf8 \xe2\x82", Signature: "line\u2028para\u2029", Range: rng(3, 0, 9, 1)},
			{ID: 4, Parent: 3, Kind: analysis.KindMethod, Name: "héllo wörld 世界 🎉", Range: rng(4, 2, 5, 3), NameRange: rng(4, 2, 4, 7)},
		}},
		{"index numbers", []analysis.SymbolInfo{
			{ID: 40, Parent: 0, Kind: analysis.KindModule, Name: "m"},
			{ID: 7, Parent: 40, Kind: analysis.KindStruct, Name: "S", Range: rng(1, 0, 4, 1)},
			{ID: 9, Parent: 7, Kind: analysis.KindMethod, Name: "M", Range: rng(2, 1, 3, 1)},
			{ID: 11, Parent: 9, Kind: analysis.KindFunction, Name: "inner", Range: rng(2, 3, 2, 9)},
			{ID: 12, Parent: 7, Kind: analysis.KindMethod, Name: "N", Range: rng(3, 1, 3, 9)},
			{ID: 13, Parent: 99, Kind: analysis.KindFunction, Name: "orphan", Range: rng(5, 0, 6, 0)},
		}},
		{"parent after child", []analysis.SymbolInfo{
			{ID: 1, Parent: 3, Kind: analysis.KindMethod, Name: "early", Range: rng(0, 0, 1, 0)},
			{ID: 2, Parent: 0, Kind: analysis.KindInterface, Name: "I", Range: rng(2, 0, 3, 0)},
			{ID: 3, Parent: 2, Kind: analysis.KindEnum, Name: "E", Range: rng(4, 0, 5, 0)},
			{ID: 4, Parent: 3, Kind: analysis.KindType, Name: "T", Range: rng(6, 0, 7, 0)},
		}},
		{"no module", []analysis.SymbolInfo{
			{ID: 1, Kind: analysis.KindFunction, Name: "f", Range: rng(0, 0, 1, 0)},
			{ID: 2, Parent: 1, Kind: analysis.KindTrait, Name: "g", Range: rng(0, 2, 0, 9), NameRange: rng(0, 2, 0, 3)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkOutlineJSON(t, tc.name, tc.syms) })
	}
}

// FuzzOutlineJSON checks the outline's JSON of symbols with any names,
// signatures, numbers and parents (a tree: parents of symbols numbered
// 1 to n, as an open document's are, or any number).
func FuzzOutlineJSON(f *testing.F) {
	f.Add("Serve", "func(l net.Listener) error", uint8(3), uint8(1), false)
	f.Add("a<b>&\u2028\xff", "\x00\t\"\\", uint8(9), uint8(0), true)
	f.Fuzz(func(t *testing.T, name, sig string, n, shape uint8, indexNumbers bool) {
		count := int(n%32) + 1
		syms := make([]analysis.SymbolInfo, count)
		for i := range syms {
			id := int64(i + 1)
			if indexNumbers {
				id = int64(1000 - 7*i)
			}
			syms[i] = analysis.SymbolInfo{ID: id, Kind: analysis.Kind([]analysis.Kind{analysis.KindModule, analysis.KindFunction, analysis.KindClass, analysis.KindMethod}[(i+int(shape))%4]),
				Name: name[:len(name)*i/count], Signature: sig[len(sig)*i/count:],
				Range: analysis.Range{Start: analysis.Position{Line: i, Column: int(shape)}, End: analysis.Position{Line: i + int(shape), Column: i}}}
			if i > 0 && shape%3 != 0 {
				// Parents come before their children (no cycle).
				syms[i].Parent = syms[(i*int(shape))%i].ID
			}
		}
		checkOutlineJSON(t, "fuzz", syms)
	})
}

// BenchmarkOutlineJSON encodes the outline of net/http/server.go as the
// server answers documentSymbol after a keystroke ("direct"), and as it
// did through the protocol values and json.Marshal ("protocol").
func BenchmarkOutlineJSON(b *testing.B) {
	server := filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")
	text, err := os.ReadFile(server)
	if err != nil {
		b.Skip("no Go standard library source:", err)
	}
	ctx := context.Background()
	root := b.TempDir()
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: filepath.Join(b.TempDir(), "index.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	w := analysis.NewWorkspace(ix)
	defer w.Shutdown(ctx)
	if err := w.Open(ctx, "server.go", 1, text); err != nil {
		b.Fatal(err)
	}
	syms, err := w.FileSymbols(ctx, "server.go")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appendOutlineJSON(make([]byte, 0, outlineBytesPerSymbol*len(syms)), syms)
		}
	})
	b.Run("protocol", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(documentSymbols(analysis.Outline(syms))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
