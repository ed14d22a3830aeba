package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/internal/pgtest"
	"github.com/anchorage-dev/anchorage/mcp"
	"github.com/anchorage-dev/anchorage/memory/team"
)

// TestTeamTools checks that an agent may propose to the user's team and
// never approve: no tool approves, and asking for one with a team rule's
// id fails.
func TestTeamTools(t *testing.T) {
	db := pgtest.Start(t)
	ctx, cancel := testCtx(t)
	defer cancel()
	if err := team.Install(ctx, db.URL); err != nil {
		t.Fatal(err)
	}
	memberURL, _ := db.Login(t, "agentuser", team.RoleMember, team.RoleApprover) // even an approver's agent
	root, _ := workspace(t)
	cs := connect(t, root, t.TempDir(), string(mcp.ProfileAll), teamEnv+"="+memberURL)

	var out mcp.ProposeOutput
	call(t, cs, mcp.ToolPropose, map[string]any{"team_rule": "Wrap database errors with the query that failed", "team_scope": "team language:go"}, &out)
	if out.Team == nil || out.Team.ID == "" || out.Team.Queued || out.Team.Scope != "team language:go" {
		t.Fatalf("propose to the team: %+v", out.Team)
	}
	store, err := team.Open(ctx, memberURL)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	changes, err := store.Changes(ctx, 0)
	if err != nil || len(changes) != 1 || changes[0].ID != out.Team.ID || changes[0].Status != team.StatusProposed {
		t.Fatalf("the team database holds %+v, %v; want the proposal", changes, err)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		for _, verb := range []string{"approve", "reject", "retire", "edit", "delete"} {
			if strings.Contains(tool.Name, verb) {
				t.Errorf("tool %s may %s", tool.Name, verb)
			}
		}
	}
	for _, name := range []string{"approve", "team_approve", "approve_team_rule"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{"id": out.Team.ID}})
		if err == nil && !res.IsError {
			t.Errorf("calling %s with a team id succeeded", name)
		}
	}
	if changes, _ := store.Changes(ctx, 0); len(changes) != 1 || changes[0].Status != team.StatusProposed {
		t.Errorf("after the refused calls the rule is %+v; want it still proposed", changes)
	}

	// Without a team, team_rule says so.
	plain := connect(t, root, t.TempDir(), string(mcp.ProfileAll))
	res, err := plain.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPropose, Arguments: map[string]any{"team_rule": "x"}})
	if err == nil && (!res.IsError || !strings.Contains(text(res), "memory.team.url")) {
		t.Errorf("team_rule without a team: %s", text(res))
	}
}
