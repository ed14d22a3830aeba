package recall

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listSource is a Source over a list of memories, for generated sets too
// large to write through package memory in a test.
type listSource struct {
	kind string
	ms   []Memory
}

func (l *listSource) Kind() string { return l.kind }

func (l *listSource) Memories(context.Context) ([]Memory, error) {
	return append([]Memory(nil), l.ms...), nil
}

// topic is a vocabulary of testdata/topics.txt.
type topic struct {
	name  string
	words []string
}

func loadTopics(t testing.TB) []topic {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "topics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []topic
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, words, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("topics.txt: %q has no colon", line)
		}
		out = append(out, topic{name: name, words: strings.Fields(words)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var synthTemplates = []string{
	"Always %s the %s before the %s",
	"Never %s a %s without checking the %s",
	"Prefer %s over %s when handling %s",
	"Keep %s and %s apart from the %s",
	"Document how the %s affects %s and %s",
	"Validate every %s, %s and %s at the boundary",
	"Log the %s when a %s fails on %s",
	"Test the %s with a %s and an empty %s",
}

// synthMemories generates n memories over the topics, deterministically
// from seed: rules of three topic words in a template, one in five a
// memory document with a tier and a trigger phrase; made over half a
// year. It returns the memories and each one's topic.
func synthMemories(topics []topic, n int, seed uint64) ([]Memory, []int) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	tiers := []string{"normal", "normal", "important", "critical", "temporary"}
	ms := make([]Memory, n)
	which := make([]int, n)
	for i := range ms {
		ti := r.IntN(len(topics))
		tp := topics[ti]
		w := func() string { return tp.words[r.IntN(len(tp.words))] }
		text := fmt.Sprintf(synthTemplates[r.IntN(len(synthTemplates))], w(), w(), w())
		at := base.Add(time.Duration(r.IntN(180*24)) * time.Hour)
		m := Memory{ID: fmt.Sprintf("rule:%d", i+1), Kind: KindRule, Title: text, Text: text,
			Scope: "universal", Tags: []string{"scope:universal", "category:" + tp.name}, Time: at, UpdatedAt: at}
		if i%5 == 4 {
			m.ID, m.Kind, m.Path = fmt.Sprintf("doc:notes/%s-%d.md", tp.name, i), KindDocument, fmt.Sprintf("notes/%s-%d.md", tp.name, i)
			tier := tiers[r.IntN(len(tiers))]
			m.Tags = []string{"tier:" + tier, "context:" + tp.name}
			m.Triggers = []string{tp.name + " " + w()}
			m.Boost = map[string]float64{"normal": 1, "important": 1.3, "critical": 1.6, "temporary": 0.8}[tier]
		}
		ms[i], which[i] = m, ti
	}
	return ms, which
}

// openStore opens a store in a new database with the given memories as
// its rule and document sources, synced.
func openStore(t testing.TB, ms []Memory, opts ...Option) *Store {
	t.Helper()
	s := openStoreAt(t, filepath.Join(t.TempDir(), "memory.db"), ms, opts...)
	t.Cleanup(func() { s.Close() })
	return s
}

// openStoreAt is openStore at path, left open.
func openStoreAt(t testing.TB, path string, ms []Memory, opts ...Option) *Store {
	t.Helper()
	rules := &listSource{kind: KindRule}
	docs := &listSource{kind: KindDocument}
	for _, m := range ms {
		if m.Kind == KindDocument {
			docs.ms = append(docs.ms, m)
		} else {
			rules.ms = append(rules.ms, m)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, path, append([]Option{WithSources(rules, docs)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}
