package memory

import (
	"sync"
	"time"
)

// anchorCache keeps what ranking reads of the workspace's files for the
// next rules an Anchorer ranks: each file's lines, by its size and
// modification time, and the stems of each candidate's code. Anchoring
// the rules of a memory one after the other meets the same files and
// definitions again and again. A file that changed on disk (another size
// or time) is read again; a file changed in the last anchorSettleTime
// and the documents open in an editor (the searcher's overlay) are never
// kept. The zero value is ready; it is safe for
// concurrent use.
type anchorCache struct {
	mu    sync.Mutex
	files map[string]anchorCachedFile
	stems map[anchorStemKey]map[string]bool
}

// Bounds of an anchorCache: when one is reached, that part is emptied.
const (
	anchorCacheFiles = 1024
	anchorCacheStems = 16384
)

// anchorSettleTime is how long ago a file must have changed for what
// was read of it to be kept: file systems stamp modification times by
// the clock's tick, so a file written twice within one tick, at the same
// size, would look unchanged.
const anchorSettleTime = 2 * time.Second

// anchorSettled reports whether a file changed at mtime may be kept.
func anchorSettled(mtime time.Time) bool {
	return time.Since(mtime) > anchorSettleTime
}

// anchorCachedFile is a file's lines as read at one size and time.
type anchorCachedFile struct {
	size  int64
	mtime time.Time
	lines []string
}

// anchorStemKey names a span of a file's lines as read at one size and
// time.
type anchorStemKey struct {
	path        string
	size, mtime int64
	from, to    int
	// code marks the stems of the span's statements only (see
	// anchorCodeOnly).
	code bool
}

// file returns the lines of path cached for this size and time.
func (c *anchorCache) file(path string, size int64, mtime time.Time) ([]string, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[path]
	if !ok || f.size != size || !f.mtime.Equal(mtime) {
		return nil, false
	}
	return f.lines, true
}

// putFile caches the lines of path as read at this size and time.
func (c *anchorCache) putFile(path string, size int64, mtime time.Time, lines []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil || len(c.files) >= anchorCacheFiles {
		c.files = map[string]anchorCachedFile{}
	}
	c.files[path] = anchorCachedFile{size: size, mtime: mtime, lines: lines}
}

// bodyStems returns anchorStems(text) for a span of a file read from
// disk, from the cache when it has them; a zero key (text from an
// editor's overlay) is never cached. The map returned must not be
// changed.
func (c *anchorCache) bodyStems(key anchorStemKey, text string) map[string]bool {
	return c.stemsOf(key, func() string { return text })
}

// codeStems returns anchorStems(anchorCodeOnly(text, language)) for a
// span of a file read from disk, cached as bodyStems.
func (c *anchorCache) codeStems(key anchorStemKey, text, language string) map[string]bool {
	key.code = true
	return c.stemsOf(key, func() string { return anchorCodeOnly(text, language) })
}

// stemsOf returns anchorStems(text()), from the cache when it has them.
func (c *anchorCache) stemsOf(key anchorStemKey, text func() string) map[string]bool {
	if c == nil || key.path == "" {
		return anchorStems(text())
	}
	c.mu.Lock()
	s, ok := c.stems[key]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = anchorStems(text())
	c.mu.Lock()
	if c.stems == nil || len(c.stems) >= anchorCacheStems {
		c.stems = map[anchorStemKey]map[string]bool{}
	}
	c.stems[key] = s
	c.mu.Unlock()
	return s
}
