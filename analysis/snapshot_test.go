package analysis

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestSnapshotLinksReferencesOnDemand types into an open document: a
// keystroke keeps the workspace's text rather than a copy and links the
// symbols only; the references are linked when first
// asked for, once per version, equal to a fresh extraction's; FileSymbols
// answers every reader of one version with the same symbols.
func TestSnapshotLinksReferencesOnDemand(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\ntype T struct{}\n\n// Find finds.\nfunc (T) Find() { Later() }\n\nfunc Later() { T{}.Find() }\n"
	writeWorkspace(t, root, map[string]string{"a.go": src})
	ix := openTestIndex(t, root, nil)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	lang, err := ix.langs.ForPath("a.go")
	if err != nil {
		t.Fatal(err)
	}
	fresh := NewParser()
	defer fresh.Close()
	for i, r := range "x := 1 + (" {
		v := int32(i + 2)
		at := &EditRange{StartLine: 5, StartColumn: 18 + i, EndLine: 5, EndColumn: 18 + i}
		if err := w.Change(ctx, "a.go", v, []TextEdit{{Range: at, Text: string(r)}}); err != nil {
			t.Fatal(err)
		}
		first, err := w.FileSymbols(ctx, "a.go")
		if err != nil {
			t.Fatal(err)
		}
		text, snap, version, ok := w.parsedSnapshot(ctx, "a.go", true)
		if !ok || version != v {
			t.Fatalf("keystroke %d: snapshot of version %d (%v)", i, version, ok)
		}
		if now, _, _ := w.Text("a.go"); &now[0] != &snap.text[0] {
			t.Fatalf("keystroke %d: the document made a copy of the workspace's text", i)
		}
		w.parseMu.Lock()
		linked := snap.linked != nil
		w.parseMu.Unlock()
		if linked {
			t.Fatalf("keystroke %d: the references were linked before anyone asked for them", i)
		}
		second, err := w.FileSymbols(ctx, "a.go")
		if err != nil {
			t.Fatal(err)
		}
		if len(first) == 0 || &first[0] != &second[0] {
			t.Fatalf("keystroke %d: two readers of version %d got different symbols", i, v)
		}
		g := snap.full()
		if snap.full() != g {
			t.Fatalf("keystroke %d: the references were linked twice", i)
		}
		if len(g.Refs) == 0 {
			t.Fatalf("keystroke %d: no references", i)
		}
		want, err := fresh.Extract(ctx, lang, "a.go", text)
		if err != nil {
			t.Fatal(err)
		}
		if want.ParseErrors == 0 {
			if got, w := graphText(snap.withChunks()), graphText(want); got != w {
				t.Fatalf("keystroke %d: graph differs from a fresh extraction:\n%s", i, firstDiff(w, got))
			}
		}
		for _, name := range []string{"T.Find", "a.Later"} {
			found := false
			for _, s := range second {
				found = found || s.QualifiedName == name
			}
			if !found {
				t.Fatalf("keystroke %d (%q): %s left the symbols", i, text, name)
			}
		}
	}
}

// TestIndexerYieldsToKeystrokes holds a keystroke's parse open while the
// workspace is indexed: the indexer's workers start no file until it is
// over, then index every file.
func TestIndexerYieldsToKeystrokes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package a\n\nfunc F%d() {}\n", i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	ix.fg.enter() // a keystroke being parsed
	var left atomic.Bool
	early := make(chan string, len(files))
	done := make(chan error, 1)
	go func() {
		sum, err := ix.Update(context.Background(), func(p Progress) {
			if p.Done > 0 && !left.Load() {
				early <- p.Path
			}
		})
		if err == nil && sum.Parsed != len(files) {
			err = fmt.Errorf("parsed %d files, want %d", sum.Parsed, len(files))
		}
		done <- err
	}()
	// The workers are waiting for the keystroke.
	for ix.fg.blocked() == 0 {
		select {
		case err := <-done:
			t.Fatalf("Update returned (%v) while a keystroke was being parsed", err)
		default:
			runtime.Gosched()
		}
	}
	left.Store(true)
	ix.fg.leave()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(early)
	for path := range early {
		t.Errorf("%s was indexed while a keystroke was being parsed", path)
	}
}
