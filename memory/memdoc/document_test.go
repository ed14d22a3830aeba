package memdoc

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// render describes a document for the golden files.
func render(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\ntitle: %s\ndescription: %s\ntrigger_phrases: %q\nimportance_tier: %s\ncontext_type: %s\n",
		d.ID, d.Title, d.Description, d.TriggerPhrases, d.ImportanceTier, d.ContextType)
	b.WriteString("sections:\n")
	for _, s := range d.Sections {
		depth := 0
		for p := s.Parent; p >= 0; p = d.Sections[p].Parent {
			depth++
		}
		fmt.Fprintf(&b, "  %s%s lines %d-%d: %q\n", strings.Repeat("  ", depth), s.ID, s.StartLine, s.EndLine, s.Body(d.Content))
	}
	b.WriteString("warnings:\n")
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "  %s:%s [%s]\n", d.Path, w, w.Kind)
	}
	return b.String()
}

func TestParseGolden(t *testing.T) {
	root := filepath.Join("testdata", "workspace")
	for _, rel := range []string{
		".anchorage/memory/decisions/retry-policy.md",
		".anchorage/memory/broken.md",
		"specs/042-retries/memory/notes.md",
	} {
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			got := render(Parse(root, rel, string(data)))
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimPrefix(rel, "."), "/", "_")+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestParseFrontMatter(t *testing.T) {
	tests := []struct {
		name, content        string
		title, tier, context string
		phrases              []string
		warnings             string
	}{
		{"none", "# Heading\ntext", "Heading", "normal", "", nil, ""},
		{"none, no heading", "text", "note", "normal", "", nil, ""},
		{"full", "---\ntitle: T\ndescription: D\ntrigger_phrases: [a b, c]\nimportance_tier: Important\ncontextType: decision\n---\n# H\n",
			"T", "important", "decision", []string{"a b", "c"}, ""},
		{"camel and snake aliases", "---\ntriggerPhrases: x\nimportanceTier: deprecated\ncontext_type: research\n---\n",
			"note", "deprecated", "research", []string{"x"}, ""},
		{"BOM and CRLF", "\ufeff---\r\ntitle: T\r\n---\r\nbody", "T", "normal", "", nil, ""},
		{"closed by dots", "---\ntitle: T\n...\nbody", "T", "normal", "", nil, ""},
		{"bad yaml loads the body", "---\ntitle: [x\n---\n<!-- ANCHOR:a --><!-- /ANCHOR:a -->\n# H\n", "H", "normal", "", nil, "front-matter@2:1"},
		{"wrong type keeps the rest", "---\ntitle: T\ntrigger_phrases: {a: b}\n---\n", "T", "normal", "", nil, "front-matter@3:1"},
		{"unknown tier", "---\ntitle: T\nimportance_tier: urgent\n---\n", "T", "normal", "", nil, "front-matter@3:1"},
		{"not closed", "---\ntitle: T\n# H\n", "H", "normal", "", nil, "front-matter@1:1"},
		{"not front matter", "text\n---\ntitle: T\n---\n", "note", "normal", "", nil, ""},
		{"empty front matter", "---\n---\n# H", "H", "normal", "", nil, ""},
		{"heading in fence is not the title", "```\n# no\n```\n# yes\n", "yes", "normal", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse("/w", "dir/note.md", tt.content)
			if d.Title != tt.title || d.ImportanceTier != tt.tier || d.ContextType != tt.context || !slices.Equal(d.TriggerPhrases, tt.phrases) {
				t.Errorf("got title %q tier %q context %q phrases %q", d.Title, d.ImportanceTier, d.ContextType, d.TriggerPhrases)
			}
			if got := warningSummary(d.Warnings); got != tt.warnings {
				t.Errorf("warnings = %q (%v), want %q", got, d.Warnings, tt.warnings)
			}
			if d.ID != "doc:dir/note.md" || d.Content != tt.content {
				t.Errorf("id %q or content changed", d.ID)
			}
		})
	}
	t.Run("sections after bad front matter", func(t *testing.T) {
		d := Parse("/w", "n.md", "---\ntitle: [x\n---\n<!-- ANCHOR:a -->A<!-- /ANCHOR:a -->\n")
		if len(d.Sections) != 1 || d.Sections[0].StartLine != 4 {
			t.Errorf("sections = %+v", d.Sections)
		}
	})
}

func TestTierBoost(t *testing.T) {
	order := []string{TierDeprecated, TierTemporary, TierNormal, TierImportant, TierCritical, TierConstitutional}
	for i := 1; i < len(order); i++ {
		if TierBoost(order[i-1]) >= TierBoost(order[i]) {
			t.Errorf("TierBoost(%s) >= TierBoost(%s)", order[i-1], order[i])
		}
	}
	for _, tier := range []string{"", "unknown", TierNormal} {
		if TierBoost(tier) != 1 {
			t.Errorf("TierBoost(%q) = %v, want 1", tier, TierBoost(tier))
		}
	}
	if TierBoost(" Critical ") != TierBoost(TierCritical) {
		t.Error("TierBoost ignores case and spaces")
	}
}

func TestTriggers(t *testing.T) {
	d := &Document{TriggerPhrases: []string{"retry policy", "backoff", "065"}, ImportanceTier: TierNormal}
	tests := []struct {
		query string
		want  []string
	}{
		{"What is the Retry-Policy?", []string{"retry policy"}},
		{"retrying with backoff", []string{"backoff"}},
		{"policy retry", nil},
		{"spec 065 backoff retry policy", []string{"retry policy", "backoff", "065"}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := d.MatchedTriggers(tt.query)
			if !slices.Equal(got, tt.want) {
				t.Errorf("MatchedTriggers = %q, want %q", got, tt.want)
			}
			want := 1 + min(TriggerBoost*float64(len(tt.want)), MaxTriggerBoost)
			if b := d.Boost(tt.query); b != want {
				t.Errorf("Boost = %v, want %v", b, want)
			}
		})
	}
	d.ImportanceTier = TierCritical
	if d.Boost("backoff") <= d.Boost("nothing") || d.Boost("nothing") != TierBoost(TierCritical) {
		t.Error("tier and triggers should both raise the boost")
	}
}
