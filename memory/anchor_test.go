package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/feedback"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// sampleAnchorer indexes a copy of the sample app and returns an Anchorer
// over it with the copy's root.
func sampleAnchorer(t testing.TB) (*Anchorer, string) {
	t.Helper()
	root := copySampleApp(t)
	return NewAnchorer(openEvalIndex(t, root, "")), root
}

func TestAnchorKnownRules(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	tests := []struct {
		rule, scope string
		// file is the example's file, sym its symbol or symbols
		// separated by |.
		file, sym string
	}{
		{"Wrap database errors with the operation that failed, using %w", "project:sampleapp", "internal/db/db.go", "db.Open"},
		{"Evict the least recently used entry when the cache is over capacity", "", "client/src/cache.ts", "LruCache.evictOldest|LruCache.set|cache.LruCache"},
		{"Log job failures with the job key and the elapsed time", "language:python", "worker/runner.py", "Runner._run_one"},
		{"Map a JDBC result row to a User record in one private static helper", "language:java", "java/src/main/java/com/example/users/JdbcUserRepository.java", "JdbcUserRepository.toUser"},
		{"Parse command-line arguments into an Options struct and return usage errors", "language:rust", "tools/userctl/src/main.rs", "Options.from_args|userctl.Options"},
		// Rules that name an identifier find it through the graph.
		{"Check constructor arguments with Objects.requireNonNull", "language:java", "java/src/main/java/com/example/users/User.java", "User.User"},
		{"Use UserRepository.FindByID to load users", "language:go", "users/repo.go", "UserRepository.FindByID"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			res, err := a.FindAnchor(ctx, tt.rule, AnchorOptions{Scope: tt.scope})
			if err != nil {
				t.Fatal(err)
			}
			if res.Anchor == nil {
				t.Fatalf("no anchor (%s); candidates %+v", res.Reason, res.Candidates)
			}
			if res.Anchor.File != tt.file || !slices.Contains(strings.Split(tt.sym, "|"), res.Anchor.Symbol) {
				t.Fatalf("anchor %s %s, want %s %s", res.Anchor.File, res.Anchor.Symbol, tt.file, tt.sym)
			}
			if res.Anchor.Quality < res.Threshold {
				t.Errorf("anchor quality %.3f below the threshold %.2f", res.Anchor.Quality, res.Threshold)
			}
			if res.Candidates[0] != *res.Anchor {
				t.Errorf("the anchor %+v is not the first candidate %+v", *res.Anchor, res.Candidates[0])
			}
			checkScores(t, res)
		})
	}
}

// checkScores checks that every score is within [0, 1], that quality is
// its weighted sum, and that candidates come best first.
func checkScores(t *testing.T, res *AnchorResult) {
	t.Helper()
	for i, c := range res.Candidates {
		for name, v := range map[string]float64{"quality": c.Quality, "relevance": c.Relevance, "size": c.Size, "recency": c.Recency} {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("%s %s: %s = %v, want within [0, 1]", c.File, c.Symbol, name, v)
			}
		}
		want := 0.6*c.Relevance + 0.2*c.Size + 0.2*c.Recency
		if math.Abs(c.Quality-want) > 0.002 {
			t.Errorf("%s %s: quality %.3f, want 0.6·%.3f + 0.2·%.3f + 0.2·%.3f = %.3f", c.File, c.Symbol, c.Quality, c.Relevance, c.Size, c.Recency, want)
		}
		if i > 0 && c.Relevance > res.Candidates[i-1].Relevance {
			t.Errorf("candidate %d (relevance %.3f) ranks below a less relevant one (%.3f)", i, c.Relevance, res.Candidates[i-1].Relevance)
		}
		if c.Line < 1 || c.EndLine < c.Line || c.File == "" || c.Symbol == "" || strings.Contains(c.File, `\`) {
			t.Errorf("bad location %+v", c)
		}
	}
}

func TestAnchorNoGoodExample(t *testing.T) {
	a, _ := sampleAnchorer(t)
	for _, rule := range []string{
		"Resolve GraphQL fields with DataLoader batching to avoid N+1 queries",
		"Run schema migrations inside a transaction and roll back on failure",
		"Send push notifications through Firebase Cloud Messaging",
	} {
		t.Run(rule, func(t *testing.T) {
			res, err := a.FindAnchor(context.Background(), rule, AnchorOptions{Scope: "project:sampleapp"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Anchor != nil {
				t.Fatalf("anchored to %+v", *res.Anchor)
			}
			if len(res.Candidates) == 0 {
				t.Fatal("no candidates listed")
			}
			for _, c := range res.Candidates {
				if c.Quality >= res.Threshold {
					t.Errorf("candidate %s %s reaches the threshold (%.3f) but is not the anchor", c.File, c.Symbol, c.Quality)
				}
			}
			if res.Reason == "" {
				t.Error("no reason given for the missing anchor")
			}
			checkScores(t, res)
		})
	}
	// A lower threshold anchors the best of them anyway.
	res, err := a.FindAnchor(context.Background(), "Run schema migrations inside a transaction", AnchorOptions{Threshold: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if res.Anchor == nil || *res.Anchor != res.Candidates[0] {
		t.Errorf("threshold 0.01: anchor %v, want the best candidate", res.Anchor)
	}
}

func TestAnchorScope(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	const rule = "Raise ApiError with the HTTP status when the users API answers with an error"
	t.Run("language", func(t *testing.T) {
		for scope, want := range map[string]string{
			"language:python":     ".py",
			"language:typescript": ".ts", // and .tsx
			"language:ts":         ".ts",
			"language:go":         ".go",
		} {
			res, err := a.FindAnchor(ctx, rule, AnchorOptions{Scope: scope, MaxCandidates: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) == 0 {
				t.Fatalf("%s: no candidates", scope)
			}
			for _, c := range res.Candidates {
				if !strings.HasSuffix(c.File, want) && !(want == ".ts" && strings.HasSuffix(c.File, ".tsx")) {
					t.Errorf("%s: candidate in %s", scope, c.File)
				}
			}
		}
		res, err := a.FindAnchor(ctx, rule, AnchorOptions{Language: "python"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Anchor == nil || res.Anchor.File != "worker/client.py" || res.Language != "python" {
			t.Errorf("Language python: anchor %+v in %q", res.Anchor, res.Language)
		}
	})
	t.Run("project", func(t *testing.T) {
		res, err := a.FindAnchor(ctx, rule, AnchorOptions{Scope: "project:sampleapp"})
		if err != nil || res.Anchor == nil {
			t.Fatalf("project:sampleapp: %v, %+v", err, res)
		}
		res, err = a.FindAnchor(ctx, rule, AnchorOptions{Scope: "project:billing"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Anchor != nil || len(res.Candidates) != 0 || !strings.Contains(res.Reason, "project:sampleapp") {
			t.Errorf("project:billing: anchor %v, %d candidates, reason %q", res.Anchor, len(res.Candidates), res.Reason)
		}
		other := &Anchorer{Searcher: a.Searcher, Project: "billing"}
		res, err = other.FindAnchor(ctx, rule, AnchorOptions{Scope: "project:billing"})
		if err != nil || res.Anchor == nil {
			t.Errorf("Project billing, scope project:billing: %v, %+v", err, res)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		for _, opts := range []AnchorOptions{
			{Scope: "galaxy:far"},
			{Scope: "language:"},
			{Scope: "language:go", Language: "python"},
			{Language: "C--!"},
			{Threshold: 1.5},
			{Threshold: -0.1},
			{Threshold: math.NaN()},
		} {
			if _, err := a.FindAnchor(ctx, rule, opts); err == nil {
				t.Errorf("%+v: no error", opts)
			}
		}
	})
}

func TestAnchorDeletedFile(t *testing.T) {
	a, root := sampleAnchorer(t)
	ctx := context.Background()
	const rule = "Evict the least recently used entry when the cache is over capacity"
	res, err := a.FindAnchor(ctx, rule, AnchorOptions{})
	if err != nil || res.Anchor == nil || res.Anchor.File != "client/src/cache.ts" {
		t.Fatalf("before: %v, %+v", err, res)
	}
	anchor := *res.Anchor
	if loc, ok, err := a.Locate(ctx, anchor.File, anchor.Symbol, anchor.Line); err != nil || !ok || loc.Line != anchor.Line {
		t.Fatalf("Locate before the deletion: %+v, %v, %v", loc, ok, err)
	}
	if err := os.Remove(filepath.Join(root, "client", "src", "cache.ts")); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		res, err := a.FindAnchor(ctx, rule, AnchorOptions{})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for _, c := range res.Candidates {
			if c.File == "client/src/cache.ts" {
				t.Errorf("%s: candidate in the deleted file: %+v", when, c)
			}
		}
		if _, ok, err := a.Locate(ctx, anchor.File, anchor.Symbol, anchor.Line); err != nil || ok {
			t.Errorf("%s: Locate of the lost anchor: %v, %v", when, ok, err)
		}
	}
	check("before the index catches up")
	if _, err := a.Searcher.Index.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("after the index caught up")
}

func TestAnchorLocateFollowsEdits(t *testing.T) {
	a, root := sampleAnchorer(t)
	ctx := context.Background()
	loc, ok, err := a.Locate(ctx, "users/repo.go", "UserRepository.FindByID", 0)
	if err != nil || !ok {
		t.Fatalf("Locate: %v, %v", ok, err)
	}
	path := filepath.Join(root, "users", "repo.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "// ErrNotFound", "// One.\n// Two.\n// Three.\n\n// ErrNotFound", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Searcher.Index.Update(ctx, nil); err != nil {
		t.Fatal(err)
	}
	moved, ok, err := a.Locate(ctx, "users/repo.go", "UserRepository.FindByID", loc.Line)
	if err != nil || !ok || moved.Line != loc.Line+4 {
		t.Errorf("after inserting 4 lines above: %+v, %v, %v (was line %d)", moved, ok, err, loc.Line)
	}
	if _, ok, err := a.Locate(ctx, "users/repo.go", "UserRepository.Gone", 0); err != nil || ok {
		t.Errorf("a symbol that does not exist: %v, %v", ok, err)
	}
}

func TestAnchorBadRules(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name, rule string
		want       error
	}{
		{"empty", "", ErrEmptyRule},
		{"blank", " \t\n ", ErrEmptyRule},
		{"huge", strings.Repeat("Wrap errors with context. ", MaxRuleBytes/20), ErrRuleTooLong},
		{"NUL", "Wrap errors\x00", ErrRuleNotText},
		{"invalid UTF-8", "Wrap \xff errors", ErrRuleNotText},
		{"control character", "Wrap \x1b[31m errors", ErrRuleNotText},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := a.FindAnchor(ctx, tt.rule, AnchorOptions{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, %v; want %v", res, err, tt.want)
			}
			if !strings.Contains(err.Error(), "rule") {
				t.Errorf("error %q does not say what failed", err)
			}
		})
	}
	// A rule of common words only has nothing to look for: no anchor, and
	// a reason, but no error.
	res, err := a.FindAnchor(ctx, "Always do it this way, never that way.", AnchorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Anchor != nil || res.Reason == "" {
		t.Errorf("stop words only: anchor %v, reason %q", res.Anchor, res.Reason)
	}
	// The longest rule accepted is searched (its first terms; its speed is
	// BenchmarkAnchorStdlib's business).
	long := strings.Repeat("Evict the least recently used entry. ", MaxRuleBytes/40)
	if _, err := a.FindAnchor(ctx, long, AnchorOptions{}); err != nil {
		t.Fatalf("%d-byte rule: %v", len(long), err)
	}
	if _, err := (&Anchorer{}).FindAnchor(ctx, "Wrap errors", AnchorOptions{}); err == nil {
		t.Error("an Anchorer without an index: no error")
	}
}

func TestAnchorRuleColumns(t *testing.T) {
	a, root := sampleAnchorer(t)
	ctx := context.Background()
	ra, err := a.AnchorRule(ctx, "Log SQL failures and wrap them in an unchecked RepositoryException", "project:sampleapp", "")
	if err != nil {
		t.Fatal(err)
	}
	if ra == nil || ra.File != "java/src/main/java/com/example/users/BaseRepository.java" || !strings.HasPrefix(ra.Symbol, "BaseRepository.") {
		t.Fatalf("anchor %+v", ra)
	}
	if ra.Score < DefaultAnchorThreshold || ra.Score > 1 {
		t.Errorf("score %v", ra.Score)
	}
	// A project rule's anchor keeps its line and the fingerprint of its
	// code only: the scope names the workspace.
	var line int
	var hash string
	if n, err := fmt.Sscanf(string(ra.Metadata), `{"l":%d,"h":%q}`, &line, &hash); n != 2 || err != nil || line <= 0 || len(hash) != 8 {
		t.Errorf("metadata %s, want {\"l\":line,\"h\":fingerprint}", ra.Metadata)
	}
	m := ReadAnchorMeta(Rule{Scope: "project:sampleapp", Anchor: ra})
	if m.Line != line || m.Project != "sampleapp" || m.Root != "" || m.Threshold != DefaultAnchorThreshold {
		t.Errorf("ReadAnchorMeta = %+v", m)
	}
	// A universal rule's keeps the root too, whose base name is the
	// project.
	ra, err = a.AnchorRule(ctx, "Log SQL failures and wrap them in an unchecked RepositoryException", "universal", "")
	if err != nil || ra == nil {
		t.Fatalf("universal: %+v, %v", ra, err)
	}
	m = ReadAnchorMeta(Rule{Scope: "universal", Anchor: ra})
	if m.Root != a.Searcher.Index.Root() || m.Project != "sampleapp" || filepath.Base(root) != "sampleapp" || strings.Contains(string(ra.Metadata), `"p"`) {
		t.Errorf("universal anchor metadata %s: %+v", ra.Metadata, m)
	}
	ra, err = a.AnchorRule(ctx, "Encrypt secrets at rest with AES-GCM", "project:sampleapp", "")
	if err != nil || ra != nil {
		t.Errorf("a rule without an example: %+v, %v", ra, err)
	}
	if _, err := a.AnchorRule(ctx, "", "universal", ""); !errors.Is(err, ErrEmptyRule) {
		t.Errorf("empty rule: %v", err)
	}
}

func TestAnchorConcurrent(t *testing.T) {
	a, _ := sampleAnchorer(t)
	cases := readAnchorCases(t, "sampleapp.jsonl")
	want := map[string]string{}
	for _, c := range cases {
		res, err := a.FindAnchor(context.Background(), c.Rule, AnchorOptions{Scope: c.Scope})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) > 0 {
			want[c.Rule] = res.Candidates[0].Symbol
		}
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range cases {
				c := cases[(i+j)%len(cases)]
				res, err := a.FindAnchor(context.Background(), c.Rule, AnchorOptions{Scope: c.Scope})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Candidates) > 0 && res.Candidates[0].Symbol != want[c.Rule] {
					t.Errorf("%q: %s, alone %s", c.Rule, res.Candidates[0].Symbol, want[c.Rule])
				}
			}
		}()
	}
	wg.Wait()
}

func TestAnchorCancelled(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.FindAnchor(ctx, "Evict the least recently used entry", AnchorOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestAnchorOverlay(t *testing.T) {
	a, _ := sampleAnchorer(t)
	s := *a.Searcher
	// An open document whose text differs from the file: the anchor is
	// scored on what the editor shows.
	s.Overlay = func(p string) ([]byte, bool) {
		if p != "internal/db/db.go" {
			return nil, false
		}
		return []byte(strings.Repeat("\n", 200)), true
	}
	const rule = "Wrap database errors with the operation that failed, using %w"
	open := func(a *Anchorer) *AnchorCandidate {
		t.Helper()
		res, err := a.FindAnchor(context.Background(), rule, AnchorOptions{MaxCandidates: MaxAnchorCandidates})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Candidates {
			if c.File == "internal/db/db.go" && c.Symbol == "db.Open" {
				return &c
			}
		}
		return nil
	}
	onDisk := open(a)
	if onDisk == nil {
		t.Fatal("db.Open is no candidate when scored on the file")
	}
	// The document's blank lines hold none of the rule's words: only
	// the indexed name, doc comment and signature still match.
	if c := open(NewAnchorer(&s)); c != nil && (c.Relevance >= onDisk.Relevance || c.MatchedTerms >= onDisk.MatchedTerms) {
		t.Errorf("db.Open scored on the file, not on the open document: %+v, on disk %+v", c, onDisk)
	}
}

func TestAnchorRecency(t *testing.T) {
	at := func(h int64) time.Time { return time.Unix(0, h*int64(time.Hour)) }
	same := &anchorMtimes{hours: []int64{5, 5, 5, 5}}
	if r := same.recency(at(5)); r != 0.5 {
		t.Errorf("files changed in the same hour: %v, want 0.5", r)
	}
	m := &anchorMtimes{hours: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	if r := m.recency(at(10)); r < 0.9 {
		t.Errorf("newest of ten: %v", r)
	}
	if r := m.recency(at(1)); r > 0.1 {
		t.Errorf("oldest of ten: %v", r)
	}
	if r := m.recency(at(100)); r != 1 {
		t.Errorf("newer than every indexed file: %v", r)
	}
	if r := (&anchorMtimes{}).recency(at(3)); r != 0.5 {
		t.Errorf("no files: %v", r)
	}
}

func TestAnchorSizeScore(t *testing.T) {
	prev := 0.0
	for n := 1; n <= 40; n++ {
		s := anchorSizeScore(n)
		if s < prev || s <= 0 || s > 1 {
			t.Errorf("%d lines: %v (after %v)", n, s, prev)
		}
		prev = s
	}
	if anchorSizeScore(5) != 1 || anchorSizeScore(40) != 1 || anchorSizeScore(80) != 0.5 || anchorSizeScore(0) <= 0 {
		t.Error("size score off its definition")
	}
}

func TestAnchorRuleAnalysis(t *testing.T) {
	for _, tt := range []struct {
		rule   string
		idents []string
	}{
		{"Use UserRepository.FindByID to load users", []string{"UserRepository.FindByID"}},
		{"Always call Close on rows", []string{"Close"}},
		{"Use sync.Once for lazy initialization", []string{"sync.Once"}},
		{"Implement fmt::Display for user types", []string{"fmt::Display"}},
		{"Build steps override run(files)", []string{"run"}},
		{"Decode JSON with from_json and `parse`", []string{"from_json", "parse"}},
		{"HTTP handlers must set JSON headers", nil},
		{"Repositories take a context first. Context is never stored", nil},
	} {
		rq := analyzeAnchorRule(tt.rule)
		if strings.Join(rq.idents, ",") != strings.Join(tt.idents, ",") {
			t.Errorf("%q: identifiers %q, want %q", tt.rule, rq.idents, tt.idents)
		}
	}
	rq := analyzeAnchorRule("Build strings with strings.Builder instead of repeated concatenation")
	for _, term := range rq.terms {
		if strings.HasPrefix(term.stem, "concat") || strings.HasPrefix(term.stem, "repeat") {
			t.Errorf("the contrast clause's %q is a key term", term.stem)
		}
	}
	rq = analyzeAnchorRule("Wrap errors with %w")
	if len(rq.literals) != 1 || rq.literals[0] != "%w" {
		t.Errorf("literals %q, want %%w", rq.literals)
	}
	if lo, hi := anchorContrast("Never use panic in production code"); lo >= 0 {
		t.Errorf("a prohibition has a contrast clause: %d, %d", lo, hi)
	}
	if lo, hi := anchorContrast("Join with filepath.Join, never by concatenating strings. Always."); lo < 0 || !strings.HasSuffix("Join with filepath.Join, never by concatenating strings. Always."[:hi], "strings") {
		t.Errorf("contrast clause %d, %d", lo, hi)
	}
}

// TestAnchorRelevanceRange checks that relevance stays within [0, 1] for
// any features, even absurd ones.
func TestAnchorRelevanceRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, 1, -1, 1e9, -1e9, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
	pick := func() float64 {
		if r.IntN(4) == 0 {
			return special[r.IntN(len(special))]
		}
		return r.Float64()*4 - 2
	}
	for range 100000 {
		f := anchorFeatures{
			Focus: pick(), Name: pick(), Grounded: pick(), Coverage: pick(), Corpus: pick(), Agreement: pick(),
			Named: pick(), Literal: pick(), Test: pick(), Margin: pick(),
		}
		f.Score = anchorScore(f)
		if rel := anchorRelevance(f); math.IsNaN(rel) || rel < 0 || rel > 1 {
			t.Fatalf("relevance %v for %+v", rel, f)
		}
	}
}

// FuzzRelevance checks that relevance stays within [0, 1] for any
// features, and that anchoring any rule text on the sample app either
// fails with a rule error or scores every candidate within [0, 1].
//
// The sample app is indexed once per process, with the word vectors of
// its words and the seeds' only and one router for every search, so that
// an input costs an anchoring of a few dozen chunks rather than searches
// over the whole vocabulary.
func FuzzRelevance(f *testing.F) {
	seeds := []string{"Wrap database errors with %w", "Use UserRepository.FindByID, never db.Conn", "", "run(files) `x` fmt::Display %v"}
	f.Add(seeds[0], 0.5, 0.2, 1.0, 0.8, 1.0, 0.0, 0.0, 3.5, 2.0)
	f.Add(seeds[1], 1.0, 1.0, 0.1, 0.0, 0.6, 1.0, 1.0, -2.0, 6.0)
	f.Add(seeds[2], -1.0, 2.0, 0.0, 1.0, 0.0, 0.5, 0.0, 0.0, 0.0)
	f.Add(seeds[3], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	// Verbs and their opposites, a setter, "test" as a verb.
	f.Add("Verify signatures, instead of writing WithTimeFunc; callers can test for it", 0.3, 0.1, 0.9, 0.5, 0.0, 0.0, 0.0, 1.0, 2.5)
	root := copySampleApp(f)
	texts := seeds
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	full, err := wordvec.Load()
	if err != nil {
		f.Fatal(err)
	}
	small, err := full.Subset(texts...)
	if err != nil {
		f.Fatal(err)
	}
	s := openIndexWith(f, root, "", retrieval.WordVectorsOf(small))
	s.Router = retrieval.NewRouter()
	a := NewAnchorer(s)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, rule string, focus, name, grounded, agreement, named, literal, test, margin, corpus float64) {
		feat := anchorFeatures{Focus: focus, Name: name, Grounded: grounded, Coverage: focus * grounded, Agreement: agreement,
			Named: named, Literal: literal, Test: test, Margin: margin, Corpus: corpus}
		feat.Score = anchorScore(feat)
		if rel := anchorRelevance(feat); math.IsNaN(rel) || rel < 0 || rel > 1 {
			t.Fatalf("relevance %v for %+v", rel, feat)
		}
		res, err := a.FindAnchor(ctx, rule, AnchorOptions{})
		if err != nil {
			if !errors.Is(err, ErrEmptyRule) && !errors.Is(err, ErrRuleTooLong) && !errors.Is(err, ErrRuleNotText) {
				t.Fatalf("%q: %v", rule, err)
			}
			return
		}
		checkScores(t, res)
		if res.Anchor == nil && res.Reason == "" {
			t.Errorf("%q: no anchor and no reason", rule)
		}
	})
}

// TestAnchorNoFeedback checks that anchoring records no routing
// feedback: it is not a user's search.
func TestAnchorNoFeedback(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	fb, err := feedback.Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	s := *a.Searcher
	s.Feedback = fb
	if _, err := NewAnchorer(&s).FindAnchor(ctx, "Evict the least recently used entry", AnchorOptions{}); err != nil {
		t.Fatal(err)
	}
	stats, err := fb.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 0 {
		t.Errorf("anchoring recorded searches: %+v", stats)
	}
}
