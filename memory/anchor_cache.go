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

// spanStems returns the stems of a span of a file read from disk: of
// all of it, and of its statements only (see anchorCodeOnly), from the
// cache when it has them. Each word is stemmed once: the stems of the
// whole are those of the statements and of the comments together.
func (c *anchorCache) spanStems(key anchorStemKey, text, language string) (body, code map[string]bool) {
	codeKey := key
	codeKey.code = true
	if c != nil && key.path != "" {
		c.mu.Lock()
		body, okBody := c.stems[key]
		code, okCode := c.stems[codeKey]
		c.mu.Unlock()
		if okBody && okCode {
			return body, code
		}
	}
	codeText, notes := anchorSplitCode(text, language)
	code = anchorStems(codeText)
	body = anchorStems(notes)
	if len(body) == 0 {
		body = code // nothing but statements: the same stems, never changed
	} else {
		for s := range code {
			body[s] = true
		}
	}
	if c != nil && key.path != "" {
		c.mu.Lock()
		if c.stems == nil || len(c.stems)+2 > anchorCacheStems {
			c.stems = map[anchorStemKey]map[string]bool{}
		}
		c.stems[key], c.stems[codeKey] = body, code
		c.mu.Unlock()
	}
	return body, code
}
