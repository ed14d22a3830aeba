package retrieval

import (
	"context"
	"strings"
	"testing"
)

func TestPackageName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"strconv/atoi.go", "strconv"},
		{"net/http/server.go", "http"},
		{"main.go", "."},
		{"app/utils.py", "utils"},
		{"src/lib/format.ts", "format"},
		{"src/main/java/shop/Cart.java", "shop"},
		{"src/store/mod.rs", "store"},
	} {
		if got := packageName(tc.path); got != tc.want {
			t.Errorf("packageName(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestSearchSemanticPopularity checks that of two functions matching a
// question alike, the one the workspace calls through its package's name
// comes first, and that only the popularity signal puts it there.
func TestSearchSemanticPopularity(t *testing.T) {
	t.Parallel()
	// legacyconf's doc repeats the question's words, so BM25 alone prefers
	// it; settings.Parse is the one the code calls.
	fx := newSearchFixture(t, map[string]string{
		"legacyconf/parse.go": "package legacyconf\n\n// Parse reads the ledger settings text; ledger settings text only.\nfunc Parse(s string) string { return s }\n",
		"settings/parse.go":   "package settings\n\n// Parse reads the ledger settings text.\nfunc Parse(s string) string { return s }\n",
		"cmd/ledger/main.go":  "package main\n\nimport \"example.com/sampleapp/settings\"\n\nfunc main() {\n\tsettings.Parse(\"a\")\n\tsettings.Parse(\"b\")\n\tsettings.Parse(\"c\")\n\tsettings.Parse(\"d\")\n}\n",
	})
	fx.s.Vectors = nil // the vector signal could tell them apart too
	first := func(t *testing.T, s *Searcher) string {
		t.Helper()
		resp, err := s.Search(context.Background(), Request{Query: "read the ledger settings text", Strategy: Semantic, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.Results {
			if strings.HasSuffix(r.File, "/parse.go") {
				return r.File
			}
		}
		t.Fatalf("neither Parse found: %+v", resp.Results)
		return ""
	}
	plain := *fx.s
	plain.noPopularity = true
	if got := first(t, &plain); got != "legacyconf/parse.go" {
		t.Fatalf("without popularity the first Parse is %s, want legacyconf/parse.go (the fixture no longer separates the signals)", got)
	}
	if got := first(t, fx.s); got != "settings/parse.go" {
		t.Errorf("with popularity the first Parse is %s, want settings/parse.go, called 4 times as settings.Parse", got)
	}
}

func TestSearchKeywordScope(t *testing.T) {
	t.Parallel()
	fx := newSearchFixture(t, map[string]string{
		"alpha/x.go": "package alpha\n\n// zebracorn here\nvar A = 1\n",
		"beta/x.go":  "package beta\n\n// zebracorn there\nvar B = 2\n",
	})
	files := func(resp *Response) []string {
		var out []string
		for _, r := range resp.Results {
			out = append(out, r.File)
		}
		return out
	}
	resp := fx.search(t, Request{Query: `grep for "zebracorn" in beta/`})
	if got := files(resp); len(got) != 1 || got[0] != "beta/x.go" || resp.Notice != "" {
		t.Errorf("scoped to beta/: %v (notice %q), want only beta/x.go", got, resp.Notice)
	}
	resp = fx.search(t, Request{Query: `grep for "zebracorn" in nowhere/`})
	if got := files(resp); len(got) != 2 || !strings.Contains(resp.Notice, "nowhere") {
		t.Errorf("scoped to a folder that does not exist: %v (notice %q), want both files and a notice naming it", got, resp.Notice)
	}
}
