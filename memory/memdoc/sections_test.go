package memdoc

import (
	"fmt"
	"strings"
	"testing"
)

// sectionSummary renders sections as "id@startLine-endLine^parentID".
func sectionSummary(ss []Section) string {
	var parts []string
	for _, s := range ss {
		parent := "-"
		if s.Parent >= 0 {
			parent = ss[s.Parent].ID
		}
		parts = append(parts, fmt.Sprintf("%s@%d-%d^%s", s.ID, s.StartLine, s.EndLine, parent))
	}
	return strings.Join(parts, " ")
}

// warningSummary renders warnings as "kind@line:col".
func warningSummary(ws []Warning) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s@%d:%d", w.Kind, w.Line, w.Column))
	}
	return strings.Join(parts, " ")
}

func TestParseSections(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		sections string
		warnings string
	}{
		{"empty", "", "", ""},
		{"no markers", "# Title\n\ntext <!-- a comment -->\n", "", ""},
		{"one", "<!-- ANCHOR:summary -->\nx\n<!-- /ANCHOR:summary -->\n", "summary@1-3^-", ""},
		{"spacing and case", "<!--anchor:a-->x<!--  /  Anchor : a  -->", "a@1-1^-", ""},
		{"nested different ids", "<!-- ANCHOR:a -->\n<!-- ANCHOR:b -->\n<!-- /ANCHOR:b -->\n<!-- /ANCHOR:a -->\n",
			"a@1-4^- b@2-3^a", ""},
		{"siblings", "<!-- ANCHOR:a --><!-- /ANCHOR:a -->\n<!-- ANCHOR:b --><!-- /ANCHOR:b -->", "a@1-1^- b@2-2^-", ""},
		{"unclosed", "x\n<!-- ANCHOR:a -->\ny\n", "", "unclosed@2:1"},
		{"close without open", "<!-- /ANCHOR:a -->", "", "close-without-open@1:1"},
		{"mismatched close, open kept", "<!-- ANCHOR:a -->\n<!-- /ANCHOR:b -->\n<!-- /ANCHOR:a -->",
			"a@1-3^-", "mismatched-close@2:1"},
		{"close skips an open inner section", "<!-- ANCHOR:a -->\n<!-- ANCHOR:b -->\n<!-- /ANCHOR:a -->\n<!-- /ANCHOR:b -->",
			"a@1-3^-", "unclosed@2:1 mismatched-close@3:1 close-without-open@4:1"},
		{"child of a dropped section moves up", "<!-- ANCHOR:a -->\n<!-- ANCHOR:b -->\n<!-- ANCHOR:c --><!-- /ANCHOR:c -->\n<!-- /ANCHOR:a -->",
			"a@1-4^- c@3-3^a", "unclosed@2:1 mismatched-close@4:1"},
		{"duplicate id", "<!-- ANCHOR:a --><!-- /ANCHOR:a -->\n<!-- ANCHOR:a --><!-- /ANCHOR:a -->",
			"a@1-1^- a@2-2^-", "duplicate-id@2:1"},
		{"nested same id", "<!-- ANCHOR:a -->\n  <!-- ANCHOR:a -->\n<!-- /ANCHOR:a -->",
			"a@1-3^-", "nested-same-id@2:3"},
		{"invalid id", "<!-- ANCHOR:bad id -->\n<!-- ANCHOR:ok --><!-- /ANCHOR:ok -->", "ok@2-2^-", "invalid-id@1:1"},
		{"empty id", "<!-- ANCHOR: -->", "", "invalid-id@1:1"},
		{"unterminated marker", "<!-- ANCHOR:a\n-->", "", "invalid-id@1:1"},
		{"id too long", "<!-- ANCHOR:" + strings.Repeat("x", MaxIDLen+1) + " -->", "", "invalid-id@1:1"},
		{"longest id", "<!-- ANCHOR:" + strings.Repeat("x", MaxIDLen) + " --><!-- /ANCHOR:" + strings.Repeat("x", MaxIDLen) + " -->",
			strings.Repeat("x", MaxIDLen) + "@1-1^-", ""},
		{"not the keyword", "<!-- ANCHORS:a --><!-- ANCHOR -->", "", ""},
		{"fenced code is text", "```md\n<!-- ANCHOR:a -->\n```\n~~~\n<!-- /ANCHOR:b -->\n~~~\n", "", ""},
		{"fence closes only with its own character", "```\n~~~\n<!-- ANCHOR:a -->\n```\n<!-- ANCHOR:b --><!-- /ANCHOR:b -->", "b@5-5^-", ""},
		{"CRLF", "<!-- ANCHOR:a -->\r\nx\r\n<!-- /ANCHOR:a -->\r\n", "a@1-3^-", ""},
		{"ids with dots and dashes", "<!-- ANCHOR:v1.2_summary-x --><!-- /ANCHOR:v1.2_summary-x -->", "v1.2_summary-x@1-1^-", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, ws := ParseSections(tt.content)
			if got := sectionSummary(ss); got != tt.sections {
				t.Errorf("sections = %q, want %q", got, tt.sections)
			}
			if got := warningSummary(ws); got != tt.warnings {
				t.Errorf("warnings = %q, want %q", got, tt.warnings)
			}
			checkInvariants(t, tt.content, ss, ws)
		})
	}
}

// checkInvariants checks what holds for any content.
func checkInvariants(t *testing.T, content string, ss []Section, ws []Warning) {
	t.Helper()
	for i, s := range ss {
		if !(0 <= s.Start && s.Start < s.BodyStart && s.BodyStart <= s.BodyEnd && s.BodyEnd < s.End && s.End <= len(content)) {
			t.Fatalf("section %d %+v: offsets out of order (len %d)", i, s, len(content))
		}
		if s.StartLine < 1 || s.EndLine < s.StartLine {
			t.Fatalf("section %d %+v: bad lines", i, s)
		}
		if s.Parent >= i || s.Parent < -1 {
			t.Fatalf("section %d %+v: parent must come before", i, s)
		}
		if s.Parent >= 0 {
			p := ss[s.Parent]
			if !(p.BodyStart <= s.Start && s.End <= p.BodyEnd) {
				t.Fatalf("section %d %+v is not inside its parent %+v", i, s, p)
			}
		}
		if !ValidID(s.ID) {
			t.Fatalf("section %d has an invalid id %q", i, s.ID)
		}
		if got := strings.Count(content[:s.Start], "\n") + 1; got != s.StartLine {
			t.Fatalf("section %d starts on line %d, says %d", i, got, s.StartLine)
		}
	}
	for i, w := range ws {
		if !(0 <= w.Start && w.Start < w.End && w.End <= len(content)) {
			t.Fatalf("warning %d %+v: bad range (len %d)", i, w, len(content))
		}
		if got := strings.Count(content[:w.Start], "\n") + 1; got != w.Line {
			t.Fatalf("warning %d on line %d, says %d", i, got, w.Line)
		}
		if w.Message == "" {
			t.Fatalf("warning %d has no message", i)
		}
		if i > 0 && ws[i-1].Start > w.Start {
			t.Fatalf("warnings not in order: %+v before %+v", ws[i-1], w)
		}
	}
}

func TestWarningMessages(t *testing.T) {
	_, ws := ParseSections("<!-- ANCHOR:a -->\n<!-- /ANCHOR:b -->\n")
	want := []string{
		`2:1: close of section "b", but the open section is "a" (line 1); this marker is ignored`,
		`1:1: section "a" is never closed`,
	}
	if len(ws) != 2 {
		t.Fatalf("warnings = %v", ws)
	}
	got := []string{ws[1].String(), ws[0].String()}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("warning = %q, want %q", got[i], want[i])
		}
	}
}

// TestParseSectionsLinear checks that pathological inputs (many open
// markers, many unterminated markers on one line) still parse, and that
// the number of sections equals the markers.
func TestParseSectionsLinear(t *testing.T) {
	const n = 20000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<!-- ANCHOR:s%d -->\n", i)
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "<!-- /ANCHOR:s%d -->\n", i)
	}
	ss, ws := ParseSections(b.String())
	if len(ss) != n || len(ws) != 0 {
		t.Fatalf("got %d sections, %d warnings; want %d, 0", len(ss), len(ws), n)
	}
	if ss[n-1].Parent != n-2 {
		t.Fatalf("deepest section's parent = %d", ss[n-1].Parent)
	}
	line := strings.Repeat("<!-- ANCHOR:", n)
	_, ws = ParseSections(line)
	if len(ws) != n {
		t.Fatalf("got %d warnings for %d bad markers", len(ws), n)
	}
}
