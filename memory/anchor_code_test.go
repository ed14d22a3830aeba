package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAnchorCodeOnly(t *testing.T) {
	tests := []struct {
		name, lang, text string
		want             []string // words the statements keep
		gone             []string // words only comments or docstrings held
	}{
		{"go line comment", "go",
			"// xtob converts hex characters into a byte.\nfunc xtob(x1, x2 byte) (byte, bool) {\n\tc1 := xvalues[x1] // the table\n\treturn byte(c1), c1 != 255\n}",
			[]string{"xtob", "xvalues", "byte"}, []string{"converts", "hex", "table"}},
		{"go block comment", "go", "func f() {\n\t/* lookup table\n\tof digits */\n\treturn digits[0]\n}",
			[]string{"digits", "return"}, []string{"lookup", "table"}},
		{"go comment marker in a string", "go", "func u() string {\n\treturn \"http://example.com\" // scheme\n}",
			[]string{"http://example.com"}, []string{"scheme"}},
		{"go raw string", "go", "var s = `a // b\nc` // note",
			[]string{"a // b\nc"}, []string{"note"}},
		{"go escaped quote", "go", "s := \"say \\\"hi\\\" // not a comment\" // a comment",
			[]string{"not a comment"}, []string{"a comment\n", "// a comment"}},
		{"python docstring", "python",
			"def _decode_uXXXX(s, pos):\n    \"\"\"Decode four hex digits of a unicode escape.\"\"\"\n    esc = s[pos + 1:pos + 5]\n    if len(esc) == 4 and esc[1] not in 'xX':\n        return int(esc, 16)\n    raise JSONDecodeError(\"Invalid \\\\uXXXX escape\", s, pos)",
			[]string{"esc", "JSONDecodeError", "Invalid"}, []string{"unicode", "four"}},
		{"python hash comment", "python", "def f():\n    # surrogate pairs are joined\n    x = '#not a comment'\n    return x  # trailing",
			[]string{"#not a comment", "return x"}, []string{"surrogate", "trailing"}},
		{"python triple string in an expression", "python", "def f():\n    x = \"\"\"kept text\"\"\"\n    return x",
			[]string{"kept text"}, nil},
		{"python single-quoted docstring", "python", "def g():\n    '''Doc words.'''\n    return 1",
			[]string{"return 1"}, []string{"Doc words"}},
		{"unterminated docstring", "python", "def f():\n    \"\"\"never closed\n    return 1", []string{"def f"}, []string{"never closed"}},
		{"unterminated block comment", "go", "x := 1 /* never closed", []string{"x := 1"}, []string{"never closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := anchorCodeOnly(tt.text, tt.lang)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("anchorCodeOnly lost %q:\n%s", w, got)
				}
			}
			for _, w := range tt.gone {
				if strings.Contains(got, w) {
					t.Errorf("anchorCodeOnly kept %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestAnchorCodeShare(t *testing.T) {
	rq := analyzeAnchorRule("Decode hex digit pairs with a lookup table")
	for i := range rq.terms {
		rq.terms[i].known, rq.terms[i].weight = true, 1
	}
	helper := "// xtob decodes hex digits with a lookup table.\nfunc xtob(x1, x2 byte) byte {\n\treturn xvalues[x1]<<4 | xvalues[x2]\n}"
	code := rq.codeShare("xtob", anchorStems(anchorCodeOnly(helper, "go")), true)
	all := rq.codeShare("xtob", anchorStems(helper), true)
	if code >= all {
		t.Errorf("the doc comment's words counted as code: code share %.2f, with comments %.2f", code, all)
	}
	if all == 0 {
		t.Errorf("no share with the comment's words")
	}
}

func TestAnchorAboutCallers(t *testing.T) {
	tests := []struct {
		rule string
		want bool
	}{
		{"Callers must close the response body", true},
		{"The public API returns copies, never the package's own slices", true},
		{"Decode hex digit pairs with a lookup table", false},
	}
	for _, tt := range tests {
		rq := analyzeAnchorRule(tt.rule)
		if got := rq.aboutCallers(); got != tt.want {
			t.Errorf("aboutCallers(%q) = %v, want %v", tt.rule, got, tt.want)
		}
	}
}

func FuzzAnchorCodeOnly(f *testing.F) {
	for _, s := range []string{
		"// c\nfunc f() { return \"//\" }",
		"def f():\n    \"\"\"doc\"\"\"\n    return '#'  # c",
		"/* a */ b /* c",
		"'''",
		"\"\\",
		"`raw",
	} {
		f.Add(s, "go")
		f.Add(s, "python")
	}
	f.Fuzz(func(t *testing.T, text, lang string) {
		got := anchorCodeOnly(text, lang)
		if len(got) > len(text) {
			t.Fatalf("anchorCodeOnly grew the text: %d > %d bytes", len(got), len(text))
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("anchorCodeOnly broke UTF-8: %q → %q", text, got)
		}
	})
}
