package analysis

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestQuerySourceInherits(t *testing.T) {
	fsys := fstest.MapFS{
		"queries/base/tags.scm":  {Data: []byte("(base)\n")},
		"queries/other/tags.scm": {Data: []byte("(other)\n")},
		"queries/child/tags.scm": {Data: []byte("; inherits: base\n(child)\n")},
		"queries/two/tags.scm":   {Data: []byte("; inherits: base, other\n(two)\n")},
		"queries/grand/tags.scm": {Data: []byte(";   inherits: child\n(grand)\n")},
		"queries/plain/tags.scm": {Data: []byte("; a comment\n; inherits: base\n(plain)\n")},
		"queries/loop/tags.scm":  {Data: []byte("; inherits: loop2\n")},
		"queries/loop2/tags.scm": {Data: []byte("; inherits: loop\n")},
		"queries/lost/tags.scm":  {Data: []byte("; inherits: nowhere\n")},
	}
	tests := []struct {
		lang    string
		want    string // the source
		wantErr string // a part of the error
	}{
		{lang: "base", want: "(base)\n"},
		{lang: "child", want: "(base)\n\n; inherits: base\n(child)\n"},
		{lang: "two", want: "(base)\n\n(other)\n\n; inherits: base, other\n(two)\n"},
		{lang: "grand", want: "(base)\n\n; inherits: base\n(child)\n\n;   inherits: child\n(grand)\n"},
		// Only the first line names what a file inherits.
		{lang: "plain", want: "; a comment\n; inherits: base\n(plain)\n"},
		{lang: "loop", wantErr: "loop -> loop2 -> loop"},
		{lang: "lost", wantErr: "queries/lost/tags.scm inherits nowhere"},
		{lang: "absent", wantErr: "queries/absent/tags.scm"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			got, err := querySource(fsys, tt.lang, "tags.scm", nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("querySource(%s) = %q, %v; want an error with %q", tt.lang, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("querySource(%s) = %q, %v; want %q", tt.lang, got, err, tt.want)
			}
		})
	}
}

// TestTSXSharesTypeScriptQueries checks that TSX, whose query file
// inherits TypeScript's, finds what TypeScript finds in the code the two
// languages share, and that components used in JSX are calls.
func TestTSXSharesTypeScriptQueries(t *testing.T) {
	shared := []string{
		"export function load(id: string): Promise<User> { return fetchUser(id); }\n",
		"interface Props { id: string }\ntype Id = string;\nenum Color { Red, Green }\n",
		"export class UserList extends React.Component<Props, State> implements Listing {\n  private names: Record<string, string> = {};\n  render() { return this.renderRows(api.list()); }\n}\n",
		"const format = (u: User): string => `${u.name}`;\nnamespace ns { export const x = 1; }\nabstract class Base { abstract go(): void; }\n",
		"declare function ambient(x: number): void;\nexport default function () { new Cache<string>(); }\n",
	}
	for i, src := range shared {
		ts := chunkGraph(t, "typescript", "a.tsx", src)
		tsx := chunkGraph(t, "tsx", "a.tsx", src)
		if len(ts.Symbols) == 0 {
			t.Fatalf("case %d: TypeScript found no symbol in %q", i, src)
		}
		got, want := toGolden(tsx), toGolden(ts)
		got.Language, want.Language = "", ""
		if !reflect.DeepEqual(got.Symbols, want.Symbols) || !reflect.DeepEqual(got.Refs, want.Refs) {
			t.Errorf("case %d: TSX found\n  %+v\n  %+v\nTypeScript\n  %+v\n  %+v", i, got.Symbols, got.Refs, want.Symbols, want.Refs)
		}
	}

	src := "import * as ui from './ui';\nexport function Page({ id }: { id: string }) {\n  return (\n    <div>\n      <Card id={id}>\n        <ui.Badge />\n        <span>{id}</span>\n      </Card>\n      <ErrorBanner message=\"x\" />\n    </div>\n  );\n}\n"
	g := chunkGraph(t, "tsx", "page.tsx", src)
	var calls []string
	for _, r := range toGolden(g).Refs {
		if r.Kind == EdgeCalls {
			calls = append(calls, r.Qualifier+"|"+r.Name+"|"+r.From)
		}
	}
	want := []string{"|Card|page.Page", "ui|Badge|page.Page", "|ErrorBanner|page.Page"}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls in JSX = %q, want %q", calls, want)
	}
}

// TestLanguagesCompileOnUse checks that a language's queries compile when
// a file of it is first parsed, and only that language's.
func TestLanguagesCompileOnUse(t *testing.T) {
	langs := NewLanguages()
	goLang, _ := langs.ForPath("main.go")
	tsx, _ := langs.ByName("tsx")
	if goLang == nil || tsx == nil {
		t.Fatal("go or tsx is not a language")
	}
	if goLang.tags != nil || tsx.tags != nil {
		t.Fatal("queries compiled before any parse")
	}
	p := NewParser()
	defer p.Close()
	if _, err := p.Extract(context.Background(), goLang, "main.go", []byte("package main\n\nfunc main() {}\n")); err != nil {
		t.Fatal(err)
	}
	if goLang.tags == nil {
		t.Error("Go's queries did not compile for a Go file")
	}
	if tsx.tags != nil {
		t.Error("a Go file compiled TSX's queries")
	}
	for _, name := range Names() {
		l, _ := langs.ByName(name)
		if err := l.compile(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
