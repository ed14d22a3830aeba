; Definitions and references for Go, in the style of tree-sitter's tags.scm.
; Captures: @definition.<kind> / @reference.<kind> mark the node, @name its
; name; @owner names a method's receiver type; @qualifier what a call goes
; through (package or receiver).

(package_clause (package_identifier) @name) @definition.module

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type)
    (map_type) (slice_type) (array_type) (channel_type) (function_type)
  ]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(method_elem
  name: (field_identifier) @name) @definition.method

; Embedding: a struct field without a name, an interface's embedded type.
(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @name
      (qualified_type package: (package_identifier) @qualifier name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
    ]) @reference.embeds)

(interface_type
  (type_elem
    .
    [
      (type_identifier) @name
      (qualified_type package: (package_identifier) @qualifier name: (type_identifier) @name)
    ]
    .) @reference.embeds)

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @qualifier
    field: (field_identifier) @name)) @reference.call

(import_spec
  path: (interpreted_string_literal) @name) @reference.import

; Comments where doc comments can be: at top level, in grouped type
; declarations and in interfaces (comments inside function bodies document
; no definition and are many).
(source_file (comment) @comment)
(type_declaration (comment) @comment)
(interface_type (comment) @comment)
