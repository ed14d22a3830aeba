package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// bench10k is the generated 10,000-memory set, synced once per process.
var bench10k struct {
	once   sync.Once
	s      *Store
	ms     []Memory
	topics []topic
	which  []int
}

func benchStore(b *testing.B) (*Store, []Memory, []topic, []int) {
	bench10k.once.Do(func() {
		bench10k.topics = loadTopics(b)
		bench10k.ms, bench10k.which = synthMemories(bench10k.topics, 10000, 42)
		start := time.Now()
		// The store outlives each benchmark: it stays open, in a
		// temporary directory, for the whole process.
		dir, err := os.MkdirTemp("", "recall-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench10k.s = openStoreAt(b, filepath.Join(dir, "memory.db"), bench10k.ms)
		n, e, _ := bench10k.s.Len(context.Background())
		b.Logf("bootstrap of %d memories: %d edges in %v", n, e, time.Since(start))
	})
	return bench10k.s, bench10k.ms, bench10k.topics, bench10k.which
}

// reportP95 reports the 95th percentile of the durations as p95-ms.
func reportP95(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
	}
}

// BenchmarkLocalSearch times a localized search (radius 2, slot A
// anchored on a memory of the query's topic) on 10,000 memories: the
// whole Search, slot and counter writes included.
func BenchmarkLocalSearch(b *testing.B) {
	s, ms, topics, which := benchStore(b)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	var d []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		j := r.IntN(len(ms))
		tp := topics[which[j]]
		q := fmt.Sprintf("%s %s", tp.words[r.IntN(len(tp.words))], tp.words[r.IntN(len(tp.words))])
		if i%8 == 0 {
			if _, err := s.Set(ctx, "A", ms[j].ID); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0 := time.Now()
		if _, err := s.Search(ctx, Query{Text: q, Slot: "A", Radius: 2, NoFallback: true}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportP95(b, d)
}

// BenchmarkGlobalSearch times the plain search over 10,000 memories, the
// fallback of a localized search.
func BenchmarkGlobalSearch(b *testing.B) {
	s, _, topics, _ := benchStore(b)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	var d []time.Duration
	for b.Loop() {
		tp := topics[r.IntN(len(topics))]
		q := fmt.Sprintf("%s %s %s", tp.words[r.IntN(len(tp.words))], tp.words[r.IntN(len(tp.words))], tp.name)
		t0 := time.Now()
		if _, err := s.Global(ctx, Query{Text: q}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportP95(b, d)
}

// BenchmarkFallbackSearch times a localized search that finds nothing
// and falls back, on 10,000 memories.
func BenchmarkFallbackSearch(b *testing.B) {
	s, ms, _, _ := benchStore(b)
	ctx := context.Background()
	var d []time.Duration
	for b.Loop() {
		b.StopTimer()
		if _, err := s.Set(ctx, "B", ms[0].ID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		if _, err := s.Search(ctx, Query{Text: "kubernetes helm chart", Slot: "B", Radius: 2}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportP95(b, d)
}

// BenchmarkSyncOneRule times Sync after one new memory among 10,000.
func BenchmarkSyncOneRule(b *testing.B) {
	s, _, _, _ := benchStore(b)
	ctx := context.Background()
	src := s.sources[0].(*listSource)
	for i := 0; b.Loop(); i++ {
		at := time.Now()
		src.ms = append(src.ms, Memory{ID: fmt.Sprintf("rule:%d", 900000+i), Kind: KindRule, Title: "Log the request timeout",
			Text: "Log the request timeout when the client gives up", Time: at, UpdatedAt: at})
		if _, err := s.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
