package analysis

// A refresh with nothing changed is mostly a walk of the workspace: every
// directory read, every .gitignore looked for, every file matched against
// the exclusions and stat-ed, and the index's file table read to compare.
// The manifest of the last complete update makes it cheap: when no
// directory of the walk changed (its mtime changes when an entry is
// added, removed or renamed), no ignore file changed, and every file it
// listed has the size and mtime it had, the walk would find what it found
// and the index is up to date. Checking that is one lstat per directory
// and per file, and no read of the file table.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// manifestKey is the manifest's row in the meta table. Every write
// transaction of the index deletes it (indexStore.Write): a manifest is
// only ever as new as the index.
const manifestKey = "walk_manifest"

// manifestVersion starts an encoded manifest; a manifest of another
// version is ignored.
const manifestVersion = 1

// racyWindow is how close to a walk's start a directory's mtime may be
// and still be trusted: a directory changed again within its file
// system's timestamp granularity would keep its mtime.
const racyWindow = 2 * time.Second

// stamp is a path with the size and mtime it had.
type stamp struct {
	rel   string // slash-separated, relative to the root
	size  int64
	mtime int64 // UnixNano; -1 for a file that did not exist
}

// manifest is what the last complete update of an index walked and
// found, in the walk's order.
type manifest struct {
	// filters fingerprints the walk's settings (walker.fingerprint).
	filters string
	// dirs are the directories the walk read (the root is "."), with
	// their mtimes; ignores the other files whose change changes what the
	// walk finds: the ignore files read (.git/info/exclude, existing or
	// not, and every .gitignore) and the files skipped as too large.
	dirs    []stamp
	ignores []stamp
	// files are the files found, with the size and mtime the index
	// holds them at.
	files []stamp
	// skipped and problems are the walk's (Summary.Skipped,
	// Summary.Problems).
	skipped  map[string]int
	problems []Problem
}

// walkRules versions the walk's own rules, beyond its settings: a manifest
// made by other rules is not trusted, so the next update walks again and
// finds what the rules now let in (2: a directory named venv is skipped
// only when it is a virtual environment).
const walkRules = 2

// fingerprint identifies what a walker finds: its root, filters and rules.
func (w *walker) fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%d\x00", w.root, w.maxSize, walkRules)
	names := make([]string, 0, len(w.excludeNames))
	for n := range w.excludeNames {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "%q\x00%q\x00", names, w.excludeGlobs)
	for _, p := range w.ignoreLines {
		fmt.Fprintf(&b, "%q,", p)
	}
	b.WriteString("\x00")
	only := make([]string, 0, len(w.only))
	for l := range w.only {
		only = append(only, l)
	}
	sort.Strings(only)
	fmt.Fprintf(&b, "%q\x00%q", only, Names())
	return b.String()
}

// encode writes m compactly: the version, then strings and varints.
func (m *manifest) encode() []byte {
	var b bytes.Buffer
	num := func(v int64) { b.Write(binary.AppendVarint(nil, v)) }
	str := func(s string) { num(int64(len(s))); b.WriteString(s) }
	stamps := func(ss []stamp) {
		num(int64(len(ss)))
		for _, s := range ss {
			str(s.rel)
			num(s.size)
			num(s.mtime)
		}
	}
	num(manifestVersion)
	str(m.filters)
	stamps(m.dirs)
	stamps(m.ignores)
	stamps(m.files)
	keys := make([]string, 0, len(m.skipped))
	for k := range m.skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	num(int64(len(keys)))
	for _, k := range keys {
		str(k)
		num(int64(m.skipped[k]))
	}
	num(int64(len(m.problems)))
	for _, p := range m.problems {
		str(p.Path)
		str(p.Reason)
		str(p.Detail)
	}
	return b.Bytes()
}

// errManifest is a manifest that cannot be decoded.
var errManifest = errors.New("bad walk manifest")

// decodeManifest reads what encode wrote.
func decodeManifest(data []byte) (*manifest, error) {
	r := bytes.NewReader(data)
	bad := false
	num := func() int64 {
		v, err := binary.ReadVarint(r)
		if err != nil || v < -1 {
			bad = true
		}
		return v
	}
	count := func() int {
		n := num()
		if n < 0 || n > int64(r.Len()) {
			bad = true
			return 0
		}
		return int(n)
	}
	str := func() string {
		n := count()
		if bad {
			return ""
		}
		s := make([]byte, n)
		if _, err := r.Read(s); err != nil && n > 0 {
			bad = true
		}
		return string(s)
	}
	stamps := func() []stamp {
		n := count()
		ss := make([]stamp, 0, n)
		for range n {
			if bad {
				return nil
			}
			ss = append(ss, stamp{rel: str(), size: num(), mtime: num()})
		}
		return ss
	}
	if num() != manifestVersion || bad {
		return nil, errManifest
	}
	m := &manifest{filters: str()}
	m.dirs, m.ignores, m.files = stamps(), stamps(), stamps()
	m.skipped = map[string]int{}
	for range count() {
		if bad {
			break
		}
		k := str()
		m.skipped[k] = int(num())
	}
	for range count() {
		if bad {
			break
		}
		m.problems = append(m.problems, Problem{Path: str(), Reason: str(), Detail: str()})
	}
	if bad || r.Len() != 0 {
		return nil, errManifest
	}
	return m, nil
}

// lstamp returns the size and mtime of path, without following a link;
// mtime -1 when it does not exist.
func lstamp(path string) (size, mtime int64, err error) {
	info, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, -1, nil
	}
	if err != nil {
		return 0, 0, err
	}
	return info.Size(), info.ModTime().UnixNano(), nil
}

// unchanged reports whether every stamp of m is as it was: the
// directories' mtimes, the ignore files' and the files' sizes and mtimes.
// The stats run on a few goroutines.
func (m *manifest) unchanged(ctx context.Context, root string) bool {
	abs := func(rel string) string {
		if rel == "." {
			return root
		}
		return root + string(filepath.Separator) + filepath.FromSlash(rel)
	}
	same := func(ss []stamp, dir bool) bool {
		for _, s := range ss {
			size, mtime, err := lstamp(abs(s.rel))
			if err != nil || mtime != s.mtime || !dir && size != s.size {
				return false
			}
		}
		return true
	}
	if !same(m.ignores, false) {
		return false
	}
	all := [][]stamp{m.dirs, m.files}
	workers := min(runtime.GOMAXPROCS(0), 4)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		changed bool
	)
	for i, ss := range all {
		dir := i == 0
		step := (len(ss) + workers - 1) / workers
		for lo := 0; lo < len(ss); lo += step {
			part := ss[lo:min(lo+step, len(ss))]
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ctx.Err() != nil || !same(part, dir) {
					mu.Lock()
					changed = true
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	return !changed
}

// readManifest returns the index's manifest, or nil when there is none
// (or it cannot be read: the walk then runs as before).
func (s *indexStore) readManifest(ctx context.Context) *manifest {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, manifestKey).Scan(&data)
	if err != nil {
		return nil
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil
	}
	return m
}

// walkKey is the row in the meta table of the walk token of the update
// in progress (see beginWalk).
const walkKey = "walk_token"

// beginWalk starts an update's claim to record the manifest of its walk,
// before the walk: it returns the token the update's own writes carry
// (indexWriter.walk). A write that changes files without it (an open
// document's graph, another process's update) ends the claim, and
// writeManifest then records nothing: the walk no longer tells what the
// index holds.
func (s *indexStore) beginWalk(ctx context.Context) (string, error) {
	token := strconv.FormatUint(rand.Uint64()|1, 36)
	if _, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, walkKey, token); err != nil {
		return "", fmt.Errorf("start the walk: %w", err)
	}
	return token, nil
}

// writeManifest stores m as the index's manifest, when the update whose
// walk token is token still holds its claim (see beginWalk): the check
// and the write are one statement, so no write comes between them. It
// reports whether it stored m.
func (s *indexStore) writeManifest(ctx context.Context, m *manifest, token string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value)
		SELECT ?, ? WHERE EXISTS (SELECT 1 FROM meta WHERE key = ? AND value = ?)`,
		manifestKey, m.encode(), walkKey, token)
	if err != nil {
		return false, fmt.Errorf("write the walk manifest: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("write the walk manifest: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM meta WHERE key = ? AND value = ?`, walkKey, token); err != nil {
		return false, fmt.Errorf("write the walk manifest: %w", err)
	}
	return n > 0, nil
}

// newManifest is the manifest of a complete update whose walk, with
// settings filters, started at start and found found. It returns nil when
// the walk cannot be trusted to find the same while its stamps are
// unchanged: a directory changed too recently (within racyWindow of the
// walk), or one could not be read (its permissions may change without
// its mtime).
func newManifest(filters string, found *walkResult, start time.Time) *manifest {
	limit := start.Add(-racyWindow).UnixNano()
	for _, d := range found.dirs {
		if d.mtime >= limit || d.mtime < 0 {
			return nil
		}
	}
	for _, p := range found.problems {
		if p.Reason == SkipUnreadable {
			return nil
		}
	}
	m := &manifest{filters: filters, dirs: found.dirs, skipped: found.skipped, problems: found.problems}
	m.ignores = append([]stamp{found.exclude}, found.ignores...)
	m.files = make([]stamp, len(found.files))
	for i, c := range found.files {
		m.files[i] = stamp{rel: c.rel, size: c.st.Size, mtime: c.st.Mtime}
	}
	return m
}
