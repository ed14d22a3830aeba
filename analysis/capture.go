package analysis

/*
#include <stdint.h>
#include <stdbool.h>

// The few declarations of tree-sitter's api.h (as built into
// github.com/smacker/go-tree-sitter) that collect needs.
typedef struct TSTree TSTree;
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
bool ts_query_cursor_next_match(TSQueryCursor *self, TSQueryMatch *match);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);

// anchorage_collect moves the cursor's next matches into out, as long as
// a match of max_captures captures fits: for each match its pattern index
// and capture count, then for each capture its index, start byte, end byte
// and the slot in nodes that holds its node (those whose capture index is
// set in keep), or UINT32_MAX. It returns the number of words written, or
// -1 when a match has more than max_captures captures (the match is then
// lost). *done is set when the cursor has no more matches.
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
		out[used++] = m.pattern_index;
		out[used++] = m.capture_count;
		for (uint16_t i = 0; i < m.capture_count; i++) {
			const TSQueryCapture *c = &m.captures[i];
			out[used++] = c->index;
			out[used++] = ts_node_start_byte(c->node);
			out[used++] = ts_node_end_byte(c->node);
			if (c->index < (uint32_t)keep_len && keep[c->index]) {
				nodes[*node_used] = c->node;
				out[used++] = (uint32_t)(*node_used);
				(*node_used)++;
			} else {
				out[used++] = UINT32_MAX;
			}
		}
	}
	return used;
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

// canCollect reports whether go-tree-sitter's QueryCursor and Node have
// the layout collect relies on.
var canCollect = func() bool {
	qc := reflect.TypeOf(sitter.QueryCursor{})
	if qc.NumField() < 1 || qc.Field(0).Name != "c" || qc.Field(0).Offset != 0 || qc.Field(0).Type.Kind() != reflect.Pointer {
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
		w := col.words[:n]
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
		if done != 0 {
			return true
		}
	}
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
