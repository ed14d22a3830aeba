package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
)

// BenchmarkTeamSync measures how fast team changes reach members: 10,000
// approved team rules, 50 clients that each Listen and run Changes(since)
// on every call (as a member's sync does), and a writer (an approver)
// changing one rule every 100 ms (retiring it: a change every client must
// learn of), b.N changes (at most 10,000). It reports the sync latency
// (from the change's commit, the rule's updated_at, to the moment each
// client has it) at the median and 95th percentile, the first full sync
// of the 50 clients, the PostgreSQL server's CPU (as a share of one core,
// over the changes) and memory, and then the time of an edit of an
// approved rule, which checks it against the 10,000 approved rules
// (memory.Relate), measured after the changes.
//
// It runs on the loopback interface and is bounded: about 100 ms per
// change plus set-up. Run it with a count of changes:
//
//	go test ./memory/team -run '^$' -bench BenchmarkTeamSync -benchtime 100x
func BenchmarkTeamSync(b *testing.B) {
	const (
		nRules   = 10_000
		nClients = 50
		every    = 100 * time.Millisecond
	)
	db := pgtest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := Install(ctx, db.URL); err != nil {
		b.Fatal(err)
	}
	approverURL, _ := db.Login(b, "writer", RoleApprover)
	memberURL, _ := db.Login(b, "member", RoleMember)
	admin := sqlConn(b, db.URL)
	if _, err := admin.Exec(ctx, `INSERT INTO anchorage.rules (id, status, scope, content)
		SELECT gen_random_uuid(), 'approved', 'team', 'keep ' || md5(g::text) || ' ' || md5((g + 1000000)::text)
		FROM generate_series(1, $1::int) g`, nRules); err != nil {
		b.Fatal(err)
	}
	var ids []string
	if b.N > nRules {
		b.Fatalf("at most %d changes (-benchtime %dx)", nRules, nRules)
	}
	rows, err := admin.Query(ctx, `SELECT id::text FROM anchorage.rules ORDER BY seq`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if rows.Err() != nil {
		b.Fatal(rows.Err())
	}
	writer := open(b, approverURL)

	// The clients. Each records when it received each Seq.
	type client struct {
		mu     sync.Mutex
		since  int64
		got    map[int64]time.Time
		synced chan struct{} // closed after the first full sync
	}
	clients := make([]*client, nClients)
	lctx, stopListening := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		c := &client{got: map[int64]time.Time{}, synced: make(chan struct{})}
		clients[i] = c
		s := open(b, memberURL)
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			err := s.Listen(lctx, func(int64) {
				rules, err := s.Changes(lctx, c.since)
				if err != nil {
					if lctx.Err() == nil {
						b.Error(err)
					}
					return
				}
				now := time.Now()
				c.mu.Lock()
				for _, r := range rules {
					c.got[r.Seq] = now
					c.since = r.Seq
				}
				c.mu.Unlock()
				if first {
					first = false
					close(c.synced)
				}
			})
			if lctx.Err() == nil {
				b.Errorf("Listen: %v", err)
			}
		}()
	}
	for _, c := range clients {
		select {
		case <-c.synced:
		case <-ctx.Done():
			b.Fatal("the clients' first sync did not end")
		}
	}
	coldSync := time.Since(start)

	pid := db.Cluster().PostmasterPID()
	cpu0 := serverCPU(pid)
	b.ResetTimer()
	t0 := time.Now()
	changes := make(map[int64]time.Time, b.N)
	var last int64
	for i := range b.N {
		if wait := time.Until(t0.Add(time.Duration(i) * every)); wait > 0 {
			time.Sleep(wait) // the writer's cadence, not a wait for a result
		}
		r, err := writer.Retire(ctx, ids[i])
		if err != nil {
			b.Fatal(err)
		}
		changes[r.Seq] = r.UpdatedAt
		last = r.Seq
	}
	// Wait until every client has the last change.
	for _, c := range clients {
		for {
			c.mu.Lock()
			have := c.since >= last
			c.mu.Unlock()
			if have {
				break
			}
			select {
			case <-ctx.Done():
				b.Fatal("a client never received the last change")
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	elapsed := time.Since(t0)
	b.StopTimer()
	cpu1 := serverCPU(pid)
	anon, shmem, procs := serverMemory(pid)
	stopListening()
	wg.Wait()

	// Edits of approved rules, each checked against the others.
	var edits []time.Duration
	for i := range 5 {
		e0 := time.Now()
		if _, err := writer.Edit(ctx, ids[len(ids)-1-i], "keep "+randomWord()+" "+randomWord(), ""); err != nil {
			b.Fatal(err)
		}
		edits = append(edits, time.Since(e0))
	}

	var lat []time.Duration
	for _, c := range clients {
		c.mu.Lock()
		for seq, at := range changes {
			if got, ok := c.got[seq]; ok {
				lat = append(lat, max(0, got.Sub(at)))
			}
			// A client that got a later change of the same rule first
			// (coalesced) has no entry: it is not counted.
		}
		c.mu.Unlock()
	}
	slices.Sort(lat)
	slices.Sort(edits)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pct(lat, 50)), "sync-p50-ms")
	b.ReportMetric(ms(pct(lat, 95)), "sync-p95-ms")
	b.ReportMetric(ms(pct(edits, 50)), "edit-p50-ms")
	b.ReportMetric(ms(coldSync), "first-sync-ms")
	if pid != 0 {
		b.ReportMetric(100*(cpu1-cpu0)/elapsed.Seconds(), "server-cpu-%")
		b.ReportMetric(float64(anon+shmem)/(1<<20), "server-rss-MB")
		b.ReportMetric(float64(anon)/float64(max(1, procs))/(1<<20), "MB/server-process")
		b.ReportMetric(float64(procs), "server-processes")
	}
	b.ReportMetric(0, "ns/op")
	b.Logf("%d rules, %d clients, %d changes in %v; %d deliveries measured; load average %s",
		nRules, nClients, b.N, elapsed.Round(time.Millisecond), len(lat), loadAverage())
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, len(d)*p/100)]
}

func randomWord() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serverProcs returns the postmaster and its children.
func serverProcs(pid int) []int {
	if pid == 0 {
		return nil
	}
	procs := []int{pid}
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		fields := statFields(e)
		if len(fields) > 2 && fields[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
			procs = append(procs, n)
		}
	}
	return procs
}

// statFields returns the fields of /proc/PID/stat after the command name
// (state is [0], ppid [1], utime [11], stime [12]).
func statFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// serverCPU returns the CPU seconds used so far by the postmaster and its
// children (those that have exited are in the postmaster's cutime and
// cstime).
func serverCPU(pid int) float64 {
	const clockTicks = 100 // USER_HZ on Linux
	var ticks int64
	for i, p := range serverProcs(pid) {
		f := statFields(fmt.Sprintf("/proc/%d/stat", p))
		if len(f) < 15 {
			continue
		}
		for _, k := range []int{11, 12} {
			v, _ := strconv.ParseInt(f[k], 10, 64)
			ticks += v
		}
		if i == 0 { // children that exited
			for _, k := range []int{13, 14} {
				v, _ := strconv.ParseInt(f[k], 10, 64)
				ticks += v
			}
		}
	}
	return float64(ticks) / clockTicks
}

// serverMemory returns the server's resident memory: the sum of each
// process's private memory (RssAnon), the largest share of the shared
// buffers one process has touched (RssShmem, counted once), and the
// number of processes (one per connection, and the postmaster's helpers).
func serverMemory(pid int) (anon, shmem int64, procs int) {
	for _, p := range serverProcs(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch k {
			case "RssAnon":
				anon += kb << 10
			case "RssShmem":
				shmem = max(shmem, kb<<10)
			}
		}
		procs++
	}
	return anon, shmem, procs
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
