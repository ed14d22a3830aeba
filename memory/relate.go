package memory

// Relate reports how a rule text of a scope relates to rules: the ID of
// the rule it repeats (0 if none), the ID of the rule it contradicts
// most closely (0 if none), and a sentence saying so ("" if neither).
// Only rules of overlapping scopes that are not superseded count. It is
// the relation detection that proposals use, for stores other than this
// package's (the team store decides conflicts with it); it is pure and
// safe for concurrent use.
func Relate(content, scope string, rules []Rule) (duplicateOf, contradicts int64, msg string) {
	rel := relateToRules(content, scope, rules)
	return rel.duplicateID(), rel.contradictionID(), rel.message(scope)
}
