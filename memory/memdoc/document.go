package memdoc

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Importance tiers of a document, from the front matter's
// importance_tier. TierBoost gives each one's weight in ranking.
const (
	TierConstitutional = "constitutional"
	TierCritical       = "critical"
	TierImportant      = "important"
	TierNormal         = "normal"
	TierTemporary      = "temporary"
	TierDeprecated     = "deprecated"
)

// tierBoosts are the ranking multipliers of the tiers.
var tierBoosts = map[string]float64{
	TierConstitutional: 2.0,
	TierCritical:       1.6,
	TierImportant:      1.3,
	TierNormal:         1.0,
	TierTemporary:      0.8,
	TierDeprecated:     0.4,
}

// TierBoost returns the multiplier that a document's importance tier
// applies to its rank in memory search: above 1 for constitutional,
// critical and important documents, 1 for normal ones (and for an
// unknown or empty tier), below 1 for temporary and deprecated ones.
func TierBoost(tier string) float64 {
	if b, ok := tierBoosts[strings.ToLower(strings.TrimSpace(tier))]; ok {
		return b
	}
	return 1
}

// ValidTier reports whether tier is one of the importance tiers.
func ValidTier(tier string) bool {
	_, ok := tierBoosts[tier]
	return ok
}

// A Document is a Markdown memory file: its front matter, its sections
// and the warnings found while reading it.
type Document struct {
	// ID is "doc:" followed by Path; it names the document in memory
	// search.
	ID string `json:"id"`
	// Root is the workspace root (absolute, cleaned); Path is the file's
	// path relative to it, with slashes.
	Root string `json:"root"`
	Path string `json:"path"`
	// Title is the front matter's title, else the first "# " heading,
	// else the file name without extension.
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// TriggerPhrases are phrases that, found in a query, raise the
	// document's rank.
	TriggerPhrases []string `json:"trigger_phrases,omitempty"`
	// ImportanceTier is one of the Tier* constants (TierNormal when the
	// front matter has none or an unknown one).
	ImportanceTier string `json:"importance_tier"`
	// ContextType is the front matter's contextType (e.g. "decision"),
	// free text.
	ContextType string `json:"context_type,omitempty"`
	// Content is the whole file, front matter included.
	Content string `json:"content"`
	// Hash identifies Content (see Sync).
	Hash string `json:"hash"`
	// Sections are the well-formed sections, in the order they open.
	Sections []Section `json:"sections"`
	// Warnings are the problems found in the file, by position.
	Warnings []Warning `json:"warnings"`
	// UpdatedAt is when the stored copy last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Section returns the first well-formed section of d with the given id.
func (d *Document) Section(id string) (Section, bool) {
	for _, s := range d.Sections {
		if s.ID == id {
			return s, true
		}
	}
	return Section{}, false
}

// frontMatter is the YAML header of a document. Both snake_case and
// camelCase keys are accepted.
type frontMatter struct {
	Title               string     `yaml:"title"`
	Description         string     `yaml:"description"`
	TriggerPhrases      stringList `yaml:"trigger_phrases"`
	TriggerPhrasesCamel stringList `yaml:"triggerPhrases"`
	ImportanceTier      string     `yaml:"importance_tier"`
	ImportanceTierCamel string     `yaml:"importanceTier"`
	ContextType         string     `yaml:"contextType"`
	ContextTypeSnake    string     `yaml:"context_type"`
}

// stringList is a YAML sequence of strings or a single string.
type stringList []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*l = nil
			return nil
		}
		*l = stringList{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(stringList, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a trigger phrase must be text", c.Line)}}
			}
			out = append(out, c.Value)
		}
		*l = out
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: trigger_phrases must be a list of phrases", n.Line)}}
}

// SplitFrontMatter splits content into its YAML front matter (without the
// "---" lines) and the offset where the body starts. A document has front
// matter when its first line (after an optional byte order mark) is
// "---"; the front matter ends at the next line that is "---" or "...".
// Without a closing line there is no front matter (yaml is empty, body
// is 0) and ok is false only in that case, so that the caller can warn.
func SplitFrontMatter(content string) (header string, body int, ok bool) {
	start := 0
	if strings.HasPrefix(content, "\ufeff") {
		start = len("\ufeff")
	}
	first, next, found := cutLine(content, start)
	if !found || strings.TrimRight(first, " \t\r") != "---" {
		return "", 0, true
	}
	for pos := next; pos < len(content); {
		line, after, found := cutLine(content, pos)
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			return content[next:pos], after, true
		}
		if !found {
			break
		}
		pos = after
	}
	return "", 0, false
}

// cutLine returns the line of s that starts at i (without its newline),
// the offset after it, and whether a newline ended it.
func cutLine(s string, i int) (line string, next int, found bool) {
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return s[i:], len(s), false
	}
	return s[i : i+j], i + j + 1, true
}

// Parse reads a memory document: relPath is its path relative to root,
// with slashes. Parse never fails: bad front matter, an unknown tier and
// broken markers are reported in the document's Warnings, and the rest
// of the file still loads.
func Parse(root, relPath, content string) *Document {
	d := &Document{
		ID:             "doc:" + relPath,
		Root:           root,
		Path:           relPath,
		Content:        content,
		Hash:           hashContent(content),
		ImportanceTier: TierNormal,
	}
	fm, body, ok := SplitFrontMatter(content)
	if !ok {
		d.Warnings = append(d.Warnings, Warning{
			Kind: WarnFrontMatter, Message: "front matter is not closed by a \"---\" line; it is read as text",
			Start: 0, End: min(3, len(content)), Line: 1, Column: 1,
		})
	}
	if fm != "" {
		d.applyFrontMatter(fm, strings.Count(content[:body], "\n")-strings.Count(fm, "\n")-1)
	}
	var ws []Warning
	d.Sections, ws = parseSections(content, body)
	d.Warnings = append(d.Warnings, ws...)
	if d.Title == "" {
		d.Title = firstHeading(content[body:])
	}
	if d.Title == "" {
		d.Title = strings.TrimSuffix(path.Base(relPath), path.Ext(relPath))
	}
	return d
}

// applyFrontMatter decodes the YAML header into d, warning about what it
// cannot use: on the line the YAML library names, else on the first
// line. The header's line n is the file's line n+offset.
func (d *Document) applyFrontMatter(src string, offset int) {
	warn := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		w := Warning{Kind: WarnFrontMatter, Message: msg, Start: 0, End: min(3, len(d.Content)), Line: 1, Column: 1}
		if n, rest := yamlLine(msg); n > 0 {
			w.Line = n + offset
			w.Start, w.End = lineRange(d.Content, w.Line)
			w.Message = rest
		}
		d.Warnings = append(d.Warnings, w)
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(src), &fm); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			warn("front matter is not valid YAML (ignored): %s", yamlMessage(err))
			return
		}
		// A TypeError still fills the fields it could decode.
		warn("front matter: %s", yamlMessage(err))
	}
	d.Title = strings.TrimSpace(fm.Title)
	d.Description = strings.TrimSpace(fm.Description)
	phrases := fm.TriggerPhrases
	if len(phrases) == 0 {
		phrases = fm.TriggerPhrasesCamel
	}
	for _, p := range phrases {
		if p = strings.TrimSpace(p); p != "" {
			d.TriggerPhrases = append(d.TriggerPhrases, p)
		}
	}
	tier := fm.ImportanceTier
	if tier == "" {
		tier = fm.ImportanceTierCamel
	}
	if tier = strings.ToLower(strings.TrimSpace(tier)); tier != "" {
		if ValidTier(tier) {
			d.ImportanceTier = tier
		} else {
			warn("line %d: unknown importance_tier %q (one of constitutional, critical, important, normal, temporary, deprecated); normal is used", keyLine(src, "importance_tier", "importanceTier"), tier)
		}
	}
	d.ContextType = strings.TrimSpace(fm.ContextType)
	if d.ContextType == "" {
		d.ContextType = strings.TrimSpace(fm.ContextTypeSnake)
	}
}

// yamlMessage shortens a YAML library error to one line.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
}

// keyLine returns the 1-based line of src where one of keys starts a
// line, or 1.
func keyLine(src string, keys ...string) int {
	for i, line := range strings.Split(src, "\n") {
		for _, k := range keys {
			if strings.HasPrefix(line, k) && strings.HasPrefix(strings.TrimLeft(line[len(k):], " \t"), ":") {
				return i + 1
			}
		}
	}
	return 1
}

// yamlLine returns the first line number a YAML error message names
// ("line 3: ..."), or 0, and the message without it.
func yamlLine(msg string) (int, string) {
	i := strings.Index(msg, "line ")
	if i < 0 {
		return 0, msg
	}
	n, j := 0, i+len("line ")
	for ; j < len(msg) && '0' <= msg[j] && msg[j] <= '9'; j++ {
		n = n*10 + int(msg[j]-'0')
		if n > 1<<24 {
			return 0, msg
		}
	}
	if n == 0 || !strings.HasPrefix(msg[j:], ": ") {
		return 0, msg
	}
	return n, msg[:i] + msg[j+2:]
}

// lineRange returns the byte range of the 1-based line of content, or
// the end of content when it has fewer lines. The range is never empty
// unless content is.
func lineRange(content string, line int) (start, end int) {
	for l := 1; l < line; l++ {
		j := strings.IndexByte(content[start:], '\n')
		if j < 0 {
			return max(0, len(content)-1), len(content)
		}
		start += j + 1
	}
	end = len(content)
	if j := strings.IndexByte(content[start:], '\n'); j >= 0 {
		end = start + j
	}
	if end == start && end < len(content) {
		end++
	} else if end == start && start > 0 {
		start--
	}
	return start, end
}

// firstHeading returns the text of the first ATX heading of level one in
// body, outside fenced code.
func firstHeading(body string) string {
	var fence byte
	for pos := 0; pos < len(body); {
		line, next, _ := cutLine(body, pos)
		pos = next
		if c, _, ok := fenceLine(line); ok {
			if fence == 0 {
				fence = c
			} else if c == fence {
				fence = 0
			}
			continue
		}
		if fence == 0 && strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[2:]), "#"))
		}
	}
	return ""
}
