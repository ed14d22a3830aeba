package lexicon

import (
	"slices"
	"strings"
	"testing"
)

// fixture is a small workspace's documented definitions: doc words, then
// code words (name, class, module), as a caller splits and stems them.
var fixture = []struct{ doc, code string }{
	{"format python object pretty print represent", "pformat pprint"},
	{"pretty print python object stream", "pprint pprint"},
	{"pretty print python object", "pp pprint"},
	{"pretty print recursive structure", "pretty printer pprint"},
	{"read configuration file ini format section", "read config parser configparser"},
	{"read configuration string", "read string config parser configparser"},
	{"configuration option section default", "get config parser configparser"},
	{"add field log entry child", "with logger zap"},
	{"add field every message child", "with sugar logger sugaredlogger zap"},
	{"write log entry level", "write logger zap"},
	{"write log message level", "info logger zap"},
	{"open file read", "open os"},
	{"file name path", "name file os"},
	{"file size byte", "size file os"},
	{"close file handle", "close file os"},
	{"remove file path", "remove os"},
}

func build(t *testing.T, o Options) *Lexicon {
	t.Helper()
	var b Builder
	for _, d := range fixture {
		b.Add(strings.Fields(d.doc), strings.Fields(d.code))
	}
	if b.Definitions() != len(fixture) {
		t.Fatalf("Definitions() = %d, want %d", b.Definitions(), len(fixture))
	}
	return b.Build(o)
}

func words(ls []Link) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Word)
	}
	return out
}

func TestLinks(t *testing.T) {
	lex := build(t, Options{MinPairs: 2, MaxShare: 0.5, PerWord: 4, MinScore: 0.1})
	tests := []struct {
		word string
		want []string // among the links, in any order
		not  []string // never among the links
	}{
		// "pretty" never names code, but its definitions are pprint's.
		{"pretty", []string{"pprint"}, []string{"pretty", "read", "zap"}},
		// "configuration" is how docs say config / configparser.
		{"configuration", []string{"config", "configparser", "parser"}, []string{"pprint", "os"}},
		// "field" goes with zap's logger; "with" pairs only once.
		{"field", []string{"logger", "zap", "child"[:0]}, []string{"os"}},
		// A word the docs use once links nothing: one pairing is chance.
		{"stream", nil, []string{"pprint"}},
		// A word no doc has.
		{"kubernetes", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got := words(lex.Links(tt.word))
			for _, w := range tt.want {
				if w != "" && !slices.Contains(got, w) {
					t.Errorf("Links(%q) = %v, want %q among them", tt.word, got, w)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("Links(%q) = %v, want no %q", tt.word, got, w)
				}
			}
			if len(tt.want) == 0 && len(got) > 0 && tt.word == "kubernetes" {
				t.Errorf("Links(%q) = %v, want none", tt.word, got)
			}
			for i := 1; i < len(lex.Links(tt.word)); i++ {
				if a, b := lex.Links(tt.word)[i-1], lex.Links(tt.word)[i]; a.Score < b.Score {
					t.Errorf("Links(%q) not best first: %v", tt.word, lex.Links(tt.word))
				}
			}
		})
	}
}

// TestOptions checks each option against what it must drop.
func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		word string
		want int // how many links word keeps at most
		min  int // and at least
	}{
		{"per word caps the links", Options{MinPairs: 2, MaxShare: 1, PerWord: 1, MinScore: 0}, "configuration", 1, 1},
		{"min pairs of one keeps chance pairs", Options{MinPairs: 1, MaxShare: 1, PerWord: 8, MinScore: 0}, "stream", 8, 1},
		{"a high min score drops weak links", Options{MinPairs: 2, MaxShare: 1, PerWord: 8, MinScore: 1.01}, "pretty", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := build(t, tt.o).Links(tt.word)
			if len(got) > tt.want || len(got) < tt.min {
				t.Errorf("Links(%q) = %v, want %d to %d links", tt.word, got, tt.min, tt.want)
			}
		})
	}
}

// TestCommonWord checks the idf floor: a doc word of most definitions
// links nothing, in a workspace large enough for a share to mean more
// than a handful.
func TestCommonWord(t *testing.T) {
	var b Builder
	for i := range 60 {
		code := []string{"open", "close", "stat", "read"}[i%4]
		b.Add([]string{"file", "handle"}, []string{code, "os"})
	}
	b.Add([]string{"rare", "handle"}, []string{"fd"})
	b.Add([]string{"rare"}, []string{"fd"})
	for _, share := range []float64{0.05, 0.5} {
		lex := b.Build(Options{MinPairs: 2, MaxShare: share, PerWord: 8})
		if got := lex.Links("file"); len(got) != 0 {
			t.Errorf("MaxShare %v: Links(file) = %v, want none: 60 of 62 definitions have it", share, got)
		}
		if got := words(lex.Links("rare")); !slices.Equal(got, []string{"fd"}) {
			t.Errorf("MaxShare %v: Links(rare) = %v, want [fd]", share, got)
		}
	}
}

func TestSelfIsNotALink(t *testing.T) {
	var b Builder
	// Go docs start with the name: "Pformat formats …".
	for range 3 {
		b.Add([]string{"pformat", "format", "pretty"}, []string{"pformat"})
		b.Add([]string{"open", "file"}, []string{"open"})
	}
	lex := b.Build(Options{MinPairs: 2, MaxShare: 1, PerWord: 8})
	if got := lex.Links("pformat"); len(got) != 0 {
		t.Errorf("Links(pformat) = %v, want none: a name's own word in its doc teaches nothing", got)
	}
	if got := words(lex.Links("pretty")); !slices.Equal(got, []string{"pformat"}) {
		t.Errorf("Links(pretty) = %v, want [pformat]", got)
	}
}

func TestEmpty(t *testing.T) {
	var b Builder
	b.Add(nil, []string{"x"})
	b.Add([]string{"x"}, nil)
	b.Add([]string{"same"}, []string{"same"})
	lex := b.Build(DefaultOptions)
	if lex.Definitions() != 0 || lex.Words() != 0 {
		t.Errorf("empty lexicon has %d definitions, %d words", lex.Definitions(), lex.Words())
	}
	var nilLex *Lexicon
	if nilLex.Links("x") != nil || nilLex.IDF("x") != 0 || nilLex.Words() != 0 {
		t.Error("a nil Lexicon must answer nothing")
	}
}
