package retrieval

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

func TestStructuralSymbols(t *testing.T) {
	ctx := context.Background()
	ix, err := analysis.Open(ctx, analysis.Options{
		Root:   filepath.Join("..", "testdata", "sampleapp"),
		DBPath: filepath.Join(t.TempDir(), "index.db"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	r := NewRouter()
	tests := []struct {
		query string
		want  []string // qualified names that must be among the answer
		none  bool
	}{
		{"what calls UserRepository.FindByID", []string{"Service.GetUser"}, false},
		{"what does Service.GetUser call", []string{"UserRepository.FindByID"}, false},
		{"subclasses of Job", []string{"jobs.EmailJob", "jobs.ReportJob"}, false},
		// EmailJob's base, Job, is not one of its subclasses.
		{"subclasses of EmailJob", nil, true},
		{"blast radius of UserRepository.FindByID", []string{"Service.GetUser", "Handler.ServeUser"}, false},
		{"where is NewService defined", []string{"users.NewService"}, false},
		{"what calls NoSuchFunction", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rt := r.Route(tt.query)
			if rt.Strategy != Structural {
				t.Fatalf("%q routed %s", tt.query, rt.Strategy)
			}
			syms, err := StructuralSymbols(ctx, ix, rt, 50)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range syms {
				names = append(names, s.QualifiedName)
			}
			if tt.none && len(names) > 0 {
				t.Errorf("got %v, want nothing", names)
			}
			for _, w := range tt.want {
				if !slices.Contains(names, w) {
					t.Errorf("got %v, want %s among them", names, w)
				}
			}
		})
	}
}

func TestLikelyCallees(t *testing.T) {
	def := func(path, name string, kind analysis.Kind) *analysis.SymbolInfo {
		return &analysis.SymbolInfo{Path: path, QualifiedName: name, Kind: kind}
	}
	calls := []analysis.CallSite{
		{Path: "net/http/server.go", Name: "Close", Ambiguous: true, Callee: def("archive/tar/writer.go", "Writer.Close", analysis.KindMethod)},
		{Path: "net/http/server.go", Name: "Close", Ambiguous: true, Callee: def("net/http/server.go", "conn.Close", analysis.KindMethod)},
		{Path: "net/http/server.go", Name: "Unknown"},
		{Path: "net/http/server.go", Name: "Sleep", Qualifier: "time", Callee: def("time/sleep.go", "time.Sleep", analysis.KindFunction)},
	}
	var got []string
	for _, c := range likelyCallees(calls) {
		got = append(got, c.Callee.QualifiedName)
	}
	want := []string{"time.Sleep", "conn.Close", "Writer.Close"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("likelyCallees = %v, want %v (unique first, then the caller's package, then other guesses; unresolved left out)", got, want)
	}
}

func TestInheritanceOrder(t *testing.T) {
	rel := func(name string, kind analysis.Kind) analysis.Relation {
		return analysis.Relation{Symbol: analysis.SymbolInfo{QualifiedName: name, Kind: kind}}
	}
	bases := []analysis.Relation{rel("io.Writer", analysis.KindInterface)}
	derived := []analysis.Relation{rel("fs.ReadDirFS", analysis.KindInterface), rel("os.dirFS", analysis.KindType), rel("fstest.MapFS", analysis.KindType)}
	names := func(rs []analysis.Relation) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Symbol.QualifiedName)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ direction, want string }{
		// Issue 16: subtypes only, never a base among them.
		{DirectionDown, "os.dirFS fstest.MapFS fs.ReadDirFS"},
		{DirectionUp, "io.Writer"},
		{"", "io.Writer fs.ReadDirFS os.dirFS fstest.MapFS"},
	} {
		if got := names(inheritanceOrder(tc.direction, bases, derived)); got != tc.want {
			t.Errorf("inheritanceOrder(%q) = %s, want %s", tc.direction, got, tc.want)
		}
	}
}

func TestInScope(t *testing.T) {
	paths := []string{"net/http/server.go", "net/http/httptest/server.go", "net/url/url.go", "cmd/go/internal/http/http.go", "main.go"}
	for _, tc := range []struct {
		scope string
		want  []string
	}{
		{"net/http", []string{"net/http/server.go", "net/http/httptest/server.go"}},
		{"net/http/", []string{"net/http/server.go", "net/http/httptest/server.go"}},
		{"./net/url", []string{"net/url/url.go"}},
		{"http", []string{"net/http/server.go", "net/http/httptest/server.go", "cmd/go/internal/http/http.go"}},
		{"server.go", []string{"net/http/server.go", "net/http/httptest/server.go"}},
		{"main.go", []string{"main.go"}},
		{"linker", nil},
		{"../..", paths},
	} {
		if got := inScope(paths, tc.scope); !slices.Equal(got, tc.want) {
			t.Errorf("inScope(%q) = %v, want %v", tc.scope, got, tc.want)
		}
	}
}
