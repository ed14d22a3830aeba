// Package limits holds the bounds of the numbers a user gives a query —
// graph depth, result count, token budget, symbol count — shared by the
// command line, the language server's commands and the MCP tools, so that
// each front end accepts and refuses the same values.
package limits

import "fmt"

// The bounds. A front end where a parameter may be left out (0 in JSON)
// takes 0 as "the default"; a flag given on the command line must be in
// range.
const (
	// MaxDepth is the deepest graph walk (inheritance, blast radius).
	MaxDepth = 10
	// MaxTopK is the most results a search returns.
	MaxTopK = 100
	// MaxBudget is the largest token budget.
	MaxBudget = 32000
	// MaxSymbols is the most symbols a symbol search lists.
	MaxSymbols = 200
)

// Check refuses v outside lo..hi, naming the parameter as the user wrote
// it ("--depth", "top_k").
func Check(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d is out of range: want %d to %d", name, v, lo, hi)
	}
	return nil
}

// Depth checks a graph depth given explicitly.
func Depth(name string, v int) error { return Check(name, v, 1, MaxDepth) }

// TopK checks a result count given explicitly.
func TopK(name string, v int) error { return Check(name, v, 1, MaxTopK) }

// Budget checks a token budget; 0 means none.
func Budget(name string, v int) error { return Check(name, v, 0, MaxBudget) }

// Symbols checks a symbol count given explicitly.
func Symbols(name string, v int) error { return Check(name, v, 1, MaxSymbols) }
