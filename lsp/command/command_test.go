package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGeneratedFilesUpToDate fails when the editors' generated constants
// drift from the declaration: run go generate ./lsp/command.
func TestGeneratedFilesUpToDate(t *testing.T) {
	for _, f := range []struct {
		path string
		want []byte
	}{
		{TypeScriptFile, TypeScript()},
		{LuaFile, Lua()},
	} {
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatalf("reading the generated file: %v (run go generate ./lsp/command)", err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s differs from the declaration in package command: run go generate ./lsp/command", f.path)
		}
	}
}

// TestDeclaration checks every command is named once, under anchorage.,
// and every key is distinct.
func TestDeclaration(t *testing.T) {
	names, keys := map[string]bool{}, map[string]bool{}
	for _, c := range All() {
		if !strings.HasPrefix(string(c.Name), "anchorage.") || c.Doc == "" {
			t.Errorf("command %q: want a name under anchorage. and a doc", c.Name)
		}
		if keys[Key(c.Name)] {
			t.Errorf("key %s of %s is taken", Key(c.Name), c.Name)
		}
		keys[Key(c.Name)] = true
	}
	for _, n := range Names() {
		if names[n] {
			t.Errorf("name %s is declared twice", n)
		}
		names[n] = true
	}
	if !names["anchorage.anchors.status"] || !names["anchorage.slots.status"] {
		t.Errorf("names %v: want the slots commands under their new and former names", Names())
	}
}

// TestTypedResults checks every command declares its result's type, so
// that the editors' CommandResults name no unknown answer, and that each
// result's JSON fields are all named (a field without a json tag would be
// written under its Go name).
func TestTypedResults(t *testing.T) {
	for _, c := range All() {
		if c.Result == nil || c.Result.Kind() == reflect.Interface {
			t.Errorf("command %s: its result is not typed", c.Name)
			continue
		}
		named := map[string]reflect.Type{}
		tsSyntax.ref(c.Result, named)
		for _, typ := range named {
			for _, f := range jsonFields(typ) {
				if f.name != "" && f.name[0] >= 'A' && f.name[0] <= 'Z' {
					t.Errorf("command %s: %s's field %s has no json name", c.Name, typ, f.name)
				}
			}
		}
	}
}

func raws(t *testing.T, args ...any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(args))
	for i, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

func TestDecode(t *testing.T) {
	type result struct {
		got   any
		err   error
		field string
	}
	tests := []struct {
		name      string
		run       func([]json.RawMessage) (any, error)
		args      []any
		want      any
		wantField string // "" with want nil: an error on the argument as a whole
	}{
		{"symbol object", dec[SymbolArgs](Callers.c), []any{map[string]any{"symbol": "Find", "depth": 2}}, SymbolArgs{Symbol: "Find", Depth: 2}, ""},
		{"symbol positional", dec[SymbolArgs](Callers.c), []any{"Find", 3}, SymbolArgs{Symbol: "Find", Depth: 3}, ""},
		{"symbol missing", dec[SymbolArgs](Callers.c), nil, nil, ""},
		{"symbol empty", dec[SymbolArgs](Callers.c), []any{map[string]any{"symbol": ""}}, nil, "symbol"},
		{"depth a string", dec[SymbolArgs](Callers.c), []any{"Find", "two"}, nil, "depth"},
		{"depth in the object a string", dec[SymbolArgs](Callers.c), []any{map[string]any{"symbol": "F", "depth": "two"}}, nil, "depth"},
		{"depth too deep", dec[SymbolArgs](Callers.c), []any{"Find", 1000}, nil, "depth"},
		{"array for symbol", dec[SymbolArgs](Callers.c), []any{[]any{1, 2}}, nil, "symbol"},
		{"inject none", dec[InjectArgs](ContextInject.c), nil, InjectArgs{}, ""},
		{"inject null", dec[InjectArgs](ContextInject.c), []any{nil}, InjectArgs{}, ""},
		{"inject budget fraction", dec[InjectArgs](ContextInject.c), []any{map[string]any{"budget": 1.5}}, nil, "budget"},
		{"inject budget negative", dec[InjectArgs](ContextInject.c), []any{map[string]any{"budget": -5}}, nil, "budget"},
		{"inject language", dec[InjectArgs](ContextInject.c), []any{map[string]any{"language": "?!"}}, nil, "language"},
		{"inject a string", dec[InjectArgs](ContextInject.c), []any{"file:///w/a.go"}, nil, ""},
		{"id positional", dec[IDArgs](MemoryApprove.c), []any{3}, IDArgs{ID: 3}, ""},
		{"id fraction", dec[IDArgs](MemoryApprove.c), []any{2.5}, nil, "id"},
		{"id object with scope", dec[IDArgs](MemoryApprove.c), []any{map[string]any{"id": 4, "scope": "universal"}}, IDArgs{ID: 4, Scope: "universal"}, ""},
		{"id zero", dec[IDArgs](MemoryApprove.c), []any{map[string]any{"id": 0}}, nil, "id"},
		{"correction text", dec[CorrectionArgs](MemoryRecordCorrection.c), []any{"wrap errors"}, CorrectionArgs{Text: "wrap errors"}, ""},
		{"range without uri", dec[CorrectionArgs](MemoryRecordCorrection.c), []any{map[string]any{"text": "x", "range": map[string]any{}}}, nil, "range"},
		{"slot positional", dec[SlotArgs](SlotsSet.c), []any{"A", "rule:1"}, SlotArgs{Slot: "A", ID: "rule:1"}, ""},
		{"slot unknown", dec[SlotArgs](SlotsSet.c), []any{"Q", "rule:1"}, nil, "slot"},
		{"slot id a number", dec[SlotArgs](SlotsSet.c), []any{"A", 12}, nil, "id"},
		{"search positional", dec[SearchArgs](Search.c), []any{"retry jobs"}, nil, ""},
		{"search top_k a string", dec[SearchArgs](Search.c), []any{map[string]any{"query": "q", "top_k": "ten"}}, nil, "top_k"},
		{"list none", dec[ListArgs](MemoryList.c), nil, ListArgs{}, ""},
		{"list scope", dec[ListArgs](MemoryList.c), []any{"universal"}, ListArgs{Scope: "universal"}, ""},
		{"use example without symbol", dec[UseExampleArgs](MemoryUseExample.c), []any{map[string]any{"id": 1, "uri": "file:///a.go"}}, nil, "symbol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run(raws(t, tt.args...))
			if tt.name == "search positional" {
				if err != nil || got.(SearchArgs).Query != "retry jobs" {
					t.Fatalf("got %+v, %v; want the query", got, err)
				}
				return
			}
			if tt.want != nil {
				if err != nil {
					t.Fatalf("got error %v, want %+v", err, tt.want)
				}
				if gotJSON, wantJSON := mustJSON(t, got), mustJSON(t, tt.want); gotJSON != wantJSON {
					t.Fatalf("got %s, want %s", gotJSON, wantJSON)
				}
				return
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("got %+v, %v; want an ArgError", got, err)
			}
			if ae.Field != tt.wantField || ae.Command == "" {
				t.Errorf("error %q on field %q of %q, want field %q", err, ae.Field, ae.Command, tt.wantField)
			}
			if tt.wantField != "" && !strings.Contains(err.Error(), `"`+tt.wantField+`"`) {
				t.Errorf("error %q does not name the field %q", err, tt.wantField)
			}
		})
	}
}

func dec[A any](c *Command) func([]json.RawMessage) (any, error) {
	return func(raw []json.RawMessage) (any, error) { return Decode[A](c, raw) }
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewTable(t *testing.T) {
	if _, err := NewTable(); err == nil || !strings.Contains(err.Error(), "anchorage.callers") {
		t.Errorf("NewTable() = %v, want an error naming the commands without a handler", err)
	}
	var hs []Handler
	for _, c := range All() {
		hs = append(hs, Handler{Command: c, run: func(context.Context, []json.RawMessage) (any, error) { return c.Name, nil }})
	}
	if _, err := NewTable(append(hs, hs[0])...); err == nil {
		t.Error("NewTable with a command bound twice: no error")
	}
	table, err := NewTable(hs...)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := table["anchorage.anchors.pin"]
	if !ok {
		t.Fatal("the former name anchorage.anchors.pin has no handler")
	}
	if got, _ := h.Run(context.Background(), nil); got != SlotsPin.Name() {
		t.Errorf("anchorage.anchors.pin runs %v, want %s", got, SlotsPin.Name())
	}
}
