; Definitions and references for Python, in the style of tree-sitter's tags.scm.
; Captures: @definition.<kind> / @reference.<kind> mark the node, @name its
; name; @doc a docstring; @qualifier what a call goes through (module,
; object or receiver).
;
; Decorated definitions need no pattern of their own: the class_definition or
; function_definition inside the decorated_definition matches, and comments
; above the decorators still count as its doc (doc.go).

; Classes. A string first in the body is the docstring, captured without its
; quotes and prefix (one pattern with an optional capture, so that a class
; with a docstring does not also match a plain pattern).
(class_definition
  name: (identifier) @name
  body: (block
    .
    (expression_statement
      (string (string_content) @doc))?)) @definition.class

; Functions; those directly inside a class become methods.
(function_definition
  name: (identifier) @name
  body: (block
    .
    (expression_statement
      (string (string_content) @doc))?)) @definition.function

; Base classes: Base, pkg.Base, Base[T], pkg.Base[T]. Keyword arguments
; (metaclass=...) are not bases.
(class_definition
  superclasses: (argument_list
    [
      (identifier) @name
      (attribute
        object: (_) @qualifier
        attribute: (identifier) @name)
      (subscript
        value: (identifier) @name)
      (subscript
        value: (attribute
          object: (_) @qualifier
          attribute: (identifier) @name))
    ] @reference.inherits))

; Calls: f(), obj.method(), pkg.mod.f(), self.repo.find(). When the object is
; itself a call, the qualifier is the function it called (Client(url).fetch()
; → Client); literals and other expressions ("-".join()) give none.
(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: [
      (identifier) @qualifier
      (attribute) @qualifier
      (subscript) @qualifier
      (call
        function: (_) @qualifier)
      (_)
    ]
    attribute: (identifier) @name)) @reference.call

; Imports: import a.b, import a.b as c → "a.b".
(import_statement
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name)
  ]) @reference.import

; from a.b import c → "a.b"; from .jobs import Job → ".jobs"; from . import x → ".".
(import_from_statement
  module_name: [
    (dotted_name)
    (relative_import)
  ] @name) @reference.import

; from . import jobs → ".jobs" too, from .. import util → "..util", from
; a.b import c → "a.b.c", from .x import y → ".x.y": each name imported from
; a module may be one of its submodules. The module is the @qualifier, which
; marks the edge a possible submodule (see Ref.Qualifier).
(import_from_statement
  module_name: [
    (dotted_name)
    (relative_import)
  ] @qualifier
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name)
  ]) @reference.import

; Comments, for the doc comments above definitions.
(comment) @comment
