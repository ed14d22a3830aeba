// Package pgtest runs a throw-away PostgreSQL for tests: one cluster per
// test binary, and a fresh database for each test that asks for one.
//
// A test package that uses it calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// and each test calls Start, which returns the admin (superuser) URL of a
// new database. The cluster comes from, in order:
//
//   - the environment variable ANCHORAGE_TEST_PGURL: the URL of an existing
//     PostgreSQL superuser; databases and roles are created in it and
//     dropped at the end of each test;
//   - initdb and pg_ctl found on PATH or in /usr/lib/postgresql/*/bin: a
//     cluster is initialised in a temporary directory, started on a free
//     loopback port with its unix socket in that directory, and stopped
//     and removed when the test binary ends. As root, the programs run as
//     the postgres user (initdb refuses to run as root).
//
// Without either, Start skips the test with a message, except when the
// environment variable CI is "true": then a missing PostgreSQL fails it.
//
// The package is for tests only. It keeps the one cluster of the test
// binary in a package-level variable, set up by Main: that is its
// purpose.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable holding the URL of an existing
// PostgreSQL superuser to run the tests against.
const EnvURL = "ANCHORAGE_TEST_PGURL"

// harness is the test binary's cluster, made on first use after Main.
type harness struct {
	mu      sync.Mutex
	inMain  bool
	cluster *Cluster
	err     error // why there is no cluster (set once tried)
	skip    bool  // err means "not installed": skip rather than fail
	tried   bool
	dbs     int
}

var h harness

// Main runs the tests of m and then stops the cluster if one was started.
// Call it from TestMain and pass its result to os.Exit.
func Main(m *testing.M) int {
	h.mu.Lock()
	h.inMain = true
	h.mu.Unlock()
	code := m.Run()
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.cluster; c != nil && c.dir != "" {
		c.mu.Lock()
		err := c.stop()
		c.mu.Unlock()
		if err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the test cluster: %v\n", err)
		}
		os.RemoveAll(c.dir)
	}
	return code
}

// Cluster is the test binary's PostgreSQL server.
type Cluster struct {
	// AdminURL is the superuser's URL, to the maintenance database
	// "postgres".
	AdminURL string

	// For a cluster of our own: its directory, binaries and port.
	dir     string
	bin     string
	port    int
	cred    *syscall.Credential
	mu      sync.Mutex // guards running; serialises Start and Stop
	running bool
}

// DB is a fresh database of the cluster, made for one test.
type DB struct {
	// URL is the superuser's URL to this database.
	URL string
	// Name is the database's name.
	Name string

	cluster *Cluster
	roles   []string
}

// Start returns a fresh database of the test binary's cluster, starting
// the cluster on first use. It skips the test when PostgreSQL is not
// installed (fails it when CI=true). The database and the roles made with
// Login are dropped when the test ends.
func Start(t testing.TB) *DB {
	t.Helper()
	c := cluster(t)
	h.mu.Lock()
	h.dbs++
	name := fmt.Sprintf("anchorage_test_%d_%d_%s", os.Getpid(), h.dbs, randomHex(3))
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	d := &DB{URL: withDatabase(c.AdminURL, name), Name: name, cluster: c}
	t.Cleanup(func() { d.drop(t) })
	return d
}

// Cluster returns the cluster the database lives in.
func (d *DB) Cluster() *Cluster { return d.cluster }

// Login creates a login role named name (made unique to this database:
// the returned role name has the database's name as a prefix) with a
// random password, member of each of groups (which must exist), and
// returns a URL that connects to this database as it, and the role's
// name.
func (d *DB) Login(t testing.TB, name string, groups ...string) (roleURL, role string) {
	t.Helper()
	role = d.Name + "_" + name
	password := randomHex(12)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stmts := []string{fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", pgx.Identifier{role}.Sanitize(), password)}
	for _, g := range groups {
		stmts = append(stmts, fmt.Sprintf("GRANT %s TO %s", pgx.Identifier{g}.Sanitize(), pgx.Identifier{role}.Sanitize()))
	}
	for _, s := range stmts {
		if err := d.cluster.exec(ctx, s); err != nil {
			t.Fatalf("pgtest: creating role %s: %v", role, err)
		}
	}
	d.roles = append(d.roles, role)
	return d.URLAs(role, password), role
}

// URLAs returns the URL of this database for a user and password.
func (d *DB) URLAs(user, password string) string {
	u, err := url.Parse(d.URL)
	if err != nil {
		panic(fmt.Sprintf("pgtest: our own URL %q does not parse: %v", d.URL, err))
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

// drop removes the database and the roles of the test.
func (d *DB) drop(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !d.cluster.Running() {
		// A test stopped the cluster and did not start it again.
		if err := d.cluster.Start(ctx); err != nil {
			t.Logf("pgtest: restarting the cluster to drop %s: %v", d.Name, err)
			return
		}
	}
	if err := d.cluster.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{d.Name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Logf("pgtest: dropping database %s: %v", d.Name, err)
	}
	for _, r := range d.roles {
		if err := d.cluster.exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{r}.Sanitize()); err != nil {
			t.Logf("pgtest: dropping role %s: %v", r, err)
		}
	}
}

// cluster returns the test binary's cluster, starting it on first use.
func cluster(t testing.TB) *Cluster {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.inMain {
		t.Fatal("pgtest: call pgtest.Main from the package's TestMain (it stops the cluster when the tests end)")
	}
	if !h.tried {
		h.tried = true
		h.cluster, h.skip, h.err = newCluster()
	}
	if h.err != nil {
		if h.skip && !mustFail(os.Getenv("CI")) {
			t.Skipf("pgtest: %v (set %s to a superuser URL, or install PostgreSQL's server binaries)", h.err, EnvURL)
		}
		t.Fatalf("pgtest: %v", h.err)
	}
	return h.cluster
}

// newCluster connects to $ANCHORAGE_TEST_PGURL or starts a cluster of its
// own. skip reports that PostgreSQL is not installed.
func newCluster() (c *Cluster, skip bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if u := os.Getenv(EnvURL); u != "" {
		c := &Cluster{AdminURL: u}
		if err := c.waitReady(ctx); err != nil {
			return nil, false, fmt.Errorf("connecting to %s: %w", EnvURL, err)
		}
		return c, false, nil
	}
	bin, err := findBinaries(os.Getenv("PATH"), debianBinGlob)
	if err != nil {
		return nil, true, err
	}
	c, err = initCluster(ctx, bin)
	return c, false, err
}

// debianBinGlob is where Debian's postgresql package puts the server's
// programs.
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// findBinaries returns the directory holding initdb and pg_ctl: the first
// directory of pathList (a PATH) that has both, else the newest version's
// directory matching libGlob.
func findBinaries(pathList, libGlob string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "pg_ctl")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(libGlob)
	// The newest version first: "15" before "9.6".
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL is not installed: initdb and pg_ctl are neither on PATH nor in %s", libGlob)
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// mustFail reports whether a missing PostgreSQL fails a test rather than
// skipping it: under CI (the environment variable CI is "true").
func mustFail(ci string) bool { return ci == "true" }

func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// initCluster initialises a cluster in a temporary directory and starts it.
func initCluster(ctx context.Context, bin string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "anchorage-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("making the cluster's directory: %w", err)
	}
	c := &Cluster{dir: dir, bin: bin}
	fail := func(err error) (*Cluster, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: run the server as postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root, PostgreSQL must run as the postgres user: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(fmt.Errorf("giving the cluster's directory to postgres: %w", err))
		}
	}
	password := randomHex(16)
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return fail(fmt.Errorf("writing the superuser's password file: %w", err))
	}
	if c.cred != nil {
		os.Chown(pwfile, int(c.cred.Uid), int(c.cred.Gid))
	}
	data := filepath.Join(dir, "data")
	// Password authentication over TCP, so tests can check a wrong
	// password; the unix socket (in dir) trusts, for the admin.
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "postgres", "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		return fail(fmt.Errorf("initdb: %w\n%s", err, out))
	}
	os.Remove(pwfile)
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	c.port = port
	c.AdminURL = fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable", password, port)
	if err := c.Start(ctx); err != nil {
		return fail(err)
	}
	if err := c.watchdog(); err != nil {
		c.stop()
		return fail(err)
	}
	return c, nil
}

// watchdog starts a process that stops the cluster and removes its
// directory when the test binary is gone without doing it (a test
// timeout, a kill): a cluster is never left running. It checks once a
// second, as the cluster's user (pg_ctl refuses root), detached from the
// test's output.
func (c *Cluster) watchdog() error {
	data := filepath.Join(c.dir, "data")
	script := fmt.Sprintf(`while [ -d /proc/%d ]; do sleep 1; done
%q stop -D %q -m immediate >/dev/null 2>&1
rm -rf %q`, os.Getpid(), filepath.Join(c.bin, "pg_ctl"), data, c.dir)
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: c.cred}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the cluster's watchdog: %w", err)
	}
	go cmd.Wait()
	return nil
}

// Running reports whether the cluster accepts connections, as far as
// Start and Stop know. A cluster from ANCHORAGE_TEST_PGURL is always
// running.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dir == "" || c.running
}

// Own reports whether the cluster was started by this test binary (and
// so may be stopped and started by a test).
func (c *Cluster) Own() bool { return c.dir != "" }

// Start starts the cluster (again) on its port and waits until it
// accepts connections. Tests of connection loss use Stop and Start; a
// cluster from ANCHORAGE_TEST_PGURL cannot be started or stopped.
func (c *Cluster) Start(ctx context.Context) error {
	if c.dir == "" {
		return fmt.Errorf("the cluster of %s is not ours to start", EnvURL)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return nil
	}
	opts := strings.Join([]string{
		"-c listen_addresses=127.0.0.1",
		"-c port=" + strconv.Itoa(c.port),
		"-c unix_socket_directories=" + c.dir,
		// A throw-away cluster: durability is not wanted, speed is.
		"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
		"-c max_connections=300",
	}, " ")
	if out, err := c.run(ctx, "pg_ctl", "start", "-w", "-t", "120", "-D", filepath.Join(c.dir, "data"),
		"-l", filepath.Join(c.dir, "server.log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, lastLines(string(log), 20))
	}
	c.running = true
	return c.waitReady(ctx)
}

// Stop stops the cluster (fast shutdown: connections are closed) and
// waits until it is down. Databases and roles stay; Start brings them
// back.
func (c *Cluster) Stop(ctx context.Context) error {
	if c.dir == "" {
		return fmt.Errorf("the cluster of %s is not ours to stop", EnvURL)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop()
}

// stop stops the cluster; c.mu is held.
func (c *Cluster) stop() error {
	if !c.running {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := c.run(ctx, "pg_ctl", "stop", "-w", "-t", "120", "-m", "fast", "-D", filepath.Join(c.dir, "data")); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	c.running = false
	return nil
}

// PostmasterPID returns the process id of the cluster's postmaster, or 0
// when the cluster is not ours or not running.
func (c *Cluster) PostmasterPID() int {
	if !c.Own() || !c.Running() {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

// run runs one of the cluster's programs, as postgres when we are root.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
		cmd.Env = append(cmd.Env, "HOME="+c.dir)
	}
	// pg_ctl start leaves the server running with our stdout as its
	// stdout unless it is redirected: a file, not a pipe, so that
	// CombinedOutput does not wait for the server to exit.
	out, err := os.CreateTemp("", "pgtest-out-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	b, _ := os.ReadFile(out.Name())
	return b, err
}

// waitReady polls a connection until the cluster answers or ctx ends.
func (c *Cluster) waitReady(ctx context.Context) error {
	var last error
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := pgx.Connect(attempt, c.AdminURL)
		if err == nil {
			err = conn.Ping(attempt)
			conn.Close(attempt)
		}
		cancel()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for PostgreSQL to accept connections: %w (last error: %v)", ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// exec runs one statement as the superuser on the maintenance database.
func (c *Cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.AdminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// withDatabase returns the URL u with its database replaced by name.
func withDatabase(u, name string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		// A key=value DSN.
		return u + " dbname=" + name
	}
	p.Path = "/" + name
	return p.String()
}

// freePort returns a TCP port on the loopback interface nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
