package lsp

// End-to-end test of the working-memory slots over the protocol, against
// the real binary (see e2e_test.go): anchorage.anchors.status|set|pin|
// unpin, anchorage.memory.search near a slot and with its fallback,
// anchorage.stats, and the slots following the symbol being edited. Bad
// input gets InvalidParams.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/anchorage-dev/anchorage/lsp/command"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/recall"
	"github.com/anchorage-dev/anchorage/state"
)

func TestRecallE2E(t *testing.T) {
	p := startProc(t)
	dirs, err := state.Resolve(p.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ms, err := memory.Open(ctx, dirs.MemoryPath())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range []string{"Wrap errors with fmt.Errorf and the %w verb", "Compare wrapped errors with errors.Is",
		"Open SQLite databases in WAL mode with a busy timeout"} {
		r, err := ms.AddRule(ctx, memory.Rule{Category: memory.CategoryRule, Scope: "universal", Content: c, Confidence: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, recall.RuleID(r.ID))
	}
	ms.Close()

	root := t.TempDir()
	src := "package store\n\n// OpenDatabase opens the SQLite database in WAL mode with a busy timeout.\nfunc OpenDatabase(path string) error {\n\treturn nil\n}\n"
	if err := os.WriteFile(filepath.Join(root, "db.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, p)
	init := c.memStart(t, root)
	for _, name := range command.Names() {
		if !slices.Contains(init.Capabilities.ExecuteCommandProvider.Commands, name) {
			t.Errorf("initialize does not list %s", name)
		}
	}

	var st recall.Status
	c.memCommand(t, &st, cmdAnchorsStatus)
	if len(st.Slots) != 3 || st.Slots[0].Slot != "A" || st.Slots[0].Anchor != nil || st.Slots[2].HopBudget != 2 {
		t.Fatalf("status = %+v", st)
	}
	c.memCommand(t, &st, cmdAnchorsSet, map[string]any{"slot": "A", "id": ids[0]})
	if a := st.Slots[0].Anchor; a == nil || a.ID != ids[0] || a.Kind != "rule" || a.Title == "" || st.Slots[0].LastUsed == "" {
		t.Errorf("after set, A = %+v", st.Slots[0])
	}
	c.memCommand(t, &st, cmdAnchorsPin, "B", ids[1])
	if !st.Slots[1].Pinned || st.Slots[1].Anchor.ID != ids[1] {
		t.Errorf("after pin, B = %+v", st.Slots[1])
	}

	var resp recall.Response
	c.memCommand(t, &resp, cmdMemorySearch, map[string]any{"query": "compare wrapped errors", "slot": "A", "radius": 1})
	if resp.Slot != "A" || resp.Fallback || len(resp.Results) == 0 || resp.Results[0].ID != ids[1] || resp.Results[0].Via != "slot" {
		t.Errorf("local search = %+v", resp)
	}
	c.memCommand(t, &resp, cmdMemorySearch, map[string]any{"query": "sqlite busy timeout", "slot": "B", "radius": 1, "fallback": false})
	if resp.Fallback || len(resp.Results) != 0 || len(resp.Notices) == 0 {
		t.Errorf("search without fallback = %+v", resp)
	}
	c.memCommand(t, &resp, cmdMemorySearch, map[string]any{"query": "sqlite busy timeout", "slot": "B", "radius": 1, "includeContent": true})
	if !resp.Fallback || len(resp.Results) == 0 || resp.Results[0].ID != ids[2] || resp.Results[0].Via != "global" ||
		!strings.Contains(resp.Results[0].Content, "WAL mode") {
		t.Errorf("search with fallback = %+v", resp)
	}
	c.memCommand(t, &st, cmdAnchorsStatus)
	if st.Slots[0].Anchor.ID != ids[1] {
		t.Errorf("slot A did not move to the best hit: %+v", st.Slots[0].Anchor)
	}
	if !st.Slots[1].Pinned || st.Slots[1].Anchor.ID != ids[1] {
		t.Errorf("pinned slot B moved: %+v", st.Slots[1])
	}
	c.memCommand(t, &st, cmdAnchorsUnpin, map[string]any{"slot": "B"})
	if st.Slots[1].Pinned {
		t.Errorf("after unpin, B = %+v", st.Slots[1])
	}

	// Editing OpenDatabase feeds the slots: a new topic takes slot C,
	// anchored on the SQLite rule.
	u := protocol.DocumentURI(uri.File(filepath.Join(root, "db.go")))
	d := c.open(t, u, "go", src)
	pos := protocol.Position{Line: 4, Character: 1}
	d.change(t, protocol.TextDocumentContentChangeEvent{Range: protocol.Range{Start: pos, End: pos}, Text: " "})
	eventually(t, eventTimeout, func() error {
		c.memCommand(t, &st, cmdAnchorsStatus)
		if cs := st.Slots[2]; cs.Anchor == nil {
			return fmt.Errorf("the slots did not follow the edit: %+v", st)
		}
		return nil
	})
	if cs := st.Slots[2]; cs.Anchor.ID != ids[2] || !strings.Contains(cs.Summary, "db.go") {
		t.Errorf("slot C after editing OpenDatabase = %+v", cs)
	}

	var stats struct {
		Memory *memory.Stats   `json:"memory"`
		Graph  *recall.Metrics `json:"graph"`
	}
	c.memCommand(t, &stats, cmdStats)
	if stats.Memory == nil || stats.Memory.Rules != 3 || stats.Graph == nil || stats.Graph.Searches != 3 ||
		stats.Graph.LocalHits != 1 || stats.Graph.Fallbacks != 1 || stats.Graph.Nodes != 3 {
		t.Errorf("stats = %+v / %+v", stats.Memory, stats.Graph)
	}

	c.memBadCommand(t, "slot", cmdAnchorsSet, map[string]any{"slot": "Z", "id": ids[0]})
	c.memBadCommand(t, "no such memory", cmdAnchorsPin, "A", "rule:999")
	c.memBadCommand(t, "memory id", cmdAnchorsSet, "A", "nonsense")
	c.memBadCommand(t, "empty query", cmdMemorySearch, map[string]any{"query": "  "})
	c.memBadCommand(t, "radius", cmdMemorySearch, map[string]any{"query": "errors", "radius": 42})
	c.memBadCommand(t, "query", cmdMemorySearch)
}

// TestRecallHoverRelated checks that a hover on a rule's example also
// lists the memories near it in the working memory, and neither the rule
// itself again nor an unrelated one.
func TestRecallHoverRelated(t *testing.T) {
	p := startProc(t)
	root := t.TempDir()
	src := "package store\n\n// WrapQueryError wraps a failed query's error.\nfunc WrapQueryError(err error) error {\n\treturn err\n}\n"
	if err := os.WriteFile(filepath.Join(root, "db.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ids := seedInjectRules(t, p.dataDir, root,
		[4]string{"universal", "Wrap errors with fmt.Errorf and the %w verb", "db.go", "store.WrapQueryError"},
		[4]string{"universal", "Compare wrapped errors with errors.Is, never with ==", "", ""},
		[4]string{"universal", "Name test files after the file they test", "", ""},
	)
	c := connect(t, p)
	c.memStart(t, root)
	u := uri.File(filepath.Join(root, "db.go"))
	at := protocol.Position{Line: 3, Character: 6}

	h := c.memHover(t, u, at)
	if h == nil || !strings.Contains(h.Contents.Value, "Wrap errors with fmt.Errorf") {
		t.Fatalf("hover = %+v, want the anchored rule", h)
	}

	var st recall.Status
	c.memCommand(t, &st, cmdAnchorsSet, map[string]any{"slot": "A", "id": recall.RuleID(ids[0])})
	h = c.memHover(t, u, at)
	if h == nil {
		t.Fatal("no hover once the slot is set")
	}
	v := h.Contents.Value
	_, related, ok := strings.Cut(v, "Related in working memory")
	if !ok || !strings.Contains(related, "Compare wrapped errors") {
		t.Fatalf("hover near slot A = \n%s\nwant the related rule listed", v)
	}
	if strings.Contains(related, "Wrap errors with fmt.Errorf") || strings.Contains(related, "Name test files") {
		t.Errorf("related memories repeat the hovered rule or list an unrelated one:\n%s", related)
	}
}
