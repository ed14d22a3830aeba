package memdoc

import (
	"fmt"
	"strings"
	"testing"
)

// benchDocument is a memory document of about n bytes: prose, nested
// sections, code fences and ordinary comments, as real ones mix them.
func benchDocument(n int) string {
	var b strings.Builder
	b.WriteString("---\ntitle: Bench\ntrigger_phrases: [bench]\n---\n# Bench\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<!-- ANCHOR:section-%d -->\n## Section %d\n\n", i, i)
		b.WriteString("The service retries idempotent calls only, with exponential backoff and jitter.\n")
		b.WriteString("Callers must not wrap the client in their own retry loops; see the decision record.\n\n")
		fmt.Fprintf(&b, "<!-- ANCHOR:detail-%d -->\n", i)
		b.WriteString("- attempts: 3\n- base delay: 100 ms\n- cap: 2 s <!-- reviewed -->\n")
		fmt.Fprintf(&b, "<!-- /ANCHOR:detail-%d -->\n\n", i)
		b.WriteString("```go\nfor attempt := 0; attempt < 3; attempt++ {\n\tif err = call(); err == nil {\n\t\tbreak\n\t}\n}\n```\n\n")
		fmt.Fprintf(&b, "<!-- /ANCHOR:section-%d -->\n\n", i)
	}
	return b.String()
}

// BenchmarkParseSections measures section extraction; the target is 100
// MB/s or more.
func BenchmarkParseSections(b *testing.B) {
	for _, size := range []int{16 << 10, 1 << 20} {
		doc := benchDocument(size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				ParseSections(doc)
			}
		})
	}
}

// BenchmarkSelect measures Select of two sections of a 64 KiB document.
func BenchmarkSelect(b *testing.B) {
	doc := benchDocument(64 << 10)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Select(doc, []string{"detail-3", "section-10"})
	}
}

// BenchmarkParse measures a whole document load: front matter and
// sections.
func BenchmarkParse(b *testing.B) {
	doc := benchDocument(64 << 10)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Parse("/w", "a.md", doc)
	}
}
