package memdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	f.Add("")
	f.Add(selectDoc)
	f.Add("<!--anchor:a--><!-- /ANCHOR:a -->")
	f.Add("<!-- ANCHOR:a -->\n<!-- ANCHOR:b -->\n<!-- /ANCHOR:a -->\n<!-- /ANCHOR:b -->")
	f.Add("```\n<!-- ANCHOR:a -->\n```\n<!-- ANCHOR:<!-- ANCHOR:a-- -->")
	f.Add("---\ntitle: [x\n---\n<!-- ANCHOR:a -->")
	f.Add("\ufeff---\r\ntrigger_phrases: {a: [b]}\r\nimportance_tier: 3\r\n...\r\n# T")
	for _, p := range []string{".anchorage/memory/broken.md", ".anchorage/memory/decisions/retry-policy.md"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "workspace", p)); err == nil {
			f.Add(string(data))
		}
	}
}

// FuzzParseSections checks the scanner's invariants on any input, and
// that Select returns exactly the bodies of the sections found.
func FuzzParseSections(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, content string) {
		ss, ws := ParseSections(content)
		checkInvariants(t, content, ss, ws)
		// Select reads the sections after the front matter, as Parse does:
		// a marker inside the front matter is YAML text, not a section.
		_, body, _ := SplitFrontMatter(content)
		ss, _ = parseSections(content, body)
		var ids []string
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
		ids = append(ids, "no-such-section")
		got, missing := Select(content, ids)
		if len(missing) != 1 || missing[0] != "no-such-section" {
			t.Fatalf("missing = %q", missing)
		}
		if len(ss) > 0 && !strings.Contains(got, ss[0].Body(content)) {
			t.Fatalf("selection %q lacks the first section", got)
		}
		m := Metrics(content, got)
		if m.FullTokens < 0 || m.ReturnedTokens < 0 || (m.FullTokens == 0 && m.SavingsPct != 0) {
			t.Fatalf("metrics = %+v", m)
		}
	})
}

// FuzzParse checks that any file loads: the front matter split, the YAML
// and the sections never panic, and positions stay in the file.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, content string) {
		header, body, ok := SplitFrontMatter(content)
		if body < 0 || body > len(content) || (!ok && (header != "" || body != 0)) {
			t.Fatalf("SplitFrontMatter = %q, %d, %v", header, body, ok)
		}
		if header != "" && !strings.Contains(content[:body], header) {
			t.Fatalf("header %q is not in the front matter", header)
		}
		d := Parse("/w", "a.md", content)
		if d.Content != content || d.Title == "" || !ValidTier(d.ImportanceTier) {
			t.Fatalf("document = %+v", d)
		}
		for _, s := range d.Sections {
			if s.Start < body {
				t.Fatalf("section %+v inside the front matter (body at %d)", s, body)
			}
		}
		for _, w := range d.Warnings {
			if w.Start < 0 || w.End > len(content) || w.Start > w.End || w.Line < 1 || w.Message == "" {
				t.Fatalf("warning %+v out of the file (len %d)", w, len(content))
			}
		}
	})
}
