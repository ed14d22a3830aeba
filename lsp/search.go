package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
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
			text, _, ok := f.ws.Text(rel)
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

// search runs anchorage.search: {"query", "top_k"?, "strategy"?,
// "budget"?, "group"?} or ["query"].
func (s *Server) search(ctx context.Context, a command.SearchArgs) (*feature.SearchAnswer, error) {
	req := a.Request
	folders := sortedFolders(s.snapshotFolders())
	if len(folders) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: no workspace folder is open", string(command.Search.Name()))
	}
	var in []feature.SearchFolder
	for _, f := range folders {
		if err := f.ws.Flush(ctx); err != nil {
			return nil, err
		}
		in = append(in, feature.SearchFolder{
			Searcher: s.searcherFor(f), Root: f.dir, FileSymbols: f.ws.FileSymbols,
			Owns: func(rel string) bool { return s.owns(f, rel) },
		})
	}
	out, err := feature.Search(ctx, req, in)
	if err != nil {
		return nil, searchError(err)
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
func (s *Server) routingStats(ctx context.Context, _ command.NoArgs) (command.RoutingStatsResult, error) {
	fb := s.feedbackStore()
	if fb == nil {
		return command.RoutingStatsResult{}, fmt.Errorf("%s: routing feedback is unavailable (see the server log)", string(command.RoutingStats.Name()))
	}
	stats, err := fb.Stats(ctx)
	if err != nil {
		return command.RoutingStatsResult{}, err
	}
	return command.RoutingStatsResult{Strategies: stats}, nil
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
