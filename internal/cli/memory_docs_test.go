package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/state"
)

func TestCLIMemoryDocs(t *testing.T) {
	data := t.TempDir()
	root := injectApp(t)
	docs := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"memory", "docs", "--data-dir", data, "--root", root}, args...)...)
		if err != nil {
			t.Fatalf("anchorage memory docs %s: %v", strings.Join(args, " "), err)
		}
		return out
	}

	t.Run("text", func(t *testing.T) {
		out := docs(t)
		for _, want := range []string{
			"1 memory document in " + root + " (1 added, 0 updated, 0 removed, 0 unchanged)",
			"doc:.anchorage/memory/user-service.md  Users service: how ids and names are handled",
			"important; decision; triggers: user id, rename user",
			"    rules  lines ",
			"      ids  lines ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "warning") {
			t.Errorf("warnings for a valid document:\n%s", out)
		}
	})

	broken := filepath.Join(root, ".anchorage", "memory", "broken.md")
	if err := os.WriteFile(broken, []byte("# B\n\n<!-- ANCHOR:a -->\n<!-- /ANCHOR:b -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("warnings do not fail", func(t *testing.T) {
		out := docs(t)
		for _, want := range []string{
			"2 memory documents in " + root + " (1 added, 0 updated, 0 removed, 1 unchanged)",
			`.anchorage/memory/broken.md:4: close of section "b", but the open section is "a" (line 3); this marker is ignored`,
			`.anchorage/memory/broken.md:3: section "a" is never closed`,
			"2 warnings",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		if err := os.Remove(broken); err != nil {
			t.Fatal(err)
		}
		var got docsOutput
		if err := json.Unmarshal([]byte(docs(t, "--json")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Root != root || !slices.Equal(got.Sync.Removed, []string{".anchorage/memory/broken.md"}) || len(got.Documents) != 1 {
			t.Fatalf("json = %+v", got)
		}
		d := got.Documents[0]
		var ids []string
		for _, s := range d.Sections {
			ids = append(ids, s.ID)
		}
		if d.ID != "doc:.anchorage/memory/user-service.md" || !slices.Equal(ids, []string{"summary", "rules", "ids", "rename", "state"}) ||
			d.Sections[2].Parent != 1 || len(d.Warnings) != 0 || d.ImportanceTier != "important" {
			t.Errorf("document = %+v", d)
		}
		// The documents are in the memory database, for memory search.
		dirs, _ := state.Resolve(data)
		st, err := memdoc.Open(t.Context(), dirs.MemoryPath())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stored, err := st.Documents(t.Context(), root)
		if err != nil || len(stored) != 1 || !strings.Contains(stored[0].Content, "<!-- ANCHOR:summary -->") {
			t.Fatalf("stored = %d documents, %v", len(stored), err)
		}
	})

	t.Run("no documents, no database", func(t *testing.T) {
		empty := t.TempDir()
		fresh := t.TempDir()
		out, err := run(t, "memory", "docs", "--data-dir", fresh, "--root", empty, "--glob", "notes/**/*.md", "--glob", "[bad")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "No memory documents in") || !strings.Contains(out, "skipped [bad: not a valid root-relative glob pattern") {
			t.Errorf("output:\n%s", out)
		}
		dirs, _ := state.Resolve(fresh)
		if _, err := os.Stat(dirs.MemoryPath()); err == nil {
			t.Error("the memory database was created")
		}
	})

	t.Run("missing root", func(t *testing.T) {
		if _, err := run(t, "memory", "docs", "--data-dir", data, "--root", filepath.Join(root, "nope")); err == nil {
			t.Error("no error for a missing root")
		}
	})
}
