package lsp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.uber.org/zap"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/embedding"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
)

// searcherFor returns the search service of a folder: routed search over
// its index, with the text of open documents for keyword search and the
// progress of its indexing to mark partial answers. It records nothing:
// anchorage.search records each search once, whatever the folders.
func (s *Server) searcherFor(f *folder) *retrieval.Searcher {
	return &retrieval.Searcher{
		Index:   f.ws.Index(),
		Router:  s.router,
		Vectors: s.vectorizer(),
		Overlay: func(rel string) ([]byte, bool) {
			text, _, _, ok := f.ws.Snapshot(rel)
			return text, ok
		},
		Partial: func() (bool, string) {
			if f.indexing.Load() == 0 {
				return false, ""
			}
			return true, fmt.Sprintf("%d of %d files", f.done.Load(), f.total.Load())
		},
	}
}

// searchResponse is anchorage.search's answer: the search's, with the
// results of every folder merged. Root names each result's folder when
// there are several.
type searchResponse struct {
	*retrieval.Response
	Results []folderResult `json:"results"`
}

// folderResult is a result with the folder it is relative to, and, for
// a symbol, where its name is, for editors to put the cursor on.
type folderResult struct {
	retrieval.Result
	Root string `json:"root,omitempty"`
	// NameLine and NameColumn are 1-based (columns in UTF-16 units).
	NameLine   int `json:"name_line,omitempty"`
	NameColumn int `json:"name_column,omitempty"`
}

// describe adds to a symbol's result where its name is, and its doc
// comment's first line when the search did not give it (Javadoc's inline
// tags read as their text), from the folder's symbols of the file.
func (s *Server) describe(ctx context.Context, f *folder, fr *folderResult, syms map[string][]analysis.SymbolInfo) {
	fr.Doc = inlineTags.ReplaceAllString(fr.Doc, "$1")
	if fr.Symbol == "" {
		return
	}
	list, ok := syms[fr.File]
	if !ok {
		var err error
		if list, err = f.ws.FileSymbols(ctx, fr.File); err != nil {
			s.log.Debug("search result's symbol", zap.String("file", fr.File), zap.Error(err))
		}
		syms[fr.File] = list
	}
	// The result's line is where its text starts: the symbol's first line,
	// or the doc comment above it.
	best, dist := -1, 0
	for i, sym := range list {
		if sym.Name != fr.Symbol && sym.QualifiedName != fr.Symbol && !strings.HasSuffix(fr.Symbol, "."+sym.Name) {
			continue
		}
		start, end := sym.Range.Start.Line+1, sym.Range.End.Line+1
		if fr.Line > end || fr.Line < start-maxDocLines {
			continue
		}
		d := start - fr.Line
		if d < 0 {
			d = -d
		}
		if best < 0 || d < dist {
			best, dist = i, d
		}
	}
	if best < 0 {
		return
	}
	sym := list[best]
	name := selectionRange(sym).Start
	fr.NameLine, fr.NameColumn = int(name.Line)+1, int(name.Character)+1
	if fr.Doc == "" {
		fr.Doc = firstDocLine(sym.Doc)
	}
}

// maxDocLines is how far above a symbol a search result's text may start
// (its doc comment) and still be that symbol's.
const maxDocLines = 40

// firstDocLine is the first line of a doc comment with words, without
// comment markers, and with Javadoc's inline tags as their text ("{@link
// User}" reads "User").
func firstDocLine(doc string) string {
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimLeft(l, "/#*!")
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), `"'`))
		if l != "" {
			return inlineTags.ReplaceAllString(l, "$1")
		}
	}
	return ""
}

// inlineTags are Javadoc's and JSDoc's inline tags: {@link X}, {@code X}.
var inlineTags = regexp.MustCompile(`\{@(?:link|linkplain|code|literal)\s+([^}]*)\}`)

// search runs anchorage.search: {"query", "top_k"?, "strategy"?,
// "budget"?, "group"?} or ["query"].
func (s *Server) search(ctx context.Context, a command.SearchArgs) (any, error) {
	req := a.Request
	folders := sortedFolders(s.snapshotFolders())
	if len(folders) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: no workspace folder is open", string(command.Search.Name()))
	}
	var out *searchResponse
	for _, f := range folders {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		resp, err := s.searcherFor(f).Search(ctx, req)
		if err != nil {
			return nil, searchError(err)
		}
		if out == nil {
			out = &searchResponse{Response: resp, Results: []folderResult{}}
		} else {
			out.Total += resp.Total
			out.Partial = out.Partial || resp.Partial
			out.Files = append(out.Files, resp.Files...)
		}
		syms := map[string][]analysis.SymbolInfo{}
		for _, r := range resp.Results {
			if !s.owns(f, r.File) {
				continue // a nested folder answers for it
			}
			fr := folderResult{Result: r}
			s.describe(ctx, f, &fr, syms)
			if len(folders) > 1 {
				fr.Root = f.dir
			}
			out.Results = append(out.Results, fr)
		}
	}
	if len(folders) > 1 {
		sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
		top := req.TopK
		if top <= 0 {
			top = retrieval.DefaultTopK
		}
		if len(out.Results) > top {
			out.Results = out.Results[:top]
		}
		sort.SliceStable(out.Files, func(i, j int) bool { return out.Files[i].Score > out.Files[j].Score })
		out.Files = out.Files[:min(len(out.Files), top)]
	}
	out.FeedbackID = 0
	if fb := s.feedbackStore(); fb != nil {
		id, err := fb.Record(ctx, feedback.Entry{
			Query: out.Query, Strategy: string(out.Strategy), Confidence: out.Confidence,
			Results: len(out.Results), Root: folders[0].root(),
		})
		if err != nil {
			s.warn("search not recorded for routing statistics: %v", err)
		}
		out.FeedbackID = id
	}
	return out, nil
}

// searchError turns a search's error into the protocol's: bad queries are
// invalid parameters, the rest internal errors.
func searchError(err error) error {
	var qe *retrieval.QueryError
	if errors.As(err, &qe) {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", string(command.Search.Name()), err)
	}
	return fmt.Errorf("%s: %w", string(command.Search.Name()), err)
}

// vectorSignal is what semantic search embeds with: an embedding server
// when the settings name one, else the built-in word vectors. It is set
// up once; nil when neither can be had (search then ranks by BM25 alone).
type vectorSignal interface {
	analysis.Embedder
	retrieval.Vectorizer
}

func (s *Server) vectorSignal() vectorSignal {
	s.vectorsOnce.Do(func() {
		s.mu.Lock()
		cfg := s.settings.Embedding
		if cfg.Provider == "" && s.fileEmbedding != nil {
			e := s.fileEmbedding
			cfg = EmbeddingSettings{Provider: e.Provider, URL: e.URL, Model: e.Model, APIKeyEnv: e.APIKeyEnv}
		}
		s.mu.Unlock()
		if cfg.Provider != "" {
			v, err := retrieval.NewProviderVectors(embedding.Config{Kind: cfg.Provider, URL: cfg.URL, Model: cfg.Model, APIKeyEnv: cfg.APIKeyEnv})
			if err == nil {
				s.vectors = v
				return
			}
			s.warn("embedding server %s: %v; using the built-in word vectors", cfg.Provider, err)
		}
		v, err := retrieval.NewWordVectors()
		if err != nil {
			s.warn("semantic search without word vectors: %v", err)
			return
		}
		s.vectors = v
	})
	return s.vectors
}

// vectorizer is the vector signal as the searcher's (a nil interface
// when there is none).
func (s *Server) vectorizer() retrieval.Vectorizer {
	if v := s.vectorSignal(); v != nil {
		return v
	}
	return nil
}

// embedder is the vector signal as the index's chunk embedder.
func (s *Server) embedder() analysis.Embedder {
	if v := s.vectorSignal(); v != nil {
		return v
	}
	return nil
}

// feedbackStore returns the user's routing feedback, opened on first use,
// or nil when it cannot be opened (searches are then not recorded).
func (s *Server) feedbackStore() *feedback.Store {
	sess, err := s.session()
	var fb *feedback.Store
	if err == nil {
		fb, err = sess.Feedback(s.bg)
	}
	if err != nil {
		s.warn("searches are not recorded for routing statistics: %v", err)
		return nil
	}
	return fb
}

// searchUsed runs anchorage.search.used, which editors send when the user
// opens a result.
func (s *Server) searchUsed(ctx context.Context, a command.SearchUsedArgs) (command.UsedResult, error) {
	fb := s.feedbackStore()
	if fb == nil {
		return command.UsedResult{}, fmt.Errorf("%s: routing feedback is unavailable (see the server log)", string(command.SearchUsed.Name()))
	}
	if err := fb.Used(ctx, a.ID, a.File, a.Line); err != nil {
		if errors.Is(err, feedback.ErrUnknownSearch) {
			return command.UsedResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", string(command.SearchUsed.Name()), err)
		}
		return command.UsedResult{}, err
	}
	return command.UsedResult{Recorded: true}, nil
}

// routingStats runs anchorage.routing.stats: per strategy, the searches,
// the router's mean confidence and how often a result was used.
func (s *Server) routingStats(ctx context.Context, _ command.NoArgs) (any, error) {
	fb := s.feedbackStore()
	if fb == nil {
		return nil, fmt.Errorf("%s: routing feedback is unavailable (see the server log)", string(command.RoutingStats.Name()))
	}
	stats, err := fb.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"strategies": stats}, nil
}

// reindex runs anchorage.reindex: every folder is brought up to date
// again, with progress.
func (s *Server) reindex(context.Context, command.NoArgs) (command.ReindexResult, error) {
	folders := sortedFolders(s.snapshotFolders())
	for _, f := range folders {
		s.indexFolder(f, "Anchorage: re-indexing "+f.name)
	}
	return command.ReindexResult{Folders: len(folders), Started: true}, nil
}
