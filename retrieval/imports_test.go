package retrieval

import (
	"testing"
)

// TestImportsTestFilesLast is issue 16's report: "which files import X"
// answers with the code that ships first, then the tests.
func TestImportsTestFilesLast(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"users/aa_test.go":  "package users\n\nimport \"example.com/sampleapp/internal/db\"\n\nvar _ = db.Open\n",
		"tests/db_check.py": "from internal import db\n",
	})
	resp := fx.search(t, Request{Query: "which files import internal/db", Strategy: Structural})
	if len(resp.Results) < 2 {
		t.Fatalf("results %+v, want the sample app's importers and the test", resp.Results)
	}
	seenTest := false
	for _, r := range resp.Results {
		if IsTestPath(r.File) {
			seenTest = true
		} else if seenTest {
			t.Errorf("%s comes after a test file: %+v", r.File, resp.Results)
		}
	}
	if !seenTest {
		t.Errorf("no test file among %+v", resp.Results)
	}
}
