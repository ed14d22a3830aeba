package codelex

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tab := Parse(`# a comment: not a link
decod unmarshal:0.65 json:0.53
copy clon:0.54
broken nocolon badscore:x neg:-1 big:1.5 :0.3 ok:0.30
json
`)
	if got, want := tab.Code("decod"), []Link{{"unmarshal", 0.65}, {"json", 0.53}}; !slices.Equal(got, want) {
		t.Errorf("Code(decod) = %v, want %v", got, want)
	}
	if got, want := tab.Doc("clon"), []Link{{"copy", 0.54}}; !slices.Equal(got, want) {
		t.Errorf("Doc(clon) = %v, want %v", got, want)
	}
	if got, want := tab.Code("broken"), []Link{{"ok", 0.30}}; !slices.Equal(got, want) {
		t.Errorf("Code(broken) = %v, want %v (unreadable pairs skipped)", got, want)
	}
	if tab.Code("#") != nil || tab.Code("json") != nil || tab.Len() != 4 {
		t.Errorf("comments or bare words read as links: %d links", tab.Len())
	}
}

// TestBuiltin checks the embedded table: it has links, both ways, best
// first, and a few that the corpus must teach.
func TestBuiltin(t *testing.T) {
	tab := Builtin()
	if tab.Len() < 500 {
		t.Fatalf("the built-in table has %d links", tab.Len())
	}
	for _, m := range []map[string][]Link{tab.code, tab.doc} {
		for w, l := range m {
			if !slices.IsSortedFunc(l, func(a, b Link) int {
				switch {
				case a.Score > b.Score:
					return -1
				case a.Score < b.Score:
					return 1
				}
				return 0
			}) {
				t.Fatalf("links of %q are not best first: %v", w, l)
			}
		}
	}
	has := func(l []Link, term string) bool {
		return slices.ContainsFunc(l, func(x Link) bool { return x.Term == term })
	}
	if !has(tab.Doc("unmarshal"), "decod") || !has(tab.Code("copy"), "clon") {
		t.Errorf("expected links missing: unmarshal → %v, copy → %v", tab.Doc("unmarshal"), tab.Code("copy"))
	}
}

func FuzzParse(f *testing.F) {
	f.Add("decod unmarshal:0.65 json:0.53\n# x\ncopy clon:0.54")
	f.Add("a b:NaN c:1e400 d:0x1p-2")
	f.Fuzz(func(t *testing.T, s string) {
		tab := Parse(s)
		for _, l := range tab.code {
			for _, x := range l {
				if !(x.Score > 0 && x.Score <= 1) || x.Term == "" {
					t.Fatalf("link %+v read from %q", x, s)
				}
			}
		}
	})
}
