package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// maxListed is the most calls or related symbols listed per definition;
// the rest are counted in More.
const maxListed = 200

// SearchArgs are the search tool's arguments.
type SearchArgs struct {
	Query    string `json:"query" jsonschema:"what to look for: a question about the code, a symbol name, exact text, or a question about relations such as 'what calls FindByID'. Prefixes force a strategy: kw: (exact text), re: (regular expression), sym:, sem:, hybrid:"`
	Strategy string `json:"strategy,omitempty" jsonschema:"force a strategy instead of routing the query"`
	TopK     int    `json:"top_k,omitempty" jsonschema:"how many results (default 10)"`
	Budget   int    `json:"budget,omitempty" jsonschema:"if set, return each result's whole text and cut the results to this many tokens in all; otherwise snippets are a few lines"`
	Group    string `json:"group,omitempty" jsonschema:"'files' to also get the results grouped by file: each file with its best functions and why it was chosen"`
}

func (s *Service) searchTool() tool {
	return newTool(s, toolSpec{
		name: ToolSearch, title: "Search the code", readOnly: true,
		description: `Searches this workspace's code and returns the places that answer a query, best first, each with its file, lines, symbol and a snippet. The query is routed without an LLM: conceptual questions ("how are users loaded?") go to a semantic search over code chunks, questions about relations ("what calls FindByID?", "what implements Repository?") to the code graph, exact text or regular expressions ("lines containing API_KEY") to a keyword search, and compound ones ("the auth code and everything that depends on it") to a hybrid search whose results found by several strategies are marked multi_strategy. Paste a whole task as the query — an issue, a bug report with its traceback, a log, a diff: it is searched by the files, modules and names it mentions (resolved through the code graph) and by meaning, and answers the files to change with their functions (set group to "files" to get them grouped, with why each was chosen). Use it before reading files to find where something lives; set budget to get whole function bodies within a token budget. The answer says which strategy ran and why, and partial is true while the workspace is still being indexed.`,
		schema: func(p map[string]*jsonschema.Schema) {
			minLen(p, "query", 1)
			maxLen(p, "query", MaxSearchBytes)
			enum(p, "strategy", "semantic", "structural", "keyword", "hybrid")
			enum(p, "group", "files")
			between(p, "top_k", 1, MaxTopK)
			between(p, "budget", 0, MaxBudget)
		},
	}, s.search)
}

func (s *Service) search(ctx context.Context, a SearchArgs) (feature.SearchAnswer, error) {
	if err := errors.Join(checkLen("query", a.Query, MaxSearchBytes), checkRange("top_k", a.TopK, 0, MaxTopK),
		checkRange("budget", a.Budget, 0, MaxBudget)); err != nil {
		return feature.SearchAnswer{}, err
	}
	strategy, err := feature.ParseStrategy(a.Strategy)
	if err != nil {
		return feature.SearchAnswer{}, err
	}
	group, err := feature.ParseGroup(a.Group)
	if err != nil {
		return feature.SearchAnswer{}, err
	}
	resp, err := feature.Search(ctx, retrieval.Request{Query: a.Query, TopK: a.TopK, Strategy: strategy, Budget: a.Budget, Group: group},
		[]feature.SearchFolder{{Searcher: s.searcher}})
	if err != nil {
		return feature.SearchAnswer{}, err
	}
	return *resp, nil
}

// RouteArgs are the route tool's arguments.
type RouteArgs struct {
	Query string `json:"query" jsonschema:"the query to classify, as it would be given to search"`
}

func (s *Service) routeTool() tool {
	return newTool(s, toolSpec{
		name: ToolRoute, title: "Explain how a query is searched", readOnly: true,
		description: `Explains, without searching, how the search tool would answer a query: the strategy (semantic, structural, keyword or hybrid), the router's confidence from 0 to 1, a one-line reason, and what each backend would be given (the text a semantic search looks for, the symbol and graph operation of a structural one, the text or regular expression of a keyword one). Use it to understand a surprising search answer or to rephrase a query so that it reaches the right backend; it costs almost nothing.`,
		schema: func(p map[string]*jsonschema.Schema) {
			minLen(p, "query", 1)
			maxLen(p, "query", MaxSearchBytes)
		},
	}, s.route)
}

func (s *Service) route(_ context.Context, a RouteArgs) (retrieval.Route, error) {
	if err := checkLen("query", a.Query, MaxSearchBytes); err != nil {
		return retrieval.Route{}, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return retrieval.Route{}, errors.New("empty query: give the text to classify")
	}
	return s.router.Route(a.Query), nil
}

// Symbol is a definition in the workspace.
type Symbol struct {
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Kind          string `json:"kind"`
	// Path is relative to the workspace root; Line and EndLine are
	// 1-based.
	Path      string `json:"path"`
	Line      int    `json:"line"`
	EndLine   int    `json:"end_line"`
	Language  string `json:"language"`
	Signature string `json:"signature,omitempty"`
}

func symbolOf(s analysis.SymbolInfo) Symbol {
	return Symbol{
		Name: s.Name, QualifiedName: s.QualifiedName, Kind: string(s.Kind), Path: s.Path,
		Line: s.Range.Start.Line + 1, EndLine: s.Range.End.Line + 1, Language: s.Language, Signature: s.Signature,
	}
}

// SymbolArgs name a symbol for a graph question.
type SymbolArgs struct {
	Symbol string `json:"symbol" jsonschema:"the symbol: a name (FindByID) or a qualified name (UserRepository.FindByID)"`
}

// BlastRadiusArgs are the blast_radius tool's arguments.
type BlastRadiusArgs struct {
	Symbol string `json:"symbol" jsonschema:"the symbol: a name (FindByID) or a qualified name (UserRepository.FindByID)"`
	Depth  int    `json:"depth,omitempty" jsonschema:"how many levels of callers and derived types to follow (default 3)"`
}

// Call is one call site.
type Call struct {
	// Path, Line and Column locate the call, 1-based.
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Call is the call as written (repo.FindByID).
	Call string `json:"call"`
	// Caller is the symbol making the call.
	Caller Symbol `json:"caller"`
	// Callee is the definition called, when it is in the workspace.
	Callee *Symbol `json:"callee,omitempty"`
	// Ambiguous is set when several definitions fit the call equally
	// well and the call is listed for each.
	Ambiguous bool `json:"ambiguous,omitempty"`
}

// CallsDefinition is the calls of or to one definition of the symbol.
type CallsDefinition struct {
	Definition Symbol `json:"definition"`
	Calls      []Call `json:"calls"`
	// More counts the calls left out past the listing limit.
	More int `json:"more,omitempty"`
}

// CallsOutput answers callers and callees.
type CallsOutput struct {
	Symbol string `json:"symbol"`
	// Definitions has one entry per definition the symbol names.
	Definitions []CallsDefinition `json:"definitions"`
	IndexState
}

// Related is a symbol a change may affect.
type Related struct {
	// Symbol is nil for a name defined outside the workspace.
	Symbol *Symbol `json:"symbol,omitempty"`
	// Name is the name as written when Symbol is nil.
	Name string `json:"name,omitempty"`
	// Via is the kind of edge that reached it (calls, inherits, …),
	// From the symbol it came from, Depth the edges away.
	Via   string `json:"via"`
	From  string `json:"from,omitempty"`
	Depth int    `json:"depth"`
	// Line is the line of the edge, 1-based.
	Line int `json:"line"`
}

// BlastRadiusDefinition is what a change to one definition may affect.
type BlastRadiusDefinition struct {
	Definition Symbol    `json:"definition"`
	Affected   []Related `json:"affected"`
	More       int       `json:"more,omitempty"`
}

// BlastRadiusOutput answers blast_radius.
type BlastRadiusOutput struct {
	Symbol      string                  `json:"symbol"`
	Depth       int                     `json:"depth"`
	Definitions []BlastRadiusDefinition `json:"definitions"`
	IndexState
}

const symbolDoc = `A symbol may be a plain name (every definition with that name is answered separately) or a qualified name such as UserRepository.FindByID; an unknown name is an error that suggests close names.`

func symbolSchema(p map[string]*jsonschema.Schema) {
	minLen(p, "symbol", 1)
	maxLen(p, "symbol", MaxSymbolBytes)
	between(p, "depth", 1, MaxDepth)
}

func (s *Service) callersTool() tool {
	return newTool(s, toolSpec{
		name: ToolCallers, title: "Who calls a symbol", readOnly: true, schema: symbolSchema,
		description: `Lists every call to a function or method in the workspace, from the code graph: the file, line and column of each call, the call as written, and the symbol that makes it. Use it before changing a function's signature or behaviour to see who depends on it, instead of searching the text. ` + symbolDoc + ` Partial is true while the workspace is still being indexed.`,
	}, func(ctx context.Context, a SymbolArgs) (CallsOutput, error) {
		return s.calls(ctx, analysis.OpCallers, a)
	})
}

func (s *Service) calleesTool() tool {
	return newTool(s, toolSpec{
		name: ToolCallees, title: "What a symbol calls", readOnly: true, schema: symbolSchema,
		description: `Lists the calls a function or method makes, from the code graph: each call as written, where it is, and the definition it reaches in the workspace (none for library calls). Use it to understand what a function does and depends on without reading every callee. ` + symbolDoc + ` Partial is true while the workspace is still being indexed.`,
	}, func(ctx context.Context, a SymbolArgs) (CallsOutput, error) {
		return s.calls(ctx, analysis.OpCallees, a)
	})
}

func (s *Service) calls(ctx context.Context, op string, a SymbolArgs) (CallsOutput, error) {
	ans, err := s.ask(ctx, op, a.Symbol, 0)
	if err != nil {
		return CallsOutput{}, err
	}
	out := CallsOutput{Symbol: a.Symbol, Definitions: []CallsDefinition{}, IndexState: s.indexState()}
	for _, d := range ans.Definitions {
		sites, _ := d.Result.([]analysis.CallSite)
		cd := CallsDefinition{Definition: symbolOf(d.Definition)}
		cd.Calls, cd.More = listed(sites, callOf)
		out.Definitions = append(out.Definitions, cd)
	}
	return out, nil
}

func (s *Service) blastRadiusTool() tool {
	return newTool(s, toolSpec{
		name: ToolBlastRadius, title: "What a change to a symbol may affect", readOnly: true, schema: symbolSchema,
		description: `Lists what a change to a symbol may affect, from the code graph: its callers, their callers, and the types that extend, implement or embed it, transitively up to depth levels (default 3), each with the kind of edge that reached it and its distance. Use it to judge the risk of a change and which tests and call sites to check. ` + symbolDoc + ` Partial is true while the workspace is still being indexed.`,
	}, s.blastRadius)
}

func (s *Service) blastRadius(ctx context.Context, a BlastRadiusArgs) (BlastRadiusOutput, error) {
	if err := checkRange("depth", a.Depth, 0, MaxDepth); err != nil {
		return BlastRadiusOutput{}, err
	}
	depth := a.Depth
	if depth == 0 {
		depth = 3
	}
	ans, err := s.ask(ctx, analysis.OpBlastRadius, a.Symbol, depth)
	if err != nil {
		return BlastRadiusOutput{}, err
	}
	out := BlastRadiusOutput{Symbol: a.Symbol, Depth: depth, Definitions: []BlastRadiusDefinition{}, IndexState: s.indexState()}
	for _, d := range ans.Definitions {
		rels, _ := d.Result.([]analysis.Relation)
		bd := BlastRadiusDefinition{Definition: symbolOf(d.Definition)}
		bd.Affected, bd.More = listed(rels, relatedOf)
		out.Definitions = append(out.Definitions, bd)
	}
	return out, nil
}

// listed converts the first maxListed items with conv; more counts the
// rest. The list is never nil.
func listed[T, V any](items []T, conv func(T) V) (list []V, more int) {
	n := min(len(items), maxListed)
	list = make([]V, n)
	for i, x := range items[:n] {
		list[i] = conv(x)
	}
	return list, len(items) - n
}

func callOf(c analysis.CallSite) Call {
	call := c.Name
	if c.Qualifier != "" {
		call = c.Qualifier + "." + c.Name
	}
	v := Call{Path: c.Path, Line: c.Line, Column: c.Column, Call: call, Caller: symbolOf(c.Caller), Ambiguous: c.Ambiguous}
	if c.Callee != nil {
		v.Callee = ptr(symbolOf(*c.Callee))
	}
	return v
}

func relatedOf(r analysis.Relation) Related {
	v := Related{Via: string(r.Via), From: r.From, Depth: r.Depth, Line: r.Line, Name: r.Name}
	if r.Symbol.Name != "" {
		v.Symbol = ptr(symbolOf(r.Symbol))
	}
	return v
}

// ask asks the code graph a question about a symbol, saying so when a
// missing symbol may not be indexed yet.
func (s *Service) ask(ctx context.Context, op, symbol string, depth int) (*analysis.Answer, error) {
	if err := checkLen("symbol", symbol, MaxSymbolBytes); err != nil {
		return nil, err
	}
	if strings.TrimSpace(symbol) == "" {
		return nil, errors.New("empty symbol: give a function, method or type name")
	}
	ans, err := s.ix.Ask(ctx, op, strings.TrimSpace(symbol), depth)
	var none *analysis.ErrNoSymbol
	if errors.As(err, &none) {
		if p, why := s.partial(); p {
			return nil, fmt.Errorf("%w (the workspace is still being indexed, %s: try again shortly)", err, why)
		}
	}
	return ans, err
}

// SymbolsArgs are the symbols tool's arguments.
type SymbolsArgs struct {
	Query string `json:"query" jsonschema:"a name or part of one: exact names first, then prefixes, camel-case initials (FBI finds FindByID), substrings"`
	Limit int    `json:"limit,omitempty" jsonschema:"most symbols to list (default 50)"`
}

// SymbolMatch is a symbol the symbols tool found, with how it matched.
type SymbolMatch struct {
	Symbol
	// Match is exact, prefix, initials or substring.
	Match string `json:"match"`
}

// SymbolsOutput answers symbols.
type SymbolsOutput struct {
	Query   string        `json:"query"`
	Symbols []SymbolMatch `json:"symbols"`
	IndexState
}

func (s *Service) symbolsTool() tool {
	return newTool(s, toolSpec{
		name: ToolSymbols, title: "Find symbols by name", readOnly: true,
		description: `Finds definitions (functions, methods, types, modules) by name, ignoring case: exact matches first, then prefixes, then camel-case or snake-case initials (FBI finds FindByID), then substrings, each with its file, lines, kind and signature. Use it to go from a half-remembered name to the definition, or to get the exact qualified name that callers, callees and blast_radius take. Partial is true while the workspace is still being indexed.`,
		schema: func(p map[string]*jsonschema.Schema) {
			minLen(p, "query", 1)
			maxLen(p, "query", MaxSymbolBytes)
			between(p, "limit", 1, MaxSymbols)
		},
	}, s.symbols)
}

func (s *Service) symbols(ctx context.Context, a SymbolsArgs) (SymbolsOutput, error) {
	if err := errors.Join(checkLen("query", a.Query, MaxSymbolBytes), checkRange("limit", a.Limit, 0, MaxSymbols)); err != nil {
		return SymbolsOutput{}, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return SymbolsOutput{}, errors.New("empty query: give a name or part of one")
	}
	limit := a.Limit
	if limit == 0 {
		limit = 50
	}
	ms, err := s.ix.Symbols(ctx, a.Query, limit)
	if err != nil {
		return SymbolsOutput{}, err
	}
	out := SymbolsOutput{Query: a.Query, Symbols: []SymbolMatch{}, IndexState: s.indexState()}
	for _, m := range ms {
		out.Symbols = append(out.Symbols, SymbolMatch{Symbol: symbolOf(m.SymbolInfo), Match: m.Match.String()})
	}
	return out, nil
}
