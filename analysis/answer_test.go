package analysis

import (
	"context"
	"testing"
)

// TestInheritanceAsksTypesOnly is issue 16's report: "graph inheritance
// BaseRepository" listed the Java constructor BaseRepository as a second
// definition.
func TestInheritanceAsksTypesOnly(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"BaseRepository.java": "public abstract class BaseRepository {\n    protected BaseRepository(Object ds) {}\n}\n",
		"JdbcRepository.java": "public class JdbcRepository extends BaseRepository {\n    JdbcRepository() { super(null); }\n}\n",
		"util.py":             "def helper():\n    pass\n",
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	ctx := context.Background()
	a, err := ix.Ask(ctx, OpInheritance, "BaseRepository", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Definitions) != 1 || a.Definitions[0].Definition.Kind != KindClass {
		t.Fatalf("definitions %+v, want the class alone", a.Definitions)
	}
	if r := a.Definitions[0].Result.(*InheritanceResult); len(r.Derived) != 1 || r.Derived[0].Symbol.Name != "JdbcRepository" {
		t.Errorf("derived %+v, want JdbcRepository", r.Derived)
	}
	// A name that is no type is still answered.
	if a, err := ix.Ask(ctx, OpInheritance, "helper", 0); err != nil || len(a.Definitions) != 1 {
		t.Errorf("Ask(inheritance, helper) = %+v, %v", a, err)
	}
}
