package analysis

import (
	"context"
	"testing"
)

// FuzzOffsetOf: the offset an edit computes by scanning to its line is the
// line index's, for any text (CRLF, no final newline, invalid UTF-8,
// surrogate pairs) and any position, in range or not.
func FuzzOffsetOf(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\r\nb", "ab\r\n\r\n", "x\xffy\nz", "😀a\nb😀", "\n\n\n", "a\r"} {
		f.Add(s, 0, 0)
		f.Add(s, 1, 1)
		f.Add(s, 2, 5)
	}
	f.Fuzz(func(t *testing.T, text string, line, col int) {
		b := []byte(text)
		want := newLineIndex(b).offset(line, col)
		if got := offsetOf(b, line, col); got != want {
			t.Fatalf("offsetOf(%q, %d, %d) = %d, the line index says %d", text, line, col, got, want)
		}
	})
}

// FuzzApplyEdits: edits made in place, in a text the workspace owns, give
// the text that copying gives, and a text handed out is never modified.
func FuzzApplyEdits(f *testing.F) {
	f.Add("package a\n\nfunc A() {}\n", 2, 5, 0, "x", 1, 0, 3, "")
	f.Add("a\r\nb😀c\n", 1, 2, 1, "\n\n", 0, 0, 9, "yy")
	f.Add("", 0, 0, 0, "abc", 0, 1, 1, "")
	f.Fuzz(func(t *testing.T, text string, line, col, n int, ins string, line2, col2, n2 int, ins2 string) {
		edits := []TextEdit{
			{Range: &EditRange{StartLine: line, StartColumn: col, EndLine: line, EndColumn: col + n%8}, Text: ins},
			{Range: &EditRange{StartLine: line2, StartColumn: col2, EndLine: line2 + n2%2, EndColumn: col2}, Text: ins2},
		}
		// The copying path, one edit at a time, from a text handed out.
		shared := []byte(text)
		want := shared
		for _, e := range edits {
			want, _ = applyEdits(want, false, &lineHint{}, []TextEdit{e})
		}
		if string(shared) != text {
			t.Fatalf("a text handed out was modified: %q, was %q", shared, text)
		}
		// In place: the first edit copies (the text is not owned), the
		// second edits the copy, finding its line from where the first
		// one's starts.
		got, owned := []byte(text), false
		var hint lineHint
		for _, e := range edits {
			got, owned = applyEdits(got, owned, &hint, []TextEdit{e})
			if !owned {
				t.Fatal("an edited text is not owned")
			}
		}
		if string(got) != string(want) {
			t.Fatalf("in place: %q, copying: %q", got, want)
		}
	})
}

// TestEditsKeepHandedOutText: the text a reader was given (Text, a
// snapshot) stays as it was while typing goes on, although the workspace
// edits its own copy in place between readers.
func TestEditsKeepHandedOutText(t *testing.T) {
	ctx := context.Background()
	w := NewWorkspace(openTestIndex(t, t.TempDir(), nil))
	defer w.Shutdown(ctx)
	src := "package a\n\nfunc A() {}\n"
	if err := w.Open(ctx, "a.go", 1, []byte(src)); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		text []byte
		want string
	}
	var readers []seen
	want := src
	for i := range 40 {
		// Type "x" after "func A", the column moving right.
		col := 6 + i
		if err := w.Change(ctx, "a.go", int32(i+2), []TextEdit{{Range: &EditRange{StartLine: 2, StartColumn: col, EndLine: 2, EndColumn: col}, Text: "x"}}); err != nil {
			t.Fatal(err)
		}
		want = want[:len("package a\n\n")+col] + "x" + want[len("package a\n\n")+col:]
		switch i % 7 {
		case 3:
			text, _, _ := w.Text("a.go")
			readers = append(readers, seen{text, want})
		case 6:
			text, _, _, _ := w.Snapshot("a.go")
			readers = append(readers, seen{text, want})
		}
	}
	text, _, _ := w.Text("a.go")
	if string(text) != want {
		t.Fatalf("text after the edits = %q, want %q", text, want)
	}
	for i, r := range readers {
		if string(r.text) != r.want {
			t.Errorf("reader %d: its text changed to %q, was %q", i, r.text, r.want)
		}
	}
}
