package retrieval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval/lexicon"
)

// lexiconFixture is a small workspace whose docs say "pretty" where its
// names say pprint and pformat, and "configuration" where they say config.
var lexiconFixture = map[string]string{
	"pprint.py": `"""Support to pretty-print lists, tuples and dictionaries."""

def pprint(obj, stream=None):
    """Pretty-print a Python object to a stream."""
    print(pformat(obj), file=stream)

def pformat(obj):
    """Format a Python object into a pretty-printed representation."""
    return repr(obj)

def pp(obj):
    """Pretty-print a Python object."""
    pprint(obj)

class PrettyPrinter:
    """Handle pretty printing operations onto a stream."""

    def pformat(self, obj):
        """Return the pretty representation of an object."""
        return repr(obj)
`,
	"configparser.py": `"""Configuration file parser."""

class ConfigParser:
    """A configuration parser for INI files."""

    def read(self, filenames):
        """Read and parse configuration files, skipping missing ones."""
        return []

    def read_string(self, text):
        """Read configuration from a given string."""
        return None

    def sections(self):
        """Return a list of the configuration section names."""
        return []
`,
	"shell/files.go": `package shell

// Copy copies a file to a new place on disk.
func Copy(src, dst string) error { return nil }

// Move will relocate a file, across disks when it has to.
func Move(src, dst string) error { return nil }

// Remove deletes a file from disk.
func Remove(path string) error { return nil }
`,
	"shell/files_test.go": `package shell

// TestPretty is a test whose doc must not teach the lexicon anything.
func TestPretty() {}

// TestPrettyAgain is another.
func TestPrettyAgain() {}
`,
}

func newLexiconFixture(t *testing.T) *analysis.Index {
	t.Helper()
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFixtureFiles(t, root, lexiconFixture)
	ix, err := analysis.Open(ctx, analysis.Options{Root: root, DBPath: filepath.Join(t.TempDir(), "index.db"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

func linkWords(ls []lexicon.Link) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Word)
	}
	return out
}

// TestLearnLexicon learns the lexicon of a real index and checks the
// links a question's words get.
func TestLearnLexicon(t *testing.T) {
	ix := newLexiconFixture(t)
	lex, err := learnLexicon(context.Background(), ix)
	if err != nil {
		t.Fatal(err)
	}
	if lex.Definitions() < 10 {
		t.Fatalf("learned from %d definitions, want the 12 documented ones outside tests", lex.Definitions())
	}
	tests := []struct {
		word      string // a question's word, as QueryTerms makes it
		want, not []string
	}{
		// PrettyPrinter.pformat has "pretty" in its own name, so only
		// pprint.pformat pairs it with pformat: chance, no link.
		{"pretty", []string{"pprint"}, []string{"pformat", "testpretty", "config", "shell"}},
		{"configuration", []string{"config", "configpars"}, []string{"pprint"}},
		{"disk", []string{"shell"}, []string{"pprint"}},
		// One definition's doc says "missing": chance, no link.
		{"missing", nil, []string{"read"}},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			terms := QueryTerms(tt.word)
			if len(terms) != 1 {
				t.Fatalf("QueryTerms(%q) = %v", tt.word, terms)
			}
			got := linkWords(lex.Links(terms[0]))
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Links(%q) = %v, want %q among them", terms[0], got, w)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("Links(%q) = %v, want no %q", terms[0], got, w)
				}
			}
			if tt.want == nil && len(got) > 0 {
				t.Errorf("Links(%q) = %v, want none", terms[0], got)
			}
		})
	}
}

// TestLexiconOrder checks that the vote puts the definitions named in
// the code's words first, for a question in the user's words.
func TestLexiconOrder(t *testing.T) {
	ctx := context.Background()
	ix := newLexiconFixture(t)
	s := &Searcher{Index: ix}
	lex, err := s.lexiconOf(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.lexiconOf(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again != lex {
		t.Error("the lexicon was learned twice from an unchanged index")
	}
	// Every chunk is a candidate.
	candidates, err := ix.SearchChunks(ctx, []string{"pretti", "pretty", "print", "format", "configurat", "file", "read", "disk", "pars"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	name := func(ids []int64) []string {
		by := map[int64]string{}
		for _, h := range candidates {
			by[h.ID] = h.Name
		}
		var out []string
		for _, id := range ids {
			out = append(out, by[id])
		}
		return out
	}
	tests := []struct {
		query string
		first []string // the first len(first) names, in any order
		not   []string // left out
	}{
		// pprint is linked from "pretty" by its own name first, then by
		// its module's.
		{"make the output pretty", []string{"pprint.pprint"}, []string{"ConfigParser.read", "shell.Copy"}},
		{"load settings from a configuration", []string{"configparser.ConfigParser", "ConfigParser.read", "ConfigParser.read_string", "ConfigParser.sections"}, []string{"pprint.pformat", "shell.Move"}},
		{"kubernetes", nil, []string{"pprint.pformat", "ConfigParser.read"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := name(lexiconOrder(lex, tt.query, candidates))
			if len(got) < len(tt.first) {
				t.Fatalf("lexiconOrder(%q) = %v, want %v first", tt.query, got, tt.first)
			}
			for _, n := range tt.first {
				if !slices.Contains(got[:len(tt.first)], n) {
					t.Errorf("lexiconOrder(%q) = %v, want %v first", tt.query, got, tt.first)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("lexiconOrder(%q) = %v, want no %s", tt.query, got, n)
				}
			}
		})
	}
}

func TestDocSentence(t *testing.T) {
	tests := []struct {
		name, context, want string
	}{
		{"pprint.pformat", "From pprint.py, function pprint.pformat: Format a Python object into a pretty-printed representation. Calls repr.",
			"Format a Python object into a pretty-printed representation."},
		{"Conn.Exec", "From conn.go, method Conn.Exec: Exec runs sql. (part 2 of 3)", "Exec runs sql."},
		{"shell.Copy", "From shell/files.go, function shell.Copy.", ""},
		{"shell.Copy", "From shell/files.go, function shell.Copy. Calls os.Open.", ""},
		{"", "From a.go, module-level code of a.go.", ""},
	}
	for _, tt := range tests {
		if got := docSentence(analysis.ChunkInfo{Name: tt.name, Context: tt.context}); got != tt.want {
			t.Errorf("docSentence(%q) = %q, want %q", tt.context, got, tt.want)
		}
	}
}

// TestDocSimOrder checks the doc sentence vote on a real index, with and
// without the word vectors.
func TestDocSimOrder(t *testing.T) {
	ctx := context.Background()
	ix := newLexiconFixture(t)
	vec, err := NewWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	candidates, err := ix.SearchChunks(ctx, []string{"pretti", "pretty", "print", "format", "configurat", "file", "read", "disk", "pars", "remov"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	name := func(ids []int64) []string {
		by := map[int64]string{}
		for _, h := range candidates {
			by[h.ID] = h.Name
		}
		var out []string
		for _, id := range ids {
			out = append(out, by[id])
		}
		return out
	}
	tests := []struct {
		query   string
		vectors bool
		first   string
		not     []string
	}{
		{"pretty-print an object to a stream", false, "pprint.pprint", []string{"shell.Copy", "ConfigParser.read"}},
		// "resettle" is in no doc; its neighbour "relocate" is.
		{"resettle a file", true, "shell.Move", []string{"pprint.pformat"}},
		{"resettle a file", false, "", []string{"shell.Move"}},
		{"kubernetes pods", true, "", nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/vectors=%v", tt.query, tt.vectors), func(t *testing.T) {
			s := &Searcher{Index: ix}
			if tt.vectors {
				s.Vectors = vec
			}
			ids, err := s.docSimOrder(ctx, tt.query, candidates)
			if err != nil {
				t.Fatal(err)
			}
			got := name(ids)
			if tt.first == "" && len(got) > 0 && tt.not == nil {
				t.Errorf("docSimOrder(%q) = %v, want nothing", tt.query, got)
			}
			if tt.first != "" && (len(got) == 0 || got[0] != tt.first) {
				t.Errorf("docSimOrder(%q) = %v, want %s first", tt.query, got, tt.first)
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("docSimOrder(%q) = %v, want no %s", tt.query, got, n)
				}
			}
		})
	}
}
