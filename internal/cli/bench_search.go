package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/keyword"
)

// searchReport holds the search figures of anchorage bench.
type searchReport struct {
	GraphOnlySeconds float64            `json:"graph_only_cold_index_seconds"`
	ChunkOverhead    float64            `json:"chunk_index_overhead"`
	Chunks           int                `json:"chunks"`
	Queries          int                `json:"queries"`
	RouteP50us       float64            `json:"route_p50_us"`
	RouteP95us       float64            `json:"route_p95_us"`
	SearchP50ms      float64            `json:"search_p50_ms"`
	SearchP95ms      float64            `json:"search_p95_ms"`
	ByStrategy       map[string]pctiles `json:"search_by_strategy"`
	KeywordTODOms    float64            `json:"keyword_todo_ms"`
	KeywordWordms    float64            `json:"keyword_whole_word_ms"`
	KeywordWord      string             `json:"keyword_whole_word"`
}

// pctiles are a median and a 95th percentile, in milliseconds.
type pctiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
}

// benchQueries makes a mixed set of questions about the sampled symbols:
// each symbol's doc sentence (searched by meaning), who calls it and what
// it calls, its blast radius, its name as text, and it with what depends
// on it.
func benchQueries(syms []analysis.SymbolInfo) []string {
	qs := []string{"TODO", "re:func \\(\\w+ \\*\\w+\\) Close\\("}
	for i, s := range syms {
		switch i % 6 {
		case 0:
			if d := strings.TrimSpace(strings.SplitN(s.Doc, ".", 2)[0]); len(strings.Fields(d)) >= 4 {
				qs = append(qs, d)
			} else {
				qs = append(qs, "how does "+strings.ToLower(strings.Join(analysis.SplitIdentifier(s.Name), " "))+" work")
			}
		case 1:
			qs = append(qs, "who calls "+s.QualifiedName)
		case 2:
			qs = append(qs, "what does "+s.QualifiedName+" call")
		case 3:
			qs = append(qs, "blast radius of "+s.QualifiedName)
		case 4:
			qs = append(qs, "kw:"+s.Name)
		case 5:
			qs = append(qs, "the "+strings.ToLower(strings.Join(analysis.SplitIdentifier(s.Name), " "))+" code and what depends on it")
		}
	}
	return qs
}

// benchSearch times routing and routed searches end to end, and keyword
// scans of the whole index, over an index that is up to date.
func benchSearch(ctx context.Context, ix *analysis.Index, syms []analysis.SymbolInfo, vec *retrieval.WordVectors) (*searchReport, error) {
	rep := &searchReport{ByStrategy: map[string]pctiles{}}
	var err error
	if rep.Chunks, err = ix.ChunkCount(ctx); err != nil {
		return nil, err
	}
	s := &retrieval.Searcher{Index: ix, Router: retrieval.DefaultRouter()}
	if vec != nil {
		s.Vectors = vec
	}
	queries := benchQueries(syms)
	rep.Queries = len(queries)
	var routeTimes, all []time.Duration
	by := map[string][]time.Duration{}
	for _, q := range queries {
		start := time.Now()
		s.Router.Route(q)
		routeTimes = append(routeTimes, time.Since(start))
		start = time.Now()
		resp, err := s.Search(ctx, retrieval.Request{Query: q})
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", q, err)
		}
		d := time.Since(start)
		all = append(all, d)
		by[string(resp.Strategy)] = append(by[string(resp.Strategy)], d)
	}
	p50, p95 := percentiles(routeTimes)
	rep.RouteP50us, rep.RouteP95us = p50*1000, p95*1000
	rep.SearchP50ms, rep.SearchP95ms = percentiles(all)
	for k, ds := range by {
		p50, p95 := percentiles(ds)
		rep.ByStrategy[k] = pctiles{len(ds), p50, p95}
	}

	paths, err := ix.FilePaths(ctx)
	if err != nil {
		return nil, err
	}
	files := make([]keyword.File, len(paths))
	for i, p := range paths {
		files[i] = keyword.File{Path: p, Abs: filepath.Join(ix.Root(), filepath.FromSlash(p))}
	}
	best := func(pattern string, opts keyword.Options) (float64, error) {
		var min time.Duration
		for range 3 {
			start := time.Now()
			if _, err := keyword.Search(ctx, files, pattern, opts); err != nil {
				return 0, err
			}
			if d := time.Since(start); min == 0 || d < min {
				min = d
			}
		}
		return float64(min.Microseconds()) / 1000, nil
	}
	if rep.KeywordTODOms, err = best("TODO", keyword.Options{}); err != nil {
		return nil, err
	}
	rep.KeywordWord = "ReadFull"
	if len(syms) > 0 && !strings.Contains(ix.Root(), "/go/src") {
		rep.KeywordWord = syms[0].Name
	}
	if rep.KeywordWordms, err = best(rep.KeywordWord, keyword.Options{WholeWord: true}); err != nil {
		return nil, err
	}
	return rep, nil
}
