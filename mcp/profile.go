package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// Profile is a set of tools served together, so that agents with small
// context windows see fewer tool descriptions.
type Profile string

// Profiles.
const (
	// ProfileCore is search and the rules an agent needs while it
	// writes code: search, route, memory_search, inject_context.
	ProfileCore Profile = "core"
	// ProfileGraph is code navigation: search, route, callers, callees,
	// blast_radius, symbols.
	ProfileGraph Profile = "graph"
	// ProfileMemory is the user's rules: memory_search, inject_context,
	// record_correction, propose, list_rules.
	ProfileMemory Profile = "memory"
	// ProfileAll is every tool.
	ProfileAll Profile = "all"
)

// Tool names.
const (
	ToolSearch           = "search"
	ToolRoute            = "route"
	ToolCallers          = "callers"
	ToolCallees          = "callees"
	ToolBlastRadius      = "blast_radius"
	ToolSymbols          = "symbols"
	ToolMemorySearch     = "memory_search"
	ToolRecordCorrection = "record_correction"
	ToolPropose          = "propose"
	ToolListRules        = "list_rules"
	ToolInjectContext    = "inject_context"
)

// profileTools lists a profile's tools, in the order they are listed;
// nil for an unknown profile.
func profileTools(p Profile) []string {
	switch p {
	case ProfileCore:
		return []string{ToolSearch, ToolRoute, ToolMemorySearch, ToolInjectContext}
	case ProfileGraph:
		return []string{ToolSearch, ToolRoute, ToolCallers, ToolCallees, ToolBlastRadius, ToolSymbols}
	case ProfileMemory:
		return []string{ToolMemorySearch, ToolInjectContext, ToolRecordCorrection, ToolPropose, ToolListRules}
	case ProfileAll:
		return []string{ToolSearch, ToolRoute, ToolCallers, ToolCallees, ToolBlastRadius, ToolSymbols,
			ToolMemorySearch, ToolInjectContext, ToolRecordCorrection, ToolPropose, ToolListRules}
	}
	return nil
}

// Profiles returns the profile names, for help text.
func Profiles() []string {
	return []string{string(ProfileCore), string(ProfileGraph), string(ProfileMemory), string(ProfileAll)}
}

// ParseProfile reads a profile name (case does not matter).
func ParseProfile(name string) (Profile, error) {
	p := Profile(strings.ToLower(strings.TrimSpace(name)))
	if profileTools(p) == nil {
		return "", fmt.Errorf("unknown tool profile %q: want one of %s", name, strings.Join(Profiles(), ", "))
	}
	return p, nil
}

// Tools returns the names of the profile's tools.
func (p Profile) Tools() []string { return profileTools(p) }

// Has reports whether the profile serves a tool.
func (p Profile) Has(tool string) bool { return slices.Contains(profileTools(p), tool) }
