package recall

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/memory/memdoc"
)

// Kinds of memories.
const (
	KindRule     = "rule"
	KindDocument = "document"
)

// Memory is one node of the graph: a rule or a memory document, as a
// Source gives it.
type Memory struct {
	// ID is "rule:<id>" or "doc:<root-relative path>".
	ID string
	// Kind is KindRule or KindDocument.
	Kind string
	// Title is what lists show: a rule's content, a document's title.
	Title string
	// Text is what the topic vector is made of.
	Text string
	// Scope is a rule's scope; Path a document's root-relative path.
	Scope string
	Path  string
	// Tags are what "shared tags/scope" compares: a rule's scope and
	// category, a document's context type and tier.
	Tags []string
	// Triggers are phrases that, found in a query, boost the memory.
	Triggers []string
	// Boost multiplies the memory's score (a document's importance
	// tier); 0 means 1.
	Boost float64
	// Time is when the memory was made (a document: last changed); it
	// feeds the time part of edge weights.
	Time time.Time
	// UpdatedAt changes whenever the memory does: Sync rebuilds what
	// changed.
	UpdatedAt time.Time
}

// Source lists memories for Sync. Each Source owns the ids of its kind
// (Kind): Sync removes nodes of that kind the Source no longer lists.
type Source interface {
	// Kind is KindRule or KindDocument.
	Kind() string
	// Memories lists every current memory of the kind.
	Memories(ctx context.Context) ([]Memory, error)
}

// RuleID returns the memory id of a rule.
func RuleID(id int64) string { return KindRule + ":" + strconv.FormatInt(id, 10) }

// ParseRuleID returns the rule id of a memory id "rule:<n>", and false
// for any other id.
func ParseRuleID(id string) (int64, bool) {
	s, ok := strings.CutPrefix(id, KindRule+":")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}

// CheckID validates a memory id as a user typed it: "rule:<n>" or
// "doc:<path>".
func CheckID(id string) error {
	if _, ok := ParseRuleID(id); ok {
		return nil
	}
	if p, ok := strings.CutPrefix(id, "doc:"); ok && strings.TrimSpace(p) != "" && !strings.ContainsAny(p, "\x00\n\r") {
		return nil
	}
	return fmt.Errorf("memory id %q: want rule:<number> or doc:<path>", id)
}

// Rules is the Source of the active rules of a memory.Store.
type Rules struct{ Store *memory.Store }

// Kind returns KindRule.
func (Rules) Kind() string { return KindRule }

// Memories lists the active rules.
func (r Rules) Memories(ctx context.Context) ([]Memory, error) {
	rules, err := r.Store.Rules(ctx, memory.RuleFilter{})
	if err != nil {
		return nil, err
	}
	out := make([]Memory, 0, len(rules))
	for _, ru := range rules {
		out = append(out, RuleMemory(ru))
	}
	return out, nil
}

// RuleMemory makes a rule a Memory.
func RuleMemory(r memory.Rule) Memory {
	text := r.Content
	if r.Rationale != "" {
		text += "\n" + r.Rationale
	}
	if r.Anchor != nil && r.Anchor.Symbol != "" {
		text += "\n" + r.Anchor.Symbol
	}
	return Memory{
		ID: RuleID(r.ID), Kind: KindRule, Title: r.Content, Text: text, Scope: r.Scope,
		Tags: []string{"scope:" + r.Scope, "category:" + r.Category},
		Time: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// Content returns the content and rationale of the rules among ids.
func (r Rules) Content(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		n, ok := ParseRuleID(id)
		if !ok {
			continue
		}
		ru, err := r.Store.Rule(ctx, n)
		if errors.Is(err, memory.ErrUnknownRule) {
			continue
		}
		if err != nil {
			return nil, err
		}
		text := ru.Content
		if ru.Rationale != "" {
			text += "\n\n" + ru.Rationale
		}
		out[id] = text
	}
	return out, nil
}

// maxDocText caps the text of a document that its topic vector is made
// of: its title, description and trigger phrases, then its content.
const maxDocText = 16 << 10

// Documents is the Source of the memory documents of workspace roots.
// Document ids ("doc:<path>") are relative to their root; when two roots
// hold the same path, the first root's document is the one kept.
type Documents struct {
	Store *memdoc.Store
	Roots []string
}

// Kind returns KindDocument.
func (Documents) Kind() string { return KindDocument }

// Memories lists the documents of every root.
func (d Documents) Memories(ctx context.Context) ([]Memory, error) {
	var out []Memory
	seen := map[string]bool{}
	for _, root := range d.Roots {
		docs, err := d.Store.Documents(ctx, root)
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			if seen[doc.ID] {
				continue
			}
			seen[doc.ID] = true
			out = append(out, DocumentMemory(doc))
		}
	}
	return out, nil
}

// DocumentMemory makes a memory document a Memory.
func DocumentMemory(doc memdoc.Document) Memory {
	text := doc.Title + "\n" + doc.Description + "\n" + strings.Join(doc.TriggerPhrases, "\n") + "\n" + doc.Content
	if len(text) > maxDocText {
		text = text[:maxDocText]
	}
	tags := []string{"tier:" + doc.ImportanceTier}
	if doc.ContextType != "" {
		tags = append(tags, "context:"+strings.ToLower(doc.ContextType))
	}
	return Memory{
		ID: doc.ID, Kind: KindDocument, Title: doc.Title, Text: text, Path: doc.Path, Tags: tags,
		Triggers: doc.TriggerPhrases, Boost: memdoc.TierBoost(doc.ImportanceTier),
		Time: doc.UpdatedAt, UpdatedAt: doc.UpdatedAt,
	}
}

// Content returns the whole file of the documents among ids.
func (d Documents) Content(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if !strings.HasPrefix(id, "doc:") {
			continue
		}
		for _, root := range d.Roots {
			doc, err := d.Store.Document(ctx, root, id)
			if errors.Is(err, memdoc.ErrUnknownDocument) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = doc.Content
			break
		}
	}
	return out, nil
}
