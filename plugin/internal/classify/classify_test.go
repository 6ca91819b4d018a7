package classify

import (
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestMCPName(t *testing.T) {
	tests := []struct {
		name, in, known, server, tool string
		servers                       []string
		ok                            bool
	}{
		{"plain", "mcp__tickets__get_ticket", "", "tickets", "get_ticket", nil, true},
		{"dashes", "mcp__workflow-server__step", "", "workflow-server", "step", nil, true},
		{"known server with double underscore", "mcp__plugin_x__srv__get", "plugin_x__srv", "plugin_x__srv", "get", nil, true},
		{"known server wrong", "mcp__a__b", "zzz", "a", "b", nil, true},
		{"not mcp", "Read", "", "", "", nil, false},
		{"no tool", "mcp__srv", "", "", "", nil, false},
		{"empty tool", "mcp__srv__", "", "", "", nil, false},
		{"server of underscores", "mcp_____0", "", "_", "0", nil, true},
		{"configured server ending in _", "mcp__a___b", "", "a_", "b", []string{"a", "a_"}, true},
		{"configured server, tool starting with _", "mcp__a___b", "", "a", "_b", []string{"a"}, true},
		{"configured server with double underscore", "mcp__x__y__z", "", "x__y", "z", []string{"x__y"}, true},
		{"configured server, nothing after it", "mcp__a__", "", "", "", []string{"a"}, false},
		{"known server wins over configured", "mcp__a__b__c", "a", "a", "b__c", []string{"a__b"}, true},
		{"only underscores", "mcp____", "", "", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, tl, ok := MCPName(tt.in, tt.known, tt.servers)
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

// FuzzMCPName: a call of a configured server's tool splits back into that
// server and tool, whatever either is named, and an unconfigured name
// never splits into an empty server or tool.
func FuzzMCPName(f *testing.F) {
	f.Add("tickets", "get_ticket")
	f.Add("_", "0")
	f.Add("a_", "_b")
	f.Add("x__y", "z__")
	f.Fuzz(func(t *testing.T, server, tool string) {
		name := "mcp__" + server + "__" + tool
		if s, tl, ok := MCPName(name, "", nil); ok && (s == "" || tl == "") {
			t.Fatalf("MCPName(%q) = %q, %q", name, s, tl)
		}
		if server == "" || tool == "" {
			return
		}
		s, tl, ok := MCPName(name, "", []string{server})
		if !ok || s != server || tl != tool {
			t.Fatalf("MCPName(%q, servers %q) = %q, %q, %v", name, server, s, tl, ok)
		}
	})
}
