// Package command declares every anchorage.* command the language server
// executes (workspace/executeCommand): its name, what it does, and the
// Go types of its argument and result.
//
// The declaration is the one place the commands are listed. The server's
// dispatch binds a handler to each declared command with [Bind], which
// decodes the argument into its declared type (a bad argument is an
// [*ArgError] naming the field); the TypeScript and Lua constants and
// argument and result shapes of the editors are generated from it by go
// generate,
// and a test fails when the checked-in files drift from it.
package command

//go:generate go run ./gen

import (
	"reflect"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
)

// Name is a command's name, as workspace/executeCommand sends it.
type Name string

// Command describes one command.
type Command struct {
	// Name is the command's name.
	Name Name
	// Doc says what the command does, in one sentence.
	Doc string
	// Args is the type of the command's one argument; nil when it takes
	// none.
	Args reflect.Type
	// Optional is set when the argument may be left out (or null): the
	// command then runs with Args' zero value.
	Optional bool
	// Shorthand describes the positional form also accepted, if any
	// (["FindByID", 2]); "" when only the object is.
	Shorthand string
	// Result is the type of the command's answer.
	Result reflect.Type
	// Aliases are former names, accepted for one release.
	Aliases []Name
}

// Def is a command whose argument has type A and whose result has type R.
type Def[A, R any] struct {
	c *Command
}

// Command returns the command's description.
func (d Def[A, R]) Command() *Command { return d.c }

// Name returns the command's name.
func (d Def[A, R]) Name() Name { return d.c.Name }

// NoArgs is the argument type of commands that take none.
type NoArgs struct{}

// option configures a command's declaration.
type option func(*Command)

// optional lets the argument be left out.
func optional(c *Command) { c.Optional = true }

// shorthand names the positional form accepted besides the object.
func shorthand(form string) option { return func(c *Command) { c.Shorthand = form } }

// alias adds a former name.
func alias(name Name) option { return func(c *Command) { c.Aliases = append(c.Aliases, name) } }

// def declares a command.
func def[A, R any](name Name, doc string, opts ...option) Def[A, R] {
	c := &Command{Name: name, Doc: doc, Args: reflect.TypeFor[A](), Result: reflect.TypeFor[R]()}
	if c.Args == reflect.TypeFor[NoArgs]() {
		c.Args = nil
	}
	for _, o := range opts {
		o(c)
	}
	return Def[A, R]{c: c}
}

// The commands. Keep All in step.
var (
	Callers     = def[SymbolArgs, *analysis.Answer]("anchorage.callers", "The callers of a symbol.", shorthand(`["symbol", depth?]`))
	Callees     = def[SymbolArgs, *analysis.Answer]("anchorage.callees", "The symbols a symbol calls.", shorthand(`["symbol", depth?]`))
	BlastRadius = def[SymbolArgs, *analysis.Answer]("anchorage.blastRadius", "What depends on a symbol, transitively.", shorthand(`["symbol", depth?]`))
	Inheritance = def[SymbolArgs, *analysis.Answer]("anchorage.inheritance", "The bases and derived types of a type.", shorthand(`["symbol", depth?]`))
	IndexStatus = def[NoArgs, IndexStatusResult]("anchorage.index.status", "The index of each workspace folder: progress, database, counts.")

	Search        = def[SearchArgs, *feature.SearchAnswer]("anchorage.search", "A routed search of the workspace folders.", shorthand(`["query"]`))
	SearchUsed    = def[SearchUsedArgs, UsedResult]("anchorage.search.used", "Records that the user opened a search result.")
	RoutingStats  = def[NoArgs, RoutingStatsResult]("anchorage.routing.stats", "Searches per strategy and how often a result was used.")
	Reindex       = def[NoArgs, ReindexResult]("anchorage.reindex", "Brings every folder's index up to date again, with progress.")
	ContextInject = def[InjectArgs, *memory.Injection]("anchorage.context.inject", "The rules that apply, with their examples, in Markdown for an AI assistant.", optional)

	MemoryRecordCorrection = def[CorrectionArgs, CorrectionResult]("anchorage.memory.recordCorrection", "Records a correction the user made.", shorthand(`["text"]`))
	MemoryPropose          = def[SessionArgs, ProposalsResult]("anchorage.memory.propose", "Proposes rules from the open corrections and shows them as hints.", optional)
	MemoryApprove          = def[IDArgs, ApprovalView]("anchorage.memory.approve", "Approves a proposal as a rule.", shorthand(`[id]`))
	MemoryApproveAll       = def[ScopeArgs, ApprovalsResult]("anchorage.memory.approveAll", "Approves every pending proposal.", optional)
	MemoryScopeChoices     = def[ScopeChoicesArgs, ScopeChoicesResult]("anchorage.memory.scopeChoices", "The scopes pending proposals can be approved with.")
	MemoryReject           = def[IDArgs, ProposalResult]("anchorage.memory.reject", "Rejects a proposal.", shorthand(`[id]`))
	MemoryList             = def[ListArgs, RulesResult]("anchorage.memory.list", "The active rules, most important first.", optional, shorthand(`["scope"]`))
	MemoryProposals        = def[NoArgs, ProposalsResult]("anchorage.memory.proposals", "Every pending proposal, with where its hint is shown.")
	MemoryReanchor         = def[IDArgs, ReanchorResult]("anchorage.memory.reanchor", "Finds a rule's example again.", shorthand(`[id]`))
	MemoryExampleRules     = def[ExampleRulesArgs, ExampleRulesResult]("anchorage.memory.exampleRules", "The rules of an example, with their corrections and actions.")
	MemoryUseExample       = def[UseExampleArgs, RuleResult]("anchorage.memory.useExample", "Makes a definition the example of a rule.")
	MemoryDeleteRule       = def[IDArgs, DeletedResult]("anchorage.memory.deleteRule", "Deletes a rule.", shorthand(`[id]`))
	MemorySearch           = def[MemorySearchArgs, recall.Response]("anchorage.memory.search", "Searches the memory near the working-memory slots.", shorthand(`["query"]`))
	Stats                  = def[NoArgs, StatsResult]("anchorage.stats", "Statistics of the rules and the memory graph.")

	SlotsStatus = def[NoArgs, recall.Status]("anchorage.slots.status", "The working-memory slots A, B and C.", alias("anchorage.anchors.status"))
	SlotsSet    = def[SlotArgs, recall.Status]("anchorage.slots.set", "Puts a memory in a slot.", shorthand(`["slot", "id"]`), alias("anchorage.anchors.set"))
	SlotsPin    = def[SlotArgs, recall.Status]("anchorage.slots.pin", "Pins a memory in a slot, so that the slots' following does not move it.", shorthand(`["slot", "id"]`), alias("anchorage.anchors.pin"))
	SlotsUnpin  = def[SlotArgs, recall.Status]("anchorage.slots.unpin", "Unpins a slot.", shorthand(`["slot"]`), alias("anchorage.anchors.unpin"))
)

// All lists every command, in the order editors list them.
func All() []*Command {
	return append([]*Command{
		Callers.c, Callees.c, BlastRadius.c, Inheritance.c, IndexStatus.c,
		Search.c, SearchUsed.c, RoutingStats.c, Reindex.c, ContextInject.c,
		MemoryRecordCorrection.c, MemoryPropose.c, MemoryApprove.c, MemoryApproveAll.c, MemoryScopeChoices.c, MemoryReject.c,
		MemoryList.c, MemoryProposals.c, MemoryReanchor.c, MemoryExampleRules.c, MemoryUseExample.c,
		MemoryDeleteRule.c, MemorySearch.c, Stats.c,
		SlotsStatus.c, SlotsSet.c, SlotsPin.c, SlotsUnpin.c,
	}, teamCommands()...)
}

// Names returns every name a command answers to, aliases included, as
// initialize advertises them.
func Names() []string {
	var out []string
	for _, c := range All() {
		out = append(out, string(c.Name))
		for _, a := range c.Aliases {
			out = append(out, string(a))
		}
	}
	return out
}
