package retrieval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// routeCase is one line of a router test set.
type routeCase struct {
	Q   string   `json:"q"`
	S   Strategy `json:"s"`
	Op  string   `json:"op,omitempty"`
	Sym string   `json:"sym,omitempty"`
	Kw  string   `json:"kw,omitempty"`
}

func readCases(t *testing.T, name string) []routeCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []routeCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c routeCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v in %s", name, err, sc.Text())
		}
		out = append(out, c)
	}
	return out
}

// evaluate routes every case and reports accuracy, the confusion table
// and each miss.
func evaluate(t *testing.T, cases []routeCase) (accuracy float64, misses []string) {
	t.Helper()
	r := NewRouter()
	confusion := map[Strategy]map[Strategy]int{}
	right := 0
	for _, c := range cases {
		got := r.Route(c.Q)
		if confusion[c.S] == nil {
			confusion[c.S] = map[Strategy]int{}
		}
		confusion[c.S][got.Strategy]++
		switch {
		case got.Strategy != c.S:
			misses = append(misses, fmt.Sprintf("%q: %s (%s), want %s", c.Q, got.Strategy, got.Reasoning, c.S))
		case c.Op != "" && got.StructuralOperation != c.Op:
			misses = append(misses, fmt.Sprintf("%q: operation %q, want %q", c.Q, got.StructuralOperation, c.Op))
		case c.Sym != "" && got.StructuralQuery != c.Sym:
			misses = append(misses, fmt.Sprintf("%q: symbol %q, want %q", c.Q, got.StructuralQuery, c.Sym))
		case c.Kw != "" && got.KeywordQuery != c.Kw:
			misses = append(misses, fmt.Sprintf("%q: keyword %q, want %q", c.Q, got.KeywordQuery, c.Kw))
		default:
			right++
		}
	}
	var lines []string
	for want, row := range confusion {
		lines = append(lines, fmt.Sprintf("  %-10s → semantic %3d  structural %3d  keyword %3d  hybrid %3d", want,
			row[Semantic], row[Structural], row[Keyword], row[Hybrid]))
	}
	sort.Strings(lines)
	t.Logf("confusion (want → got):\n%s", strings.Join(lines, "\n"))
	return float64(right) / float64(len(cases)), misses
}

// TestRouterSeed requires every query of the published seed set to route
// right.
func TestRouterSeed(t *testing.T) {
	acc, misses := evaluate(t, readCases(t, "router-seed.jsonl"))
	for _, m := range misses {
		t.Error(m)
	}
	t.Logf("seed accuracy %.3f", acc)
}

// TestRouterCases measures the router on the project's own cases: every
// strategy phrased many ways, with the operation, symbol and keyword to
// extract. It requires 95 % of them fully right.
func TestRouterCases(t *testing.T) {
	cases := readCases(t, "router-cases.jsonl")
	acc, misses := evaluate(t, cases)
	for _, m := range misses {
		t.Log("miss:", m)
	}
	t.Logf("accuracy %.3f on %d cases", acc, len(cases))
	if acc < 0.95 {
		t.Errorf("accuracy %.3f, want at least 0.95", acc)
	}
}

func TestRouteBadInput(t *testing.T) {
	r := NewRouter()
	tests := []struct {
		name, q string
	}{
		{"empty", ""},
		{"blank", " \t\n "},
		{"binary", "\x00\xff\xfe\x01abc"},
		{"huge", strings.Repeat("how does authentication work ", 1000)},
		{"only a prefix", "kw:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := r.Route(tt.q)
			if rt.Confidence < 0 || rt.Confidence > 1 || rt.Reasoning == "" {
				t.Errorf("Route(%q) = %+v", tt.q, rt)
			}
			if !utf8.ValidString(rt.SemanticQuery + rt.KeywordQuery + rt.StructuralQuery) {
				t.Errorf("Route(%q) returned invalid UTF-8: %+v", tt.q, rt)
			}
		})
	}
	if rt := r.Route(""); rt.Confidence != 0 || rt.Reasoning != "empty query" {
		t.Errorf("empty query: %+v", rt)
	}
	if rt := r.Route(strings.Repeat("x", MaxQuery+10)); !strings.Contains(rt.Reasoning, "cut") {
		t.Errorf("huge query not reported as cut: %+v", rt)
	}
	if rt := r.Route(strings.Repeat("x ", MaxTaskQuery)); !rt.Task || !strings.Contains(rt.Reasoning, "cut") {
		t.Errorf("huge task not routed as a task cut to its first bytes: %+v", rt)
	}
}

// TestRouteTasks checks that pasted tasks — issues, tracebacks, logs,
// diffs — are routed as task descriptions, searched by meaning and
// evidence, never as one exact-text pattern; and that search box queries
// are not.
func TestRouteTasks(t *testing.T) {
	r := NewRouter()
	tests := []struct {
		name string
		q    string
		task bool
	}{
		{"python traceback", "Traceback (most recent call last):\n  File \"worker/jobs.py\", line 12, in retry\nOSError: boom", true},
		{"one traceback frame", `File "x.py", line 3, in f`, true},
		{"go panic", "panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\nmain.main()\n\t/x/main.go:9 +0x1d", true},
		{"java stack", "Exception in thread \"main\" java.lang.NullPointerException\n\tat com.example.Foo.bar(Foo.java:12)", true},
		{"diff", "--- a/users/repo.go\n+++ b/users/repo.go\n@@ -1,3 +1,3 @@ func Open\n-x\n+y", true},
		{"issue with code", "Render error when combining parameters\n**Describe the bug**\nWhen I call `parse(x, y)` it fails.\n```\nparse(1, {})\n```\nExpected: no error at all.", true},
		{"long prose", strings.Repeat("the worker should retry jobs that fail ", 6), true},
		{"quoted code in a long issue", `Calling "foo(bar);" with an empty list raises an exception, although the documentation says that an empty list is fine and returns nothing at all in that case. I expected the call to return an empty result instead, as it did in the release before this one, and as the other functions of the module still do.`, true},
		{"short question", "how does the worker retry failed jobs", false},
		{"symbol", "FindByID", false},
		{"callers", "who calls UserRepository.FindByID", false},
		{"exact text", `"connection refused"`, false},
		{"one panic line", "panic: assignment to entry in nil map", false},
		{"forced keyword", "kw: " + strings.Repeat("word ", 60), false},
		{"two lines", "retry failed jobs\nin the worker", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := r.Route(tt.q)
			if rt.Task != tt.task {
				t.Fatalf("Route(%q): task %v (%s: %s), want %v", tt.q, rt.Task, rt.Strategy, rt.Reasoning, tt.task)
			}
			if tt.task && (rt.Strategy != Semantic || !strings.Contains(rt.Reasoning, "task description")) {
				t.Errorf("Route(%q) = %s (%s), want a semantic task search", tt.q, rt.Strategy, rt.Reasoning)
			}
		})
	}
}

func FuzzRoute(f *testing.F) {
	for _, q := range []string{"what calls FindByID", "find TODO comments", "kw:x", "/a|b/", "\"x\"", "the auth code and its callers", "(", "sym:",
		"Traceback (most recent call last):\n  File \"a.py\", line 1, in f", "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b", "\n\tat x(y.java:1)",
		strings.Repeat("word ", 50), strings.Repeat(".", 5000), "```\n```", "`", "File \""} {
		f.Add(q)
	}
	r := NewRouter()
	f.Fuzz(func(t *testing.T, q string) {
		rt := r.Route(q)
		switch rt.Strategy {
		case Semantic, Structural, Keyword, Hybrid:
		default:
			t.Fatalf("Route(%q) strategy %q", q, rt.Strategy)
		}
		if rt.Confidence < 0 || rt.Confidence > 1 {
			t.Fatalf("Route(%q) confidence %v", q, rt.Confidence)
		}
	})
}

func BenchmarkRoute(b *testing.B) {
	r := NewRouter()
	qs := []string{"how does authentication work", "what calls users.NewService", "lines containing 'API_KEY'",
		"show me the config system and its callers", "FindByID"}
	i := 0
	for b.Loop() {
		r.Route(qs[i%len(qs)])
		i++
	}
}

// TestRouterHoldout measures the router on cases written after its rules,
// to see how it generalises; it requires 90 %.
func TestRouterHoldout(t *testing.T) {
	acc, misses := evaluate(t, readCases(t, "router-holdout.jsonl"))
	for _, m := range misses {
		t.Log("miss:", m)
	}
	t.Logf("held-out accuracy %.3f", acc)
	if acc < 0.9 {
		t.Errorf("held-out accuracy %.3f, want at least 0.9", acc)
	}
}

func TestRouteInheritanceDirection(t *testing.T) {
	r := NewRouter()
	for _, tc := range []struct{ q, want string }{
		{"implementations of hash.Hash", DirectionDown},
		{"types that implement fs.FS", DirectionDown},
		{"subclasses of BaseHandler", DirectionDown},
		{"who extends Animal", DirectionDown},
		{"what implements Reader", DirectionDown},
		{"what does UserRepository implement", DirectionUp},
		{"what interfaces does Repo implement?", DirectionUp},
		{"base class of AdminUser", DirectionUp},
		{"class hierarchy of Shape", ""},
	} {
		t.Run(tc.q, func(t *testing.T) {
			rt := r.Route(tc.q)
			if rt.StructuralOperation != OpInheritance {
				t.Fatalf("Route(%q) = %s %s, want an inheritance question", tc.q, rt.Strategy, rt.StructuralOperation)
			}
			if rt.InheritanceDirection != tc.want {
				t.Errorf("Route(%q).InheritanceDirection = %q, want %q", tc.q, rt.InheritanceDirection, tc.want)
			}
		})
	}
	if rt := r.Route("who calls Reader.Read"); rt.InheritanceDirection != "" {
		t.Errorf("a callers question has direction %q, want none", rt.InheritanceDirection)
	}
}

func TestRouteKeywordScope(t *testing.T) {
	r := NewRouter()
	for _, tc := range []struct{ q, term, scope string }{
		{`grep for "Deprecated:" in crypto/x509`, "Deprecated:", "crypto/x509"},
		{"TODO comments under net/http", "TODO", "net/http"},
		{"find all occurrences of ErrNotFound in users/", "ErrNotFound", "users/"},
		{`where is "max retries" used in the worker`, "max retries", "worker"},
		{"grep for retry in worker/retry.py", "retry", "worker/retry.py"},
		{"TODO in the code", "TODO", ""},
		{"grep for error in handler", "error in handler", ""},
		{`grep for "in main.go"`, "in main.go", ""},
	} {
		t.Run(tc.q, func(t *testing.T) {
			rt := r.Route(tc.q)
			if rt.Strategy != Keyword || rt.KeywordQuery != tc.term || rt.KeywordScope != tc.scope {
				t.Errorf("Route(%q) = %s %q in %q, want keyword %q in %q", tc.q, rt.Strategy, rt.KeywordQuery, rt.KeywordScope, tc.term, tc.scope)
			}
		})
	}
}
