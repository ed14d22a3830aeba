package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/internal/limits"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// SymbolArgs are the graph commands' arguments.
type SymbolArgs struct {
	// Symbol is a name, a qualified name or a module-qualified member.
	Symbol string `json:"symbol"`
	// Depth is how far to follow; 0 means the operation's default.
	Depth int `json:"depth,omitempty"`
}

func (a *SymbolArgs) positional(args []json.RawMessage) error {
	if err := positionalField(args, 0, "symbol", &a.Symbol); err != nil {
		return err
	}
	return positionalField(args, 1, "depth", &a.Depth)
}

// Validate checks the symbol is given and the depth in bounds.
func (a *SymbolArgs) Validate() error {
	if strings.TrimSpace(a.Symbol) == "" {
		return &ArgError{Field: "symbol", Err: errMissing}
	}
	if a.Depth != 0 {
		if err := limits.Depth("depth", a.Depth); err != nil {
			return &ArgError{Field: "depth", Err: err}
		}
	}
	return nil
}

// SearchArgs are anchorage.search's arguments.
type SearchArgs struct {
	retrieval.Request
}

func (a *SearchArgs) positional(args []json.RawMessage) error {
	return positionalField(args, 0, "query", &a.Query)
}

// Validate checks the search's bounds: 0 means the default; the bounds
// are the command line's and MCP's.
func (a *SearchArgs) Validate() error {
	if err := limits.Check("top_k", a.TopK, 0, limits.MaxTopK); err != nil {
		return &ArgError{Field: "top_k", Err: err}
	}
	if err := limits.Budget("budget", a.Budget); err != nil {
		return &ArgError{Field: "budget", Err: err}
	}
	return nil
}

// SearchUsedArgs are anchorage.search.used's: the search (its
// feedback_id) and the result the user opened.
type SearchUsedArgs struct {
	ID   int64  `json:"id"`
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

// Validate checks the search and file are given.
func (a *SearchUsedArgs) Validate() error {
	if a.ID <= 0 {
		return &ArgError{Field: "id", Err: errors.New("want the search's feedback_id, a positive integer")}
	}
	if a.File == "" {
		return &ArgError{Field: "file", Err: errMissing}
	}
	return nil
}

// InjectArgs are anchorage.context.inject's: all optional.
type InjectArgs struct {
	// URI is the document being worked on: its language and folder
	// select the rules, its text ranks them.
	URI protocol.DocumentURI `json:"uri,omitempty"`
	// Query ranks the rules by their overlap with it.
	Query string `json:"query,omitempty"`
	// Budget is the most tokens of Markdown; 0 means
	// memory.DefaultInjectBudget.
	Budget int `json:"budget,omitempty"`
	// Language selects a language's rules without a document, or
	// instead of the document's.
	Language string `json:"language,omitempty"`
}

// Validate checks the budget and the language.
func (a *InjectArgs) Validate() error {
	if a.Budget < 0 {
		return &ArgError{Field: "budget", Err: fmt.Errorf("%d is negative", a.Budget)}
	}
	if a.Language != "" && memory.NormalizeLanguage(a.Language) == "" {
		return &ArgError{Field: "language", Err: fmt.Errorf("%q is not a language name", a.Language)}
	}
	return nil
}

// CorrectionArgs are anchorage.memory.recordCorrection's: the text, and
// where the correction was made.
type CorrectionArgs struct {
	Text  string               `json:"text"`
	URI   protocol.DocumentURI `json:"uri,omitempty"`
	Range *protocol.Range      `json:"range,omitempty"`
	// Session labels the correction; "" means the server's session.
	Session string `json:"session,omitempty"`
}

func (a *CorrectionArgs) positional(args []json.RawMessage) error {
	return positionalField(args, 0, "text", &a.Text)
}

// Validate checks the range is whole and has its document.
func (a *CorrectionArgs) Validate() error {
	if r := a.Range; r != nil {
		if a.URI == "" {
			return &ArgError{Field: "range", Err: errors.New("a range needs the uri of its document")}
		}
		if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
			return &ArgError{Field: "range", Err: errors.New("range ends before it starts")}
		}
	}
	return nil
}

// SessionArgs are anchorage.memory.propose's: the session whose
// corrections to propose from ("" for the server's, "*" for all).
type SessionArgs struct {
	Session string `json:"session,omitempty"`
}

// ScopeArgs are anchorage.memory.approveAll's: the scope to approve with
// ("" for each proposal's own, "universal", "language", "project", or a
// scope).
type ScopeArgs struct {
	Scope string `json:"scope,omitempty"`
}

// IDArgs are the arguments of commands on one proposal or rule.
type IDArgs struct {
	ID int64 `json:"id"`
	// Scope overrides a proposal's scope when it is approved.
	Scope string `json:"scope,omitempty"`
}

func (a *IDArgs) positional(args []json.RawMessage) error {
	var n float64
	if err := positionalField(args, 0, "id", &n); err != nil {
		return err
	}
	if n != math.Trunc(n) || n <= 0 || n > 1<<53 {
		return &ArgError{Field: "id", Err: fmt.Errorf("%v is not a proposal id or rule id (a positive integer)", n)}
	}
	a.ID = int64(n)
	return nil
}

// Validate checks the id is positive.
func (a *IDArgs) Validate() error {
	if a.ID <= 0 {
		return &ArgError{Field: "id", Err: errors.New("want a positive id")}
	}
	return nil
}

// ScopeChoicesArgs are anchorage.memory.scopeChoices's: the pending
// proposals to approve together.
type ScopeChoicesArgs struct {
	IDs []int64 `json:"ids"`
}

// Validate checks there are proposals, with positive ids.
func (a *ScopeChoicesArgs) Validate() error {
	if len(a.IDs) == 0 {
		return &ArgError{Field: "ids", Err: errMissing}
	}
	for _, id := range a.IDs {
		if id <= 0 {
			return &ArgError{Field: "ids", Err: fmt.Errorf("%d is not a proposal id", id)}
		}
	}
	return nil
}

// ScopeChoicesResult is anchorage.memory.scopeChoices's answer, in the
// order to offer the choices.
type ScopeChoicesResult struct {
	Choices []feature.ScopeChoice `json:"choices"`
}

// ListArgs are anchorage.memory.list's: all optional.
type ListArgs struct {
	// Scope keeps the rules of one scope, or of one kind ("language",
	// "project").
	Scope string `json:"scope,omitempty"`
	// URI keeps the rules anchored in that document, and Symbol those
	// anchored on that symbol (a qualified name).
	URI    protocol.DocumentURI `json:"uri,omitempty"`
	Symbol string               `json:"symbol,omitempty"`
}

func (a *ListArgs) positional(args []json.RawMessage) error {
	return positionalField(args, 0, "scope", &a.Scope)
}

// ExampleRulesArgs are anchorage.memory.exampleRules's: the example's
// document and symbol (its rules), or the rules by id.
type ExampleRulesArgs struct {
	URI    protocol.DocumentURI `json:"uri,omitempty"`
	Symbol string               `json:"symbol,omitempty"`
	Rules  []int64              `json:"rules,omitempty"`
}

// Validate checks the rules are named one way or the other.
func (a *ExampleRulesArgs) Validate() error {
	if a.URI == "" && len(a.Rules) == 0 {
		return &ArgError{Field: "uri", Err: errors.New("want the example's uri, or the rules")}
	}
	return nil
}

// UseExampleArgs are anchorage.memory.useExample's: the rule, and the
// definition to make its example.
type UseExampleArgs struct {
	ID     int64                `json:"id"`
	URI    protocol.DocumentURI `json:"uri"`
	Symbol string               `json:"symbol"`
	// Line is the definition's first line, 1-based (0: any).
	Line int `json:"line,omitempty"`
}

// Validate checks every field is given.
func (a *UseExampleArgs) Validate() error {
	switch {
	case a.ID <= 0:
		return &ArgError{Field: "id", Err: errors.New("want a positive rule id")}
	case a.URI == "":
		return &ArgError{Field: "uri", Err: errMissing}
	case strings.TrimSpace(a.Symbol) == "":
		return &ArgError{Field: "symbol", Err: errMissing}
	}
	return nil
}

// MemorySearchArgs are anchorage.memory.search's.
type MemorySearchArgs struct {
	Query string `json:"query"`
	// Slot searches near that slot's memory ("A", "B", "C").
	Slot   string `json:"slot,omitempty"`
	Radius int    `json:"radius,omitempty"`
	// Fallback, when false, keeps the search near the slots.
	Fallback       *bool    `json:"fallback,omitempty"`
	TopK           int      `json:"top_k,omitempty"`
	Anchors        []string `json:"anchors,omitempty"`
	IncludeContent bool     `json:"includeContent,omitempty"`
}

func (a *MemorySearchArgs) positional(args []json.RawMessage) error {
	return positionalField(args, 0, "query", &a.Query)
}

// SlotArgs are the arguments of the slot commands.
type SlotArgs struct {
	// Slot is "A", "B" or "C".
	Slot string `json:"slot"`
	// ID is the memory to put in the slot ("rule:12"); unused by unpin.
	ID string `json:"id,omitempty"`
}

func (a *SlotArgs) positional(args []json.RawMessage) error {
	if err := positionalField(args, 0, "slot", &a.Slot); err != nil {
		return err
	}
	return positionalField(args, 1, "id", &a.ID)
}

// Validate checks the slot's name.
func (a *SlotArgs) Validate() error {
	if _, err := recall.ParseSlot(a.Slot); err != nil {
		return &ArgError{Field: "slot", Err: err}
	}
	return nil
}

// IndexStatusResult is anchorage.index.status's answer.
type IndexStatusResult struct {
	Folders []FolderStatus `json:"folders"`
}

// FolderStatus is one folder in anchorage.index.status.
type FolderStatus struct {
	Root     string `json:"root"`
	Indexing bool   `json:"indexing"`
	Done     int64  `json:"done"`
	Total    int64  `json:"total"`
	Database string `json:"database"`
	analysis.Stats
}

// UsedResult is anchorage.search.used's answer.
type UsedResult struct {
	Recorded bool `json:"recorded"`
}

// ReindexResult is anchorage.reindex's answer.
type ReindexResult struct {
	Folders int  `json:"folders"`
	Started bool `json:"started"`
}

// StatsResult is anchorage.stats's answer: the rules and the memory graph.
type StatsResult struct {
	Memory *memory.Stats   `json:"memory"`
	Graph  *recall.Metrics `json:"graph"`
}
