package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryApproveAnchors approves a rule learned from corrections and
// checks it is anchored at once in the workspace, that anchor and reanchor
// find it again, and that a rule without a good example loses its anchor.
func TestMemoryApproveAnchors(t *testing.T) {
	data := t.TempDir()
	root := filepath.Join(t.TempDir(), "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	mem := func(args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"--data-dir", data, "--root", root, "memory"}, args...)...)
		if err != nil {
			t.Fatalf("memory %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	for range 3 {
		mem("correct", "Retry the decorated function when it fails with an I/O error", "--file", "worker/jobs.py")
	}
	mem("propose")
	var approved struct {
		Anchors []anchorOutcome `json:"anchors"`
	}
	if err := json.Unmarshal([]byte(mem("approve", "all", "--json")), &approved); err != nil {
		t.Fatal(err)
	}
	if len(approved.Anchors) != 1 || approved.Anchors[0].Anchor == nil || approved.Anchors[0].Anchor.File != "worker/jobs.py" {
		t.Fatalf("anchors after approval = %+v, want the rule anchored in worker/jobs.py", approved.Anchors)
	}
	id := approved.Anchors[0].Rule

	var again anchorOutcome
	if err := json.Unmarshal([]byte(mem("anchor", "1", "--json")), &again); err != nil {
		t.Fatal(err)
	}
	if again.Rule != id || again.Anchor == nil || again.Anchor.Symbol != approved.Anchors[0].Anchor.Symbol {
		t.Errorf("anchor %d = %+v, want the same anchor as at approval (%s)", id, again.Anchor, approved.Anchors[0].Anchor.Symbol)
	}

	// The example disappears: reanchor finds nothing as good and says so.
	if err := os.Remove(filepath.Join(root, "worker", "jobs.py")); err != nil {
		t.Fatal(err)
	}
	out := mem("reanchor")
	if !strings.Contains(out, "rule 1:") {
		t.Errorf("reanchor:\n%s", out)
	}
	if strings.Contains(out, "worker/jobs.py") {
		t.Errorf("reanchor still anchors in a deleted file:\n%s", out)
	}
	if _, err := run(t, "--data-dir", data, "--root", root, "memory", "anchor", "99"); err == nil {
		t.Error("anchor of an unknown rule succeeded")
	}
}
