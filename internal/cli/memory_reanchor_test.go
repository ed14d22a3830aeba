package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// memoryWorkspace copies the sample app into a temporary directory and
// returns a data directory, the copy's root, and a function that runs
// `anchorage memory ARGS…` on them, failing the test on an error.
func memoryWorkspace(t *testing.T) (data, root string, mem func(args ...string) string) {
	t.Helper()
	data = t.TempDir()
	root = filepath.Join(t.TempDir(), "sampleapp")
	if err := os.CopyFS(root, os.DirFS(sampleApp)); err != nil {
		t.Fatal(err)
	}
	mem = func(args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"--data-dir", data, "--root", root, "memory"}, args...)...)
		if err != nil {
			t.Fatalf("memory %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	return data, root, mem
}

// TestMemoryApproveAnchors approves a rule learned from corrections and
// checks it is anchored at once in the workspace, that anchor and reanchor
// find it again, and that a rule without a good example loses its anchor.
func TestMemoryApproveAnchors(t *testing.T) {
	data, root, mem := memoryWorkspace(t)
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

// TestMemoryReanchorSymbol chooses a rule's example by hand with
// reanchor ID --symbol: the choice is kept by reanchor, followed when the
// function is renamed, and a name the workspace does not define leaves
// the rule as it was with a clear message.
func TestMemoryReanchorSymbol(t *testing.T) {
	data, root, mem := memoryWorkspace(t)
	for range 3 {
		mem("correct", "Wrap database errors with the operation that failed", "--file", "users/repo.go")
	}
	mem("propose")
	var approved struct {
		Anchors []anchorOutcome `json:"anchors"`
	}
	if err := json.Unmarshal([]byte(mem("approve", "1", "--json")), &approved); err != nil {
		t.Fatal(err)
	}
	if len(approved.Anchors) != 1 || approved.Anchors[0].Anchor == nil || approved.Anchors[0].Anchor.File != "users/repo.go" {
		t.Fatalf("anchors after approval = %+v, want the rule anchored in users/repo.go, where its corrections were made", approved.Anchors)
	}

	// A name the workspace does not define: a clear message, the rule
	// as it was.
	out, err := run(t, "--data-dir", data, "--root", root, "memory", "reanchor", "1", "--symbol", "OpenDatabase")
	if err == nil || !strings.Contains(out+err.Error(), `defines nothing named "OpenDatabase"`) || !strings.Contains(out+err.Error(), "keeps its example") {
		t.Errorf("reanchor --symbol OpenDatabase: %v\n%s", err, out)
	}
	if out := mem("show", "--anchored"); !strings.Contains(out, "users/repo.go") {
		t.Errorf("the rule lost its example after a bad --symbol:\n%s", out)
	}
	if _, err := run(t, "--data-dir", data, "--root", root, "memory", "reanchor", "--symbol", "Open"); err == nil {
		t.Error("reanchor --symbol without a rule id succeeded")
	}

	// The user's choice, kept by reanchor.
	var chosen anchorOutcome
	if err := json.Unmarshal([]byte(mem("reanchor", "1", "--symbol", "db.Open", "--json")), &chosen); err != nil {
		t.Fatal(err)
	}
	if chosen.Anchor == nil || chosen.Anchor.File != "internal/db/db.go" || chosen.Anchor.Symbol != "db.Open" || !chosen.Manual {
		t.Fatalf("reanchor --symbol db.Open: %+v", chosen)
	}
	if out := mem("reanchor"); !strings.Contains(out, "rule 1: kept the example you chose, db.Open in internal/db/db.go") {
		t.Errorf("reanchor after a choice:\n%s", out)
	}

	// Renamed: the choice follows it.
	dbgo := filepath.Join(root, "internal", "db", "db.go")
	src, err := os.ReadFile(dbgo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbgo, []byte(strings.ReplaceAll(string(src), "func Open(", "func OpenDB(")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mem("reanchor", "1"); !strings.Contains(out, "kept the example you chose, db.OpenDB in internal/db/db.go") ||
		!strings.Contains(out, "renamed") {
		t.Errorf("reanchor after the rename:\n%s", out)
	}

	// Deleted: the rule is anchored afresh and says what became of the
	// choice.
	if err := os.WriteFile(dbgo, []byte("package db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mem("reanchor", "1"); !strings.Contains(out, "the example you chose, db.OpenDB in internal/db/db.go, is gone") {
		t.Errorf("reanchor after the deletion:\n%s", out)
	}
	if out := mem("show"); !strings.Contains(out, "Wrap database errors") {
		t.Errorf("the rule is gone after its example was deleted:\n%s", out)
	}
}

// TestMemoryShowLostAnchor checks that memory show tells where a rule's
// example is now: where it was chosen, under its new name after a
// rename, and "anchor lost" (the rule still listed) once the definition
// is deleted, in the text and in --json.
func TestMemoryShowLostAnchor(t *testing.T) {
	_, root, mem := memoryWorkspace(t)
	for range 3 {
		mem("correct", "Wrap database errors with the operation that failed", "--file", "users/repo.go")
	}
	mem("propose")
	mem("approve", "1")
	mem("reanchor", "1", "--symbol", "db.Open")
	show := func() (string, showOutput) {
		t.Helper()
		var js showOutput
		if err := json.Unmarshal([]byte(mem("show", "--json")), &js); err != nil {
			t.Fatal(err)
		}
		return mem("show"), js
	}
	out, js := show()
	if !strings.Contains(out, "⚓ internal/db/db.go db.Open (quality") || strings.Contains(out, "anchor lost") {
		t.Errorf("show with the example in place:\n%s", out)
	}
	if ex := js.Examples[1]; ex.Status != "shown" || ex.Symbol != "db.Open" {
		t.Errorf("show --json: example of rule 1 = %+v, want shown at db.Open", ex)
	}

	dbgo := filepath.Join(root, "internal", "db", "db.go")
	src, err := os.ReadFile(dbgo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbgo, []byte(strings.ReplaceAll(string(src), "func Open(", "func OpenDB(")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := show(); !strings.Contains(out, "⚓ internal/db/db.go db.OpenDB (quality") || !strings.Contains(out, "anchored as internal/db/db.go db.Open)") {
		t.Errorf("show after the example was renamed:\n%s", out)
	}

	if err := os.WriteFile(dbgo, []byte("package db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, js = show()
	if !strings.Contains(out, "⚓ anchor lost: internal/db/db.go db.Open is gone from the code; choose another example with anchorage memory reanchor 1") ||
		strings.Contains(out, "(quality") || !strings.Contains(out, "Wrap database errors") {
		t.Errorf("show after the example was deleted:\n%s", out)
	}
	if ex := js.Examples[1]; ex.Status != "lost" || len(js.Rules) != 1 || js.Rules[0].Anchor == nil {
		t.Errorf("show --json after the deletion: example %+v, rules %+v; want lost, the rule and its anchor kept", ex, js.Rules)
	}
}
