; Definitions and references for Java, in the style of tree-sitter's tags.scm.
; Captures: @definition.<kind> / @reference.<kind> mark the node, @name its
; name; @qualifier what a call or a type name goes through.
; Types are named by their last identifier: java.util.List<T> is List.

; The package is the module.
(package_declaration
  [(identifier) (scoped_identifier)] @name) @definition.module

; Types. Records are classes, annotation types (@interface) interfaces.
(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; Methods, constructors (also a record's compact constructor) and the
; elements of annotation types; their type is the enclosing declaration.
(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; class A extends B: A inherits B.
(superclass
  [
    (type_identifier) @name
    (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
    (generic_type (type_identifier) @name)
    (generic_type (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))
  ]) @reference.inherits

; class, enum or record A implements B, C: A implements each.
(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
      (generic_type (type_identifier) @name)
      (generic_type (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))
    ] @reference.implements))

; interface A extends B, C: A inherits each.
(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
      (generic_type (type_identifier) @name)
      (generic_type (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))
    ] @reference.inherits))

; Calls: obj.m() (qualifier obj), m(), and new T() as a call to T.
(method_invocation
  object: (_) @qualifier
  name: (identifier) @name) @reference.call

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
    (generic_type (type_identifier) @name)
    (generic_type (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))
  ]) @reference.call

; Method references (User::email) use the method like a call; Type::new
; has no method name and is left out.
(method_reference
  (_) @qualifier
  .
  (identifier) @name .) @reference.call

; Imports: the imported name (com.x.Y, or the package com.x of com.x.*).
(import_declaration
  [(identifier) (scoped_identifier)] @name) @reference.import

; Comments, for the doc comments above definitions.
(line_comment) @comment
(block_comment) @comment
