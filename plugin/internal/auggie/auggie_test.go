package auggie

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestMCP(t *testing.T) {
	for _, c := range []struct {
		name, payload, server, tool string
		servers                     []string
		ok                          bool
	}{
		{"metadata", `{"tool_name":"get_ticket_my_tracker","is_mcp_tool":true,"mcp_metadata":{"mcpExecutedToolServerName":"my_tracker","mcpExecutedToolName":"get_ticket"}}`, "my_tracker", "get_ticket", nil, true},
		{"configured server", `{"tool_name":"get_ticket_my_tracker","is_mcp_tool":true}`, "my_tracker", "get_ticket", []string{"tracker", "my_tracker"}, true},
		{"last underscore", `{"tool_name":"get_ticket_tickets","is_mcp_tool":true}`, "tickets", "get_ticket", nil, true},
		{"built-in", `{"tool_name":"str-replace-editor","is_mcp_tool":false}`, "", "", nil, false},
		{"no underscore", `{"tool_name":"echo","is_mcp_tool":true}`, "", "", nil, false},
	} {
		p, err := Parse([]byte(c.payload))
		if err != nil {
			t.Fatal(err)
		}
		s, tool, ok := p.MCP(c.servers)
		if s != c.server || tool != c.tool || ok != c.ok {
			t.Errorf("%s: MCP() = %q %q %v, want %q %q %v", c.name, s, tool, ok, c.server, c.tool, c.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/payloads/auggie/*/*.json")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"tool_name":"_","is_mcp_tool":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, payload.ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		server, tool, ok := p.MCP([]string{"x", "tickets"})
		if ok && (server == "" || tool == "") {
			t.Fatalf("an MCP call with an empty part: %q %q", server, tool)
		}
		p.Cwd()
		p.Failed()
	})
}
