package analysis

import (
	"context"
	"os"
	"runtime"
	"sync"
	"time"
)

// ParseBaseline parses every file an index of root would parse, with the
// same number of workers and one reused parser each, and extracts nothing:
// the bare tree-sitter cost that indexing is measured against. Workers
// ≤ 0 means one per CPU, as for an index (Options.Workers).
func ParseBaseline(ctx context.Context, root string, workers int) (files int, bytes int64, d time.Duration, err error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ix := &Index{root: root, opts: Options{Exclude: DefaultExclude(), MaxFileSize: DefaultMaxFileSize, Workers: workers}, langs: NewLanguages()}
	w := newWalker(root, ix.opts, ix.langs)
	found, err := w.walk(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	jobs := make(chan candidate)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewParser()
			defer p.Close()
			for c := range jobs {
				src, err := os.ReadFile(c.abs)
				if err != nil || isBinary(src) {
					continue
				}
				tree, err := p.Parse(ctx, c.lang, src, nil)
				if err != nil {
					continue
				}
				tree.Close()
				mu.Lock()
				files++
				bytes += int64(len(src))
				mu.Unlock()
			}
		}()
	}
	for _, c := range found.files {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	return files, bytes, time.Since(start), ctx.Err()
}
