// Package analysis parses source files with tree-sitter into a code graph of
// symbols (modules, types, functions, methods) and edges (contains, calls,
// inherits, implements, embeds, imports), stores that graph in SQLite and
// answers structural questions about it.
package analysis

// Kind is the kind of a symbol in the code graph.
type Kind string

// Symbol kinds. They follow the capture names of the query files:
// @definition.function yields KindFunction, and so on.
const (
	KindModule    Kind = "module"
	KindClass     Kind = "class"
	KindStruct    Kind = "struct"
	KindInterface Kind = "interface"
	KindTrait     Kind = "trait"
	KindEnum      Kind = "enum"
	KindType      Kind = "type"
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
)

// IsType reports whether symbols of kind k can own methods and take part in
// inheritance.
func (k Kind) IsType() bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindTrait, KindEnum, KindType:
		return true
	}
	return false
}

// IsCallable reports whether symbols of kind k can be the target of a call.
// Types count because constructors are called by the type's name
// (Python's User(...), Java's new User(...)).
func (k Kind) IsCallable() bool {
	return k == KindFunction || k == KindMethod || k.IsType()
}

// EdgeKind is the kind of a relation between two symbols.
type EdgeKind string

// Edge kinds. Contains edges are not stored: they follow from Symbol.Parent.
const (
	EdgeContains   EdgeKind = "contains"
	EdgeCalls      EdgeKind = "calls"
	EdgeInherits   EdgeKind = "inherits"
	EdgeImplements EdgeKind = "implements"
	EdgeEmbeds     EdgeKind = "embeds"
	EdgeImports    EdgeKind = "imports"
)

// Position is a place in a file: a 0-based line, a 0-based column counted
// in UTF-16 code units (as in the Language Server Protocol), and the byte
// offset from the start of the file.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Offset int `json:"offset"`
}

// Range is a half-open span of a file.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Symbol is a definition found in one file.
type Symbol struct {
	// Index is the symbol's position in FileGraph.Symbols. The module symbol
	// of a file is always at index 0.
	Index int
	// Parent is the index of the enclosing symbol, or -1 for the module.
	// Symbols are ordered by position, so a method declared before its type
	// (Go receivers, Rust impl blocks) has a parent after it.
	Parent        int
	Kind          Kind
	Name          string
	QualifiedName string
	// Module is the name of the file's module or package (Go package name,
	// Java package, otherwise derived from the path).
	Module string
	Range  Range
	// NameRange is the span of the symbol's name in its definition.
	NameRange Range
	Signature string
	Doc       string
}

// Ref is a reference from a symbol of a file to a name: a call site, a base
// class or embedded type, or an imported module. References are stored by
// name and resolved against definitions when the graph is queried, so a call
// resolves as soon as its target appears anywhere, in any order.
type Ref struct {
	// Source is the index of the referring symbol in FileGraph.Symbols.
	Source int
	Kind   EdgeKind
	// Name is the referenced name: the called function or method, the base
	// type, or the imported module path.
	Name string
	// Qualifier is what the name was reached through, if anything: the
	// package of users.NewService(), the receiver of s.repo.FindByID() (its
	// last identifier, "repo"). It helps resolution choose between several
	// definitions of the same name. On an import it marks a name imported
	// from a module that may be one of the module's submodules or only a
	// name defined in it: Python's "from a.b import c" is an import of
	// a.b and one of a.b.c qualified by a.b, which an import list shows
	// only when a file is that submodule (indexStore.Imports).
	Qualifier string
	// Subject, when set, names the type the relation belongs to when that
	// type is not the enclosing symbol (Rust's impl Trait for Type).
	Subject string
	Range   Range
}

// FileGraph is everything extracted from one file.
type FileGraph struct {
	Path     string
	Language string
	Symbols  []Symbol
	Refs     []Ref
	// Chunks cut the file for semantic search.
	Chunks []Chunk
	// ParseErrors counts ERROR and MISSING nodes in the syntax tree: the file
	// has syntax errors, and the symbols that still parsed are kept.
	ParseErrors int
}
