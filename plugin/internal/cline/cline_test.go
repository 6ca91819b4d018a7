package cline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestMCP(t *testing.T) {
	for _, c := range []struct {
		name, tool, server, mcpTool string
		servers                     []string
		ok                          bool
	}{
		{"first double underscore", "tickets__get_ticket", "tickets", "get_ticket", nil, true},
		{"configured server with __", "my__tracker__get__ticket", "my__tracker", "get__ticket", []string{"my", "my__tracker"}, true},
		{"built-in", "read_files", "", "", nil, false},
		{"empty server", "__x", "", "", nil, false},
		{"a server named _", "___0", "_", "0", nil, true},
		{"empty tool", "tickets__", "", "", []string{"tickets"}, false},
	} {
		s, tool, ok := MCP(c.tool, c.servers)
		if s != c.server || tool != c.mcpTool || ok != c.ok {
			t.Errorf("%s: MCP() = %q %q %v, want %q %q %v", c.name, s, tool, ok, c.server, c.mcpTool, c.ok)
		}
	}
}

// TestRecorded: the payloads recorded from Cline CLI 3.0.65 parse, and
// name their event, session, working directory and call.
func TestRecorded(t *testing.T) {
	for file, event := range map[string]string{
		"hook-PreToolUse-tickets__get_ticket.json":  PreToolUse,
		"hook-PostToolUse-tickets__get_ticket.json": PostToolUse,
		"hook-TaskStart.json":                       TaskStart,
	} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/payloads/cline/3.0.65", file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if p.Event("x") != event || p.TaskID == "" || p.Cwd() == "" {
			t.Errorf("%s: event %q session %q cwd %q", file, p.Event("x"), p.TaskID, p.Cwd())
		}
		if c := p.Call(); (c != nil) != (event != TaskStart) || c != nil && (c.Name != "tickets__get_ticket" || c.Failed()) {
			t.Errorf("%s: call %+v", file, c)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/payloads/cline/*/*.json")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"hookName":"tool_result","tool_result":{"name":"a__b","error":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, payload.ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		if c := p.Call(); c != nil {
			server, tool, ok := MCP(c.Name, []string{"x", "tickets"})
			if ok && (server == "" || tool == "") {
				t.Fatalf("an MCP call with an empty part: %q %q", server, tool)
			}
			c.Failed()
		}
		p.Cwd()
		p.Event("")
	})
}
