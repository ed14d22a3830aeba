package memory

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
)

// What a definition's name and place say about the kind of code it is,
// whatever the rule's words: a constructor, a name that does something to
// all of a collection, a function in a file of its own name.

// anchorCreateWords are the words with which a rule speaks of building a
// value (its constructor's job): "when it is created", "default to", "the
// constructor".
var anchorCreateWords = map[string]bool{
	"create": true, "creates": true, "created": true, "creating": true, "creation": true,
	"construct": true, "constructs": true, "constructed": true, "constructing": true, "construction": true,
	"constructor": true, "constructors": true, "new": true, "init": true,
	"initialize": true, "initializes": true, "initialized": true, "initialization": true,
	"initialise": true, "initialises": true, "initialised": true, "initialisation": true,
	"instantiate": true, "instantiated": true, "default": true, "defaults": true,
}

// anchorQuantWords are the name parts that say a definition works on a
// whole collection at once (AcquireAllIdle, cancel_all, releaseMany).
var anchorQuantWords = map[string]bool{
	"all": true, "every": true, "each": true, "many": true, "multi": true, "multiple": true,
	"batch": true, "bulk": true, "several": true, "whole": true,
}

// speaksOfCreating reports whether the rule speaks of building a value.
func (rq *anchorQuery) speaksOfCreating() bool {
	for w := range rq.said {
		if anchorCreateWords[w] {
			return true
		}
	}
	return false
}

// anchorConstructor reports whether a definition builds a value of its
// type: Python's __init__ or __new__, a Go function named New… or new…
// (NewPool, newValueCancelCtx) that is no method, a Java, C# or C++
// constructor (named as its class), TypeScript's constructor, Rust's new.
func anchorConstructor(sym analysis.SymbolInfo) bool {
	name := sym.Name
	switch name {
	case "__init__", "__new__", "constructor":
		return sym.Kind == analysis.KindMethod || sym.Kind == analysis.KindFunction
	}
	switch NormalizeLanguage(sym.Language) {
	case "go":
		if sym.Kind != analysis.KindFunction || !strings.HasPrefix(strings.ToLower(name), "new") {
			return false
		}
		rest := name[3:]
		if rest == "" {
			return true
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsUpper(r) || r == '_'
	case "rust":
		return sym.Kind == analysis.KindMethod && name == "new"
	}
	if sym.Kind != analysis.KindMethod {
		return false
	}
	// A method named as the type it is in (Java's, C#'s, C++'s).
	owner := strings.TrimSuffix(sym.QualifiedName, "."+name)
	if i := strings.LastIndexAny(owner, ".:"); i >= 0 {
		owner = owner[i+1:]
	}
	return owner == name
}

// constructorFor returns 1 for a constructor (see anchorConstructor)
// when the rule does not speak of building a value: a constructor's
// signature and docstring list every option, and the rule is about the
// code that carries one out.
func (rq *anchorQuery) constructorFor(sym analysis.SymbolInfo) float64 {
	if !anchorConstructor(sym) || rq.speaksOfCreating() {
		return 0
	}
	return 1
}

// quantifier returns 1 when a definition's own name says it works on a
// whole collection at once (AcquireAllIdle, cancel_all) while the rule
// says nothing of the kind ("all", "every", "each", "several"): the rule
// is about one item, which a neighbour of that name handles.
func (rq *anchorQuery) quantifier(name string) float64 {
	for w := range anchorQuantWords {
		if rq.said[w] {
			return 0
		}
	}
	found := false
	analysis.CodeWords(name, func(w string, _, _ int, whole bool) error {
		if !whole && anchorQuantWords[w] {
			found = true
		}
		return nil
	})
	if found {
		return 1
	}
	return 0
}

// anchorOwnFile returns 1 for a definition that its file is named after
// (nanotime in nanotime.go, get_chunks in get_chunks.py): a helper put in
// a file of its own is the one place that behaviour lives.
func anchorOwnFile(sym analysis.SymbolInfo) float64 {
	base := path.Base(sym.Path)
	base = strings.TrimSuffix(base, path.Ext(base))
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	if base == "" || norm(base) != norm(sym.Name) {
		return 0
	}
	return 1
}

// anchorShortLines is the length up to which a definition is Short: a
// getter or a one-line wrapper, which shows no behaviour of its own.
const anchorShortLines = 3
