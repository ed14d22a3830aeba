; Definitions and references for TypeScript, in the style of tree-sitter's
; tags.scm. Captures: @definition.<kind> / @reference.<kind> mark the node,
; @name its name; @qualifier what a call or base type is reached through.
; Exported definitions need no pattern of their own: export_statement only
; wraps them. queries/tsx/tags.scm includes this file ("; inherits:
; typescript"): a pattern here serves TSX as well.

; Functions: declarations, generators (async ones too), ambient declarations.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(ambient_declaration
  (function_signature
    name: (identifier) @name) @definition.function)

; Functions bound to a variable: const f = () => {}, let g = function () {}.
; The variable is the definition, so its name and doc comment count.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Anonymous default exports are named "default", as TypeScript names them.
(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function)

(export_statement
  "default" @name
  value: (class) @definition.class)

; Types.
(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

; const Foo = class {}
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

; Methods: class methods (constructors, accessors too), abstract methods,
; arrow functions held by class fields, interface and object type members.
; Member names: m, #m, 'm' (without its quotes), [Symbol.iterator].
(class_body
  (method_definition
    name: [
      (property_identifier) @name
      (private_property_identifier) @name
      (string (string_fragment) @name)
      (computed_property_name) @name
    ]) @definition.method)

(class_body
  (abstract_method_signature
    name: [
      (property_identifier) @name
      (string (string_fragment) @name)
      (computed_property_name) @name
    ]) @definition.method)

(class_body
  (public_field_definition
    name: [
      (property_identifier) @name
      (private_property_identifier) @name
      (string (string_fragment) @name)
      (computed_property_name) @name
    ]
    value: [(arrow_function) (function_expression)]) @definition.method)

(interface_body
  (method_signature
    name: [
      (property_identifier) @name
      (string (string_fragment) @name)
      (computed_property_name) @name
    ]) @definition.method)

(type_alias_declaration
  value: (object_type
    (method_signature
      name: [
        (property_identifier) @name
        (string (string_fragment) @name)
        (computed_property_name) @name
      ]) @definition.method))

; Inheritance: class extends (an expression), interface extends (types).
(class_heritage
  (extends_clause
    value: [
      (identifier) @name
      (member_expression
        object: (_) @qualifier
        property: (property_identifier) @name)
    ] @reference.inherits))

(extends_type_clause
  type: [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier
      module: (_) @qualifier
      name: (type_identifier) @name))
    (nested_type_identifier
      module: (_) @qualifier
      name: (type_identifier) @name)
  ] @reference.inherits)

(implements_clause
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier
      module: (_) @qualifier
      name: (type_identifier) @name))
    (nested_type_identifier
      module: (_) @qualifier
      name: (type_identifier) @name)
  ] @reference.implements)

; Calls: f(), f<T>(), obj.m(), obj?.m(), this.#m().
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    object: (_) @qualifier
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

; Grammar quirk: after await or a unary operator, a generic call parses as
; a call of the operator's operand (`await f<T>()` as `(await f)<T>()`).
(call_expression
  function: [
    (await_expression (identifier) @name)
    (unary_expression argument: (identifier) @name)
  ]) @reference.call

(call_expression
  function: [
    (await_expression (member_expression
      object: (_) @qualifier
      property: [(property_identifier) (private_property_identifier)] @name))
    (unary_expression argument: (member_expression
      object: (_) @qualifier
      property: [(property_identifier) (private_property_identifier)] @name))
  ]) @reference.call

; new Foo(), new Foo<T>(), new ns.Foo(): a call to the class.
(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)) @reference.call

; Imports: import ... from 'y', import type ..., import 'y',
; import x = require('y'), export ... from 'y', import('y').
(import_statement
  source: (string) @name) @reference.import

(import_statement
  (import_require_clause
    source: (string) @name)) @reference.import

(export_statement
  source: (string) @name) @reference.import

(call_expression
  function: (import)
  arguments: (arguments . (string) @name)) @reference.import

; CommonJS at module level: const x = require('y'), require('y'). Queries
; cannot test the callee's text without predicates, so any module-level
; call of a plain function with one string literal is taken for a require.
(program
  (lexical_declaration
    (variable_declarator
      value: (call_expression
        function: (identifier)
        arguments: (arguments . (string) @name .)) @reference.import)))

(program
  (variable_declaration
    (variable_declarator
      value: (call_expression
        function: (identifier)
        arguments: (arguments . (string) @name .)) @reference.import)))

(program
  (expression_statement
    (call_expression
      function: (identifier)
      arguments: (arguments . (string) @name .)) @reference.import))

; Comments, for the doc comments above definitions.
(comment) @comment
