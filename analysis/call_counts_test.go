package analysis

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQualifiedCallCounts(t *testing.T) {
	ix := indexSample(t)
	// What the source says, counted without the index.
	written := map[CallName]int{}
	err := filepath.WalkDir(sampleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, c := range []CallName{{"Errorf", "fmt"}, {"New", "errors"}, {"NewService", "users"}} {
			written[c] += strings.Count(string(b), c.Qualifier+"."+c.Name+"(")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.QualifiedCallCounts(context.Background(), []string{"Errorf", "New", "NewService", "NoSuchFunction"})
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range written {
		if n == 0 {
			t.Fatalf("the sample app no longer calls %s.%s: pick another call", c.Qualifier, c.Name)
		}
		if got[c] != n {
			t.Errorf("calls of %s.%s = %d, want %d", c.Qualifier, c.Name, got[c], n)
		}
	}
	for c := range got {
		if c.Name == "NoSuchFunction" || c.Qualifier == "" {
			t.Errorf("unexpected count for %+v", c)
		}
	}
	if empty, err := ix.QualifiedCallCounts(context.Background(), nil); err != nil || len(empty) != 0 {
		t.Errorf("no names: %v, %v; want empty", empty, err)
	}
}
