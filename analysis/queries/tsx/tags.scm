; inherits: typescript
; Definitions and references for TSX. The grammars of TypeScript and TSX
; share their node names, so the patterns of queries/typescript/tags.scm
; (included by the line above) find TSX's definitions and references; React
; components are plain functions and classes, found by those patterns. What
; follows is TSX's own.

; A component used in JSX, <Card ...> or <Card ... />, is a call to it.
; Lower-case names are the host's elements (<div>), not code.
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

; <ui.Card />: a component reached through a namespace or an object.
(jsx_opening_element
  name: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)) @reference.call
