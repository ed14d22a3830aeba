package analysis

import (
	"context"
	"fmt"
	"testing"
)

// TestCallersResolvedFirst is issue 16's report: callers that reach the
// method alone are listed before ambiguous calls of same-name methods of
// other types, which are marked and capped.
func TestCallersResolvedFirst(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"conn.py": "class Conn:\n    def set_state(self):\n        pass\n\n    def serve(self):\n        self.set_state()\n",
		"pipe.py": "class Pipe:\n    def set_state(self):\n        pass\n",
	}
	// Callers whose receiver's type is unknown: each may call either
	// setState. Their files sort before conn.go.
	for i := range MaxAmbiguousCallers + 3 {
		files[fmt.Sprintf("a%02d.py", i)] = fmt.Sprintf("def use%d(x):\n    x.set_state()\n", i)
	}
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	ctx := context.Background()
	a, err := ix.Ask(ctx, OpCallers, "Conn.set_state", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Definitions) != 1 {
		t.Fatalf("%d definitions, want conn.setState alone", len(a.Definitions))
	}
	d := a.Definitions[0]
	sites := d.Result.([]CallSite)
	if len(sites) == 0 || sites[0].Ambiguous || sites[0].Caller.QualifiedName != "Conn.serve" {
		t.Fatalf("first caller %+v, want Conn.serve, resolved", sites)
	}
	ambiguous := 0
	for i, c := range sites {
		if c.Ambiguous {
			ambiguous++
		} else if i > 0 && sites[i-1].Ambiguous {
			t.Errorf("resolved caller %s after an ambiguous one", c.Caller.QualifiedName)
		}
	}
	if ambiguous != MaxAmbiguousCallers || d.OmittedAmbiguous != 3 {
		t.Errorf("%d ambiguous listed, %d left out; want %d and 3", ambiguous, d.OmittedAmbiguous, MaxAmbiguousCallers)
	}
}

func TestCapAmbiguous(t *testing.T) {
	sites := []CallSite{{Line: 1}, {Line: 2, Ambiguous: true}, {Line: 3}, {Line: 4, Ambiguous: true}, {Line: 5, Ambiguous: true}}
	for _, tc := range []struct{ max, kept, omitted int }{{0, 2, 3}, {1, 3, 2}, {3, 5, 0}, {10, 5, 0}} {
		kept, omitted := CapAmbiguous(sites, tc.max)
		if len(kept) != tc.kept || omitted != tc.omitted {
			t.Errorf("CapAmbiguous(max %d) kept %d, left out %d; want %d, %d", tc.max, len(kept), omitted, tc.kept, tc.omitted)
		}
	}
}
