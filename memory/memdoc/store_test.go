package memdoc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/memory"
)

// copyWorkspace copies testdata/workspace to a temporary directory.
func copyWorkspace(t *testing.T) string {
	t.Helper()
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "workspace")
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func openStore(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func paths(docs []Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Path)
	}
	return out
}

func TestStoreSync(t *testing.T) {
	ctx := context.Background()
	root := copyWorkspace(t)
	s := openStore(t, filepath.Join(t.TempDir(), "memory.db"))

	all := []string{".anchorage/memory/broken.md", ".anchorage/memory/decisions/retry-policy.md", "specs/042-retries/memory/notes.md"}
	sum, err := s.Sync(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Added, all) || len(sum.Updated)+len(sum.Removed)+sum.Unchanged != 0 || len(sum.Skipped) != 0 {
		t.Fatalf("first sync = %+v", sum)
	}
	docs, err := s.Documents(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths(docs), all) {
		t.Fatalf("documents = %q", paths(docs))
	}
	d := docs[1]
	if d.ID != "doc:.anchorage/memory/decisions/retry-policy.md" || d.Root != root || d.Title != "Retry policy for outbound calls" ||
		d.ImportanceTier != TierCritical || d.ContextType != "decision" || !slices.Equal(d.TriggerPhrases, []string{"retry policy", "backoff"}) ||
		len(d.Sections) != 4 || d.Sections[2].ID != "jitter" || d.Sections[2].Parent != 1 || d.UpdatedAt.IsZero() {
		t.Fatalf("stored document = %+v", d)
	}
	if got, missing := Select(d.Content, []string{"summary"}); !strings.HasPrefix(got, "Only idempotent") || missing != nil {
		t.Fatalf("select from stored content = %q %q", got, missing)
	}
	if len(docs[0].Warnings) != 5 {
		t.Fatalf("broken.md warnings = %v", docs[0].Warnings)
	}

	t.Run("unchanged", func(t *testing.T) {
		sum, err := s.Sync(ctx, root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Changed() || sum.Unchanged != 3 {
			t.Fatalf("second sync = %+v", sum)
		}
	})
	t.Run("touched but same content", func(t *testing.T) {
		p := filepath.Join(root, "specs/042-retries/memory/notes.md")
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		sum, err := s.Sync(ctx, root, nil)
		if err != nil || sum.Changed() || sum.Unchanged != 3 {
			t.Fatalf("sync = %+v, %v", sum, err)
		}
	})
	t.Run("changed, added, removed, skipped", func(t *testing.T) {
		notes := filepath.Join(root, "specs/042-retries/memory/notes.md")
		if err := os.WriteFile(notes, []byte("---\ntitle: New\n---\n<!-- ANCHOR:x -->y<!-- /ANCHOR:x -->\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(root, ".anchorage/memory/broken.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".anchorage/memory/new.md"), []byte("# New one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".anchorage/memory/big.md"), make([]byte, MaxFileSize+1), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".anchorage/memory/binary.md"), []byte("a\x00b"), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := s.Sync(ctx, root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sum.Added, []string{".anchorage/memory/new.md"}) ||
			!slices.Equal(sum.Updated, []string{"specs/042-retries/memory/notes.md"}) ||
			!slices.Equal(sum.Removed, []string{".anchorage/memory/broken.md"}) || sum.Unchanged != 1 {
			t.Fatalf("sync = %+v", sum)
		}
		var skipped []string
		for _, sk := range sum.Skipped {
			skipped = append(skipped, sk.Path+": "+sk.Reason)
		}
		if len(skipped) != 2 || !strings.Contains(skipped[0], "big.md: larger than") || !strings.Contains(skipped[1], "binary.md: not UTF-8") {
			t.Fatalf("skipped = %q", skipped)
		}
		d, err := s.Document(ctx, root, "doc:specs/042-retries/memory/notes.md")
		if err != nil || d.Title != "New" || len(d.Sections) != 1 {
			t.Fatalf("updated document = %+v, %v", d, err)
		}
		if _, err := s.Document(ctx, root, "doc:.anchorage/memory/broken.md"); !errors.Is(err, ErrUnknownDocument) {
			t.Fatalf("removed document: err = %v", err)
		}
	})
	t.Run("other globs", func(t *testing.T) {
		sum, err := s.Sync(ctx, root, []string{"specs/**/*.md", "[bad"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sum.Added, []string{"specs/042-retries/other/x.md"}) || len(sum.Removed) != 2 {
			t.Fatalf("sync = %+v", sum)
		}
		if len(sum.Skipped) != 1 || sum.Skipped[0].Path != "[bad" {
			t.Fatalf("skipped = %+v", sum.Skipped)
		}
	})
	t.Run("roots are separate", func(t *testing.T) {
		other := copyWorkspace(t)
		if _, err := s.Sync(ctx, other, nil); err != nil {
			t.Fatal(err)
		}
		mine, _ := s.Documents(ctx, root)
		theirs, _ := s.Documents(ctx, other)
		every, _ := s.Documents(ctx, "")
		if len(mine) != 2 || len(theirs) != 3 || len(every) != 5 {
			t.Fatalf("documents: %d, %d, %d", len(mine), len(theirs), len(every))
		}
	})
	t.Run("persists across opens", func(t *testing.T) {
		s2 := openStore(t, s.Path())
		docs, err := s2.Documents(ctx, root)
		if err != nil || len(docs) != 2 {
			t.Fatalf("reopened: %d documents, %v", len(docs), err)
		}
	})
	t.Run("missing root", func(t *testing.T) {
		if _, err := s.Sync(ctx, filepath.Join(root, "nope"), nil); err == nil {
			t.Fatal("no error for a missing root")
		}
	})
}

// TestStoreSharesMemoryDatabase opens the rule store and the document
// store on one file, in both orders: each migrates its own component.
func TestStoreSharesMemoryDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	docs := openStore(t, path)
	rules, err := memory.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Close()
	if _, err := rules.RecordCorrection(ctx, memory.Correction{Text: "use errors.Is"}); err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Sync(ctx, copyWorkspace(t), nil); err != nil {
		t.Fatal(err)
	}
	again := openStore(t, path)
	if all, err := again.Documents(ctx, ""); err != nil || len(all) != 3 {
		t.Fatalf("documents = %d, %v", len(all), err)
	}
}

func TestCorruptDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	junk := []byte(strings.Repeat("not sqlite ", 1000))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(context.Background(), path); err == nil {
		s.Close()
		t.Fatal("opened a file that is not a database")
	}
	if got, _ := os.ReadFile(path); string(got) != string(junk) {
		t.Fatal("the file was changed")
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		globs []string
		path  string
		want  bool
	}{
		{nil, ".anchorage/memory/a.md", true},
		{nil, ".anchorage/memory/x/y/z.md", true},
		{nil, "specs/001/memory/a.md", true},
		{nil, "specs/a/b/memory/a.md", true},
		{nil, "specs/001/memory/deeper/a.md", false},
		{nil, "docs/a.md", false},
		{nil, ".anchorage/memory/a.txt", false},
		{[]string{"notes/*.md"}, "notes/a.md", true},
		{[]string{"notes/*.md"}, ".anchorage/memory/a.md", false},
		{[]string{"[bad"}, "[bad", false},
	}
	for _, tt := range tests {
		if got := Match(tt.globs, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.globs, tt.path, got, tt.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string // "" for text that can be a document
	}{
		{"text", []byte("# Notes\n<!-- ANCHOR:a -->x<!-- /ANCHOR:a -->\n"), ""},
		{"empty", nil, ""},
		{"NUL byte", []byte("a\x00b"), "not UTF-8 text"},
		{"invalid UTF-8", []byte{0xff, 0xfe, 'a'}, "not UTF-8 text"},
		{"too large", bytes.Repeat([]byte("a"), MaxFileSize+1), "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckText(tc.data)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckText = %v, want %q", err, tc.want)
			}
		})
	}
}
