package classify

import (
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestMCPName(t *testing.T) {
	tests := []struct {
		name, in, known, server, tool string
		ok                            bool
	}{
		{"plain", "mcp__tickets__get_ticket", "", "tickets", "get_ticket", true},
		{"dashes", "mcp__workflow-server__step", "", "workflow-server", "step", true},
		{"known server with double underscore", "mcp__plugin_x__srv__get", "plugin_x__srv", "plugin_x__srv", "get", true},
		{"known server wrong", "mcp__a__b", "zzz", "a", "b", true},
		{"not mcp", "Read", "", "", "", false},
		{"no tool", "mcp__srv", "", "", "", false},
		{"empty tool", "mcp__srv__", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, tl, ok := MCPName(tt.in, tt.known)
			if s != tt.server || tl != tt.tool || ok != tt.ok {
				t.Errorf("MCPName(%q,%q) = %q,%q,%v", tt.in, tt.known, s, tl, ok)
			}
		})
	}
}

func TestTool(t *testing.T) {
	for in, want := range map[string]string{
		"mcp__x__y": abi.CategoryMCP, "Read": abi.CategoryFileRead, "Bash": abi.CategoryShell,
		"WebFetch": abi.CategoryWeb, "Task": abi.CategorySubagent, "Whatever": abi.CategoryTool,
		"Edit": abi.CategoryFileEdit,
	} {
		if got := Tool(in); got != want {
			t.Errorf("Tool(%q) = %q, want %q", in, got, want)
		}
	}
}
