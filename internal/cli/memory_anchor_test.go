package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/state"
)

// anchorTestJSON runs anchorage memory anchor-test --json and decodes
// its answer, checking the fields the editors rely on.
func anchorTestJSON(t *testing.T, args ...string) map[string]json.RawMessage {
	t.Helper()
	out, err := run(t, append([]string{"memory", "anchor-test", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("anchorage memory anchor-test %s: %v", strings.Join(args, " "), err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &fields); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	for _, k := range []string{"rule", "anchor", "candidates"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, out)
		}
	}
	return fields
}

// anchorJSON is an anchor or candidate as anchor-test prints it.
type anchorJSON struct {
	File      string   `json:"file"`
	Symbol    string   `json:"symbol"`
	Line      int      `json:"line"`
	Quality   *float64 `json:"quality"`
	Relevance *float64 `json:"relevance"`
	Size      *float64 `json:"size"`
	Recency   *float64 `json:"recency"`
}

func TestCLIMemoryAnchorTest(t *testing.T) {
	data := t.TempDir()
	root := searchApp(t)
	common := []string{"--data-dir", data, "--root", root}
	const rule = "Evict the least recently used entry when the cache is over capacity"

	t.Run("indexes first and anchors", func(t *testing.T) {
		dirs, err := state.Resolve(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dirs.IndexPath(root)); err == nil {
			t.Fatal("index exists before the first command")
		}
		fields := anchorTestJSON(t, append(common, rule)...)
		if _, err := os.Stat(dirs.IndexPath(root)); err != nil {
			t.Errorf("no index after anchor-test: %v", err)
		}
		var got string
		json.Unmarshal(fields["rule"], &got)
		if got != rule {
			t.Errorf("rule %q", got)
		}
		var a anchorJSON
		if err := json.Unmarshal(fields["anchor"], &a); err != nil {
			t.Fatal(err)
		}
		if a.File != "client/src/cache.ts" || !strings.Contains(a.Symbol, "LruCache") || a.Line < 1 {
			t.Errorf("anchor %+v, want a LruCache symbol in client/src/cache.ts (relative to the root)", a)
		}
		if a.Quality == nil || a.Relevance == nil || a.Size == nil || a.Recency == nil || *a.Quality < 0.7 {
			t.Errorf("anchor scores %+v", a)
		}
		var cands []anchorJSON
		if err := json.Unmarshal(fields["candidates"], &cands); err != nil {
			t.Fatal(err)
		}
		if len(cands) == 0 || cands[0].File != a.File || cands[0].Symbol != a.Symbol {
			t.Errorf("candidates %+v do not start with the anchor", cands)
		}
	})

	t.Run("text", func(t *testing.T) {
		out, err := run(t, append([]string{"memory", "anchor-test", "--no-refresh"}, append(common, "Evict", "the", "least", "recently", "used", "entry")...)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Rule: Evict the least recently used entry", "⚓ client/src/cache.ts:", "quality", "Candidates"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("no good example", func(t *testing.T) {
		fields := anchorTestJSON(t, append(common, "--no-refresh", "Resolve GraphQL fields with DataLoader batching")...)
		if string(fields["anchor"]) != "null" {
			t.Errorf("anchor %s, want null", fields["anchor"])
		}
		var cands []anchorJSON
		json.Unmarshal(fields["candidates"], &cands)
		for _, c := range cands {
			if *c.Quality >= 0.7 {
				t.Errorf("candidate %+v reaches the threshold", c)
			}
		}
		out, err := run(t, append([]string{"memory", "anchor-test", "--no-refresh"}, append(common, "Resolve GraphQL fields with DataLoader batching")...)...)
		if err != nil || !strings.Contains(out, "No anchor: ") {
			t.Errorf("text: %v\n%s", err, out)
		}
	})

	t.Run("scope", func(t *testing.T) {
		fields := anchorTestJSON(t, append(common, "--no-refresh", "--scope", "language:python", "--candidates", "30", rule)...)
		var cands []anchorJSON
		json.Unmarshal(fields["candidates"], &cands)
		for _, c := range cands {
			if !strings.HasSuffix(c.File, ".py") {
				t.Errorf("language:python candidate in %s", c.File)
			}
		}
		fields = anchorTestJSON(t, append(common, "--no-refresh", "--scope", "project:billing", rule)...)
		if string(fields["anchor"]) != "null" || !strings.Contains(string(fields["reason"]), "project:sampleapp") {
			t.Errorf("project:billing in sampleapp: anchor %s, reason %s", fields["anchor"], fields["reason"])
		}
		fields = anchorTestJSON(t, append([]string{"--data-dir", data, "--root", root, "--no-refresh", "--scope", "project:sampleapp"}, rule)...)
		if string(fields["anchor"]) == "null" {
			t.Error("project:sampleapp in sampleapp: no anchor")
		}
		// The memory command's --project names the workspace.
		out, err := run(t, "memory", "--project", "billing", "anchor-test", "--json", "--data-dir", data, "--root", root, "--no-refresh", "--scope", "project:billing", rule)
		if err != nil || strings.Contains(out, `"anchor": null`) {
			t.Errorf("--project billing: %v\n%s", err, out)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, args := range [][]string{
			{""},
			{"   "},
			{strings.Repeat("x ", 6000)},
			{"--scope", "galaxy:far", rule},
			{"--threshold", "2", rule},
			{},
		} {
			_, err := run(t, append(append([]string{"memory", "anchor-test", "--no-refresh"}, common...), args...)...)
			if err == nil {
				t.Errorf("%q: no error", args)
			}
		}
		_, err := run(t, append([]string{"memory", "anchor-test"}, append(common, "")...)...)
		if err == nil || !strings.Contains(err.Error(), "rule text is empty") {
			t.Errorf("empty rule: %v", err)
		}
	})
}
