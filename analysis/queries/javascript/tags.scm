; Definitions and references for JavaScript, in the style of tree-sitter's
; tags.scm. Captures: @definition.<kind> / @reference.<kind> mark the node,
; @name its name; @qualifier what a call goes through (object or module).
; JSDoc and other comments above a definition are its doc (doc.go), also
; above the const/let/var or export that wraps it.

; Classes: declarations, and class expressions assigned to a variable (named
; after the variable).
(class_declaration
  name: (identifier) @name) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

; Functions and generators.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; Arrow functions and function expressions assigned to a variable, named after
; the variable: const isSource = (file) => ...
(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.function

; ... or to a property: exports.build = function () {}, Foo.prototype.run = ...
; The statement is the definition, so that the comment above it is its doc.
(expression_statement
  (assignment_expression
    left: (member_expression
      property: (property_identifier) @name)
    right: [
      (arrow_function)
      (function_expression)
      (generator_function)
    ])) @definition.function

; ... or to a key of an object literal: { onDone: () => ... }
(pair
  key: (property_identifier) @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.function

; ... or to a class field: handler = (event) => ... (a method of the class).
(field_definition
  property: [
    (property_identifier)
    (private_property_identifier)
  ] @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.function

; Methods: functions directly inside a class become methods (constructor,
; getters, static and #private methods included); in an object literal they
; stay functions.
(method_definition
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name) @definition.function

; class A extends B, class A extends ns.B, class A extends Mixin(B) (→ Mixin).
(class_heritage
  [
    (identifier) @name
    (member_expression
      object: (_) @qualifier
      property: (property_identifier) @name)
    (call_expression
      function: (identifier) @name)
  ]) @reference.inherits

; Calls: f(), obj.method(), this.emit(), a.b.c(). When the object is itself a
; call, the qualifier is the function it called (files.map(...).join() → map),
; or the class it constructed (new Date().toISOString() → Date); literals and
; other expressions give none.
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    object: [
      (identifier) @qualifier
      (this) @qualifier
      (super) @qualifier
      (member_expression) @qualifier
      (subscript_expression) @qualifier
      (call_expression
        function: (_) @qualifier)
      (new_expression
        constructor: (_) @qualifier)
      (_)
    ]
    property: (property_identifier) @name)) @reference.call

; new Foo() calls Foo; new ns.Foo() calls Foo through ns.
(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)) @reference.call

; ES modules: import ... from 'x', import 'x', export ... from 'x', import('x').
(import_statement
  source: (string) @name) @reference.import

(export_statement
  source: (string) @name) @reference.import

(call_expression
  function: (import)
  arguments: (arguments
    .
    (string) @name)) @reference.import

; CommonJS: require('x'). Predicates are not evaluated, so a call cannot be
; told to be require by its name: only the usual shapes at the top level of a
; file count, a call of one string argument that is a declaration's value or
; a statement of its own, also when its result is used at once:
; const fs = require('fs'), require('./setup'), require('./config').load,
; require('debug')('build'). The call itself is also a call to require.
(program
  [
    (lexical_declaration
      (variable_declarator
        value: [
          (call_expression
            function: (identifier)
            arguments: (arguments . (string) @name .)) @reference.import
          (member_expression
            object: (call_expression
              function: (identifier)
              arguments: (arguments . (string) @name .)) @reference.import)
          (call_expression
            function: (call_expression
              function: (identifier)
              arguments: (arguments . (string) @name .)) @reference.import)
        ]))
    (variable_declaration
      (variable_declarator
        value: [
          (call_expression
            function: (identifier)
            arguments: (arguments . (string) @name .)) @reference.import
          (member_expression
            object: (call_expression
              function: (identifier)
              arguments: (arguments . (string) @name .)) @reference.import)
          (call_expression
            function: (call_expression
              function: (identifier)
              arguments: (arguments . (string) @name .)) @reference.import)
        ]))
    (expression_statement
      (call_expression
        function: (identifier)
        arguments: (arguments . (string) @name .)) @reference.import)
  ])

; Comments, for the doc comments above definitions.
(comment) @comment
