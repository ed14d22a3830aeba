package command

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// luaClasses reads the classes of the generated Lua module: each class's
// name (anchorage.X) and its fields.
func luaClasses(src []byte) map[string]map[string]bool {
	classes := map[string]map[string]bool{}
	var cur map[string]bool
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "---@class "):
			cur = map[string]bool{}
			classes[strings.TrimPrefix(line, "---@class ")] = cur
		case strings.HasPrefix(line, "---@field ") && cur != nil:
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "---@field "), " ")
			cur[strings.TrimSuffix(name, "?")] = true
		default:
			cur = nil
		}
	}
	return classes
}

var (
	luaParam = regexp.MustCompile(`^(\s*)---@param (\w+) (anchorage\.\w+)(\[\])?`)
	luaIdent = regexp.MustCompile(`^\w+$`)
)

// luaParamFields returns, for each parameter of the Neovim plugin's Lua
// annotated with a generated class (---@param resp anchorage.X), the
// fields its function reads of it (resp.field), with where.
func luaParamFields(t *testing.T, path string, src []byte) (uses []luaFieldUse) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	for i, line := range lines {
		m := luaParam.FindStringSubmatch(line)
		if m == nil || m[4] != "" { // a list: its elements are read in loops
			continue
		}
		indent, name, class := m[1], m[2], m[3]
		// The function starts after the annotations and ends at the first
		// "end" as indented as it.
		j := i + 1
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "---") {
			j++
		}
		access := regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(name) + `\.(\w+)`)
		for k := j + 1; k < len(lines); k++ {
			if strings.HasPrefix(lines[k], indent+"end") {
				break
			}
			for _, a := range access.FindAllStringSubmatch(lines[k], -1) {
				uses = append(uses, luaFieldUse{where: path + ":" + itoa(k+1), class: class, field: a[1]})
			}
		}
	}
	return uses
}

type luaFieldUse struct{ where, class, field string }

func itoa(n int) string { return strconv.Itoa(n) }

// TestLuaUsesGeneratedFields checks that the Neovim plugin reads the
// server's answers by the generated field names: every field a function
// reads of a parameter annotated with a generated class (---@param resp
// anchorage.FeatureSearchAnswer) is a field of that class.
func TestLuaUsesGeneratedFields(t *testing.T) {
	root := filepath.Join("..", "..")
	classes := luaClasses(Lua())
	dir := filepath.Join(root, "editors", "neovim", "lua", "anchorage")
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the plugin's Lua files in %s: %v", dir, err)
	}
	checked := 0
	for _, f := range files {
		if filepath.Base(f) == filepath.Base(LuaFile) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range luaParamFields(t, filepath.Base(f), src) {
			fields, ok := classes[u.class]
			if !ok {
				t.Errorf("%s: %s is not a generated class", u.where, u.class)
				continue
			}
			if !luaIdent.MatchString(u.field) || !fields[u.field] {
				t.Errorf("%s: reads %s of %s, which has no such field", u.where, u.field, u.class)
			}
			checked++
		}
	}
	t.Logf("%d field reads checked", checked)
	if checked < 20 {
		t.Errorf("checked %d field reads of annotated parameters; want the plugin's answers annotated (at least 20)", checked)
	}
}

// TestLuaParamFields checks the reader of annotated functions on a
// function that reads a field its class lacks.
func TestLuaParamFields(t *testing.T) {
	src := []byte(`---@param resp anchorage.FeatureSearchAnswer
function M.f(resp)
  local q = resp.query
  if x then
    return resp.nope
  end
  other.query = 1
end
local y = resp.after
`)
	uses := luaParamFields(t, "x.lua", src)
	var got []string
	for _, u := range uses {
		got = append(got, u.where+" "+u.field)
	}
	if want := "x.lua:3 query,x.lua:5 nope"; strings.Join(got, ",") != want {
		t.Errorf("luaParamFields = %v; want %s", got, want)
	}
	if c := luaClasses(Lua())["anchorage.FeatureSearchAnswer"]; !c["query"] || c["nope"] {
		t.Errorf("luaClasses: FeatureSearchAnswer fields %v", c)
	}
}
