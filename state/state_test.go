package state

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	t.Run("flag", func(t *testing.T) {
		t.Setenv(EnvHome, filepath.Join(dir, "env"))
		d, err := Resolve(filepath.Join(dir, "flag"))
		if err != nil {
			t.Fatal(err)
		}
		if d.Cache != filepath.Join(dir, "flag", "cache") || d.Data != filepath.Join(dir, "flag", "data") {
			t.Errorf("Resolve(flag) = %+v: the flag must win over %s", d, EnvHome)
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv(EnvHome, filepath.Join(dir, "env"))
		d, err := Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(d.Cache, filepath.Join(dir, "env")) || !strings.HasPrefix(d.MemoryPath(), filepath.Join(dir, "env")) {
			t.Errorf("Resolve with %s = %+v", EnvHome, d)
		}
	})
	t.Run("user directories", func(t *testing.T) {
		t.Setenv(EnvHome, "")
		t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdgcache"))
		t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "xdgdata"))
		d, err := Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if d.Cache != filepath.Join(dir, "xdgcache", "anchorage") || d.Data != filepath.Join(dir, "xdgdata", "anchorage") {
			t.Errorf("Resolve() = %+v", d)
		}
	})
}

func TestIndexPath(t *testing.T) {
	d := Dirs{Cache: "/cache", Data: "/data"}
	a, b := d.IndexPath("/work/app"), d.IndexPath("/other/app")
	if a == b {
		t.Errorf("two workspaces named app share an index: %s", a)
	}
	if a != d.IndexPath("/work/app/") {
		t.Errorf("a trailing slash changes the index: %s vs %s", a, d.IndexPath("/work/app/"))
	}
	if !strings.HasPrefix(a, "/cache/index/app-") || filepath.Base(a) != "index.db" {
		t.Errorf("IndexPath = %s", a)
	}
	if got := d.IndexPath("/x/we ird:name"); strings.ContainsAny(filepath.Base(filepath.Dir(got)), " :") {
		t.Errorf("IndexPath keeps unsafe characters: %s", got)
	}
}
