package analysis

/*
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

// The few declarations of tree-sitter's api.h (as built into
// github.com/smacker/go-tree-sitter) that collect needs.
typedef struct TSTree TSTree;
typedef struct TSQuery TSQuery;
typedef struct TSQueryCursor TSQueryCursor;
typedef struct TSNode {
	uint32_t context[4];
	const void *id;
	const TSTree *tree;
} TSNode;
typedef struct TSQueryCapture {
	TSNode node;
	uint32_t index;
} TSQueryCapture;
typedef struct TSQueryMatch {
	uint32_t id;
	uint16_t pattern_index;
	uint16_t capture_count;
	const TSQueryCapture *captures;
} TSQueryMatch;
typedef struct TSPoint {
	uint32_t row;
	uint32_t column;
} TSPoint;
typedef struct TSInputEdit {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	TSPoint start_point;
	TSPoint old_end_point;
	TSPoint new_end_point;
} TSInputEdit;
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
// TSTreeCursor is returned by value: spare leaves room should a later
// tree-sitter grow the struct (it is 32 bytes in the pinned version).
typedef struct TSTreeCursor {
	const void *tree;
	const void *id;
	uint32_t context[3];
	uint32_t spare[13];
} TSTreeCursor;
bool ts_query_cursor_next_match(TSQueryCursor *self, TSQueryMatch *match);
void ts_query_cursor_exec(TSQueryCursor *self, const TSQuery *query, TSNode node);
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
void ts_query_cursor_set_byte_range(TSQueryCursor *self, uint32_t start_byte, uint32_t end_byte);
uint32_t ts_query_pattern_count(const TSQuery *self);
uint32_t ts_query_start_byte_for_pattern(const TSQuery *self, uint32_t pattern_index);
bool ts_query_is_pattern_rooted(const TSQuery *self, uint32_t pattern_index);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
uint16_t ts_node_symbol(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);

// anchorage_put writes a match at out[*used]: its pattern index and
// capture count, then for each capture its index, start byte, end byte and
// the slot in nodes that holds its node (those whose capture index is set
// in keep), or UINT32_MAX. The caller checked that it fits.
static inline void anchorage_put(const TSQueryMatch *m, uint32_t *out, int *used,
		const uint8_t *keep, int keep_len, TSNode *nodes, int *node_used) {
	int u = *used;
	out[u++] = m->pattern_index;
	out[u++] = m->capture_count;
	for (uint16_t i = 0; i < m->capture_count; i++) {
		const TSQueryCapture *c = &m->captures[i];
		out[u++] = c->index;
		out[u++] = ts_node_start_byte(c->node);
		out[u++] = ts_node_end_byte(c->node);
		if (c->index < (uint32_t)keep_len && keep[c->index]) {
			nodes[*node_used] = c->node;
			out[u++] = (uint32_t)(*node_used);
			(*node_used)++;
		} else {
			out[u++] = UINT32_MAX;
		}
	}
	*used = u;
}

// anchorage_collect moves the cursor's next matches into out (see
// anchorage_put), as long as a match of max_captures captures fits. It
// returns the number of words written, or -1 when a match has more than
// max_captures captures (the match is then lost). *done is set when the
// cursor has no more matches.
static int anchorage_collect(TSQueryCursor *cursor, uint32_t *out, int cap, int max_captures,
		const uint8_t *keep, int keep_len, TSNode *nodes, int node_cap, int *node_used, int *done) {
	int used = 0;
	*done = 0;
	while (used + 2 + 4 * max_captures <= cap && *node_used + max_captures <= node_cap) {
		TSQueryMatch m;
		if (!ts_query_cursor_next_match(cursor, &m)) {
			*done = 1;
			return used;
		}
		if (m.capture_count > max_captures) {
			return -1;
		}
		anchorage_put(&m, out, &used, keep, keep_len, nodes, node_used);
	}
	return used;
}

// anchorage_collect_rooted walks the tree under root and runs the query on
// each node whose symbol is set in roots, with patterns allowed to start
// at that node only, writing every match into out (see anchorage_put). It
// returns the number of words written, -1 when a match has more than
// max_captures captures, or -2 when out or nodes is too small (nothing
// is then complete: call again with larger ones).
//
// When outer is set (its id is not NULL), it is an ancestor of root at
// which patterns start too: the matches starting at outer that lie in
// root's bytes are collected first.
static int anchorage_collect_rooted(TSNode root, TSNode outer, TSQueryCursor *cursor, const TSQuery *query,
		const uint8_t *roots, int roots_len, uint32_t *out, int cap, int max_captures,
		const uint8_t *keep, int keep_len, TSNode *nodes, int node_cap, int *node_used) {
	int used = 0, rc = 0;
	ts_query_cursor_set_max_start_depth(cursor, 0);
	if (outer.id != NULL) {
		ts_query_cursor_set_byte_range(cursor, ts_node_start_byte(root), ts_node_end_byte(root));
		ts_query_cursor_exec(cursor, query, outer);
		TSQueryMatch m;
		while (ts_query_cursor_next_match(cursor, &m)) {
			if (m.capture_count > max_captures) {
				rc = -1;
				break;
			}
			if (used + 2 + 4 * m.capture_count > cap || *node_used + m.capture_count > node_cap) {
				rc = -2;
				break;
			}
			anchorage_put(&m, out, &used, keep, keep_len, nodes, node_used);
		}
		ts_query_cursor_set_byte_range(cursor, 0, UINT32_MAX);
		if (rc < 0) {
			ts_query_cursor_set_max_start_depth(cursor, UINT32_MAX);
			return rc;
		}
	}
	TSTreeCursor walk = ts_tree_cursor_new(root);
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&walk);
		uint16_t symbol = ts_node_symbol(node);
		if (symbol < roots_len && roots[symbol]) {
			ts_query_cursor_exec(cursor, query, node);
			TSQueryMatch m;
			while (ts_query_cursor_next_match(cursor, &m)) {
				if (m.capture_count > max_captures) {
					rc = -1;
					goto out;
				}
				if (used + 2 + 4 * m.capture_count > cap || *node_used + m.capture_count > node_cap) {
					rc = -2;
					goto out;
				}
				anchorage_put(&m, out, &used, keep, keep_len, nodes, node_used);
			}
		}
		if (ts_tree_cursor_goto_first_child(&walk)) {
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&walk)) {
			if (!ts_tree_cursor_goto_parent(&walk)) {
				goto out;
			}
		}
	}
out:
	ts_tree_cursor_delete(&walk);
	ts_query_cursor_set_max_start_depth(cursor, UINT32_MAX);
	return rc < 0 ? rc : used;
}

// anchorage_child_spans writes the start and end bytes of node's children
// into out, as many as fit in cap words, and returns how many children
// node has.
static int anchorage_child_spans(TSNode node, uint32_t *out, int cap) {
	TSTreeCursor walk = ts_tree_cursor_new(node);
	int n = 0;
	if (ts_tree_cursor_goto_first_child(&walk)) {
		do {
			if (2 * n + 2 <= cap) {
				TSNode k = ts_tree_cursor_current_node(&walk);
				out[2 * n] = ts_node_start_byte(k);
				out[2 * n + 1] = ts_node_end_byte(k);
			}
			n++;
		} while (ts_tree_cursor_goto_next_sibling(&walk));
	}
	ts_tree_cursor_delete(&walk);
	return n;
}

bool ts_node_is_missing(TSNode self);
bool ts_node_has_error(TSNode self);
bool ts_node_is_named(TSNode self);
uint32_t ts_node_child_count(TSNode self);
const char *ts_node_type(TSNode self);

// ANCHORAGE_ERROR_SYMBOL is tree-sitter's symbol of ERROR nodes.
#define ANCHORAGE_ERROR_SYMBOL 65535

// anchorage_tree_edit records edit on the tree root belongs to.
static void anchorage_tree_edit(TSNode root, TSInputEdit edit) {
	ts_tree_edit((TSTree *)root.tree, &edit);
}

// anchorage_children_have_error tells whether a child of n that a tree
// cursor visits has an error.
static bool anchorage_children_have_error(TSNode n) {
	TSTreeCursor k = ts_tree_cursor_new(n);
	bool found = false;
	if (ts_tree_cursor_goto_first_child(&k)) {
		do {
			if (ts_node_has_error(ts_tree_cursor_current_node(&k))) {
				found = true;
				break;
			}
		} while (ts_tree_cursor_goto_next_sibling(&k));
	}
	ts_tree_cursor_delete(&k);
	return found;
}

// anchorage_count_errors is countErrors (extract.go) in one cgo call: the
// ERROR and MISSING nodes under n, n included, descending only into
// nodes with an error. A node with an error that none of its visible
// children has holds a hidden one (a MISSING _newline in Python), which
// a cursor does not visit: it counts as one.
static int anchorage_count_errors(TSNode n) {
	TSTreeCursor c = ts_tree_cursor_new(n);
	int count = 0;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		if (ts_node_symbol(node) == ANCHORAGE_ERROR_SYMBOL || ts_node_is_missing(node)) {
			count++;
		} else if (ts_node_has_error(node) && !anchorage_children_have_error(node)) {
			count++;
		}
		if (ts_node_has_error(node) && ts_tree_cursor_goto_first_child(&c)) {
			continue;
		}
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				done = true;
				break;
			}
		}
		if (done) {
			break;
		}
	}
	ts_tree_cursor_delete(&c);
	return count;
}

// anchorage_damage_in is damageIn (recover.go) in one cgo call: where the
// first damaged child of n starts, at or after from. It returns 1 and
// sets *at when there is one, 0 when there is none, and -1 when it cannot
// tell alone (a token of non-ASCII bytes under an ERROR node, which
// damageIn trims as Unicode spaces): the caller then runs damageIn.
static int anchorage_damage_in(TSNode n, const uint8_t *text, uint32_t text_len, uint32_t from, uint32_t *at, int depth) {
	if (depth > 10000) {
		return -1;
	}
	TSTreeCursor c = ts_tree_cursor_new(n);
	int result = 0;
	bool n_error = ts_node_symbol(n) == ANCHORAGE_ERROR_SYMBOL;
	if (!ts_tree_cursor_goto_first_child(&c)) {
		ts_tree_cursor_delete(&c);
		return 0;
	}
	bool has_prev = false;
	uint32_t prev_start = 0;
	for (;;) {
		TSNode k = ts_tree_cursor_current_node(&c);
		uint32_t ks = ts_node_start_byte(k), ke = ts_node_end_byte(k);
		if (ke > from) {
			bool missing = ts_node_is_missing(k);
			if (missing && has_prev && prev_start >= from) {
				*at = prev_start;
				result = 1;
				break;
			} else if (ts_node_symbol(k) == ANCHORAGE_ERROR_SYMBOL) {
				int r = anchorage_damage_in(k, text, text_len, from, at, depth + 1);
				if (r != 0) {
					result = r;
					break;
				}
				if (ks >= from) {
					*at = ks;
					result = 1;
					break;
				}
			} else if (ks < from) {
			} else if (missing || ts_node_has_error(k)) {
				*at = ks;
				result = 1;
				break;
			} else if (n_error) {
				// loose: a keyword or bracket, or a lone name.
				bool is_loose = false;
				if (!ts_node_is_named(k)) {
					for (uint32_t i = ks; i < ke && i < text_len; i++) {
						uint8_t b = text[i];
						if (b >= 0x80) {
							result = -1;
							break;
						}
						if (b != ' ' && b != '\t' && b != '\n' && b != '\v' && b != '\f' && b != '\r') {
							is_loose = true;
							break;
						}
					}
					if (result != 0) {
						break;
					}
				} else if (ts_node_child_count(k) == 0) {
					const char *t = ts_node_type(k);
					is_loose = t == NULL || strstr(t, "comment") == NULL;
				}
				if (is_loose) {
					*at = ks;
					result = 1;
					break;
				}
			}
		}
		has_prev = true;
		prev_start = ks;
		if (!ts_tree_cursor_goto_next_sibling(&c)) {
			break;
		}
	}
	ts_tree_cursor_delete(&c);
	return result;
}
*/
import "C"

import (
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Matches are moved from the query cursor in C, a buffer at a time, rather
// than one cgo call and a few allocations per match and per capture node as
// sitter.QueryCursor.NextMatch does: on a cold index that overhead is a
// tenth of the time. This reads two unexported fields of go-tree-sitter
// (the cursor's C pointer, and a node's C value and tree), whose layout
// canCollect checks once; when it does not hold, Parser.query uses
// NextMatch.

// collectMaxCaptures bounds the captures of one match (the largest pattern
// of the queries has 5); a match with more makes the query run again
// through NextMatch.
const collectMaxCaptures = 32

// capturedMatch is a match as collect returns it: an index into the
// captures.
type capturedMatch struct {
	pattern    uint16
	start, end int // captures[start:end]
}

// captured is one capture of a match: its index in the query, its byte
// span and, for captures of a definition, its node.
type captured struct {
	index      uint32
	start, end uint32
	node       int // index in the collector's nodes, or -1
}

// collector holds the buffers of collect, reused from file to file.
type collector struct {
	words    []C.uint32_t
	cnodes   []C.TSNode
	matches  []capturedMatch
	captures []captured
	// slow is set when collectSlow collected the matches, and slowNodes
	// holds their kept nodes.
	slow      bool
	slowNodes []*sitter.Node
}

// canCollect reports whether go-tree-sitter's QueryCursor, Query and Node
// have the layout collect relies on.
var canCollect = func() bool {
	qc := reflect.TypeOf(sitter.QueryCursor{})
	if qc.NumField() < 1 || qc.Field(0).Name != "c" || qc.Field(0).Offset != 0 || qc.Field(0).Type.Kind() != reflect.Pointer {
		return false
	}
	q := reflect.TypeOf(sitter.Query{})
	if q.NumField() < 1 || q.Field(0).Name != "c" || q.Field(0).Offset != 0 || q.Field(0).Type.Kind() != reflect.Pointer {
		return false
	}
	n := reflect.TypeOf(sitter.Node{})
	if n.NumField() != 2 || n.Field(0).Name != "c" || n.Field(0).Offset != 0 ||
		n.Field(0).Type.Size() != unsafe.Sizeof(C.TSNode{}) ||
		n.Field(1).Name != "t" || n.Field(1).Offset != unsafe.Sizeof(C.TSNode{}) ||
		n.Field(1).Type != reflect.TypeOf((*sitter.Tree)(nil)) {
		return false
	}
	return true
}()

// collect runs the query that cursor executes to the end. keep marks the
// capture indexes whose nodes are wanted (see node). It returns false
// when the matches could not be collected, and the cursor must be
// executed again.
func (col *collector) collect(cursor *sitter.QueryCursor, keep []uint8) bool {
	const words = 1 << 14
	if col.words == nil {
		col.words = make([]C.uint32_t, words)
		col.cnodes = make([]C.TSNode, 0, 1024)
	}
	col.matches, col.captures, col.cnodes, col.slow = col.matches[:0], col.captures[:0], col.cnodes[:0], false
	ccursor := *(**C.TSQueryCursor)(unsafe.Pointer(cursor))
	var keepPtr *C.uint8_t
	if len(keep) > 0 {
		keepPtr = (*C.uint8_t)(unsafe.Pointer(&keep[0]))
	}
	for {
		if cap(col.cnodes)-len(col.cnodes) < collectMaxCaptures {
			grown := make([]C.TSNode, len(col.cnodes), 2*cap(col.cnodes)+collectMaxCaptures)
			copy(grown, col.cnodes)
			col.cnodes = grown
		}
		nodes := col.cnodes[:cap(col.cnodes)]
		var used, done C.int
		used = C.int(len(col.cnodes))
		n := C.anchorage_collect(ccursor, &col.words[0], C.int(len(col.words)), collectMaxCaptures,
			keepPtr, C.int(len(keep)), &nodes[0], C.int(len(nodes)), &used, &done)
		if n < 0 {
			return false
		}
		col.cnodes = nodes[:used]
		col.read(col.words[:n])
		if done != 0 {
			return true
		}
	}
}

// collectRooted collects every match of lang's tags query in the tree
// under root, running the query only on nodes of the patterns' root
// types (lang.roots), each as the only place patterns may start. The
// query cursor then visits only what a pattern can match below such a
// node, where running it on the whole tree walks every node through
// tree-sitter's general matcher: on Go source that halves the time of a
// query. Matches come in the order of their root nodes in the tree. It
// returns false when the matches could not be collected (a match with
// more than collectMaxCaptures captures).
//
// When outer is not nil, it is an ancestor of root that patterns may start
// at too (the tree's root): its matches within root's bytes are included.
func (col *collector) collectRooted(cursor *sitter.QueryCursor, lang *Language, root, outer *sitter.Node) bool {
	if col.words == nil {
		col.words = make([]C.uint32_t, 1<<14)
		col.cnodes = make([]C.TSNode, 0, 1024)
	}
	ccursor := *(**C.TSQueryCursor)(unsafe.Pointer(cursor))
	cquery := *(**C.TSQuery)(unsafe.Pointer(lang.tags))
	croot := *(*C.TSNode)(unsafe.Pointer(root))
	var couter C.TSNode // id NULL: none
	if outer != nil {
		couter = *(*C.TSNode)(unsafe.Pointer(outer))
	}
	keep := lang.keepNodes
	var keepPtr *C.uint8_t
	if len(keep) > 0 {
		keepPtr = (*C.uint8_t)(unsafe.Pointer(&keep[0]))
	}
	for {
		col.matches, col.captures, col.slow = col.matches[:0], col.captures[:0], false
		nodes := col.cnodes[:cap(col.cnodes)]
		var used C.int
		n := C.anchorage_collect_rooted(croot, couter, ccursor, cquery,
			(*C.uint8_t)(unsafe.Pointer(&lang.roots[0])), C.int(len(lang.roots)),
			&col.words[0], C.int(len(col.words)), collectMaxCaptures,
			keepPtr, C.int(len(keep)), &nodes[0], C.int(len(nodes)), &used)
		switch {
		case n == -2:
			// The buffers grow to what the largest file needs, once.
			col.words = make([]C.uint32_t, 2*len(col.words))
			col.cnodes = make([]C.TSNode, 0, 2*cap(col.cnodes))
			continue
		case n < 0:
			return false
		}
		col.cnodes = nodes[:used]
		col.read(col.words[:n])
		return true
	}
}

// read appends the matches that the C functions wrote in w.
func (col *collector) read(w []C.uint32_t) {
	for i := 0; i < len(w); {
		m := capturedMatch{pattern: uint16(w[i]), start: len(col.captures)}
		count := int(w[i+1])
		i += 2
		for range count {
			c := captured{index: uint32(w[i]), start: uint32(w[i+1]), end: uint32(w[i+2]), node: -1}
			if w[i+3] != C.uint32_t(^uint32(0)) {
				c.node = int(w[i+3])
			}
			col.captures = append(col.captures, c)
			i += 4
		}
		m.end = len(col.captures)
		col.matches = append(col.matches, m)
	}
}

// patternRoots returns, indexed by grammar symbol, which node types the
// patterns of q (compiled from src) start at, or nil when some pattern
// does not start at a named node type (a wildcard, an alternation, an
// anonymous node, several sibling nodes): the query must then run on the
// whole tree.
func patternRoots(q *sitter.Query, src []byte, grammar *sitter.Language) []uint8 {
	if !canCollect {
		return nil
	}
	cq := *(**C.TSQuery)(unsafe.Pointer(q))
	names := map[string]bool{}
	for i := range uint32(C.ts_query_pattern_count(cq)) {
		if !C.ts_query_is_pattern_rooted(cq, C.uint32_t(i)) {
			return nil
		}
		at := int(C.ts_query_start_byte_for_pattern(cq, C.uint32_t(i)))
		// A pattern is "(type ...)", or a group "((type ...) (#pred ...))".
		for at < len(src) && (src[at] == '(' || src[at] == ' ' || src[at] == '\t' || src[at] == '\n' || src[at] == '\r') {
			at++
		}
		end := at
		for end < len(src) && (src[end] == '_' || src[end] == '.' || 'a' <= src[end] && src[end] <= 'z' ||
			'A' <= src[end] && src[end] <= 'Z' || '0' <= src[end] && src[end] <= '9') {
			end++
		}
		name := string(src[at:end])
		if at == 0 || src[at-1] != '(' || name == "" || name == "_" {
			return nil
		}
		names[name] = true
	}
	roots := make([]uint8, grammar.SymbolCount())
	found := map[string]bool{}
	for s := range roots {
		sym := sitter.Symbol(s)
		if grammar.SymbolType(sym) == sitter.SymbolTypeRegular && names[grammar.SymbolName(sym)] {
			roots[s] = 1
			found[grammar.SymbolName(sym)] = true
		}
	}
	if len(found) != len(names) || len(roots) == 0 {
		return nil
	}
	return roots
}

// collectSlow is collect through sitter.QueryCursor.NextMatch.
func (col *collector) collectSlow(cursor *sitter.QueryCursor, keep []uint8) {
	col.matches, col.captures, col.slowNodes, col.slow = col.matches[:0], col.captures[:0], col.slowNodes[:0], true
	for {
		m, ok := cursor.NextMatch()
		if !ok {
			return
		}
		cm := capturedMatch{pattern: m.PatternIndex, start: len(col.captures)}
		for _, c := range m.Captures {
			k := captured{index: c.Index, start: c.Node.StartByte(), end: c.Node.EndByte(), node: -1}
			if int(c.Index) < len(keep) && keep[c.Index] != 0 {
				k.node = len(col.slowNodes)
				col.slowNodes = append(col.slowNodes, c.Node)
			}
			col.captures = append(col.captures, k)
		}
		cm.end = len(col.captures)
		col.matches = append(col.matches, cm)
	}
}

// treeOf returns the tree a node belongs to.
func treeOf(n *sitter.Node) *sitter.Tree {
	if !canCollect {
		return nil
	}
	return *(**sitter.Tree)(unsafe.Add(unsafe.Pointer(n), unsafe.Sizeof(C.TSNode{})))
}

// node returns the node kept for a capture (its captured.node) as a
// go-tree-sitter node of tree.
func (col *collector) node(i int, tree *sitter.Tree) *sitter.Node {
	if col.slow {
		return col.slowNodes[i]
	}
	n := new(sitter.Node)
	*(*C.TSNode)(unsafe.Pointer(n)) = col.cnodes[i]
	*(**sitter.Tree)(unsafe.Add(unsafe.Pointer(n), unsafe.Sizeof(C.TSNode{}))) = tree
	return n
}

// topLevelSpans returns the spans of root's children, as topLevel does,
// without making a go-tree-sitter node of each (go-tree-sitter keeps every
// node it makes for the tree's lifetime). hint is about how many children
// root has (those of the tree parsed before it), or 0.
func topLevelSpans(root *sitter.Node, hint int) []span {
	if !canCollect {
		return topLevel(root)
	}
	croot := *(*C.TSNode)(unsafe.Pointer(root))
	// A walk of the children is not free (the 1,160 top-level nodes of
	// net/http/server.go: 90 µs): the buffer is sized for the hint, so
	// that it is not made twice.
	buf := make([]C.uint32_t, max(512, 2*(hint+hint/8+16)))
	n := int(C.anchorage_child_spans(croot, &buf[0], C.int(len(buf))))
	if 2*n > len(buf) {
		buf = make([]C.uint32_t, 2*n)
		n = int(C.anchorage_child_spans(croot, &buf[0], C.int(len(buf))))
	}
	out := make([]span, n)
	for i := range out {
		out[i] = span{uint32(buf[2*i]), uint32(buf[2*i+1])}
	}
	return out
}

// nodeTypes is a set of a grammar's node types, by symbol; any stands for
// every type.
type nodeTypes struct {
	any  bool
	syms []uint8
}

// has reports whether the set holds a symbol.
func (t *nodeTypes) has(sym sitter.Symbol) bool {
	return t.any || int(sym) < len(t.syms) && t.syms[sym] != 0
}

// patternInner returns, for each node type that patterns of q (compiled
// from src) start at, the node types those patterns name below it (a
// superset of what a match may hold as its direct child). A query of one
// child of the tree's root runs the root's patterns only when they name
// the child's type (see Parser.query).
func patternInner(q *sitter.Query, src []byte, grammar *sitter.Language) map[sitter.Symbol]*nodeTypes {
	if !canCollect {
		return nil
	}
	cq := *(**C.TSQuery)(unsafe.Pointer(q))
	count := uint32(C.ts_query_pattern_count(cq))
	byName := map[string][]sitter.Symbol{}
	for s := range sitter.Symbol(grammar.SymbolCount()) {
		if grammar.SymbolType(s) == sitter.SymbolTypeRegular {
			byName[grammar.SymbolName(s)] = append(byName[grammar.SymbolName(s)], s)
		}
	}
	out := map[sitter.Symbol]*nodeTypes{}
	for i := range count {
		start := int(C.ts_query_start_byte_for_pattern(cq, C.uint32_t(i)))
		end := len(src)
		if i+1 < count {
			end = int(C.ts_query_start_byte_for_pattern(cq, C.uint32_t(i+1)))
		}
		if start >= end || end > len(src) {
			return nil
		}
		names, any := nodeNames(src[start:end])
		if len(names) == 0 {
			return nil
		}
		for _, root := range byName[names[0]] {
			t := out[root]
			if t == nil {
				t = &nodeTypes{syms: make([]uint8, grammar.SymbolCount())}
				out[root] = t
			}
			t.any = t.any || any
			for _, n := range names[1:] {
				for _, s := range byName[n] {
					t.syms[s] = 1
				}
			}
		}
	}
	return out
}

// nodeNames returns the node type names a query pattern's text names, the
// pattern's root first, and whether it may match a node of any type (a
// wildcard or an anonymous node outside a predicate).
func nodeNames(text []byte) (names []string, any bool) {
	depth, pred := 0, -1 // pred: the depth of the predicate being read, or -1
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '"':
			if pred < 0 {
				any = true
			}
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case c == '(':
			depth++
			j := i + 1
			if j < len(text) && text[j] == '#' {
				if pred < 0 {
					pred = depth
				}
				continue
			}
			k := j
			for k < len(text) && (text[k] == '_' || text[k] == '.' || 'a' <= text[k] && text[k] <= 'z' ||
				'A' <= text[k] && text[k] <= 'Z' || '0' <= text[k] && text[k] <= '9') {
				k++
			}
			switch name := string(text[j:k]); name {
			case "":
			case "_":
				any = true
			default:
				if pred < 0 {
					names = append(names, name)
				}
			}
		case c == ')':
			if depth == pred {
				pred = -1
			}
			depth--
		case c == '_' && (i == 0 || !isWordByte(text[i-1])) && (i+1 == len(text) || !isWordByte(text[i+1])):
			any = true
		}
	}
	return names, any
}

// editTree records an edit on tree. The binding's Tree.Edit passes the
// old end point as the new one: tree-sitter then keeps wrong rows and
// columns for the nodes after an edit that adds or removes lines or
// changes the length of its last line, and a reparse does not always put
// them right (FuzzDocumentApply found a node one row off after replacing
// most of a line). Queries limited to a node's points then look in the
// wrong place. editTree passes the edit as it is, through the tree's own
// pointer in its root node, and falls back to Tree.Edit when the
// binding's layout is not the one it relies on.
func editTree(tree *sitter.Tree, e sitter.EditInput) {
	if !canCollect {
		tree.Edit(e)
		return
	}
	pt := func(p sitter.Point) C.TSPoint { return C.TSPoint{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)} }
	root := tree.RootNode()
	C.anchorage_tree_edit(*(*C.TSNode)(unsafe.Pointer(root)), C.TSInputEdit{
		start_byte:    C.uint32_t(e.StartIndex),
		old_end_byte:  C.uint32_t(e.OldEndIndex),
		new_end_byte:  C.uint32_t(e.NewEndIndex),
		start_point:   pt(e.StartPoint),
		old_end_point: pt(e.OldEndPoint),
		new_end_point: pt(e.NewEndPoint),
	})
}

// countErrorsC is countErrors in one cgo call (ok false where the
// binding's layout is not the one it relies on).
func countErrorsC(n *sitter.Node) (count int, ok bool) {
	if !canCollect {
		return 0, false
	}
	return int(C.anchorage_count_errors(*(*C.TSNode)(unsafe.Pointer(n)))), true
}

// damageInC is damageIn in one cgo call (anchorage_damage_in): a walk of a
// large file's top-level nodes through the Go bindings makes several cgo
// calls and allocations per node, which cost a keystroke that breaks the
// file most of a millisecond. ok is false when it cannot tell (the caller
// runs damageIn); found and at are then unset.
func damageInC(n *sitter.Node, text []byte, from uint32) (at uint32, found, ok bool) {
	if !canCollect {
		return 0, false, false
	}
	var ptr *C.uint8_t
	if len(text) > 0 {
		ptr = (*C.uint8_t)(unsafe.Pointer(&text[0]))
	}
	var cat C.uint32_t
	switch C.anchorage_damage_in(*(*C.TSNode)(unsafe.Pointer(n)), ptr, C.uint32_t(len(text)), C.uint32_t(from), &cat, 0) {
	case 1:
		return uint32(cat), true, true
	case 0:
		return 0, false, true
	}
	return 0, false, false
}
