package memory

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParseLLMAnswer checks that whatever an LLM answers, parseLLMAnswer
// either refuses it or returns an answer that satisfies the schema.
func FuzzParseLLMAnswer(f *testing.F) {
	for _, s := range []string{
		`{"category":"rule","scope":"language:go","content":"Never use panic","rationale":"crashes"}`,
		"```json\n{\"category\":\"preference\",\"scope\":\"universal\",\"content\":\"Be brief\",\"rationale\":\"\"}\n```",
		`{"category":"rule","scope":"project:XCalibr UI","content":"Use PortalTabs","rationale":"y","extra":[1,2]}`,
		`{"category":"rule","scope":"project","content":"x","rationale":"y"}`,
		`{"category":"correction","scope":"language:c++","content":"\u00e9t\u00e9","rationale":"\ud83d\ude00"}`,
		`{"category":"rule","scope":"universal","content":"a\u0000b","rationale":"y"}`,
		`{"category":"rule"`, `null`, `[]`, `""`, ``, "```", `{} {}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := parseLLMAnswer(text)
		if err != nil {
			return
		}
		if !validCategory(a.Category) {
			t.Fatalf("category %q", a.Category)
		}
		if a.Scope != KindProject {
			n, err := NormalizeScope(a.Scope)
			if err != nil || n != a.Scope {
				t.Fatalf("scope %q: normalised %q, %v", a.Scope, n, err)
			}
		}
		if a.Content == "" {
			t.Fatal("empty content")
		}
		for _, s := range []string{a.Content, a.Rationale} {
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxAnswerRunes || s != strings.TrimSpace(s) {
				t.Fatalf("text %q: invalid UTF-8, too long or not trimmed", s)
			}
			if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) }) >= 0 {
				t.Fatalf("text %q has control characters", s)
			}
		}
	})
}

// FuzzDecodeOllamaAnswer checks that no response body makes the decoder
// fail other than with an error.
func FuzzDecodeOllamaAnswer(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","response":"{}","done":true}`,
		`{"message":{"role":"assistant","content":"x"},"done":true}`,
		"{\"response\":\"a\",\"done\":false}\n{\"response\":\"b\",\"done\":true}",
		`{"error":"boom"}`, `{"response":null,"done":true}`, `[]`, ``,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		api := APIGenerate
		if chat {
			api = APIChat
		}
		got, err := decodeOllamaAnswer(body, api)
		if err == nil && len(got) > len(body) {
			t.Fatalf("answer of %d bytes from a body of %d", len(got), len(body))
		}
	})
}

// FuzzAnalyzeProse checks that any correction text can be analysed and
// compared without failing, and that a text is always like itself.
func FuzzAnalyzeProse(f *testing.F) {
	for _, s := range []string{"Never use panic in production Go code", "don’t be verbose", "HTTPServer_logging", "", "'''", "n't", "日本語のテキスト"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a := analyzeProse(text)
		if len(a.tokens) > 0 && proseSimilarity(a, a) != 1 {
			t.Fatalf("similarity of %q with itself = %v", text, proseSimilarity(a, a))
		}
		inferCategory(text)
		inferScope([]string{text}, map[string]int{"go": 1}, "p")
	})
}

// FuzzReadAnchorMeta reads anchor metadata as a database may hold it,
// written by this version, an older one or something else: it never
// panics, and what RuleAnchor writes reads back.
func FuzzReadAnchorMeta(f *testing.F) {
	f.Add(`{"l":12}`, "project:app", "/src/app", "app", 12)
	f.Add(`{"line":3,"root":"/src/app","project":"app","kind":"method"}`, "universal", "/x", "y", 0)
	f.Add(`{"l":"x","r":5}`, "language:go", "", "", -1)
	f.Add(`[`, "", "/", "p", 1<<40)
	f.Fuzz(func(t *testing.T, meta, scope, root, project string, line int) {
		m := ReadAnchorMeta(Rule{Scope: scope, Anchor: &RuleAnchor{File: "a.go", Metadata: []byte(meta)}})
		if m.Threshold <= 0 {
			t.Errorf("threshold %v from %q", m.Threshold, meta)
		}
		if _, err := checkProjectName(project); err != nil || project != strings.TrimSpace(project) || !utf8.ValidString(root) {
			return // projects are checked before anchors are made
		}
		res := &AnchorResult{Scope: scope, Threshold: DefaultAnchorThreshold, Anchor: &AnchorCandidate{File: "a.go", Line: line}}
		ra := res.RuleAnchor(root, project)
		back := ReadAnchorMeta(Rule{Scope: scope, Anchor: ra})
		if back.Line != line || back.Project != project && ProjectName(root) != project {
			t.Errorf("RuleAnchor(%q, %q) at line %d wrote %s, read back %+v", root, project, line, ra.Metadata, back)
		}
	})
}
