package analysis

import "strings"

// maxChunkCallers is how many callers a chunk's context names.
const maxChunkCallers = 3

// callerTable gathers, while a first build stores files, the callers that
// chunks name: for each called name, the first maxChunkCallers distinct
// qualified names (in byte order) of the symbols whose calls go by that
// name. It is what bulkChunkIndex computes from the edges, gathered as the
// edges are written instead of read back and sorted at the end.
type callerTable struct {
	byName map[string]*callerList
	// inexact is set when a file was replaced or deleted: callers it
	// gave may be gone, so the table no longer says what the edges say.
	inexact bool
}

// callerList is the sorted, distinct first callers of one name.
type callerList struct {
	n     int
	names [maxChunkCallers]string
}

// add records that the symbol qualified q calls name.
func (t *callerTable) add(name, q string) {
	if t.byName == nil {
		t.byName = make(map[string]*callerList)
	}
	l := t.byName[name]
	if l == nil {
		l = &callerList{}
		t.byName[name] = l
	}
	l.add(q)
}

func (l *callerList) add(q string) {
	i := 0
	for i < l.n && l.names[i] < q {
		i++
	}
	if i < l.n && l.names[i] == q || i == maxChunkCallers {
		return
	}
	if l.n < maxChunkCallers {
		l.n++
	}
	copy(l.names[i+1:l.n], l.names[i:l.n-1])
	l.names[i] = q
}

// merge adds what o gathered to t.
func (t *callerTable) merge(o *callerTable) {
	t.inexact = t.inexact || o.inexact
	for name, l := range o.byName {
		for _, q := range l.names[:l.n] {
			t.add(name, q)
		}
	}
}

// text is a chunk's callers as its context says them, or "".
func (l *callerList) text() string {
	if l == nil || l.n == 0 {
		return ""
	}
	return "Called by " + strings.Join(l.names[:l.n], ", ") + "."
}
