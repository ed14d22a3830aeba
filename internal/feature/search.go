package feature

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// SearchFolder is one workspace a search runs over.
type SearchFolder struct {
	// Searcher searches the workspace's index (with its open documents).
	Searcher *retrieval.Searcher
	// Root names the workspace in results when several are searched
	// (the directory as the user named it).
	Root string
	// Owns reports whether the workspace answers for a file (false for
	// a file of a nested workspace); nil means every file.
	Owns func(rel string) bool
	// FileSymbols returns a file's symbols as the user sees them, to
	// place a result's name and give its doc comment; nil means the
	// index.s (Searcher.Index.SymbolsInFile).
	FileSymbols func(ctx context.Context, rel string) ([]analysis.SymbolInfo, error)
}

// SearchAnswer is a search's answer: the router's, with the results of
// every workspace merged, best first.
type SearchAnswer struct {
	*retrieval.Response
	Results []SearchResult `json:"results"`
}

// SearchResult is a result with the workspace it is relative to and,
// for a symbol, where its name is, for a front end to put the cursor on.
type SearchResult struct {
	retrieval.Result
	// Root is the result's workspace when several were searched.
	Root string `json:"root,omitempty"`
	// NameLine and NameColumn are 1-based (columns in UTF-16 units).
	NameLine   int `json:"name_line,omitempty"`
	NameColumn int `json:"name_column,omitempty"`
}

// ParseStrategy returns the strategy a user names (any case, spaces
// around), "" for routing; an unknown name is an error listing them.
func ParseStrategy(s string) (retrieval.Strategy, error) {
	strategy := retrieval.Strategy(strings.ToLower(strings.TrimSpace(s)))
	switch strategy {
	case "", retrieval.Semantic, retrieval.Structural, retrieval.Keyword, retrieval.Hybrid:
		return strategy, nil
	}
	return "", fmt.Errorf("unknown strategy %q: want semantic, structural, keyword or hybrid", s)
}

// ParseGroup checks a grouping the user names: "" or retrieval.GroupFiles.
func ParseGroup(g string) (string, error) {
	switch g {
	case "", retrieval.GroupFiles:
		return g, nil
	}
	return "", fmt.Errorf("unknown group %q: the only grouping is %q", g, retrieval.GroupFiles)
}

// Search answers req over folders: each is searched, its results of
// files it owns kept, each symbol's result given where its name is and,
// when the search gave none, its doc comment's first line; with several
// folders the results are merged by score and cut to req.TopK. It records
// nothing. A bad query is a *retrieval.QueryError.
func Search(ctx context.Context, req retrieval.Request, folders []SearchFolder) (*SearchAnswer, error) {
	if len(folders) == 0 {
		return nil, fmt.Errorf("search: no workspace to search")
	}
	var out *SearchAnswer
	for _, f := range folders {
		resp, err := f.Searcher.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = &SearchAnswer{Response: resp, Results: []SearchResult{}}
		} else {
			out.Total += resp.Total
			out.Partial = out.Partial || resp.Partial
			out.Files = append(out.Files, resp.Files...)
		}
		symbols := f.FileSymbols
		if symbols == nil {
			symbols = f.Searcher.Index.SymbolsInFile
		}
		syms := map[string][]analysis.SymbolInfo{}
		for _, r := range resp.Results {
			if f.Owns != nil && !f.Owns(r.File) {
				continue // a nested workspace answers for it
			}
			sr := SearchResult{Result: r}
			describe(ctx, &sr, symbols, syms)
			if len(folders) > 1 {
				sr.Root = f.Root
			}
			out.Results = append(out.Results, sr)
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
	return out, nil
}

// describe adds to a symbol's result where its name is, and its doc
// comment's first line when the search did not give it (Javadoc's inline
// tags read as their text), from the symbols of its file (read once per
// file into syms). A file whose symbols cannot be read leaves the result
// as it is.
func describe(ctx context.Context, sr *SearchResult, symbols func(context.Context, string) ([]analysis.SymbolInfo, error), syms map[string][]analysis.SymbolInfo) {
	sr.Doc = inlineTags.ReplaceAllString(sr.Doc, "$1")
	if sr.Symbol == "" {
		return
	}
	list, ok := syms[sr.File]
	if !ok {
		list, _ = symbols(ctx, sr.File)
		syms[sr.File] = list
	}
	// The result's line is where its text starts: the symbol's first line,
	// or the doc comment above it.
	best, dist := -1, 0
	for i, sym := range list {
		if sym.Name != sr.Symbol && sym.QualifiedName != sr.Symbol && !strings.HasSuffix(sr.Symbol, "."+sym.Name) {
			continue
		}
		start, end := sym.Range.Start.Line+1, sym.Range.End.Line+1
		if sr.Line > end || sr.Line < start-maxDocLines {
			continue
		}
		d := start - sr.Line
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
	name := NameRange(sym).Start
	sr.NameLine, sr.NameColumn = name.Line+1, name.Column+1
	if sr.Doc == "" {
		sr.Doc = firstDocLine(sym.Doc)
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
