package cli

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/anchorage-dev/anchorage/memory/team"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// runErr runs the command line and returns its output and its standard
// error.
func runErr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestMemoryTeamWithoutURL(t *testing.T) {
	t.Setenv("ANCHORAGE_TEAM_URL", "")
	data := t.TempDir()
	for _, args := range [][]string{{"status"}, {"pull"}, {"propose", "x"}, {"approve", "abc"}} {
		_, err := run(t, append([]string{"--data-dir", data, "--root", sampleApp, "memory", "team"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "memory.team.url") {
			t.Errorf("team %v without a URL: %v; want an error naming memory.team.url", args, err)
		}
	}
	_, err := run(t, "--data-dir", data, "--team-url", "mysql://root:hunter22@db/x", "memory", "team", "status")
	if err == nil || !strings.Contains(err.Error(), "--team-url") || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("a MySQL URL: %v; want an error naming --team-url without the password", err)
	}
}

// TestMemoryTeamCLI runs the team commands of a member and an approver,
// each with their own data directory, against one team database.
func TestMemoryTeamCLI(t *testing.T) {
	t.Setenv("ANCHORAGE_TEAM_URL", "")
	db := pgtest.Start(t)
	if _, err := run(t, "--data-dir", t.TempDir(), "--team-url", db.URL, "memory", "team", "init"); err != nil {
		t.Fatalf("init: %v", err)
	}
	aliceURL, _ := db.Login(t, "alice", team.RoleMember)
	bobURL, _ := db.Login(t, "bob", team.RoleMember, team.RoleApprover)
	secrets := []string{}
	for _, u := range []string{aliceURL, bobURL} {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if pw, ok := pu.User.Password(); ok {
			secrets = append(secrets, pw)
		}
	}
	alice := []string{"--data-dir", t.TempDir(), "--root", sampleApp, "--team-url", aliceURL}
	bob := []string{"--data-dir", t.TempDir(), "--root", sampleApp, "--team-url", bobURL}
	cli := func(who []string, args ...string) string {
		t.Helper()
		out, errOut, err := runErr(t, append(append([]string{}, who...), args...)...)
		for _, pw := range secrets {
			if strings.Contains(out+errOut, pw) || err != nil && strings.Contains(err.Error(), pw) {
				t.Fatalf("%v printed a password:\n%s%s%v", args, out, errOut, err)
			}
		}
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}

	out := cli(alice, "memory", "team", "status")
	if !strings.Contains(out, "Reachable:     yes") || !strings.Contains(out, "xxxxx") {
		t.Errorf("status:\n%s", out)
	}
	var prop struct {
		Rule struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"rule"`
		Queued bool `json:"queued"`
	}
	out = cli(alice, "--json", "memory", "team", "propose", "--scope", "language:go", "Wrap database errors with the query that failed")
	if err := json.Unmarshal([]byte(out), &prop); err != nil || prop.Queued || prop.Rule.Status != "proposed" {
		t.Fatalf("propose: %s (%v)", out, err)
	}
	if _, _, err := runErr(t, append(alice, "memory", "team", "approve", prop.Rule.ID)...); err == nil || !strings.Contains(err.Error(), "anchorage_approver") {
		t.Errorf("a member approving: %v; want a refusal naming anchorage_approver", err)
	}
	cli(bob, "memory", "team", "pull", "--no-anchor")
	if out := cli(bob, "memory", "team", "list", "--status", "proposed"); !strings.Contains(out, prop.Rule.ID[:8]) {
		t.Errorf("bob's list of proposals:\n%s", out)
	}
	if out := cli(bob, "memory", "team", "approve", prop.Rule.ID[:8]); !strings.Contains(out, "approved") {
		t.Errorf("approve:\n%s", out)
	}
	cli(alice, "memory", "team", "pull", "--no-anchor")
	if out := cli(alice, "memory", "show"); !strings.Contains(out, "[team "+prop.Rule.ID[:8]+"] Wrap database errors") {
		t.Errorf("show after the approval:\n%s", out)
	}
	if out := cli(alice, "memory", "show", "--scope", "team"); !strings.Contains(out, "team language:go") {
		t.Errorf("show --scope team:\n%s", out)
	}
	out = cli(bob, "memory", "team", "audit")
	if !strings.Contains(out, "propose") || !strings.Contains(out, "approve") {
		t.Errorf("audit:\n%s", out)
	}
}
