package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

// newTestWorkspace indexes a copy of the sample app in a directory named
// dir (its project name) and returns it as a Workspace over its real
// index and live graph, as the language server's folders are.
func newTestWorkspace(t *testing.T, dir string) *Workspace {
	t.Helper()
	root := copySampleApp(t)
	if dir != "sampleapp" {
		moved := filepath.Join(filepath.Dir(root), dir)
		if err := os.Rename(root, moved); err != nil {
			t.Fatal(err)
		}
		root = moved
	}
	s := openEvalIndex(t, root, "")
	live := analysis.NewWorkspace(s.Index)
	s.Overlay = func(rel string) ([]byte, bool) {
		text, _, _, ok := live.Snapshot(rel)
		return text, ok
	}
	return &Workspace{Root: s.Index.Root(), Project: dir, Live: live, Searcher: s}
}

// TestWorkspaceHasFile checks that a workspace holds its files on disk
// and open ones, not those of a workspace nested in it.
func TestWorkspaceHasFile(t *testing.T) {
	w := newTestWorkspace(t, "sampleapp")
	w.Nested = []string{"users"}
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"worker/jobs.py", true},
		{"users/repo.go", false},
		{"usersx.go", false},
		{"missing.go", false},
	} {
		if got := w.HasFile(tt.rel); got != tt.want {
			t.Errorf("HasFile(%s) = %v; want %v", tt.rel, got, tt.want)
		}
	}
	if err := w.Live.Open(t.Context(), "new.go", 1, []byte("package app\n")); err != nil {
		t.Fatal(err)
	}
	if !w.HasFile("new.go") {
		t.Error("HasFile of a document open in the editor, not on disk: false")
	}
	if text, ok := w.FileText("new.go"); !ok || string(text) != "package app\n" {
		t.Errorf("FileText of the open document = %q, %v", text, ok)
	}
}

// anchoredRule stores a rule with an anchor and returns it as stored.
func anchoredRule(t *testing.T, s *Store, scope, file, symbol, meta string) Rule {
	t.Helper()
	ctx := t.Context()
	r, err := s.AddRule(ctx, Rule{Category: CategoryRule, Scope: scope, Content: "Look users up by id", Confidence: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	a := RuleAnchor{File: file, Symbol: symbol, Score: 0.8}
	if meta != "" {
		a.Metadata = []byte(meta)
	}
	if err := s.SetAnchor(ctx, r.ID, a); err != nil {
		t.Fatal(err)
	}
	if r, err = s.Rule(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAnchorsPlace(t *testing.T) {
	ctx := t.Context()
	app, other := newTestWorkspace(t, "sampleapp"), newTestWorkspace(t, "other")
	st := memTemp(t)
	var warned []error
	x := &Anchors{Store: st, Workspaces: []*Workspace{app, other}, Warn: func(err error) { warned = append(warned, err) }}

	const file, sym = "users/repo.go", "UserRepository.FindByID"
	loc, ok, err := (&Anchorer{Searcher: app.Searcher}).Locate(ctx, file, sym, 0)
	if err != nil || !ok {
		t.Fatalf("Locate: %v, %v", ok, err)
	}
	tests := []struct {
		name, scope, file, symbol, meta string
		want                            *Workspace
		status                          AnchorStatus
	}{
		{"project rule, line only", "project:sampleapp", file, sym, `{"l":1}`, app, AnchorLive},
		{"project rule of the other folder", "project:other", file, sym, `{"l":1}`, other, AnchorLive},
		{"universal rule by root", "universal", file, sym, `{"l":1,"r":"` + other.Root + `"}`, other, AnchorLive},
		{"renamed project", "universal", file, sym, `{"r":"/nowhere/x","p":"other"}`, other, AnchorLive},
		{"legacy metadata", "language:go", file, sym, `{"line":3,"root":"` + app.Root + `","project":"sampleapp","kind":"method"}`, app, AnchorLive},
		{"closed workspace", "universal", file, sym, `{"r":"/nowhere/gone"}`, nil, AnchorElsewhere},
		{"project not open", "project:gone", file, sym, ``, nil, AnchorElsewhere},
		{"no metadata: the first holding the file", "universal", file, sym, ``, app, AnchorLive},
		{"whole file", "project:sampleapp", file, "", ``, app, AnchorLive},
		{"symbol gone", "project:sampleapp", file, "UserRepository.Gone", ``, app, AnchorLost},
		// A file gone while the only definition of its symbol is in
		// another: the symbol moved there.
		{"file gone, symbol moved", "project:sampleapp", "users/gone.go", sym, ``, app, AnchorLive},
		{"file and symbol gone", "project:sampleapp", "users/gone.go", "UserRepository.Gone", ``, app, AnchorLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := anchoredRule(t, st, tt.scope, tt.file, tt.symbol, tt.meta)
			if got := x.WorkspaceOf(r); got != tt.want {
				t.Errorf("WorkspaceOf = %v, want %v", got, tt.want)
			}
			p := x.Locate(ctx, r)
			if p.Status != tt.status || p.Workspace != tt.want && tt.want != nil {
				t.Fatalf("Locate = %+v, want %s in %v", p, tt.status, tt.want)
			}
			switch {
			case tt.status == AnchorLive && tt.symbol != "":
				if p.Symbol == nil || p.Symbol.QualifiedName != sym || p.Symbol.Range.Start.Line+1 != loc.Line || p.File != file {
					t.Errorf("live anchor at %+v, want %s at line %d", p.Symbol, sym, loc.Line)
				}
			case p.Symbol != nil:
				t.Errorf("symbol %+v for status %s", p.Symbol, p.Status)
			}
		})
	}
	if _, err := st.AddRule(ctx, Rule{Category: CategoryRule, Scope: ScopeUniversal, Content: "x", Confidence: 0.5}); err != nil {
		t.Fatal(err)
	}
	rules, _ := st.Rules(ctx, RuleFilter{})
	if p := x.Locate(ctx, rules[len(rules)-1]); p.Status != AnchorNone || p.Workspace != nil {
		t.Errorf("a rule without an anchor: %+v", p)
	}
	if len(warned) > 0 {
		t.Errorf("warnings: %v", warned)
	}
}

func TestAnchorsFollowEditsAndIndexing(t *testing.T) {
	ctx := t.Context()
	w := newTestWorkspace(t, "sampleapp")
	st := memTemp(t)
	x := &Anchors{Store: st, Workspaces: []*Workspace{w}}
	const file = "users/repo.go"
	r := anchoredRule(t, st, "project:sampleapp", file, "UserRepository.FindByID", ``)
	before := x.Locate(ctx, r)
	if before.Status != AnchorLive {
		t.Fatalf("before: %+v", before)
	}
	src, err := os.ReadFile(filepath.Join(w.Root, file))
	if err != nil {
		t.Fatal(err)
	}
	// Lines typed above the symbol in the editor move it.
	edited := strings.Replace(string(src), "// ErrNotFound", "// One.\n// Two.\n\n// ErrNotFound", 1)
	if err := w.Live.Open(ctx, file, 1, []byte(edited)); err != nil {
		t.Fatal(err)
	}
	if p := x.Locate(ctx, r); p.Status != AnchorLive || p.Symbol.Range.Start.Line != before.Symbol.Range.Start.Line+3 {
		t.Errorf("after 3 lines above: %+v, was line %d", p.Symbol, before.Symbol.Range.Start.Line)
	}
	// Renamed in the open document: lost, even while indexing.
	w.Indexing = true
	if err := w.Live.Open(ctx, file, 2, []byte(strings.ReplaceAll(edited, "FindByID", "Lookup"))); err != nil {
		t.Fatal(err)
	}
	if p := x.Locate(ctx, r); p.Status != AnchorLost {
		t.Errorf("renamed in the open document: %s", p.Status)
	}
	// Missing from a closed file while indexing: pending, then lost.
	if err := w.Live.Close(file); err != nil {
		t.Fatal(err)
	}
	gone := anchoredRule(t, st, "project:sampleapp", file, "UserRepository.NotYet", ``)
	if p := x.Locate(ctx, gone); p.Status != AnchorPending {
		t.Errorf("while indexing: %s", p.Status)
	}
	w.Indexing = false
	if p := x.Locate(ctx, gone); p.Status != AnchorLost {
		t.Errorf("after indexing: %s", p.Status)
	}
}

func TestAnchorsApproveAndReanchor(t *testing.T) {
	ctx := t.Context()
	w := newTestWorkspace(t, "sampleapp")
	st := memTemp(t, WithProject("sampleapp"))
	x := &Anchors{Store: st, Workspaces: []*Workspace{w}}

	rec, err := st.RecordCorrection(ctx, Correction{Text: "Evict the least recently used entry when the cache is over capacity", File: "client/src/cache.ts"})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := st.Propose(ctx)
	if err != nil || len(ps) != 1 || ps[0].File != rec.File {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	x.SetExamples(ctx, ps)
	if ps[0].ExampleFile != "client/src/cache.ts" {
		t.Errorf("example %s %s, want one in client/src/cache.ts", ps[0].ExampleFile, ps[0].ExampleSymbol)
	}
	if stored, _ := st.Proposal(ctx, ps[0].ID); stored.ExampleFile != ps[0].ExampleFile || stored.ExampleSymbol != ps[0].ExampleSymbol {
		t.Errorf("stored example %s %s", stored.ExampleFile, stored.ExampleSymbol)
	}
	ap, err := st.Approve(ctx, ps[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	aa := x.AnchorApproval(ctx, ap)
	if aa.Note != "" || aa.Rule.Anchor == nil || aa.Rule.Anchor.File != "client/src/cache.ts" || aa.Placement.Status != AnchorLive {
		t.Fatalf("AnchorApproval = %+v, note %q", aa.Placement, aa.Note)
	}
	if m := ReadAnchorMeta(aa.Rule); m.Line != aa.Placement.Symbol.Range.Start.Line+1 {
		t.Errorf("metadata line %d, symbol at %d", m.Line, aa.Placement.Symbol.Range.Start.Line+1)
	}
	// Approving again merges into the anchored rule, which keeps its anchor.
	if _, err := st.RecordCorrection(ctx, Correction{Text: "evict the least recently used entry when over capacity"}); err != nil {
		t.Fatal(err)
	}
	if ps, err = st.Propose(ctx); err != nil || len(ps) != 1 {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	ap2, err := st.Approve(ctx, ps[0].ID, "")
	if err != nil || !ap2.Merged {
		t.Fatalf("Approve = %+v, %v; want a merge", ap2, err)
	}
	if aa2 := x.AnchorApproval(ctx, ap2); aa2.Rule.Anchor == nil || aa2.Rule.Anchor.Symbol != aa.Rule.Anchor.Symbol || aa2.Placement.Status != AnchorLive {
		t.Errorf("merged approval: %+v", aa2)
	}

	// The example's file is deleted: nothing else matches, so the lost
	// anchor is cleared.
	if err := os.Remove(filepath.Join(w.Root, "client", "src", "cache.ts")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Searcher.Index.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	re, err := x.Reanchor(ctx, aa.Rule.ID)
	if err != nil {
		t.Fatal(err)
	}
	if re.Reanchored || re.Note == "" || re.Rule.Anchor != nil || re.Placement.Status != AnchorNone {
		t.Errorf("Reanchor after the deletion: %+v", re)
	}
	if _, err := x.Reanchor(ctx, 9999); !errors.Is(err, ErrUnknownRule) {
		t.Errorf("Reanchor of an unknown rule: %v", err)
	}
	// Without workspaces, approving still works and says why there is no
	// anchor.
	none := &Anchors{Store: st}
	if _, err := st.RecordCorrection(ctx, Correction{Text: "Prefer table driven tests"}); err != nil {
		t.Fatal(err)
	}
	if ps, err = st.Propose(ctx); err != nil || len(ps) != 1 {
		t.Fatalf("Propose = %+v, %v", ps, err)
	}
	ap3, err := st.Approve(ctx, ps[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if aa3 := none.AnchorApproval(ctx, ap3); aa3.Rule.Anchor != nil || !strings.Contains(aa3.Note, "no workspace") || aa3.Placement.Status != AnchorNone {
		t.Errorf("no workspaces: %+v, note %q", aa3.Placement, aa3.Note)
	}
}
