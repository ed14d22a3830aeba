package retrieval

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestConceptTerms(t *testing.T) {
	table := loadConcepts(`# a comment: with a colon
mkdir p: mkdir all parents
mkdir: dir create
pretty print: indent
serialize: marshal encode
not a phrase of four words: x
no colon here
slurp: read all
slurp: readfile all
`)
	tests := []struct {
		query string
		want  []string
	}{
		{"mkdir -p equivalent", []string{"mkdir", "all", "parents"}},
		{"MKDIR the folder", []string{"dir", "create"}},
		{"pretty-print JSON", []string{"indent"}},
		{"print it pretty", nil},
		{"serializing values", []string{"marshal", "encode"}},
		{"slurp a file then serialize it", []string{"read", "all", "readfile", "marshal", "encode"}},
		{"not a phrase of four words", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := table.terms(tt.query); !slices.Equal(got, tt.want) {
				t.Errorf("terms(%q) = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
}

// TestConceptFile checks the shipped thesaurus: every line is a comment,
// blank, or a phrase of one to three words with one to six terms, and no
// phrase is listed twice.
func TestConceptFile(t *testing.T) {
	seen := map[string]int{}
	entries := 0
	for i, line := range strings.Split(conceptFile, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		phrase, terms, ok := strings.Cut(line, ":")
		words, fields := strings.Fields(phrase), strings.Fields(terms)
		if !ok || len(words) < 1 || len(words) > maxConceptWords || len(fields) < 1 || len(fields) > 6 {
			t.Errorf("line %d: %q is not \"phrase: term…\" with 1–3 words and 1–6 terms", i+1, line)
			continue
		}
		key := strings.Join(conceptWords(phrase), " ")
		if j, dup := seen[key]; dup {
			t.Errorf("line %d: phrase %q again (line %d)", i+1, phrase, j)
		}
		seen[key] = i + 1
		entries++
	}
	if len(concepts()) != entries || entries < 400 {
		t.Errorf("%d phrases loaded from %d entries, want them equal and at least 400", len(concepts()), entries)
	}
}

// TestSearchSemanticConcepts checks that a question in words the code
// does not use finds the code through the thesaurus, with and without
// word vectors.
func TestSearchSemanticConcepts(t *testing.T) {
	fx := newSearchFixture(t, map[string]string{
		"store/load.go": "package store\n\n// ReadAllRecords reads every record of the store at once.\nfunc ReadAllRecords(path string) []string { return nil }\n",
	})
	for _, tt := range []struct {
		name    string
		vectors Vectorizer
	}{{"word vectors", fx.s.Vectors}, {"no vectors", nil}} {
		t.Run(tt.name, func(t *testing.T) {
			s := *fx.s
			s.Vectors = tt.vectors
			resp, err := s.Search(context.Background(), Request{Query: "slurp the whole thing", Strategy: Semantic, TopK: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range resp.Results {
				got = append(got, r.Symbol)
			}
			if !slices.Contains(got, "store.ReadAllRecords") {
				t.Errorf("results %q, want store.ReadAllRecords among them", got)
			}
		})
	}
}
