package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// symbolNames returns the names of a file's symbols as the workspace
// sees them, the module left out.
func symbolNames(t *testing.T, w *Workspace, rel string) []string {
	t.Helper()
	syms, err := w.FileSymbols(context.Background(), rel)
	if err != nil {
		t.Fatalf("FileSymbols %s: %v", rel, err)
	}
	var out []string
	for _, s := range syms {
		if s.Kind != KindModule {
			out = append(out, s.Name)
		}
	}
	return out
}

// indexedNames returns the names the index holds for a file.
func indexedNames(t *testing.T, ix *Index, rel string) []string {
	t.Helper()
	syms, err := ix.SymbolsInFile(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range syms {
		if s.Kind != KindModule {
			out = append(out, s.Name)
		}
	}
	return out
}

// TestWorkspaceOversizedDocument opens a document over the size cap: its
// text is kept and edited, but it has no symbols, in the workspace or in
// the index, until it comes under the cap again.
func TestWorkspaceOversizedDocument(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"a.go": "package a\n\nfunc OnDisk() {}\n"})
	ix := openTestIndex(t, root, func(o *Options) { o.MaxFileSize = 200 })
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()

	big := "package a\n\nfunc Big() {}\n" + strings.Repeat("// padding\n", 30)
	if err := w.Open(ctx, "a.go", 1, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if size, over := w.Oversized("a.go"); !over || size != len(big) {
		t.Errorf("Oversized = %d, %v; want %d, true", size, over, len(big))
	}
	if got := symbolNames(t, w, "a.go"); len(got) != 0 {
		t.Errorf("symbols of the oversized document: %q, want none", got)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexedNames(t, ix, "a.go"); len(got) != 0 {
		t.Errorf("the index holds %q for the oversized document, want nothing", got)
	}
	// Edits keep the text in step.
	if err := w.Change(ctx, "a.go", 2, []TextEdit{{Range: &EditRange{StartLine: 2, StartColumn: 5, EndLine: 2, EndColumn: 8}, Text: "Huge"}}); err != nil {
		t.Fatal(err)
	}
	if text, _, _, _ := w.Snapshot("a.go"); !strings.Contains(string(text), "func Huge() {}") {
		t.Errorf("text after an edit:\n%s", text)
	}
	// Under the cap again: parsed and written.
	if err := w.Change(ctx, "a.go", 3, []TextEdit{{Text: "package a\n\nfunc Small() {}\n"}}); err != nil {
		t.Fatal(err)
	}
	if _, over := w.Oversized("a.go"); over {
		t.Error("Oversized after the document came under the cap")
	}
	if got := symbolNames(t, w, "a.go"); !slices.Equal(got, []string{"Small"}) {
		t.Errorf("symbols under the cap: %q, want [Small]", got)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexedNames(t, ix, "a.go"); !slices.Equal(got, []string{"Small"}) {
		t.Errorf("indexed symbols under the cap: %q, want [Small]", got)
	}
}

// TestWorkspaceEditsWhileReading types into a document from one goroutine
// while others read its symbols and flush it: every reader sees a graph
// at least as new as the text when it asked, and the last graph, in the
// workspace and the index, is that of the final text.
func TestWorkspaceEditsWhileReading(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\nfunc Typed() {}\n\nfunc Other() { Typed() }\n"
	writeWorkspace(t, root, map[string]string{"a.go": src})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	const edits = 300
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	stop := make(chan struct{})
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				w.mu.Lock()
				want := w.docs["a.go"].version
				w.mu.Unlock()
				text, g, version, ok := w.Snapshot("a.go")
				if !ok || version < want {
					errs <- fmt.Errorf("reader %d: Snapshot at version %d (ok %v), asked at %d", r, version, ok, want)
					return
				}
				if n := strings.Count(string(text), "x"); !strings.Contains(symbolList(g), "Typed"+strings.Repeat("x", n)) {
					errs <- fmt.Errorf("reader %d: graph %s does not match its text (%d letters typed)", r, symbolList(g), n)
					return
				}
				if r == 0 {
					if err := w.Flush(ctx); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for v := 2; v < edits+2; v++ {
		at := &EditRange{StartLine: 2, StartColumn: 10, EndLine: 2, EndColumn: 10}
		if err := w.Change(ctx, "a.go", int32(v), []TextEdit{{Range: at, Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := "Typed" + strings.Repeat("x", edits)
	if got := symbolNames(t, w, "a.go"); !slices.Equal(got, []string{want, "Other"}) {
		t.Errorf("final symbols %q, want [%s Other]", got, want)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexedNames(t, ix, "a.go"); !slices.Equal(got, []string{want, "Other"}) {
		t.Errorf("final indexed symbols %q, want [%s Other]", got, want)
	}
}

func symbolList(g *FileGraph) string {
	var names []string
	for _, s := range g.Symbols {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}

// TestWorkspaceCoalescedEdits queues edits around multi-byte characters
// and CRLF line breaks before any read: the one parse they get sees the
// same text and symbols as parsing the final text afresh.
func TestWorkspaceCoalescedEdits(t *testing.T) {
	src := "package a\r\n\r\nfunc Añb() {}\r\n// é😀 x\r\nfunc C() {}\r\n"
	tests := []struct {
		name  string
		edits [][]TextEdit
	}{
		{"inside a name with é", [][]TextEdit{
			{{Range: &EditRange{StartLine: 2, StartColumn: 6, EndLine: 2, EndColumn: 7}, Text: "é"}},
			{{Range: &EditRange{StartLine: 2, StartColumn: 7, EndLine: 2, EndColumn: 7}, Text: "Z"}},
		}},
		{"after an emoji", [][]TextEdit{
			{{Range: &EditRange{StartLine: 3, StartColumn: 6, EndLine: 3, EndColumn: 6}, Text: "😀"}},
			{{Range: &EditRange{StartLine: 4, StartColumn: 5, EndLine: 4, EndColumn: 6}, Text: "D"}},
		}},
		{"a line break replaced", [][]TextEdit{
			{{Range: &EditRange{StartLine: 3, StartColumn: 9, EndLine: 4, EndColumn: 0}, Text: "\n"}},
			{{Range: &EditRange{StartLine: 1, StartColumn: 0, EndLine: 1, EndColumn: 0}, Text: "func B() {}"}},
		}},
		{"the same text typed and removed", [][]TextEdit{
			{{Range: &EditRange{StartLine: 4, StartColumn: 6, EndLine: 4, EndColumn: 6}, Text: "xyz"}},
			{{Range: &EditRange{StartLine: 4, StartColumn: 6, EndLine: 4, EndColumn: 9}, Text: ""}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ix := openTestIndex(t, root, nil)
			ctx := context.Background()
			w := NewWorkspace(ix)
			defer w.Shutdown(ctx)
			fresh := NewWorkspace(ix)
			defer fresh.Shutdown(ctx)
			if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
				t.Fatal(err)
			}
			symbolNames(t, w, "a.go") // parsed once before the edits
			want := []byte(src)
			for i, e := range tt.edits {
				want, _ = applyEdits(want, false, &lineHint{}, e)
				if err := w.Change(ctx, "a.go", int32(i+2), e); err != nil {
					t.Fatal(err)
				}
			}
			text, _, _, _ := w.Snapshot("a.go")
			if string(text) != string(want) {
				t.Fatalf("text %q, want %q", text, want)
			}
			if err := fresh.Open(ctx, "a.go", 1, want); err != nil {
				t.Fatal(err)
			}
			_, g, _, _ := w.Snapshot("a.go")
			_, fg, _, _ := fresh.Snapshot("a.go")
			if a, b := fmt.Sprint(g.Symbols, g.Refs), fmt.Sprint(fg.Symbols, fg.Refs); a != b {
				t.Errorf("graph after coalesced edits:\n%s\nwant (fresh parse):\n%s", a, b)
			}
		})
	}
}

// TestWorkspaceSymbols searches names in the index overlaid with the
// open documents: with nothing open it answers as the index does; an open
// document's symbols replace its file's rows at once, while the index
// writer is busy and before anything is written.
func TestWorkspaceSymbols(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"a.go": "package a\n\nfunc FindByID() {}\n\nfunc Gone() {}\n\ntype byIDCache struct{}\n",
		"b.go": "package a\n\nfunc FindByName() {}\n\nfunc lookupByID() {}\n",
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()

	list := func(ms []SymbolMatch) []string {
		var out []string
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%s %s %s", m.Match, m.Path, m.Name))
		}
		return out
	}
	queries := []string{"FindByID", "find", "fbi", "byid", "Gone", "b", "nothing", " FindByName ", ""}
	for _, q := range queries {
		want, err := ix.Symbols(ctx, q, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := w.Symbols(ctx, q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(list(got), list(want)) {
			t.Errorf("nothing open: Symbols(%q) = %q, the index answers %q", q, list(got), list(want))
		}
	}

	// The index writer is held for the rest of the test: the answers
	// must not wait for it.
	held, release, written := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		written <- ix.store.Write(ctx, func(*indexWriter) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer func() {
		close(release)
		if err := <-written; err != nil {
			t.Error(err)
		}
	}()
	if err := w.Open(ctx, "a.go", 1, []byte("package a\n\nfunc FindByIDFast() {}\n\nfunc Fresh() {}\n")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"Gone", nil},
		{"Fresh", []string{"exact a.go Fresh"}},
		{"find", []string{"prefix b.go FindByName", "prefix a.go FindByIDFast"}},
		{"fbi", []string{"initials a.go FindByIDFast"}},
		{"byid", []string{"substring b.go lookupByID", "substring a.go FindByIDFast"}}, // shorter names first
	}
	for _, tt := range tests {
		got, err := w.Symbols(ctx, tt.query, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(list(got), tt.want) {
			t.Errorf("a.go open: Symbols(%q) = %q, want %q", tt.query, list(got), tt.want)
		}
	}
	// An edit shows in the next answer.
	if err := w.Change(ctx, "a.go", 2, []TextEdit{{Text: "package a\n\nfunc Gone() {}\n"}}); err != nil {
		t.Fatal(err)
	}
	got, err := w.Symbols(ctx, "gone", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"exact a.go Gone"}; !slices.Equal(list(got), want) {
		t.Errorf("after the edit: Symbols(gone) = %q, want %q", list(got), want)
	}
}

// TestKeystrokesDoNotWaitForTheIndex types unfinished code into an open
// document while the index writer is held and a Flush of that document
// waits for it: every keystroke's graph is read (Snapshot, FileSymbols)
// without waiting for the writer, with the definitions below the
// unfinished code kept. Were the keystroke path to wait, the test would
// hang until its timeout.
func TestKeystrokesDoNotWaitForTheIndex(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\n// FindByID finds.\nfunc FindByID() {}\n\nfunc Later() { FindByID() }\n"
	writeWorkspace(t, root, map[string]string{"a.go": src})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	held, release, written := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		written <- ix.store.Write(ctx, func(*indexWriter) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush(ctx) }() // waits for the writer
	typed := "func Half() {\n\tx := \"unclosed\n"
	line, col := 2, 0
	for i, r := range typed {
		if err := w.Change(ctx, "a.go", int32(i+2), []TextEdit{{Range: &EditRange{line, col, line, col}, Text: string(r)}}); err != nil {
			t.Fatal(err)
		}
		if r == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
		_, g, version, ok := w.Snapshot("a.go")
		if !ok || version != int32(i+2) {
			t.Fatalf("keystroke %d: Snapshot = version %d, %v", i, version, ok)
		}
		syms, err := w.FileSymbols(ctx, "a.go")
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, s := range syms {
			names[s.QualifiedName] = true
		}
		if !names["a.FindByID"] || !names["a.Later"] {
			t.Fatalf("after %q: symbols %v, want a.FindByID and a.Later kept", typed[:i+1], names)
		}
		if i == len(typed)-1 && g.ParseErrors == 0 {
			t.Errorf("with %q typed, no parse errors reported", typed)
		}
	}
	select {
	case err := <-flushed:
		t.Fatalf("Flush returned (%v) while the index writer was held", err)
	default:
	}
	close(release)
	if err := <-written; err != nil {
		t.Error(err)
	}
	if err := <-flushed; err != nil {
		t.Errorf("Flush after the writer was released: %v", err)
	}
}

// TestReadersDoNotQueueOnParses reads an open document whose newest text
// is parsed while a parse holds the parser (parseMu, held here, as a long
// parse of another document would): the reader takes the published parse
// and never waits for the parser. A reader of text not parsed yet gets
// the parse of its text once the parser is free.
func TestReadersDoNotQueueOnParses(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\nfunc Typed() {}\n"
	writeWorkspace(t, root, map[string]string{"a.go": src, "b.go": "package a\n\nfunc B() {}\n"})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	if got := symbolNames(t, w, "a.go"); !slices.Equal(got, []string{"Typed"}) {
		t.Fatalf("symbols %q, want [Typed]", got)
	}

	w.parseMu.Lock()
	read := make(chan []string, 8)
	for range 8 {
		go func() {
			syms, err := w.FileSymbols(ctx, "a.go")
			if err != nil {
				t.Error(err)
			}
			var names []string
			for _, s := range syms {
				if s.Kind != KindModule {
					names = append(names, s.Name)
				}
			}
			read <- names
		}()
	}
	// With the parser held, these readers return only if they do not
	// take it (else the test hangs until its timeout).
	for range 8 {
		if got := <-read; !slices.Equal(got, []string{"Typed"}) {
			t.Errorf("symbols %q, want [Typed]", got)
		}
	}

	at := &EditRange{StartLine: 2, StartColumn: 10, EndLine: 2, EndColumn: 10}
	if err := w.Change(ctx, "a.go", 2, []TextEdit{{Range: at, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, g, version, _ := w.Snapshot("a.go")
		if version != 2 {
			t.Errorf("Snapshot at version %d, want 2", version)
		}
		read <- strings.Fields(symbolList(g))
	}()
	w.parseMu.Unlock()
	if got := <-read; !slices.Equal(got, []string{"a", "Typedx"}) { // the module, then the function
		t.Errorf("after the edit, symbols %q, want [a Typedx]", got)
	}
}

// TestReadersWaitForOneParse edits an open document while a reader's
// parse of it is in progress (the parser held here, as a slow parse
// holds it), then reads it from requests, from the index writer's Flush
// and from Snapshot: a request that came during the parse answers from
// that parse when it ends, without waiting for a parse of the edit made
// after the parse started; Flush and Snapshot, which ask for the text as
// it is, get the edit; a request that comes when no parse is in
// progress parses the newest text.
func TestReadersWaitForOneParse(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\nfunc Typed() {}\n"
	writeWorkspace(t, root, map[string]string{"a.go": src})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	symbolNames(t, w, "a.go")
	// No flush after the edits (closed stops the timer being set): the
	// writer's parse would be one more reader.
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.mu.Unlock()
	at := &EditRange{StartLine: 2, StartColumn: 10, EndLine: 2, EndColumn: 10}
	if err := w.Change(ctx, "a.go", 2, []TextEdit{{Range: at, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	// state reads the document's parse in progress and its waiters.
	state := func() (parsing bool, waiters int) {
		w.mu.Lock()
		defer w.mu.Unlock()
		od := w.docs["a.go"]
		return od.parsing != nil, od.waiters
	}
	names := func(syms []SymbolInfo) []string {
		var out []string
		for _, s := range syms {
			if s.Kind != KindModule {
				out = append(out, s.Name)
			}
		}
		return out
	}

	w.parseMu.Lock()
	first := make(chan []string, 1)
	go func() {
		syms, err := w.FileSymbols(ctx, "a.go")
		if err != nil {
			t.Error(err)
		}
		first <- names(syms)
	}()
	// The first reader takes the edit and waits for the parser.
	for parsing, _ := state(); !parsing; parsing, _ = state() {
		runtime.Gosched()
	}
	at = &EditRange{StartLine: 2, StartColumn: 11, EndLine: 2, EndColumn: 11}
	if err := w.Change(ctx, "a.go", 3, []TextEdit{{Range: at, Text: "y"}}); err != nil {
		t.Fatal(err)
	}
	second := make(chan []string, 1)
	go func() {
		syms, err := w.FileSymbols(ctx, "a.go")
		if err != nil {
			t.Error(err)
		}
		second <- names(syms)
	}()
	for _, waiters := state(); waiters < 1; _, waiters = state() {
		runtime.Gosched()
	}
	w.parseMu.Unlock()
	for _, tt := range []struct {
		name string
		got  chan []string
	}{{"the reader that parsed", first}, {"the reader that came during its parse", second}} {
		if got := <-tt.got; !slices.Equal(got, []string{"Typedx"}) {
			t.Errorf("%s: symbols %q, want [Typedx] (the parse in progress)", tt.name, got)
		}
	}
	w.mu.Lock()
	pending := len(w.docs["a.go"].queue)
	w.mu.Unlock()
	if pending != 1 {
		t.Errorf("%d edits wait for a parse, want 1 (y: nobody parsed it)", pending)
	}

	if _, g, version, _ := w.Snapshot("a.go"); version != 3 || !strings.Contains(symbolList(g), "Typedxy") {
		t.Errorf("Snapshot at version %d: %s, want version 3 with Typedxy", version, symbolList(g))
	}
	if got := symbolNames(t, w, "a.go"); !slices.Equal(got, []string{"Typedxy"}) {
		t.Errorf("a request with no parse in progress: symbols %q, want [Typedxy]", got)
	}
	if err := w.Change(ctx, "a.go", 4, []TextEdit{{Range: at, Text: "z"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	found, err := ix.Symbols(ctx, "Typed", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Name != "Typedxzy" {
		t.Errorf("the index after Flush has %v, want Typedxzy", found)
	}
}

// TestSymbolSearchCacheSeesWrites searches a name, changes the files the
// index holds (through this index, and through another opened on the same
// database, as another process would), and searches again: the answers
// kept for the same search are not served once the index changed.
func TestSymbolSearchCacheSeesWrites(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"a.go": "package a\n\nfunc FindUser() {}\n"})
	db := filepath.Join(t.TempDir(), "index.db")
	ix := openTestIndex(t, root, func(o *Options) { o.DBPath = db })
	mustUpdate(t, ix)
	ctx := context.Background()
	names := func() []string {
		t.Helper()
		found, err := ix.Symbols(ctx, "Find", 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range found {
			out = append(out, m.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"FindUser"}) {
		t.Fatalf("first search %q, want [FindUser]", got)
	}
	if got := names(); !slices.Equal(got, []string{"FindUser"}) {
		t.Fatalf("same search again %q, want [FindUser]", got)
	}

	writeWorkspace(t, root, map[string]string{"a.go": "package a\n\nfunc FindOrder() {}\n"})
	mustUpdate(t, ix)
	if got := names(); !slices.Equal(got, []string{"FindOrder"}) {
		t.Errorf("after this index's update %q, want [FindOrder]", got)
	}

	other := openTestIndex(t, root, func(o *Options) { o.DBPath = db })
	writeWorkspace(t, root, map[string]string{"a.go": "package a\n\nfunc FindItem() {}\n"})
	mustUpdate(t, other)
	if got := names(); !slices.Equal(got, []string{"FindItem"}) {
		t.Errorf("after another index's update %q, want [FindItem]", got)
	}
}

// TestWorkspaceMemo makes something of an open document's symbols: it is
// made once for each parse, shared by the readers of that parse, and made
// again from the new symbols after an edit; a document not open has none.
func TestWorkspaceMemo(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\nfunc Typed() {}\n"
	writeWorkspace(t, root, map[string]string{"a.go": src})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	if _, ok := w.Memo(ctx, "a.go", "names", nil); ok {
		t.Fatal("Memo of a document not open")
	}
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	made := 0
	names := func() string {
		t.Helper()
		v, ok := w.Memo(ctx, "a.go", "names", func(syms []SymbolInfo) any {
			made++
			var out []string
			for _, s := range syms {
				out = append(out, s.Name)
			}
			return strings.Join(out, " ")
		})
		if !ok {
			t.Fatal("Memo of an open document: not open")
		}
		return v.(string)
	}
	for range 3 {
		if got := names(); got != "a Typed" {
			t.Errorf("Memo: %q, want %q", got, "a Typed")
		}
	}
	if made != 1 {
		t.Errorf("made %d times for one parse, want once", made)
	}
	at := &EditRange{StartLine: 2, StartColumn: 10, EndLine: 2, EndColumn: 10}
	if err := w.Change(ctx, "a.go", 2, []TextEdit{{Range: at, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "a Typedx" || made != 2 {
		t.Errorf("after an edit: %q, made %d times; want %q, twice", got, made, "a Typedx")
	}
}

// TestCloseWhileFlushWrites closes an edited document while a Flush is
// writing its graph (paused inside its write transaction, after the rows
// are written): once Close has returned, the index must never take the
// closed editor's text. It holds the file as on disk, before and after
// the Flush ends, and after the Refresh the close calls for.
func TestCloseWhileFlushWrites(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\nfunc FindByID() {}\n"
	writeWorkspace(t, root, map[string]string{"a.go": src, "b.go": "package a\n\nfunc B() {}\n"})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()
	for rel, text := range map[string]string{
		"a.go": "package a\n\nfunc EditorByID() {}\n\nfunc EditorOnly() {}\n",
		"b.go": "package a\n\nfunc B() {}\n\nfunc OpenB() {}\n",
	} {
		if err := w.Open(ctx, rel, 1, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	w.flushHook = func() {
		once.Do(func() {
			close(reached)
			<-release
		})
	}
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush(ctx) }()
	<-reached
	if err := w.Close("a.go"); err != nil {
		t.Fatal(err)
	}
	want := []string{"FindByID"}
	if got := indexedNames(t, ix, "a.go"); !slices.Equal(got, want) {
		t.Errorf("right after Close, the index has %q for a.go, want %q", got, want)
	}
	close(release)
	if err := <-flushed; err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if got := indexedNames(t, ix, "a.go"); !slices.Equal(got, want) {
		t.Errorf("after the Flush that was writing at the close, the index has %q for a.go, want %q (the closed editor's text came back)", got, want)
	}
	// The document still open was written.
	if got, want := indexedNames(t, ix, "b.go"), []string{"B", "OpenB"}; !slices.Equal(got, want) {
		t.Errorf("the index has %q for the open b.go, want %q", got, want)
	}
	if _, err := w.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := indexedNames(t, ix, "a.go"); !slices.Equal(got, want) {
		t.Errorf("after Refresh, the index has %q for a.go, want %q", got, want)
	}
}

// TestRefreshRecordAfterFlush pauses a refresh that walked the workspace
// before a document opened, after its last write and before it records
// that the index matches the disk (the walk manifest), while a Flush
// writes the editor's text of the document and the document closes. The
// record must not vouch for that text: the refresh the close calls for
// reads the file again, and the index holds it as on disk.
func TestRefreshRecordAfterFlush(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"a.go": "package a\n\nfunc FindByID() {}\n",
		"b.go": "package a\n\nfunc B() {}\n",
	})
	age(t, root)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	w := NewWorkspace(ix)
	defer w.Shutdown(context.Background())
	ctx := context.Background()

	// A change on disk, so that the next refresh walks and writes.
	p := filepath.Join(root, "b.go")
	if err := os.WriteFile(p, []byte("package a\n\nfunc B() {}\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ix.manifestHook = func() {
		once.Do(func() {
			close(reached)
			<-release
		})
	}
	refreshed := make(chan error, 1)
	go func() {
		_, err := w.Refresh(ctx, nil)
		refreshed <- err
	}()
	select {
	case <-reached:
	case err := <-refreshed:
		t.Fatalf("the refresh ended (%v) without recording that the index matches the disk", err)
	}
	if got, want := indexedNames(t, ix, "b.go"), []string{"B", "C"}; !slices.Equal(got, want) {
		t.Fatalf("the paused refresh wrote %q for b.go, want %q", got, want)
	}
	if err := w.Open(ctx, "a.go", 1, []byte("package a\n\nfunc EditorOnly() {}\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := indexedNames(t, ix, "a.go"), []string{"EditorOnly"}; !slices.Equal(got, want) {
		t.Fatalf("the Flush wrote %q for a.go, want %q", got, want)
	}
	if err := w.Close("a.go"); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-refreshed; err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	// The refresh the close calls for.
	if _, err := w.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := indexedNames(t, ix, "a.go"), []string{"FindByID"}; !slices.Equal(got, want) {
		t.Errorf("after the close and its refresh, the index has %q for a.go, want %q (the closed editor's text stayed)", got, want)
	}
	// With nothing written since, a refresh records the match again.
	if _, err := w.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if ix.store.readManifest(ctx) == nil {
		t.Error("no record that the index matches the disk after a refresh with nothing written meanwhile")
	}
}
