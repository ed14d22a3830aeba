package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var sampleRoot = filepath.Join("..", "testdata", "sampleapp")

// indexSample indexes testdata/sampleapp into a database in a temporary
// directory.
func indexSample(t *testing.T) *Index {
	t.Helper()
	ix := openTestIndex(t, sampleRoot, nil)
	sum := mustUpdate(t, ix)
	// 22 source files; go.mod and Cargo.toml are not code.
	if sum.Files != 22 || sum.Parsed != 22 || sum.ParseErrors != 0 {
		t.Fatalf("sample app: Files = %d, Parsed = %d, ParseErrors = %d, want 22, 22, 0", sum.Files, sum.Parsed, sum.ParseErrors)
	}
	want := map[string]int{"go": 6, "python": 4, "javascript": 1, "typescript": 3, "tsx": 1, "rust": 2, "java": 5}
	for lang, n := range want {
		if sum.ByLanguage[lang] != n {
			t.Errorf("sample app: %d %s files, want %d", sum.ByLanguage[lang], lang, n)
		}
	}
	return ix
}

// samplePos returns the 1-based line and byte column of mark inside the
// only occurrence of context in a sample file.
func samplePos(t *testing.T, rel, context, mark string) (line, col int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if n := strings.Count(src, context); n != 1 {
		t.Fatalf("%q occurs %d times in %s, want once", context, n, rel)
	}
	in := strings.Index(context, mark)
	if in < 0 {
		t.Fatalf("%q is not in %q", mark, context)
	}
	off := strings.Index(src, context) + in
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:off], "\n") + 1, off - lineStart + 1
}

// lookupIn returns the only symbol Lookup finds for name in the file rel.
func lookupIn(t *testing.T, s *indexStore, name, rel string) SymbolInfo {
	t.Helper()
	syms, err := s.Lookup(context.Background(), name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	var found []SymbolInfo
	for _, sym := range syms {
		if sym.Path == rel {
			found = append(found, sym)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Lookup(%q) found %d symbols in %s, want 1 (all: %+v)", name, len(found), rel, syms)
	}
	return found[0]
}

// describeRelations renders relations as "depth via qualified-name (path)",
// or "depth via ?name" when unresolved, sorted.
func describeRelations(rels []Relation) []string {
	var out []string
	for _, r := range rels {
		if r.Symbol.ID == 0 {
			out = append(out, fmt.Sprintf("%d %s ?%s", r.Depth, r.Via, r.Name))
			continue
		}
		out = append(out, fmt.Sprintf("%d %s %s (%s)", r.Depth, r.Via, r.Symbol.QualifiedName, r.Symbol.Path))
	}
	sort.Strings(out)
	return out
}

func callerNames(calls []CallSite) []string {
	var out []string
	for _, c := range calls {
		out = append(out, fmt.Sprintf("%s (%s:%d)", c.Caller.QualifiedName, c.Path, c.Line))
	}
	sort.Strings(out)
	return out
}

func family(lang string) string {
	switch lang {
	case "javascript", "typescript", "tsx":
		return "js"
	}
	return lang
}

func TestSampleGraph(t *testing.T) {
	ctx := context.Background()
	ix := indexSample(t)

	t.Run("Lookup", func(t *testing.T) {
		syms, err := ix.Lookup(ctx, "FindByID")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, s := range syms {
			got[s.Path] = s.QualifiedName
			if s.Kind != KindMethod || s.Name != "FindByID" || s.Language != "go" || s.Module != "users" {
				t.Errorf("Lookup(FindByID) returned %+v", s)
			}
		}
		want := map[string]string{"users/repo.go": "UserRepository.FindByID", "users/user.go": "Reader.FindByID"}
		if len(syms) != 2 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Lookup(FindByID) = %v, want %v", got, want)
		}

		repo := lookupOne(t, ix.store, "UserRepository.FindByID")
		if repo.Path != "users/repo.go" || repo.Owner() != "UserRepository" {
			t.Errorf("Lookup(UserRepository.FindByID) = %s in %s", repo.QualifiedName, repo.Path)
		}
		line, col := samplePos(t, "users/repo.go", "func (r *UserRepository) FindByID(", "func")
		if repo.Range.Start.Line+1 != line || repo.Range.Start.Column+1 != col {
			t.Errorf("UserRepository.FindByID starts at %d:%d, want %d:%d", repo.Range.Start.Line+1, repo.Range.Start.Column+1, line, col)
		}
		if !strings.HasPrefix(repo.Signature, "func (r *UserRepository) FindByID(ctx context.Context, id string)") {
			t.Errorf("signature %q", repo.Signature)
		}
		if repo.Doc != "FindByID loads one user by its id." {
			t.Errorf("doc %q", repo.Doc)
		}
		if full := lookupOne(t, ix.store, "users.UserRepository.FindByID"); full.ID != repo.ID {
			t.Errorf("users.UserRepository.FindByID = %+v, want %+v", full, repo)
		}
		if reader := lookupOne(t, ix.store, "Reader.FindByID"); reader.Path != "users/user.go" {
			t.Errorf("Reader.FindByID in %s", reader.Path)
		}

		// Without an exact match, case is ignored: Java's findById too.
		folded := lookupPaths(t, ix.store, "findbyid")
		wantFolded := []string{
			"java/src/main/java/com/example/users/JdbcUserRepository.java",
			"java/src/main/java/com/example/users/UserRepository.java",
			"users/repo.go", "users/user.go",
		}
		if !slices.Equal(folded, wantFolded) {
			t.Errorf("Lookup(findbyid) in %q, want %q", folded, wantFolded)
		}
		if got := lookupPaths(t, ix.store, "NoSuchSymbolAnywhere"); len(got) != 0 {
			t.Errorf("Lookup(NoSuchSymbolAnywhere) = %q", got)
		}
		if got := lookupPaths(t, ix.store, "Nope.FindByID"); len(got) != 0 {
			t.Errorf("Lookup(Nope.FindByID) = %q: the qualifier must match", got)
		}
	})

	t.Run("Callers", func(t *testing.T) {
		def := lookupOne(t, ix.store, "UserRepository.FindByID")
		calls, err := ix.Callers(ctx, def)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 {
			t.Fatalf("Callers(UserRepository.FindByID) = %q, want the call in Service.GetUser", callerNames(calls))
		}
		c := calls[0]
		line, col := samplePos(t, "users/service.go", "return s.repo.FindByID(ctx, id)", "FindByID")
		if c.Caller.QualifiedName != "Service.GetUser" || c.Caller.Path != "users/service.go" || c.Path != "users/service.go" {
			t.Errorf("caller %s in %s, call in %s", c.Caller.QualifiedName, c.Caller.Path, c.Path)
		}
		if c.Line != line || c.Column != col {
			t.Errorf("call at %d:%d, want %d:%d", c.Line, c.Column, line, col)
		}
		if c.Name != "FindByID" || c.Qualifier != "repo" || c.Callee == nil || c.Callee.ID != def.ID || c.Ambiguous {
			t.Errorf("call site %+v", c)
		}

		getUser := lookupIn(t, ix.store, "GetUser", "users/service.go")
		calls, err = ix.Callers(ctx, getUser)
		if err != nil {
			t.Fatal(err)
		}
		renameLine, _ := samplePos(t, "users/service.go", "s.GetUser(ctx, id)", "GetUser")
		serveLine, _ := samplePos(t, "api/handlers.go", "h.svc.GetUser(", "GetUser")
		want := []string{
			fmt.Sprintf("Handler.ServeUser (api/handlers.go:%d)", serveLine),
			fmt.Sprintf("Service.Rename (users/service.go:%d)", renameLine),
		}
		if got := callerNames(calls); !slices.Equal(got, want) {
			t.Errorf("Callers(Service.GetUser) = %q, want %q", got, want)
		}
	})

	t.Run("Callees", func(t *testing.T) {
		getUser := lookupIn(t, ix.store, "Service.GetUser", "users/service.go")
		calls, err := ix.Callees(ctx, getUser)
		if err != nil {
			t.Fatal(err)
		}
		type site struct {
			name, qualifier, callee string
			line                    int
		}
		var got []site
		for _, c := range calls {
			s := site{name: c.Name, qualifier: c.Qualifier, line: c.Line}
			if c.Callee != nil {
				s.callee = c.Callee.QualifiedName + " (" + c.Callee.Path + ")"
			}
			if c.Caller.ID != getUser.ID {
				t.Errorf("callee %s has caller %s", c.Name, c.Caller.QualifiedName)
			}
			got = append(got, s)
		}
		trim, _ := samplePos(t, "users/service.go", "strings.TrimSpace(id)", "TrimSpace")
		errorf, _ := samplePos(t, "users/service.go", `fmt.Errorf("get user: empty id")`, "Errorf")
		find, _ := samplePos(t, "users/service.go", "s.repo.FindByID(ctx, id)", "FindByID")
		want := []site{
			{"TrimSpace", "strings", "", trim}, // the standard library is not indexed
			{"Errorf", "fmt", "", errorf},
			{"FindByID", "repo", "UserRepository.FindByID (users/repo.go)", find},
		}
		if !slices.Equal(got, want) {
			t.Errorf("Callees(Service.GetUser) =\n%+v\nwant\n%+v", got, want)
		}
	})

	t.Run("Symbols", func(t *testing.T) {
		tiers := []struct {
			query string
			want  MatchKind
		}{
			{"FBI", MatchInitials},
			{"fbi", MatchInitials},
			{"findby", MatchPrefix},
			{"FindBy", MatchPrefix},
			{"ByID", MatchSubstring},
			{"FindByID", MatchExact},
		}
		for _, tt := range tiers {
			matches, err := ix.Symbols(ctx, tt.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range matches {
				if m.QualifiedName == "UserRepository.FindByID" && m.Path == "users/repo.go" {
					found = true
					if m.Match != tt.want {
						t.Errorf("Symbols(%q): FindByID matched as %v, want %v", tt.query, m.Match, tt.want)
					}
				}
				if !strings.Contains(strings.ToLower(m.Name), "findbyid") {
					t.Errorf("Symbols(%q) returned %s", tt.query, m.QualifiedName)
				}
			}
			if !found {
				t.Errorf("Symbols(%q) does not find UserRepository.FindByID: %+v", tt.query, matches)
			}
		}

		// "user" hits the exact, prefix and substring tiers, "ru" the
		// prefix, initials and substring ones; results come tier by tier.
		for _, q := range []string{"user", "ru"} {
			matches, err := ix.Symbols(ctx, q, 0)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[MatchKind]bool{}
			for i, m := range matches {
				seen[m.Match] = true
				if i > 0 && m.Match < matches[i-1].Match {
					t.Errorf("Symbols(%q): %s (%v) ranked after %s (%v)", q, m.QualifiedName, m.Match, matches[i-1].QualifiedName, matches[i-1].Match)
				}
				name := strings.ToLower(m.Name)
				switch m.Match {
				case MatchExact:
					if name != q {
						t.Errorf("Symbols(%q): %s is not an exact match", q, m.Name)
					}
				case MatchPrefix:
					if !strings.HasPrefix(name, q) || name == q {
						t.Errorf("Symbols(%q): %s is not a prefix match", q, m.Name)
					}
				case MatchSubstring:
					if !strings.Contains(name[1:], q) {
						t.Errorf("Symbols(%q): %s is not a substring match", q, m.Name)
					}
				}
			}
			if len(seen) < 3 {
				t.Errorf("Symbols(%q) hit tiers %v, want at least 3", q, seen)
			}
		}
		rank := func(q, qualified, path string) (MatchKind, int) {
			matches, err := ix.Symbols(ctx, q, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range matches {
				if m.QualifiedName == qualified && m.Path == path {
					return m.Match, i
				}
			}
			t.Fatalf("Symbols(%q) does not find %s in %s", q, qualified, path)
			return 0, 0
		}
		kExact, iExact := rank("user", "users.User", "users/user.go")
		kPrefix, iPrefix := rank("user", "users.UserRepository", "users/repo.go")
		kSub, iSub := rank("user", "Service.GetUser", "users/service.go")
		if kExact != MatchExact || kPrefix != MatchPrefix || kSub != MatchSubstring || !(iExact < iPrefix && iPrefix < iSub) {
			t.Errorf("Symbols(user): User %v #%d, UserRepository %v #%d, GetUser %v #%d; want exact < prefix < substring",
				kExact, iExact, kPrefix, iPrefix, kSub, iSub)
		}
		kPrefix, iPrefix = rank("ru", "Runner.run_all", "worker/runner.py")
		kInit, iInit := rank("ru", "ApiClient.renameUser", "client/src/api.ts")
		kSub, iSub = rank("ru", "Runner._run_one", "worker/runner.py")
		if kPrefix != MatchPrefix || kInit != MatchInitials || kSub != MatchSubstring || !(iPrefix < iInit && iInit < iSub) {
			t.Errorf("Symbols(ru): run_all %v #%d, renameUser %v #%d, _run_one %v #%d; want prefix < initials < substring",
				kPrefix, iPrefix, kInit, iInit, kSub, iSub)
		}

		limited, err := ix.Symbols(ctx, "user", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(limited) != 2 || limited[0].Match != MatchExact || limited[1].Match != MatchExact {
			t.Errorf("Symbols(user, 2) = %+v, want two exact matches", limited)
		}
		if empty, err := ix.Symbols(ctx, "   ", 0); err != nil || len(empty) != 0 {
			t.Errorf("Symbols(blank) = %+v, %v", empty, err)
		}
		for _, m := range mustSymbols(t, ix.store, "users") {
			if m.Kind == KindModule {
				t.Errorf("Symbols(users) returned the module %s of %s", m.Name, m.Path)
			}
		}
	})

	t.Run("Inheritance", func(t *testing.T) {
		tests := []struct {
			name, symbol, path string
			depth              int
			bases, derived     []string
		}{
			{
				name: "go embedding", symbol: "Admin", path: "users/user.go", depth: 1,
				bases: []string{"1 embeds users.Auditable (users/user.go)", "1 embeds users.User (users/user.go)"},
			},
			{
				name: "go embedded", symbol: "User", path: "users/user.go", depth: 1,
				derived: []string{"1 embeds users.Admin (users/user.go)"},
			},
			{
				// UserRepository has FindByID, Reader's one method: Go
				// types implement interfaces without saying so.
				name: "go interface embedding and implicit implementation", symbol: "Reader", path: "users/user.go", depth: 1,
				derived: []string{"1 embeds users.Repository (users/user.go)", "1 implements users.UserRepository (users/repo.go)"},
			},
			{
				name: "go implicit implementation", symbol: "Repository", path: "users/user.go", depth: 1,
				bases:   []string{"1 embeds users.Reader (users/user.go)"},
				derived: []string{"1 implements users.UserRepository (users/repo.go)"},
			},
			{
				name: "python", symbol: "EmailJob", path: "worker/jobs.py", depth: 1,
				bases: []string{"1 inherits jobs.Job (worker/jobs.py)", "1 inherits jobs.LoggingMixin (worker/jobs.py)"},
			},
			{
				name: "python depth 2", symbol: "EmailJob", path: "worker/jobs.py", depth: 2,
				bases: []string{"1 inherits jobs.Job (worker/jobs.py)", "1 inherits jobs.LoggingMixin (worker/jobs.py)", "2 inherits ?ABC"},
			},
			{
				name: "python derived", symbol: "Job", path: "worker/jobs.py", depth: 1,
				bases:   []string{"1 inherits ?ABC"},
				derived: []string{"1 inherits jobs.EmailJob (worker/jobs.py)", "1 inherits jobs.ReportJob (worker/jobs.py)"},
			},
			{
				name: "java", symbol: "com.example.users.JdbcUserRepository", path: "java/src/main/java/com/example/users/JdbcUserRepository.java", depth: 1,
				bases: []string{
					"1 implements com.example.users.UserRepository (java/src/main/java/com/example/users/UserRepository.java)",
					"1 inherits com.example.users.BaseRepository (java/src/main/java/com/example/users/BaseRepository.java)",
				},
			},
			{
				name: "java depth 2", symbol: "com.example.users.JdbcUserRepository", path: "java/src/main/java/com/example/users/JdbcUserRepository.java", depth: 2,
				bases: []string{
					"1 implements com.example.users.UserRepository (java/src/main/java/com/example/users/UserRepository.java)",
					"1 inherits com.example.users.BaseRepository (java/src/main/java/com/example/users/BaseRepository.java)",
					"2 inherits ?AutoCloseable",
				},
			},
			{
				name: "java interface implemented", symbol: "UserRepository", path: "java/src/main/java/com/example/users/UserRepository.java", depth: 1,
				bases:   []string{"1 inherits ?AutoCloseable"},
				derived: []string{"1 implements com.example.users.JdbcUserRepository (java/src/main/java/com/example/users/JdbcUserRepository.java)"},
			},
			{
				name: "rust impl trait for type", symbol: "User", path: "tools/userctl/src/model.rs", depth: 1,
				bases: []string{"1 implements ?Display", "1 implements model.Record (tools/userctl/src/model.rs)", "1 implements model.Validate (tools/userctl/src/model.rs)"},
			},
			{
				name: "rust trait", symbol: "Validate", path: "tools/userctl/src/model.rs", depth: 1,
				derived: []string{"1 implements model.User (tools/userctl/src/model.rs)", "1 inherits model.Record (tools/userctl/src/model.rs)"},
			},
			{
				name: "typescript depth 1", symbol: "LruCache", path: "client/src/cache.ts", depth: 1,
				bases: []string{"1 inherits cache.MemoryStore (client/src/cache.ts)"},
			},
			{
				name: "typescript depth 2", symbol: "LruCache", path: "client/src/cache.ts", depth: 2,
				bases: []string{"1 inherits cache.MemoryStore (client/src/cache.ts)", "2 inherits cache.Store (client/src/cache.ts)"},
			},
			{
				name: "typescript derived depth 2", symbol: "Store", path: "client/src/cache.ts", depth: 2,
				derived: []string{"1 inherits cache.MemoryStore (client/src/cache.ts)", "2 inherits cache.LruCache (client/src/cache.ts)"},
			},
			{
				name: "javascript", symbol: "StripStep", path: "client/scripts/build.js", depth: 3,
				bases: []string{"1 inherits build.Step (client/scripts/build.js)", "2 inherits ?EventEmitter"},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				def := lookupIn(t, ix.store, tt.symbol, tt.path)
				bases, derived, err := ix.Inheritance(ctx, def, tt.depth)
				if err != nil {
					t.Fatal(err)
				}
				if got := describeRelations(bases); !slices.Equal(got, tt.bases) {
					t.Errorf("bases of %s =\n  %q\nwant\n  %q", def.QualifiedName, got, tt.bases)
				}
				if got := describeRelations(derived); !slices.Equal(got, tt.derived) {
					t.Errorf("derived of %s =\n  %q\nwant\n  %q", def.QualifiedName, got, tt.derived)
				}
				for _, r := range append(bases, derived...) {
					if r.Symbol.ID != 0 && family(r.Symbol.Language) != family(def.Language) {
						t.Errorf("%s (%s) related to %s (%s)", def.QualifiedName, def.Language, r.Symbol.QualifiedName, r.Symbol.Language)
					}
					if r.Depth == 1 && r.From != def.QualifiedName {
						t.Errorf("relation %+v at depth 1 comes from %q", r, r.From)
					}
				}
			})
		}

		// Depth 2 records which symbol the second step came from.
		lru := lookupIn(t, ix.store, "LruCache", "client/src/cache.ts")
		bases, _, err := ix.Inheritance(ctx, lru, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range bases {
			if r.Depth == 2 && r.From != "cache.MemoryStore" {
				t.Errorf("Store reached from %q, want cache.MemoryStore", r.From)
			}
		}
		// The edge line is where the relation is written.
		admin := lookupIn(t, ix.store, "Admin", "users/user.go")
		bases, _, err = ix.Inheritance(ctx, admin, 1)
		if err != nil {
			t.Fatal(err)
		}
		wantLine, _ := samplePos(t, "users/user.go", "\tUser\n\tAuditable\n", "User")
		for _, r := range bases {
			if r.Symbol.Name == "User" && r.Line != wantLine {
				t.Errorf("Admin embeds User at line %d, want %d", r.Line, wantLine)
			}
		}
	})

	t.Run("BlastRadius", func(t *testing.T) {
		def := lookupOne(t, ix.store, "UserRepository.FindByID")
		rels, err := ix.BlastRadius(ctx, def, 0)
		if err != nil {
			t.Fatal(err)
		}
		// ServeUser has no callers: main passes it as a method value.
		want := []string{
			"1 calls Service.GetUser (users/service.go)",
			"2 calls Handler.ServeUser (api/handlers.go)",
			"2 calls Service.Rename (users/service.go)",
		}
		if got := describeRelations(rels); !slices.Equal(got, want) {
			t.Errorf("BlastRadius(UserRepository.FindByID) =\n  %q\nwant\n  %q", got, want)
		}
		serveLine, _ := samplePos(t, "api/handlers.go", "h.svc.GetUser(", "GetUser")
		for _, r := range rels {
			if r.Depth == 2 && r.From != "Service.GetUser" {
				t.Errorf("%s reached from %q, want Service.GetUser", r.Symbol.QualifiedName, r.From)
			}
			if r.Symbol.Name == "ServeUser" && r.Line != serveLine {
				t.Errorf("ServeUser calls GetUser at line %d, want %d", r.Line, serveLine)
			}
		}

		rels, err = ix.BlastRadius(ctx, def, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := describeRelations(rels), []string{"1 calls Service.GetUser (users/service.go)"}; !slices.Equal(got, want) {
			t.Errorf("BlastRadius(UserRepository.FindByID, 1) = %q, want %q", got, want)
		}

		// A type's blast radius goes through subclasses, then their callers.
		job := lookupIn(t, ix.store, "Job", "worker/jobs.py")
		rels, err = ix.BlastRadius(ctx, job, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = []string{
			"1 inherits jobs.EmailJob (worker/jobs.py)",
			"1 inherits jobs.ReportJob (worker/jobs.py)",
			"2 calls worker.main (worker/__init__.py)",
		}
		if got := describeRelations(rels); !slices.Equal(got, want) {
			t.Errorf("BlastRadius(Job) =\n  %q\nwant\n  %q", got, want)
		}
	})

	t.Run("Imports", func(t *testing.T) {
		files, imports, _, err := ix.Imports(ctx, "users")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"users/repo.go", "users/service.go", "users/user.go"}; !slices.Equal(files, want) {
			t.Errorf("Imports(users) files = %q, want %q", files, want)
		}
		var got []string
		for _, im := range imports {
			got = append(got, fmt.Sprintf("%s:%d %s", im.Path, im.Line, im.Name))
		}
		dbLine, _ := samplePos(t, "users/repo.go", `"example.com/sampleapp/internal/db"`, `"`)
		stringsLine, _ := samplePos(t, "users/service.go", `"strings"`, `"`)
		for _, w := range []string{
			fmt.Sprintf("users/repo.go:%d example.com/sampleapp/internal/db", dbLine),
			fmt.Sprintf("users/service.go:%d strings", stringsLine),
			"users/user.go:5 time",
		} {
			if !slices.Contains(got, w) {
				t.Errorf("Imports(users) lacks %s: %q", w, got)
			}
		}
		if len(imports) != 9 {
			t.Errorf("Imports(users) lists %d imports, want 9: %q", len(imports), got)
		}

		files, imports, _, err = ix.Imports(ctx, "users/repo.go")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(files, []string{"users/repo.go"}) || len(imports) != 4 {
			t.Errorf("Imports(users/repo.go) = %q, %+v", files, imports)
		}

		importers := func(target string) []string {
			_, _, by, err := ix.Imports(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, im := range by {
				out = append(out, fmt.Sprintf("%s:%d %s -> %s", im.Path, im.Line, im.Name, im.Target))
			}
			sort.Strings(out)
			return out
		}
		want := []string{
			"client/src/api.ts:2 ./cache -> client/src/cache.ts",
			"client/src/index.ts:10 ./cache -> client/src/cache.ts",
			"client/src/index.ts:7 ./cache -> client/src/cache.ts",
		}
		if got := importers("client/src/cache.ts"); !slices.Equal(got, want) {
			t.Errorf("importers of client/src/cache.ts = %q, want %q", got, want)
		}
		want = []string{
			"worker/__init__.py:12 .client -> worker/client.py",
			"worker/runner.py:7 .client -> worker/client.py",
		}
		if got := importers("worker/client.py"); !slices.Equal(got, want) {
			t.Errorf("importers of worker/client.py = %q, want %q", got, want)
		}
		// Issue 16: "from . import jobs" imports worker/jobs.py; "from
		// .client import ApiError" imports no module named ApiError.
		want = []string{
			"worker/__init__.py:11 .jobs -> worker/jobs.py",
			"worker/runner.py:6 .jobs -> worker/jobs.py",
		}
		if got := importers("worker/jobs.py"); !slices.Equal(got, want) {
			t.Errorf("importers of worker/jobs.py = %q, want %q", got, want)
		}
		_, imports, _, err = ix.Imports(ctx, "worker/runner.py")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, im := range imports {
			names = append(names, im.Name)
		}
		if want := []string{"collections", "time", ".", ".jobs", ".client"}; !slices.Equal(names, want) {
			t.Errorf("imports of worker/runner.py = %q, want %q", names, want)
		}
	})

	t.Run("Imports of Go packages by module path", func(t *testing.T) {
		_, _, by, err := ix.Imports(ctx, "users")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, im := range by {
			got = append(got, fmt.Sprintf("%s:%d %s", im.Path, im.Line, im.Name))
		}
		apiLine, _ := samplePos(t, "api/handlers.go", `"example.com/sampleapp/users"`, `"`)
		mainLine, _ := samplePos(t, "cmd/server/main.go", `"example.com/sampleapp/users"`, `"`)
		for _, w := range []string{
			fmt.Sprintf("api/handlers.go:%d example.com/sampleapp/users", apiLine),
			fmt.Sprintf("cmd/server/main.go:%d example.com/sampleapp/users", mainLine),
		} {
			if !slices.Contains(got, w) {
				t.Errorf("importers of users lack %s: %q", w, got)
			}
		}
		_, _, by, err = ix.Imports(ctx, "internal/db")
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, im := range by {
			got = append(got, im.Path)
		}
		sort.Strings(got)
		if want := []string{"cmd/server/main.go", "users/repo.go"}; !slices.Equal(got, want) {
			t.Errorf("importers of internal/db = %q, want %q", got, want)
		}
	})

	t.Run("odd input", func(t *testing.T) {
		// Query text is data, never syntax: FTS, LIKE and quoting
		// characters neither fail nor match everything.
		odd := []string{`"`, `""`, `a"b`, `*`, `user*`, `NEAR(user find)`, `AND`, `OR user`, `%`, `_`, `\\`, `'`, `us%`,
			`user_`, `^user`, `ser"`, "\x00", "\xff\xfe", "ü", "Üser", strings.Repeat("a", 300), "find by id", "--", "/*", "users/%"}
		for _, q := range odd {
			matches, err := ix.Symbols(ctx, q, 0)
			if err != nil {
				t.Errorf("Symbols(%q): %v", q, err)
			}
			for _, m := range matches {
				if m.Match != MatchInitials && !strings.Contains(strings.ToLower(m.Name), strings.ToLower(strings.TrimSpace(q))) {
					t.Errorf("Symbols(%q) returned %s (%v)", q, m.QualifiedName, m.Match)
				}
			}
			if _, err := ix.Lookup(ctx, q); err != nil {
				t.Errorf("Lookup(%q): %v", q, err)
			}
			files, _, _, err := ix.Imports(ctx, q)
			if err != nil {
				t.Errorf("Imports(%q): %v", q, err)
			}
			if len(files) != 0 {
				t.Errorf("Imports(%q) names files %q", q, files)
			}
		}
	})

	t.Run("cross-language isolation", func(t *testing.T) {
		// fetch_user is a Rust function and a Python function and method.
		syms, err := ix.Lookup(ctx, "fetch_user")
		if err != nil {
			t.Fatal(err)
		}
		langs := map[string]bool{}
		for _, s := range syms {
			langs[s.Language] = true
		}
		if !langs["rust"] || !langs["python"] {
			t.Fatalf("Lookup(fetch_user) = %+v, want Rust and Python definitions", syms)
		}
		rust := lookupIn(t, ix.store, "fetch_user", "tools/userctl/src/main.rs")
		calls, err := ix.Callers(ctx, rust)
		if err != nil {
			t.Fatal(err)
		}
		runLine, _ := samplePos(t, "tools/userctl/src/main.rs", "fetch_user(&options.server, id)", "fetch_user")
		if got, want := callerNames(calls), []string{fmt.Sprintf("userctl.run (tools/userctl/src/main.rs:%d)", runLine)}; !slices.Equal(got, want) {
			t.Errorf("Callers(Rust fetch_user) = %q, want %q", got, want)
		}

		// Every resolved call in the sample stays within its language family.
		for _, q := range []string{"user", "get", "run", "fetch", "find", "save", "new", "close", "error", "open", "load", "exec"} {
			for _, m := range mustSymbols(t, ix.store, q) {
				calls, err := ix.Callers(ctx, m.SymbolInfo)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range calls {
					if family(c.Caller.Language) != family(m.Language) {
						t.Errorf("%s (%s) is called from %s (%s, %s:%d)", m.QualifiedName, m.Language, c.Caller.QualifiedName, c.Caller.Language, c.Path, c.Line)
					}
				}
			}
		}
	})
}

func mustSymbols(t *testing.T, s *indexStore, q string) []SymbolMatch {
	t.Helper()
	matches, err := s.Symbols(context.Background(), q, 0)
	if err != nil {
		t.Fatalf("Symbols(%q): %v", q, err)
	}
	return matches
}

// A call or base class in one language never resolves to a definition of
// another language, even when nothing else has that name; JavaScript and
// TypeScript form one family.
func TestCrossLanguageIsolation(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"orders/orders.go": `package orders

type User struct{}

func ProcessOrder() {}
`,
		"worker/worker.py": `def handle():
    ProcessOrder()


class Admin(User):
    pass
`,
		"web/lib.ts": "export function sharedHelper(): void {}\n",
		"web/app.js": "function useIt() { sharedHelper(); }\n",
		"web/Main.java": `class Main {
    void go() { ProcessOrder(); }
}
`,
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)

	goFn := lookupIn(t, ix.store, "ProcessOrder", "orders/orders.go")
	if calls, err := ix.Callers(ctx, goFn); err != nil || len(calls) != 0 {
		t.Errorf("Callers(Go ProcessOrder) = %q, %v; want none (the callers are Python and Java)", callerNames(calls), err)
	}
	handle := lookupOne(t, ix.store, "handle")
	calls, err := ix.Callees(ctx, handle)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Name != "ProcessOrder" || calls[0].Callee != nil {
		t.Errorf("Callees(handle) = %+v, want one unresolved call to ProcessOrder", calls)
	}

	admin := lookupOne(t, ix.store, "Admin")
	bases, _, err := ix.Inheritance(ctx, admin, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describeRelations(bases), []string{"1 inherits ?User"}; !slices.Equal(got, want) {
		t.Errorf("bases of Python Admin = %q, want %q (not the Go struct)", got, want)
	}
	goUser := lookupIn(t, ix.store, "User", "orders/orders.go")
	if _, derived, err := ix.Inheritance(ctx, goUser, 1); err != nil || len(derived) != 0 {
		t.Errorf("derived of Go User = %q, %v; want none", describeRelations(derived), err)
	}

	helper := lookupOne(t, ix.store, "sharedHelper")
	calls, err = ix.Callers(ctx, helper)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := callerNames(calls), []string{"app.useIt (web/app.js:1)"}; !slices.Equal(got, want) {
		t.Errorf("Callers(TypeScript sharedHelper) = %q, want %q", got, want)
	}

	// Once Python defines ProcessOrder, the Python call reaches it and
	// still not the Go function.
	writeWorkspace(t, root, map[string]string{"worker/orders.py": "def ProcessOrder():\n    pass\n"})
	mustUpdate(t, ix)
	calls, err = ix.Callees(ctx, lookupOne(t, ix.store, "handle"))
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Callee == nil || calls[0].Callee.Path != "worker/orders.py" {
		t.Errorf("Callees(handle) = %+v, want ProcessOrder in worker/orders.py", calls)
	}
	if calls, err := ix.Callers(ctx, goFn); err != nil || len(calls) != 0 {
		t.Errorf("Callers(Go ProcessOrder) = %q, %v; want none", callerNames(calls), err)
	}
}

// Symbols ranks exact matches, then prefixes, then initials, then
// substrings.
func TestSymbolsRanksMatchTiers(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, map[string]string{
		"ranks.go": `package ranks

func doGuess() {}
func getUser() {}
func guard()   {}
func gu()      {}
func unrelated() {}
`,
	})
	ix := openTestIndex(t, root, nil)
	mustUpdate(t, ix)
	for _, q := range []string{"gu", "GU"} {
		var got []string
		for _, m := range mustSymbols(t, ix.store, q) {
			got = append(got, m.Name+":"+m.Match.String())
		}
		want := []string{"gu:exact", "guard:prefix", "getUser:initials", "doGuess:substring"}
		if !slices.Equal(got, want) {
			t.Errorf("Symbols(%q) = %q, want %q", q, got, want)
		}
	}
}

// A first build large enough to be a bulk load (indexes and name trigrams
// made at the end) answers substring searches like any other.
func TestBulkBuildFindsSubstrings(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < bulkThreshold+50; i++ {
		files[fmt.Sprintf("p%d/f.go", i)] = fmt.Sprintf("package p%d\n\nfunc Func%d() {}\n", i, i)
	}
	files["found/t.go"] = "package found\n\nfunc SubstringTarget() {}\n"
	writeWorkspace(t, root, files)
	ix := openTestIndex(t, root, nil)
	sum := mustUpdate(t, ix)
	if sum.Files != len(files) {
		t.Fatalf("indexed %d files, want %d", sum.Files, len(files))
	}
	matches, err := ix.Symbols(context.Background(), "stringtarg", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != 1 || matches[0].Name != "SubstringTarget" || matches[0].Match != MatchSubstring {
		t.Fatalf("Symbols(stringtarg) = %+v, want SubstringTarget by substring", matches)
	}
	// The load leaves every index in place and the text indexes' memory
	// for pending terms at FTS5's default.
	for _, name := range []string{"nodes_file", "nodes_lname", "nodes_initials", "edges_dst", "edges_src", "edges_subject", "chunks_file"} {
		var n int
		if err := ix.store.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&n); err != nil || n != 1 {
			t.Errorf("index %s: %d (%v), want it after a bulk build", name, n, err)
		}
	}
	for _, table := range []string{"name_trigrams_config", "chunk_fts_config"} {
		var size string
		err := ix.store.db.QueryRow(`SELECT coalesce((SELECT v FROM ` + table + ` WHERE k = 'hashsize'), '1048576')`).Scan(&size)
		if err != nil || size != defaultHashSize {
			t.Errorf("%s hashsize = %q (%v), want %s", table, size, err, defaultHashSize)
		}
	}
}

func TestCallersCancelled(t *testing.T) {
	ix := indexSample(t)
	syms, err := ix.Lookup(context.Background(), "FindByID")
	if err != nil || len(syms) == 0 {
		t.Fatalf("Lookup(FindByID) = %v, %v", syms, err)
	}
	calls, err := ix.Callers(context.Background(), syms[0])
	if err != nil || len(calls) == 0 {
		t.Fatalf("Callers(%s) = %v, %v; want some", syms[0].QualifiedName, calls, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if calls, err := ix.Callers(ctx, syms[0]); err == nil {
		t.Errorf("Callers with a cancelled context = %v, want an error", calls)
	}
}
