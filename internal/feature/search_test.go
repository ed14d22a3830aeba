package feature

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

func TestFirstDocLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ doc, want string }{
		{"FindByID loads one user by its id.", "FindByID loads one user by its id."},
		{"\n\nLoads users.\nMore.", "Loads users."},
		{"/**\n * Loads and stores {@link User} records.\n */", "Loads and stores User records."},
		{`"""Fetch one user."""`, "Fetch one user."},
		{"{@code x} is {@link Y}", "x is Y"},
		{"", ""},
	} {
		if got := firstDocLine(tt.doc); got != tt.want {
			t.Errorf("firstDocLine(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}

// TestSearch searches the sample app's real index as one and as two
// workspaces: a symbol's result says where its name is, a workspace's
// Owns leaves out the files it does not answer for, and with several
// workspaces each result names its own and they are cut to TopK.
func TestSearch(t *testing.T) {
	ctx := context.Background()
	ix, err := analysis.Open(ctx, analysis.Options{Root: "../../testdata/sampleapp", DBPath: filepath.Join(t.TempDir(), "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := &retrieval.Searcher{Index: ix, Router: retrieval.DefaultRouter()}
	req := retrieval.Request{Query: "sym:FindByID", TopK: 3}

	one, err := Search(ctx, req, []SearchFolder{{Searcher: s}})
	if err != nil {
		t.Fatal(err)
	}
	var repo *SearchResult
	for i, r := range one.Results {
		if r.Root != "" {
			t.Errorf("result %s names a root with one workspace", r.File)
		}
		if r.File == "users/repo.go" && strings.HasSuffix(r.Symbol, "FindByID") {
			repo = &one.Results[i]
		}
	}
	if repo == nil {
		t.Fatalf("no FindByID in users/repo.go among %+v", one.Results)
	}
	syms, err := ix.SymbolsInFile(ctx, "users/repo.go")
	if err != nil {
		t.Fatal(err)
	}
	var want analysis.Position
	for _, sym := range syms {
		if sym.QualifiedName == repo.Symbol || sym.Name == repo.Symbol {
			want = NameRange(sym).Start
		}
	}
	if repo.NameLine != want.Line+1 || repo.NameColumn != want.Column+1 || repo.NameLine == 0 {
		t.Errorf("FindByID's name at %d:%d; want %d:%d", repo.NameLine, repo.NameColumn, want.Line+1, want.Column+1)
	}

	notGo := func(rel string) bool { return !strings.HasSuffix(rel, ".go") }
	two, err := Search(ctx, req, []SearchFolder{{Searcher: s, Root: "/a"}, {Searcher: s, Root: "/b", Owns: notGo}})
	if err != nil {
		t.Fatal(err)
	}
	if len(two.Results) > req.TopK {
		t.Errorf("%d results with top_k %d", len(two.Results), req.TopK)
	}
	for _, r := range two.Results {
		if r.Root != "/a" && r.Root != "/b" || r.Root == "/b" && !notGo(r.File) {
			t.Errorf("result %s of root %q: want /a, or /b for a file /b owns", r.File, r.Root)
		}
	}
	if _, err := Search(ctx, req, nil); err == nil {
		t.Error("a search of no workspace: no error")
	}
}
