package analysis

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"
)

// age sets the mtime of every directory and file under root an hour back
// (files one second apart, so that an edit in place shows), as a
// workspace looks when it was not just created.
func age(t *testing.T, root string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// filters is filtersOf the index's current walker.
func (ix *Index) filters() string { return ix.filtersOf(ix.newWalker()) }

// indexedPaths lists the files the index holds.
func indexedPaths(t *testing.T, ix *Index) []string {
	t.Helper()
	paths, err := ix.FilePaths(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	return paths
}

// TestManifestSeesChanges builds an index, lets a second update write its
// walk manifest, changes the workspace, and checks that the next update
// finds the change (the manifest no longer vouches for the index) and
// holds what a full walk holds; with nothing changed, the manifest is
// what answers.
func TestManifestSeesChanges(t *testing.T) {
	base := map[string]string{
		"main.go":          "package main\n\nfunc main() {}\n",
		"lib/util.go":      "package lib\n\nfunc Util() int { return 1 }\n",
		"lib/deep/more.go": "package deep\n\nfunc More() {}\n",
		"big.go":           "package main\n\n// " + string(make([]byte, 0)) + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nfunc Big() {}\n",
	}
	later := time.Now().Add(-30 * time.Minute)
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string // indexed files after the change
	}{
		{"nothing changed", func(*testing.T, string) {}, []string{"lib/deep/more.go", "lib/util.go", "main.go"}},
		{"a file edited in place", func(t *testing.T, root string) {
			p := filepath.Join(root, "lib", "util.go")
			if err := os.WriteFile(p, []byte("package lib\n\nfunc Util() int { return 2 }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}, []string{"lib/deep/more.go", "lib/util.go", "main.go"}},
		{"a new file", func(t *testing.T, root string) {
			writeWorkspace(t, root, map[string]string{"lib/deep/new.go": "package deep\n\nfunc New() {}\n"})
		}, []string{"lib/deep/more.go", "lib/deep/new.go", "lib/util.go", "main.go"}},
		{"a file removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "lib", "deep", "more.go")); err != nil {
				t.Fatal(err)
			}
		}, []string{"lib/util.go", "main.go"}},
		{"a .gitignore edited in place", func(t *testing.T, root string) {
			p := filepath.Join(root, "lib", ".gitignore")
			if err := os.WriteFile(p, []byte("util.go\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}, []string{"lib/deep/more.go", "main.go"}},
		{".git/info/exclude created", func(t *testing.T, root string) {
			writeWorkspace(t, root, map[string]string{".git/info/exclude": "main.go\n"})
		}, []string{"lib/deep/more.go", "lib/util.go"}},
		{"a file too large cut down in place", func(t *testing.T, root string) {
			p := filepath.Join(root, "big.go")
			if err := os.WriteFile(p, []byte("package main\n\nfunc Big() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}, []string{"big.go", "lib/deep/more.go", "lib/util.go", "main.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			files := map[string]string{"lib/.gitignore": "# nothing\n"}
			for k, v := range base {
				files[k] = v
			}
			writeWorkspace(t, root, files)
			age(t, root)
			ix := openTestIndex(t, root, func(o *Options) { o.MaxFileSize = 60 })
			mustUpdate(t, ix)
			if ix.store.readManifest(ctx) == nil {
				t.Fatal("no manifest after an update of a workspace unchanged for an hour")
			}
			if _, ok, err := ix.upToDate(ctx, ix.filters(), time.Now()); err != nil || !ok {
				t.Fatalf("with nothing changed, the manifest does not vouch for the index (%v)", err)
			}
			tt.change(t, root)
			sum := mustUpdate(t, ix)
			if got := indexedPaths(t, ix); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("indexed %v; want %v (summary %+v)", got, tt.want, sum)
			}
			// A full walk of a new index finds the same.
			fresh := openTestIndex(t, root, func(o *Options) { o.MaxFileSize = 60 })
			mustUpdate(t, fresh)
			if got, want := indexedPaths(t, ix), indexedPaths(t, fresh); !reflect.DeepEqual(got, want) {
				t.Errorf("after the change the index holds %v; a new index %v", got, want)
			}
			if tt.name == "a file edited in place" {
				d, err := ix.DefinitionsNamed(ctx, "Util")
				if err != nil || len(d) != 1 {
					t.Fatalf("Util: %v, %v", d, err)
				}
			}
		})
	}
}

// TestManifestSettings checks that a change of what is indexed (the
// languages, the size cap) is not answered by the manifest of other
// settings, and that a write to the index removes the manifest.
func TestManifestSettings(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"main.go": "package main\n", "app.py": "def f():\n    pass\n"})
	age(t, root)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	if got := indexedPaths(t, ix); len(got) != 2 {
		t.Fatalf("indexed %v", got)
	}
	ix.ConfigureFilters(nil, []string{"python"})
	mustUpdate(t, ix)
	if got := indexedPaths(t, ix); !reflect.DeepEqual(got, []string{"app.py"}) {
		t.Errorf("with python only, indexed %v", got)
	}
	if ix.store.readManifest(ctx) == nil {
		t.Fatal("no manifest")
	}
	err := ix.store.Write(ctx, func(w *indexWriter) error { return w.DeleteFile("app.py") })
	if err != nil {
		t.Fatal(err)
	}
	if ix.store.readManifest(ctx) != nil {
		t.Error("a write to the index left the manifest in place")
	}
	mustUpdate(t, ix)
	if got := indexedPaths(t, ix); !reflect.DeepEqual(got, []string{"app.py"}) {
		t.Errorf("after the manifest was dropped, indexed %v", got)
	}
}

// TestManifestRacy checks that a walk of directories changed just now
// leaves no manifest: a change within their mtime's granularity would not
// show.
func TestManifestRacy(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"main.go": "package main\n"})
	// The directory's mtime is set ahead of the clock, so it is within
	// racyWindow of the walk however long the machine takes to get there.
	ahead := time.Now().Add(time.Hour)
	if err := os.Chtimes(root, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	if ix.store.readManifest(context.Background()) != nil {
		t.Error("a manifest of a directory changed within racyWindow")
	}
}

// FuzzDecodeManifest checks that any bytes decode to a manifest or an
// error, never a panic, and that a manifest encodes and decodes to itself.
func FuzzDecodeManifest(f *testing.F) {
	m := &manifest{filters: "f", dirs: []stamp{{rel: ".", mtime: 5}}, ignores: []stamp{{rel: ".git/info/exclude", mtime: -1}},
		files: []stamp{{rel: "a.go", size: 3, mtime: 7}}, skipped: map[string]int{"excluded": 2},
		problems: []Problem{{Path: "b.go", Reason: SkipTooLarge, Detail: "x"}}}
	f.Add(m.encode())
	f.Add([]byte{})
	f.Add([]byte{2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeManifest(data)
		if err != nil {
			return
		}
		again, err := decodeManifest(got.encode())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("decode(encode(m)) = %+v, %v; want %+v", again, err, got)
		}
	})
}

// TestFormatResetDropsManifest checks that an index of another format,
// emptied when it is opened, has no walk manifest left to vouch for it:
// the next update indexes every file again.
func TestFormatResetDropsManifest(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"main.go": "package main\n", "app.py": "def f():\n    pass\n"})
	age(t, root)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	mustUpdate(t, ix)
	if ix.store.readManifest(ctx) == nil {
		t.Fatal("no manifest")
	}
	if _, err := ix.store.db.ExecContext(ctx, `UPDATE meta SET value = '6' WHERE key = 'format'`); err != nil {
		t.Fatal(err)
	}
	if err := ix.store.checkFormat(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexedPaths(t, ix); len(got) != 0 {
		t.Fatalf("after the reset, indexed %v", got)
	}
	mustUpdate(t, ix)
	if got := indexedPaths(t, ix); !reflect.DeepEqual(got, []string{"app.py", "main.go"}) {
		t.Errorf("the update after a format reset indexed %v, want both files again", got)
	}
}

// TestEmptyIndexWithManifestWalks checks that an index left empty with a
// walk manifest (by a format reset that kept it) walks again when opened.
func TestEmptyIndexWithManifestWalks(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{"main.go": "package main\n"})
	age(t, root)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	mustUpdate(t, ix)
	if ix.store.readManifest(ctx) == nil {
		t.Fatal("no manifest")
	}
	if _, err := ix.store.db.ExecContext(ctx, `DELETE FROM edges; DELETE FROM nodes; DELETE FROM files; DELETE FROM chunks`); err != nil {
		t.Fatal(err)
	}
	if err := ix.store.checkFormat(ctx); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, ix)
	if got := indexedPaths(t, ix); !reflect.DeepEqual(got, []string{"main.go"}) {
		t.Errorf("an empty index with a manifest, opened and updated, indexed %v", got)
	}
}
