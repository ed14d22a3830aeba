package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAnchorOrigins anchors rules learned from corrections: in the
// corrections' language, on the functions they were about, where the
// same rules without their corrections anchor elsewhere (the sample app's
// TypeScript enum, Java's BaseRepository.failure).
func TestAnchorOrigins(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	tests := []struct {
		rule, scope string
		origins     []AnchorOrigin
		file, sym   string
		home        string
	}{
		{"Always log HTTP requests with their duration", "project:sampleapp",
			[]AnchorOrigin{{File: "api/handlers.go"}}, "api/handlers.go", "Handler.ServeUser", "file"},
		{"Wrap database errors with the operation that failed", "project:sampleapp",
			[]AnchorOrigin{{File: "users/repo.go"}}, "users/repo.go", "UserRepository.FindByID", "file"},
		{"Wrap errors with context using fmt.Errorf and %w", "project:sampleapp",
			[]AnchorOrigin{{File: "users/repo.go", Line: 29}}, "users/repo.go", "UserRepository.FindByID", "symbol"},
		// A universal rule learned in Go still anchors on a strong match
		// in Go.
		{"Wrap errors with context using fmt.Errorf and %w", "universal",
			[]AnchorOrigin{{File: "users/repo.go"}}, "users/repo.go", "UserRepository.FindByID", "file"},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.scope, func(t *testing.T) {
			res, err := a.FindAnchor(ctx, tt.rule, AnchorOptions{Scope: tt.scope, Origins: tt.origins})
			if err != nil {
				t.Fatal(err)
			}
			if res.Anchor == nil {
				t.Fatalf("no anchor: %s; candidates %+v", res.Reason, res.Candidates)
			}
			if res.Anchor.File != tt.file || res.Anchor.Symbol != tt.sym || res.Anchor.Home != tt.home {
				t.Errorf("anchored on %s in %s (home %q), want %s in %s (home %q)", res.Anchor.Symbol, res.Anchor.File, res.Anchor.Home, tt.sym, tt.file, tt.home)
			}
			for _, c := range res.Candidates {
				if LanguageOfFile(c.File) != "go" && tt.scope != ScopeUniversal {
					t.Errorf("candidate %s in %s: not in the corrections' language", c.Symbol, c.File)
				}
			}
		})
	}
}

// TestAnchorReasons checks that a rule left without an example says why,
// naming the best candidate and how many key terms it matched.
func TestAnchorReasons(t *testing.T) {
	a, root := sampleAnchorer(t)
	ctx := context.Background()
	keyTerms := regexp.MustCompile(`^no example yet: best candidate \S+ \(\S+:\d+\) matched \d+ of \d+ key terms`)
	tests := []struct {
		name, rule string
		opts       AnchorOptions
		want       *regexp.Regexp
	}{
		{"weak match", "Validate request payloads against a JSON schema", AnchorOptions{Scope: "project:sampleapp"}, keyTerms},
		{"one word", "Logging", AnchorOptions{}, regexp.MustCompile(`^no example yet: a rule of one key word .* --symbol`)},
		{"another natural language", "Toujours journaliser les requêtes HTTP avec leur durée", AnchorOptions{},
			regexp.MustCompile(`^no example yet: the workspace's code uses \d+ of the rule's \d+ key terms \(not used: .*toujours`)},
		{"only common words", "Always do it", AnchorOptions{}, regexp.MustCompile(`^no example yet: the rule has no words`)},
		{"corrections in a deleted file", "Encrypt secrets at rest with AES-GCM", AnchorOptions{Scope: "project:sampleapp",
			Origins: []AnchorOrigin{{File: "internal/crypto/secrets.go", Line: 3}}}, regexp.MustCompile(`^no example yet: .*(key terms|go code)`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := a.FindAnchor(ctx, tt.rule, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Anchor != nil {
				t.Fatalf("anchored on %+v, want no example", *res.Anchor)
			}
			if !tt.want.MatchString(res.Reason) {
				t.Errorf("reason %q, want %s", res.Reason, tt.want)
			}
		})
	}
	// The corrections' files are gone: the rule still anchors, on the
	// rest of the workspace, in their language.
	if err := os.Remove(filepath.Join(root, "api", "handlers.go")); err != nil {
		t.Fatal(err)
	}
	res, err := a.FindAnchor(ctx, "Return errors to HTTP clients with writeError and a status code", AnchorOptions{
		Scope: "project:sampleapp", Origins: []AnchorOrigin{{File: "api/handlers.go", Line: 33}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.File == "api/handlers.go" || LanguageOfFile(c.File) != "go" {
			t.Errorf("candidate %s in %s after its file was deleted", c.Symbol, c.File)
		}
	}
}

// TestAnchorChoose makes a definition a rule's example by hand.
func TestAnchorChoose(t *testing.T) {
	a, _ := sampleAnchorer(t)
	ctx := context.Background()
	const rule = "Wrap database errors with the operation that failed"
	res, err := a.Choose(ctx, rule, "UserRepository.Save", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	res.Scope = "project:sampleapp"
	ra := res.RuleAnchor(a.Searcher.Index.Root(), "sampleapp")
	if ra.File != "users/repo.go" || ra.Symbol != "UserRepository.Save" {
		t.Fatalf("chose %+v", ra)
	}
	if m := ReadAnchorMeta(Rule{Scope: res.Scope, Anchor: ra}); !m.Manual || m.Hash == "" || m.Line != 35 {
		t.Errorf("metadata %s: %+v, want a manual anchor with its fingerprint at line 35", ra.Metadata, m)
	}
	for _, tt := range []struct {
		symbol, file string
		want         error
		msg          string
	}{
		{"NoSuchThing", "", ErrNoSuchSymbol, "defines nothing named"},
		{"FindByld", "", ErrNoSuchSymbol, "names like it: "}, // a typo: suggestions
		{"FindByID", "", ErrAmbiguousSymbol, "give the file too"},
		{"Save", "internal/db/db.go", ErrNoSuchSymbol, "internal/db/db.go defines nothing named"},
		{"NoSuchThing", "", ErrNoSuchSymbol, "the workspace defines nothing named"},
		{"", "", ErrNoSuchSymbol, "empty"},
	} {
		_, err := a.Choose(ctx, rule, tt.symbol, tt.file, 0)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Choose(%q, %q): %v, want %v saying %q", tt.symbol, tt.file, err, tt.want, tt.msg)
		}
	}
	if res, err := a.Choose(ctx, rule, "FindByID", "users/repo.go", 0); err != nil || res.Anchor.Symbol != "UserRepository.FindByID" {
		t.Errorf("Choose FindByID in users/repo.go: %+v, %v", res, err)
	}
}

// TestAnchorFollow renames, moves and deletes an anchored function on
// disk and re-indexes: the anchor follows the rename and the move, and
// is lost when the function is gone.
func TestAnchorFollow(t *testing.T) {
	a, root := sampleAnchorer(t)
	ctx := context.Background()
	res, err := a.FindAnchor(ctx, "Wrap database errors with the operation that failed, using %w", AnchorOptions{Scope: "project:sampleapp"})
	if err != nil || res.Anchor == nil || res.Anchor.Symbol != "db.Open" {
		t.Fatalf("anchor: %+v, %v", res, err)
	}
	r := Rule{ID: 1, Scope: "project:sampleapp", Anchor: res.RuleAnchor(root, "sampleapp")}
	dbgo := filepath.Join(root, "internal", "db", "db.go")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Searcher.Index.Update(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(dbgo)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)

	// Renamed in its file (callers too): the same code under another name.
	renamed := strings.ReplaceAll(text, "func Open(", "func OpenDB(")
	write(dbgo, renamed)
	loc, how, ok, err := a.Follow(ctx, r)
	if err != nil || !ok || how != FollowRenamed || loc.Symbol != "db.OpenDB" || loc.File != "internal/db/db.go" {
		t.Fatalf("after the rename: %+v %q %v %v, want db.OpenDB renamed", loc, how, ok, err)
	}
	sym, _, err := a.Searcher.Index.FindSymbol(ctx, loc.File, loc.Symbol, loc.Line-1)
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := a.SymbolText(sym)
	if err != nil {
		t.Fatal(err)
	}
	moved := FollowedAnchor(r, sym, code)
	r.Anchor = &moved
	if loc, how, ok, _ := a.Follow(ctx, r); !ok || how != FollowSame || loc.Symbol != "db.OpenDB" {
		t.Errorf("the followed anchor: %+v %q %v, want it where it is", loc, how, ok)
	}

	// Moved to another file, its old file gone.
	i := strings.Index(renamed, "// Open")
	if i < 0 {
		i = strings.Index(renamed, "func OpenDB(")
	}
	j := i + strings.Index(renamed[i:], "\n}\n") + 3
	fn := renamed[i:j]
	if err := os.Remove(dbgo); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "internal", "db", "open.go"), "package db\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n\t\"fmt\"\n)\n\n"+fn)
	loc, how, ok, err = a.Follow(ctx, r)
	if err != nil || !ok || how != FollowMoved || loc.File != "internal/db/open.go" || loc.Symbol != "db.OpenDB" {
		t.Fatalf("after the move: %+v %q %v %v, want db.OpenDB moved to internal/db/open.go", loc, how, ok, err)
	}

	// Deleted: lost.
	write(filepath.Join(root, "internal", "db", "open.go"), "package db\n")
	if loc, _, ok, err := a.Follow(ctx, r); err != nil || ok {
		t.Errorf("after the deletion: %+v %v %v, want the anchor lost", loc, ok, err)
	}
}

// TestExcerptLines checks the relevant span of a long example: the
// window around the lines that hold the rule's terms.
func TestExcerptLines(t *testing.T) {
	var lines []string
	lines = append(lines, "func serve(w http.ResponseWriter, r *http.Request) {")
	for range 50 {
		lines = append(lines, "\tx := compute(x)")
	}
	lines = append(lines, "\tstart := time.Now()", "\tdefer func() { log.Printf(\"%s %s\", r.URL, time.Since(start)) }()", "\thandle(w, r)")
	for range 30 {
		lines = append(lines, "\ty := other(y)")
	}
	lines = append(lines, "}")
	from, to := ExcerptLines("Log every HTTP request with its duration (time.Since)", lines, 20)
	if from > 51 || to < 52 || to-from+1 > 20 {
		t.Errorf("span %d–%d, want the lines that log the duration (51–52) within 20 lines", from, to)
	}
	if from, to := ExcerptLines("nothing matches here", lines, 10); from != 0 || to != 9 {
		t.Errorf("no match: %d–%d, want the first 10 lines", from, to)
	}
	if from, to := ExcerptLines("anything", lines[:3], 10); from != 0 || to != 2 {
		t.Errorf("short: %d–%d, want all", from, to)
	}
}

// FuzzExcerptLines feeds any rule and any code to ExcerptLines: the span
// is always inside the lines and at most max long.
func FuzzExcerptLines(f *testing.F) {
	f.Add("Log every HTTP request", "func f() {\n\tlog.Print(r)\n}\n", 2)
	f.Add("", "", 0)
	f.Add("%w fmt::Display sync.Once", "a\nb\nc\nd\ne\n", 3)
	f.Fuzz(func(t *testing.T, rule, code string, max int) {
		if max > 1000 || max < -10 {
			return
		}
		lines := strings.Split(code, "\n")
		from, to := ExcerptLines(rule, lines, max)
		if from < 0 || to >= len(lines) || from > to && len(lines) > 0 {
			t.Fatalf("span %d–%d of %d lines", from, to, len(lines))
		}
		if m := max; m >= 1 && to-from+1 > m && len(lines) > m {
			t.Fatalf("span %d–%d longer than %d", from, to, m)
		}
	})
}
