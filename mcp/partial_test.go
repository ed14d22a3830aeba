package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/session"
	"github.com/anchorage-dev/anchorage/state"
)

// TestPartial checks that answers given while the index is being built
// say so, with how far indexing got, and that a symbol not found then is
// reported as possibly not indexed yet.
func TestPartial(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sess, err := session.New(ctx, state.Dirs{Data: filepath.Join(dir, "data"), Cache: filepath.Join(dir, "cache")}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ix, err := sess.Index(ctx, filepath.Join("..", "testdata", "sampleapp"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Session: sess, Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Start(ctx)
	<-s.Indexed()

	tests := []struct {
		name        string
		indexing    bool
		done, total int64
		failed      string
		want        IndexState
	}{
		{name: "indexed", want: IndexState{}},
		{name: "scanning", indexing: true, want: IndexState{Partial: true, Notice: "indexing: scanning the workspace"}},
		{name: "progress", indexing: true, done: 3, total: 22, want: IndexState{Partial: true, Notice: "indexing: 3 of 22 files"}},
		{name: "failed", failed: "disk full", want: IndexState{Partial: true, Notice: "indexing failed: disk full"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.indexing.Store(tc.indexing)
			s.done.Store(tc.done)
			s.total.Store(tc.total)
			s.indexErr.Store(nil)
			if tc.failed != "" {
				s.indexErr.Store(&tc.failed)
			}
			defer s.indexErr.Store(nil)

			out, err := s.symbols(ctx, SymbolsArgs{Query: "FindByID"})
			if err != nil || out.IndexState != tc.want || len(out.Symbols) == 0 {
				t.Errorf("symbols: %+v, %v; want %+v", out.IndexState, err, tc.want)
			}
			calls, err := s.calls(ctx, analysis.OpCallers, SymbolArgs{Symbol: "UserRepository.FindByID"})
			if err != nil || calls.IndexState != tc.want {
				t.Errorf("callers: %+v, %v; want %+v", calls.IndexState, err, tc.want)
			}
			resp, err := s.search(ctx, SearchArgs{Query: "what calls FindByID"})
			if err != nil || resp.Partial != tc.want.Partial {
				t.Errorf("search partial=%v notice=%q, %v; want %+v", resp.Partial, resp.Notice, err, tc.want)
			}
			_, err = s.calls(ctx, analysis.OpCallers, SymbolArgs{Symbol: "NotIndexedYet"})
			if err == nil || strings.Contains(err.Error(), "still being indexed") != tc.want.Partial {
				t.Errorf("unknown symbol: %v", err)
			}
		})
	}
}
