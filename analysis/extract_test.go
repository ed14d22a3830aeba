package analysis

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// goldenGraph is the readable form of a FileGraph kept in golden files:
// lines are 1-based, parents and sources are named by qualified name.
type goldenGraph struct {
	Path        string         `json:"path"`
	Language    string         `json:"language"`
	ParseErrors int            `json:"parse_errors,omitempty"`
	Symbols     []goldenSymbol `json:"symbols"`
	Refs        []goldenRef    `json:"refs"`
	Chunks      []goldenChunk  `json:"chunks"`
}

// goldenChunk is a chunk with its 1-based lines and its text's first and
// last lines.
type goldenChunk struct {
	Kind    Kind   `json:"kind"`
	Name    string `json:"name"`
	Part    string `json:"part,omitempty"`
	Lines   string `json:"lines"`
	Context string `json:"context"`
	First   string `json:"first"`
	Last    string `json:"last,omitempty"`
}

type goldenSymbol struct {
	Kind      Kind   `json:"kind"`
	Qualified string `json:"qualified_name"`
	Name      string `json:"name"`
	Parent    string `json:"parent,omitempty"`
	Range     string `json:"range"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"`
}

type goldenRef struct {
	Kind      EdgeKind `json:"kind"`
	From      string   `json:"from"`
	Name      string   `json:"name"`
	Qualifier string   `json:"qualifier,omitempty"`
	Subject   string   `json:"subject,omitempty"`
	Line      int      `json:"line"`
}

func toGolden(g *FileGraph) goldenGraph {
	out := goldenGraph{Path: g.Path, Language: g.Language, ParseErrors: g.ParseErrors, Symbols: []goldenSymbol{}, Refs: []goldenRef{}}
	for _, s := range g.Symbols {
		gs := goldenSymbol{
			Kind: s.Kind, Qualified: s.QualifiedName, Name: s.Name,
			Range:     fmt.Sprintf("%d:%d-%d:%d", s.Range.Start.Line+1, s.Range.Start.Column, s.Range.End.Line+1, s.Range.End.Column),
			Signature: s.Signature, Doc: s.Doc,
		}
		if s.Parent >= 0 {
			gs.Parent = g.Symbols[s.Parent].QualifiedName
		}
		out.Symbols = append(out.Symbols, gs)
	}
	for _, r := range g.Refs {
		out.Refs = append(out.Refs, goldenRef{
			Kind: r.Kind, From: g.Symbols[r.Source].QualifiedName, Name: r.Name,
			Qualifier: r.Qualifier, Subject: r.Subject, Line: r.Range.Start.Line + 1,
		})
	}
	out.Chunks = []goldenChunk{}
	for _, c := range g.Chunks {
		gc := goldenChunk{
			Kind: c.Kind, Name: c.Name, Context: c.Context,
			Lines: fmt.Sprintf("%d-%d", c.Range.Start.Line+1, c.Range.End.Line+1),
		}
		if c.Parts > 1 {
			gc.Part = fmt.Sprintf("%d/%d", c.Part, c.Parts)
		}
		lines := strings.Split(c.Text, "\n")
		gc.First = lines[0]
		if len(lines) > 1 {
			gc.Last = lines[len(lines)-1]
		}
		out.Chunks = append(out.Chunks, gc)
	}
	return out
}

// sampleFiles lists the source files of testdata/sampleapp by language.
func sampleFiles(t testing.TB, langs *Languages) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "testdata", "sampleapp")
	files := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		lang, err := langs.ForPath(p)
		if err != nil {
			return err
		}
		if lang != nil {
			files[lang.Name] = append(files[lang.Name], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGolden extracts every source file of the sample app and compares its
// graph with testdata/golden/<path>.json. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	langs := NewLanguages()
	files := sampleFiles(t, langs)
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			if len(files[name]) == 0 {
				t.Fatalf("testdata/sampleapp has no %s file", name)
			}
			p := NewParser()
			defer p.Close()
			lang, err := langs.ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range files[name] {
				rel, _ := filepath.Rel(filepath.Join("..", "testdata", "sampleapp"), file)
				rel = filepath.ToSlash(rel)
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				g, err := p.Extract(context.Background(), lang, rel, src)
				if err != nil {
					t.Fatal(err)
				}
				got, err := json.MarshalIndent(toGolden(g), "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, '\n')
				golden := filepath.Join("testdata", "golden", strings.ReplaceAll(rel, "/", "__")+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%s: %v (run go test ./analysis -run TestGolden -update)", rel, err)
				}
				if string(got) != string(want) {
					t.Errorf("%s: graph differs from %s (run with -update and review the diff):\n%s", rel, golden, firstDiff(string(want), string(got)))
				}
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, a, b)
		}
	}
	return ""
}
