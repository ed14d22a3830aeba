; Definitions and references for Rust, in the style of tree-sitter's tags.scm.
; Captures: @definition.<kind> / @reference.<kind> mark the node, @name its
; name; @owner names the type of an impl block's methods; @subject the type
; of impl Trait for Type; @qualifier what a call goes through.
; The file is the module: inline `mod x { }` items add no symbol of their own.

; Types.
(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

; Type aliases, at item level only: a `type Output = X;` inside an impl block
; is an associated type, not an alias of the module.
(source_file
  (type_item
    name: (type_identifier) @name) @definition.type)

(mod_item
  body: (declaration_list
    (type_item
      name: (type_identifier) @name) @definition.type))

; Trait methods: required signatures and default bodies.
(trait_item
  body: (declaration_list
    (function_signature_item
      name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    (function_item
      name: (identifier) @name) @definition.method))

; Methods of impl Type { } and impl Trait for Type { }: the owner is Type
; (Foo<T> and a::Foo are cut to Foo by the extractor).
(impl_item
  type: [
    (type_identifier) @owner
    (scoped_type_identifier) @owner
    (generic_type) @owner
    (primitive_type) @owner
    (reference_type type: (_) @owner)
  ]
  body: (declaration_list
    (function_item
      name: (identifier) @name) @definition.method))

; Free functions: in the file, in inline modules, and local to a block.
(source_file
  (function_item
    name: (identifier) @name) @definition.function)

(mod_item
  body: (declaration_list
    (function_item
      name: (identifier) @name) @definition.function))

(block
  (function_item
    name: (identifier) @name) @definition.function)

; impl Trait for Type: Type implements Trait.
(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
  ]
  type: [
    (type_identifier) @subject
    (scoped_type_identifier) @subject
    (generic_type) @subject
    (primitive_type) @subject
    (reference_type type: (_) @subject)
  ]) @reference.implements

; Supertraits: trait A: B + fmt::Debug.
(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
      (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] @reference.inherits))

; Calls: f(), a.b(), Type::new(), each also in turbofish form (f::<T>()).
; Macro invocations are not calls: their arguments are token trees.
(call_expression
  function: [
    (identifier) @name
    (generic_function
      function: (identifier) @name)
  ]) @reference.call

(call_expression
  function: [
    (field_expression
      value: (_) @qualifier
      field: (field_identifier) @name)
    (generic_function
      function: (field_expression
        value: (_) @qualifier
        field: (field_identifier) @name))
  ]) @reference.call

; Paths: the qualifier of Vec::<u8>::new() is Vec, of <T as Trait>::f() T.
(call_expression
  function: [
    (scoped_identifier
      path: [
        (identifier) @qualifier
        (scoped_identifier) @qualifier
        (self) @qualifier
        (super) @qualifier
        (crate) @qualifier
        (generic_type type: (_) @qualifier)
        (bracketed_type [(type_identifier) (scoped_type_identifier) (generic_type) (primitive_type)] @qualifier)
        (bracketed_type (qualified_type type: (_) @qualifier))
      ]
      name: (identifier) @name)
    (generic_function
      function: (scoped_identifier
        path: [
          (identifier) @qualifier
          (scoped_identifier) @qualifier
          (self) @qualifier
          (super) @qualifier
          (crate) @qualifier
          (generic_type type: (_) @qualifier)
          (bracketed_type [(type_identifier) (scoped_type_identifier) (generic_type) (primitive_type)] @qualifier)
          (bracketed_type (qualified_type type: (_) @qualifier))
        ]
        name: (identifier) @name))
  ]) @reference.call

; Imports: one per use declaration, named by its whole argument
; (std::fmt, model::{User, Validate}, super::*); extern crate names a crate.
(use_declaration
  argument: (_) @name) @reference.import

(extern_crate_declaration
  name: (identifier) @name) @reference.import

; Comments, for the doc comments above definitions.
(line_comment) @comment
(block_comment) @comment
