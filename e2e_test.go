package main

// End-to-end tests against the real binary, built once by anchorageBinary:
// what a user sees when the input, the disk or the data directory is bad.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchorage-dev/anchorage/state"
)

// built is the binary under test, built on first use.
var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// anchorageBinary builds the anchorage binary (with -race when the tests
// run with it) once for the whole test run and returns its path.
func anchorageBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "anchorage-e2e-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "anchorage")
		args := []string{"build", "-o", built.path}
		if raceEnabled() {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, ".")...)
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// sampleRoot copies the sample app to a temporary directory.
func sampleRoot(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sampleapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "sampleapp"))); err != nil {
		t.Fatal(err)
	}
	return root
}

// cliResult is what a run of the binary printed and how it ended.
type cliResult struct {
	stdout, stderr string
	err            error
}

// runCLI runs the binary with args and waits for it.
func runCLI(t testing.TB, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(anchorageBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return cliResult{out.String(), errOut.String(), err}
}

// mustRun runs the binary and fails the test unless it succeeds.
func mustRun(t testing.TB, args ...string) cliResult {
	t.Helper()
	r := runCLI(t, args...)
	if r.err != nil {
		t.Fatalf("anchorage %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.err, clipText(r.stdout), clipText(r.stderr))
	}
	return r
}

func clipText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// e2eTimeout bounds every wait for the server: a failsafe, not a window
// the test relies on.
const e2eTimeout = 60 * time.Second

// mcpProc is a running "anchorage mcp".
type mcpProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	done   chan error
}

func startMCP(t *testing.T, args ...string) *mcpProc {
	t.Helper()
	cmd := exec.Command(anchorageBinary(t), append([]string{"mcp"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &mcpProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 64), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = &lockedBuffer{b: p.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.done:
		case <-time.After(e2eTimeout):
			cmd.Process.Kill()
		}
	})
	return p
}

// lockedBuffer is a buffer written by the process's stderr copier and
// read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// send writes one line.
func (p *mcpProc) send(line []byte) {
	p.t.Helper()
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.t.Fatalf("write to anchorage mcp: %v", err)
	}
}

// next returns the next line the server wrote.
func (p *mcpProc) next() []byte {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("anchorage mcp ended; stderr:\n%s", p.stderr)
		}
		return l
	case <-time.After(e2eTimeout):
		p.t.Fatalf("no answer from anchorage mcp; stderr:\n%s", p.stderr)
	}
	return nil
}

// rpcAnswer is a JSON-RPC answer.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and returns its answer, and the lines the server
// wrote before it.
func (p *mcpProc) call(id int, method string, params any) (rpcAnswer, [][]byte) {
	p.t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(req)
	var before [][]byte
	for {
		line := p.next()
		var a rpcAnswer
		if json.Unmarshal(line, &a) == nil && string(a.ID) == strings.TrimSpace(string(mustJSON(id))) {
			return a, before
		}
		before = append(before, line)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (p *mcpProc) initialize() {
	p.t.Helper()
	a, _ := p.call(1, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "1"},
	})
	if a.Error != nil {
		p.t.Fatalf("initialize: %s", a.Error.Message)
	}
	p.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// wait waits for the process to end and returns how it ended.
func (p *mcpProc) wait() error {
	p.t.Helper()
	for range p.lines {
	}
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(e2eTimeout):
		p.t.Fatalf("anchorage mcp did not end; stderr:\n%s", p.stderr)
	}
	return nil
}

// TestMCPMalformedInput sends anchorage mcp every kind of malformed line:
// each gets its JSON-RPC error, with the request's id when it has a usable
// one, and the session goes on (a ping after each is answered, and a tool
// still works at the end). Only a message over the size limit ends it.
func TestMCPMalformedInput(t *testing.T) {
	root := sampleRoot(t)
	p := startMCP(t, "--data-dir", t.TempDir(), "--root", root)
	p.initialize()

	tests := []struct {
		name  string
		line  string
		code  int
		id    string // the id of the error answer
		batch bool   // answered with an array
	}{
		{"not json", `{not json}`, -32700, "null", false},
		{"empty batch", `[]`, -32600, "null", false},
		{"null", `null`, -32600, "null", false},
		{"number", `42`, -32600, "null", false},
		{"string", `"hello"`, -32600, "null", false},
		{"no jsonrpc member", `{"foo":1}`, -32600, "null", false},
		{"a member alone", `"jsonrpc":"1.0"`, -32700, "null", false},
		{"version 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7", false},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", false},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null", false},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", false},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", false},
		{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600, "null", false},
		{"method not a string", `{"jsonrpc":"2.0","id":"m","method":5}`, -32600, `"m"`, false},
		{"params not an object", `{"jsonrpc":"2.0","id":"p","method":"ping","params":3}`, -32600, `"p"`, false},
		{"batch", `[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, -32600, "20", true},
		{"batch of junk", `[1,2,3]`, -32600, "null", false},
		{"invalid UTF-8", "\xff\xfe", -32700, "null", false},
		{"100k nested brackets", strings.Repeat("[", 100000), -32700, "null", false},
		{"100k nested and closed", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32700, "null", false},
		{"two values", `{"jsonrpc":"2.0","id":30,"method":"ping"} {}`, -32700, "null", false},
		{"truncated", `{"jsonrpc":"2.0","id":31,"method":"pi`, -32700, "null", false},
		{"response without result", `{"jsonrpc":"2.0","id":32}`, -32600, "null", false},
		{"nothing", `{}`, -32600, "null", false},
	}
	id := 100
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.send([]byte(tt.line))
			id++
			a, before := p.call(id, "ping", nil)
			if a.Error != nil {
				t.Fatalf("the ping after it: %s", a.Error.Message)
			}
			if len(before) != 1 {
				t.Fatalf("want one answer before the ping's, got %d: %q", len(before), before)
			}
			var answers []rpcAnswer
			if tt.batch {
				if err := json.Unmarshal(before[0], &answers); err != nil {
					t.Fatalf("answer %s: want an array: %v", before[0], err)
				}
			} else {
				answers = make([]rpcAnswer, 1)
				if err := json.Unmarshal(before[0], &answers[0]); err != nil {
					t.Fatalf("answer %s: %v", before[0], err)
				}
			}
			if len(answers) != 1 {
				t.Fatalf("want one error, got %s", before[0])
			}
			got := answers[0]
			if got.JSONRPC != "2.0" || got.Error == nil || got.Error.Code != tt.code || string(got.ID) != tt.id {
				t.Errorf("answer %s: want error %d with id %s", before[0], tt.code, tt.id)
			}
			if got.Error != nil && got.Error.Message == "" {
				t.Errorf("answer %s: the error says nothing", before[0])
			}
		})
	}
	p.t = t

	// The session still works: a tool call answers.
	a, _ := p.call(999, "tools/call", map[string]any{"name": "symbols", "arguments": map[string]any{"query": "FindByID"}})
	if a.Error != nil || !strings.Contains(string(a.Result), "FindByID") {
		t.Fatalf("symbols after the malformed lines: %s %v", a.Result, a.Error)
	}

	// An invalid value of 3 MiB is not repeated back in full.
	a, _ = p.call(998, "tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "retry", "strategy": strings.Repeat("x", 3<<20)}})
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("search with a 3 MiB strategy: %.300s %v", a.Result, a.Error)
	}
	if msg := res.Content[0].Text; len(a.Result) > 4096 || !strings.Contains(msg, "strategy") || !strings.Contains(msg, "semantic") {
		t.Errorf("the error about a 3 MiB strategy (%d bytes): %.600s", len(a.Result), msg)
	}

	// A message over 4 MiB ends the session, with an error first. The
	// server stops reading at the limit: the rest of the write may fail.
	go p.stdin.Write([]byte(`{"jsonrpc":"2.0","id":1000,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + "\"}}\n"))
	var last rpcAnswer
	if err := json.Unmarshal(p.next(), &last); err != nil || last.Error == nil || last.Error.Code != -32600 {
		t.Errorf("answer to a 5 MiB message: %+v %v", last, err)
	}
	err := p.wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("after a 5 MiB message: %v, want exit status 1", err)
	}
	if !strings.Contains(p.stderr.String(), "message too large") {
		t.Errorf("stderr does not say why the session ended:\n%s", p.stderr)
	}
}

// TestMCPAnswersBeforeEOF: a client that writes its requests and closes
// its end at once still gets every answer, and the server exits 0.
func TestMCPAnswersBeforeEOF(t *testing.T) {
	cmd := exec.Command(anchorageBinary(t), "mcp", "--data-dir", t.TempDir(), "--root", sampleRoot(t), "--no-refresh")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{not json}
{"jsonrpc":"2.0","id":2,"method":"ping"}
{"jsonrpc":"2.0","id":3,"method":"tools/list"}
`)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("anchorage mcp: %v\n%s", err, errOut.String())
	}
	ids := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var a rpcAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		ids[string(a.ID)] = true
	}
	for _, id := range []string{"1", "2", "3", "null"} {
		if !ids[id] {
			t.Errorf("no answer with id %s in:\n%s", id, out)
		}
	}
}

// damage overwrites pages [from, from+count) of the database at path
// with pseudo-random bytes (the same every run), as
// "dd if=/dev/urandom of=path bs=4096 seek=from count=count conv=notrunc"
// does, and removes its WAL files.
func damage(t testing.TB, path string, from, count int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if int64(from+count)*4096 > info.Size() {
		t.Fatalf("%s has %d pages, fewer than %d", path, info.Size()/4096, from+count)
	}
	rng := rand.New(rand.NewPCG(uint64(from), uint64(count)))
	page := make([]byte, 4096*count)
	for i := range page {
		page[i] = byte(rng.Uint32())
	}
	if _, err := f.WriteAt(page, int64(from)*4096); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// indexPath is where the index of root is kept under data.
func indexPath(t testing.TB, data, root string) string {
	t.Helper()
	dirs, err := state.Resolve(data)
	if err != nil {
		t.Fatal(err)
	}
	return dirs.IndexPath(root)
}

// indexDamages are the damages of issue 21: the first pages after the
// schema, and pages deep inside, where "index" used to report success
// while every query failed.
var indexDamages = []struct {
	name        string
	from, count int
}{
	{"pages 2-7", 2, 6},
	{"pages 10-60", 10, 51},
}

// TestDamagedIndexCLI: after damage to the index, each command succeeds
// on its first run, saying once that the index was rebuilt; the next run
// says nothing of it.
func TestDamagedIndexCLI(t *testing.T) {
	root := sampleRoot(t)
	commands := []struct {
		name string
		args []string
		want string // in the output
	}{
		{"index", []string{"index"}, "symbols:"},
		{"graph callers", []string{"graph", "callers", "UserRepository.FindByID"}, "GetUser"},
		{"search", []string{"search", "kw:FindByID"}, "FindByID"},
	}
	for _, d := range indexDamages {
		t.Run(d.name, func(t *testing.T) {
			data := t.TempDir()
			common := []string{"--data-dir", data, "--root", root}
			mustRun(t, append(common, "index")...)
			path := indexPath(t, data, root)
			damage(t, path, d.from, d.count)
			damaged := fileSum(t, path)
			for _, c := range commands {
				// Each command meets the same damage.
				if err := os.WriteFile(path, damaged, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, suffix := range []string{"-wal", "-shm"} {
					os.Remove(path + suffix)
				}
				r := mustRun(t, append(common, c.args...)...)
				if !strings.Contains(r.stdout, c.want) {
					t.Errorf("%s: output lacks %q:\n%s", c.name, c.want, clipText(r.stdout))
				}
				if n := strings.Count(r.stderr, "was unreadable and has been rebuilt"); n != 1 {
					t.Errorf("%s: the rebuild is reported %d times, want once:\n%s", c.name, n, r.stderr)
				}
			}
			r := mustRun(t, append(common, "graph", "callers", "UserRepository.FindByID")...)
			if !strings.Contains(r.stdout, "GetUser") || strings.Contains(r.stderr, "rebuilt") {
				t.Errorf("a run after the rebuild:\nstdout: %s\nstderr: %s", clipText(r.stdout), r.stderr)
			}
		})
	}
}

// TestDamagedIndexMCP: anchorage mcp starts over a damaged index, says so
// on stderr, and its tools answer from the rebuilt index.
func TestDamagedIndexMCP(t *testing.T) {
	for _, d := range indexDamages {
		t.Run(d.name, func(t *testing.T) {
			root := sampleRoot(t)
			data := t.TempDir()
			mustRun(t, "--data-dir", data, "--root", root, "index")
			damage(t, indexPath(t, data, root), d.from, d.count)
			p := startMCP(t, "--data-dir", data, "--root", root)
			p.initialize()
			for id := 10; ; id++ {
				a, _ := p.call(id, "tools/call", map[string]any{"name": "symbols", "arguments": map[string]any{"query": "FindByID"}})
				if a.Error != nil {
					t.Fatalf("symbols: %s", a.Error.Message)
				}
				var res struct {
					IsError           bool `json:"isError"`
					StructuredContent struct {
						Partial bool `json:"partial"`
						Symbols []struct {
							Name string `json:"name"`
						} `json:"symbols"`
					} `json:"structuredContent"`
				}
				if err := json.Unmarshal(a.Result, &res); err != nil || res.IsError {
					t.Fatalf("symbols: %s (%v)", a.Result, err)
				}
				if !res.StructuredContent.Partial {
					if len(res.StructuredContent.Symbols) == 0 {
						t.Fatalf("no FindByID once indexed: %s", a.Result)
					}
					break
				}
				// Still indexing: the answer says so; ask again.
				time.Sleep(20 * time.Millisecond)
			}
			p.stdin.Close()
			if err := p.wait(); err != nil {
				t.Errorf("anchorage mcp: %v", err)
			}
			if n := strings.Count(p.stderr.String(), "was unreadable and has been rebuilt"); n != 1 {
				t.Errorf("the rebuild is reported %d times, want once:\n%s", n, p.stderr)
			}
		})
	}
}

// fileSum returns the contents of a file, to tell that it was not
// changed.
func fileSum(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamagedUserDatabase: a damaged or emptied memory.db is reported and
// kept as it is; search (recording its statistics in feedback.db) and the
// graph, which need no rule, keep working,
// and the commands that need it fail saying what is wrong.
func TestDamagedUserDatabase(t *testing.T) {
	root := sampleRoot(t)
	for _, tt := range []struct {
		name string
		harm func(t *testing.T, path string)
		says string // in the error of the commands that need the database
	}{
		{"damaged pages 2-7", func(t *testing.T, path string) { damage(t, path, 2, 6) }, "left as it is"},
		{"empty file", func(t *testing.T, path string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
		}, "is empty (0 bytes)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			common := []string{"--data-dir", data, "--root", root}
			mustRun(t, append(common, "index")...)
			mustRun(t, append(common, "memory", "correct", "Wrap database errors with the query that failed", "--file", "users/repo.go")...)
			path := filepath.Join(data, "data", "memory.db")
			tt.harm(t, path)
			before := fileSum(t, path)

			r := mustRun(t, append(common, "search", "kw:FindByID")...)
			if !strings.Contains(r.stdout, "users/repo.go") {
				t.Errorf("search kw:FindByID:\n%s", r.stdout)
			}
			// Routing statistics live in their own database: a search
			// neither reads nor writes the damaged rules.
			if strings.Contains(r.stderr, "not recorded") {
				t.Errorf("search with a damaged memory.db does not record its statistics apart:\n%s", r.stderr)
			}
			r = mustRun(t, append(common, "graph", "callers", "UserRepository.FindByID")...)
			if !strings.Contains(r.stdout, "GetUser") {
				t.Errorf("graph callers:\n%s", r.stdout)
			}
			for _, args := range [][]string{{"memory", "show"}, {"memory", "stats"}, {"memory", "correct", "Another rule"}} {
				r = runCLI(t, append(common, args...)...)
				if r.err == nil || !strings.Contains(r.stderr, tt.says) || !strings.Contains(r.stderr, path) {
					t.Errorf("%s: %v\n%s", strings.Join(args, " "), r.err, r.stderr)
				}
				if strings.Contains(r.stderr, "rebuilt") {
					t.Errorf("%s: %s", strings.Join(args, " "), r.stderr)
				}
			}
			if after := fileSum(t, path); !bytes.Equal(before, after) {
				t.Errorf("memory.db was changed (%d bytes, now %d)", len(before), len(after))
			}
			for _, suffix := range []string{"-wal", "-journal"} {
				if _, err := os.Stat(path + suffix); err == nil && tt.name == "empty file" {
					t.Errorf("%s%s was created beside the empty database", path, suffix)
				}
			}
		})
	}
}

// TestApproveWhenAnchoringFails: a rule approved where its example cannot
// be looked for (no such workspace) is stored, and approve says both.
func TestApproveWhenAnchoringFails(t *testing.T) {
	root := sampleRoot(t)
	data := t.TempDir()
	mustRun(t, "--data-dir", data, "--root", root, "memory", "correct", "Wrap database errors with the query that failed", "--file", "users/repo.go")
	mustRun(t, "--data-dir", data, "--root", root, "memory", "propose")
	gone := filepath.Join(t.TempDir(), "gone")
	r := mustRun(t, "--data-dir", data, "--root", gone, "memory", "approve", "1")
	if !strings.Contains(r.stdout, "Approved proposal 1 as rule 1") {
		t.Errorf("approve does not say the rule was approved:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "anchoring failed") || !strings.Contains(r.stderr, "reanchor") {
		t.Errorf("approve does not say anchoring failed:\n%s", r.stderr)
	}
	r = mustRun(t, "--data-dir", data, "--root", root, "memory", "show")
	if !strings.Contains(r.stdout, "Wrap database errors with the query that failed") {
		t.Errorf("the approved rule is not stored:\n%s", r.stdout)
	}
}

// TestFullDisk: with the data directory on a full file system (a 1 MiB
// tmpfs, filled), a command that must write says that the disk is full,
// not just "disk I/O error", and what is stored is intact once space is
// freed. It needs to mount a tmpfs (root on Linux), and is skipped
// otherwise.
func TestFullDisk(t *testing.T) {
	bin := anchorageBinary(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	root := sampleRoot(t)
	data := filepath.Join(mnt, "data")
	mustRun(t, "--data-dir", data, "--root", root, "memory", "correct", "Wrap database errors with the query that failed")
	fill := filepath.Join(mnt, "fill")
	f, err := os.Create(fill)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break // full
		}
	}
	f.Close()
	cmd := exec.Command(bin, "--data-dir", data, "--root", root, "memory", "correct", "Retry jobs that fail with an I/O error")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("memory correct on a full disk succeeded:\n%s", out)
	}
	if !strings.Contains(string(out), "is full") || !strings.Contains(string(out), filepath.Join(data, "data")) {
		t.Errorf("memory correct on a full disk:\n%s", out)
	}
	os.Remove(fill)
	r := mustRun(t, "--data-dir", data, "--root", root, "memory", "correct", "Retry jobs that fail with an I/O error")
	if !strings.Contains(r.stdout, "Recorded correction 2") {
		t.Errorf("after freeing space:\n%s", r.stdout)
	}
}

// TestReadOnlyUserData: with the user data directory read-only (a
// read-only bind mount: root on Linux, skipped otherwise), the commands
// that read rules work, and those that write say why they cannot.
func TestReadOnlyUserData(t *testing.T) {
	root := sampleRoot(t)
	data := t.TempDir()
	common := []string{"--data-dir", data, "--root", root}
	mustRun(t, append(common, "memory", "correct", "Wrap database errors with the query that failed", "--file", "users/repo.go")...)
	mustRun(t, append(common, "memory", "propose")...)
	mustRun(t, append(common, "memory", "approve", "1")...)
	mustRun(t, append(common, "memory", "search", "database errors")...)
	userDir := filepath.Join(data, "data")
	if out, err := exec.Command("mount", "--bind", userDir, userDir).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount the data directory: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", userDir).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", userDir).CombinedOutput(); err != nil {
		t.Skipf("cannot make the bind mount read-only: %v %s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"memory", "show"}, "Wrap database errors with the query that failed"},
		{[]string{"memory", "stats"}, "1 active"},
		{[]string{"memory", "search", "database errors"}, "rule:1"},
		{[]string{"search", "kw:FindByID"}, "users/repo.go"},
	} {
		r := mustRun(t, append(common, c.args...)...)
		if !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s: output lacks %q:\n%s", strings.Join(c.args, " "), c.want, r.stdout)
		}
	}
	r := runCLI(t, append(common, "memory", "correct", "Retry failed jobs")...)
	if r.err == nil || !strings.Contains(r.stderr, "readonly") {
		t.Errorf("memory correct on a read-only data directory: %v\n%s", r.err, r.stderr)
	}
}
