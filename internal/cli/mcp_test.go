package cli

import (
	"strings"
	"testing"
)

func TestMCPCommandFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown profile", []string{"mcp", "--tools", "everything"}, `unknown tool profile "everything"`},
		{"root not a directory", []string{"mcp", "--root", "cli.go"}, "not a directory"},
		{"arguments", []string{"mcp", "extra"}, "unknown command"},
		{"LLM URL without a model", []string{"mcp", "--llm-url", "http://127.0.0.1:1"}, "model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, append([]string{"--data-dir", t.TempDir()}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}
