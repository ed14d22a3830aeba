package memory

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	code, _ := rq.codeShare("xtob", anchorStems(anchorCodeOnly(helper, "go")), true)
	all, _ := rq.codeShare("xtob", anchorStems(helper), true)
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

func TestAnchorCallNames(t *testing.T) {
	code := "func Parse(s string) {\n\tb, ok := xtob(s[0], s[1])\n\tif !ok {\n\t\treturn fmt.Errorf (\"bad\")\n\t}\n\tu.check()\n\tx := (a + b)\n\txtob(1, 2)\n}"
	got := anchorCallNames(code)
	want := []anchorCall{{"Parse", false}, {"xtob", false}, {"Errorf", true}, {"check", true}}
	if !slices.Equal(got, want) {
		t.Errorf("anchorCallNames = %v, want %v", got, want)
	}
}

// TestAnchorDelegation indexes a small package whose public parser
// hands the decoding of hex digits to a private helper, and checks that
// the helper is marked as the one its caller delegates to, unless the
// rule speaks of callers.
func TestAnchorDelegation(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"parse.go": `package hexid

import "errors"

// Parse decodes s, thirty-two hex digits, into an ID. Upper and lower
// case digits are both accepted; a bad character is an error.
func Parse(s string) ([16]byte, error) {
	var id [16]byte
	if len(s) != 32 {
		return id, errors.New("hexid: invalid length")
	}
	for i := range id {
		b, ok := xtob(s[2*i], s[2*i+1])
		if !ok {
			return id, errors.New("hexid: bad hex digit")
		}
		id[i] = b
	}
	return id, nil
}
`,
		"util.go": `package hexid

const bad = 255

// hexTable holds the value of each byte as a hex digit, bad for a
// character that is no digit.
var hexTable = [256]byte{'0': 0, '1': 1, 'a': 10, 'f': 15, 'g': bad}

// xtob converts a pair of characters into a byte.
func xtob(x1, x2 byte) (byte, bool) {
	hi, lo := hexTable[x1], hexTable[x2]
	return hi<<4 | lo, hi != bad && lo != bad
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := NewAnchorer(openEvalIndex(t, root, ""))
	ctx := context.Background()
	features := func(rule string) map[string]anchorFeatures {
		t.Helper()
		scored, _, err := a.rank(ctx, rule, []string{"go"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]anchorFeatures{}
		for _, s := range scored {
			out[s.Symbol] = s.features
			if s.features.File < 0 || s.features.File > 1 {
				t.Errorf("%s: File %v outside [0, 1]", s.Symbol, s.features.File)
			}
		}
		return out
	}
	got := features("Decode hex digit pairs through a lookup table that marks bad characters")
	parse, ok1 := got["hexid.Parse"]
	helper, ok2 := got["hexid.xtob"]
	if !ok1 || !ok2 {
		t.Fatalf("Parse and xtob are not both candidates: %v", slices.Collect(maps.Keys(got)))
	}
	if helper.Callee == 0 || parse.Delegates == 0 {
		t.Errorf("xtob is not marked as Parse's helper: callee %v, Parse delegates %v", helper.Callee, parse.Delegates)
	}
	if parse.Callee != 0 || helper.Delegates != 0 {
		t.Errorf("delegation the wrong way round: Parse callee %v, xtob delegates %v", parse.Callee, helper.Delegates)
	}
	got = features("Callers must decode hex digit pairs through a lookup table that marks bad characters")
	for sym, f := range got {
		if f.Callee+f.Delegates != 0 {
			t.Errorf("%s: delegation marked for a rule about callers: %+v", sym, f)
		}
	}
}
