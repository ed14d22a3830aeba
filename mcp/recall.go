package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anchorage-dev/anchorage/memory/memdoc"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// docSyncInterval is how long memory documents found on disk are trusted
// before memory_search looks for changes again.
const docSyncInterval = 5 * time.Second

// recallState is the memory graph memory_search answers from: opened on
// first use over the user's rules and the workspace's memory documents.
type recallState struct {
	mu       sync.Mutex
	docs     *memdoc.Store
	graph    *recall.Store
	lastSync time.Time
}

// close writes what the memory graph keeps pending; the session owns
// and closes the stores.
func (r *recallState) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.graph != nil {
		err = r.graph.Flush(context.Background())
		r.graph = nil
	}
	r.docs = nil
	return err
}

// recallGraph returns the memory graph, brought up to date with the rules
// and (at most every docSyncInterval) the workspace's memory documents.
func (s *Service) recallGraph(ctx context.Context) (*recall.Store, error) {
	// The graph reads the session's rules; opening them here creates the
	// database as before.
	if _, err := s.memoryStore(ctx, true); err != nil {
		return nil, err
	}
	var err error
	r := &s.recall
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.docs == nil {
		if r.docs, err = s.opts.Session.Documents(ctx); err != nil {
			return nil, err
		}
	}
	if r.graph == nil {
		if r.graph, err = s.opts.Session.Recall(ctx); err != nil {
			return nil, err
		}
	}
	if time.Since(r.lastSync) >= docSyncInterval {
		sum, err := r.docs.Sync(ctx, s.root, s.opts.MemoryDocuments)
		if err != nil {
			return nil, err
		}
		for _, sk := range sum.Skipped {
			s.log.Printf("memory document skipped: %+v", sk)
		}
		r.lastSync = time.Now()
	}
	if _, err := r.graph.Sync(ctx); err != nil {
		return nil, err
	}
	return r.graph, nil
}

// MemorySearchArgs are the memory_search tool's arguments.
type MemorySearchArgs struct {
	Query string `json:"query" jsonschema:"what you need to remember: the task, the topic or the question"`
	Slot  string `json:"slot,omitempty" jsonschema:"the working memory slot to search from (A, B or C); default: the slot whose topic is closest to the query"`
	// Radius is in hops from the slot's anchor.
	Radius int `json:"radius,omitempty" jsonschema:"how many hops from the slot's anchor to search (default: the slot's hop budget)"`
	// Anchors are section ids of memory documents.
	Anchors        []string `json:"anchors,omitempty" jsonschema:"with includeContent, return only these ANCHOR sections of each memory document (e.g. summary, decisions), with the tokens saved"`
	IncludeContent bool     `json:"includeContent,omitempty" jsonschema:"return each memory's text: a rule with its rationale, a document whole or only its anchors"`
	TopK           int      `json:"top_k,omitempty" jsonschema:"how many memories (default 8)"`
	Fallback       *bool    `json:"fallback,omitempty" jsonschema:"when the slot's neighbourhood has nothing relevant, rank every memory (default true)"`
}

func (s *Service) memorySearchTool() tool {
	return newTool(s, toolSpec{
		name: ToolMemorySearch, title: "Search the user's memory",
		description: `Searches the user's memory, meaning their approved coding rules and the Markdown memory documents of this workspace (decisions, plans, summaries under .anchorage/memory/), and returns the most relevant memories with a score, how they were found (near a working memory slot's anchor, or by ranking every memory) and, with includeContent, their text. Three working memory slots (A, B, C) follow separate topics: a search starts from the slot closest to the query, or the one you name, and moves that slot's anchor to what it found. To save context, pass anchors (section ids such as summary or decisions) with includeContent: each document then returns only those sections, joined by ---, with token_metrics (full_tokens, returned_tokens, savings_pct) and missing_anchors for ids it does not have.`,
		schema: func(p map[string]*jsonschema.Schema) {
			minLen(p, "query", 1)
			maxLen(p, "query", MaxQueryBytes)
			enum(p, "slot", "A", "B", "C")
			between(p, "radius", 0, recall.MaxRadius)
			between(p, "top_k", 1, MaxTopK)
			if a := p["anchors"]; a != nil {
				a.MaxItems = ptr(MaxAnchors)
				if a.Items != nil {
					a.Items.MinLength, a.Items.MaxLength = ptr(1), ptr(MaxAnchorBytes)
				}
			}
		},
	}, s.memorySearch)
}

func (s *Service) memorySearch(ctx context.Context, a MemorySearchArgs) (recall.Response, error) {
	err := errors.Join(checkLen("query", a.Query, MaxQueryBytes), checkRange("radius", a.Radius, 0, recall.MaxRadius),
		checkRange("top_k", a.TopK, 0, MaxTopK))
	if len(a.Anchors) > MaxAnchors {
		err = errors.Join(err, fmt.Errorf("%d anchors: the limit is %d", len(a.Anchors), MaxAnchors))
	}
	for _, id := range a.Anchors {
		err = errors.Join(err, checkLen("anchor id", id, MaxAnchorBytes))
	}
	if err != nil {
		return recall.Response{}, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return recall.Response{}, errors.New("empty query: say what to look for")
	}
	g, err := s.recallGraph(ctx)
	if err != nil {
		return recall.Response{}, err
	}
	resp, err := g.Search(ctx, recall.Query{
		Text: a.Query, Slot: a.Slot, Radius: a.Radius, NoFallback: a.Fallback != nil && !*a.Fallback,
		TopK: a.TopK, Anchors: a.Anchors, IncludeContent: a.IncludeContent,
	})
	if err != nil {
		return recall.Response{}, err
	}
	if resp.Results == nil {
		resp.Results = []recall.Result{}
	}
	if resp.Notices == nil {
		resp.Notices = []string{}
	}
	return resp, nil
}
