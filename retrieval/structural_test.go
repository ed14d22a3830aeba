package retrieval

import (
	"context"
	"path/filepath"
	"slices"
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
			syms, err := StructuralSymbols(ctx, ix.Store, rt, 50)
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
