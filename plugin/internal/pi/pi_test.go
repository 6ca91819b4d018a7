package pi

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// TestRecorded: the payloads recorded from Pi 1.6.0 parse, name their
// server and tool after the call, and record the result whole.
func TestRecorded(t *testing.T) {
	for _, c := range []struct {
		file, event, server, tool string
	}{
		{"hook-tool_call-workflow-step.json", ToolCall, "", ""},
		{"hook-tool_result-workflow-start_session.json", ToolResult, "workflow", "start_session"},
		{"hook-tool_result-tickets-get_ticket.json", ToolResult, "tickets", "get_ticket"},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "payloads", "pi", "1.6.0", c.file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if p.HookEventName != c.event || p.SessionID == "" || p.Event.ToolName == "" {
			t.Errorf("%s: event %q session %q tool %q", c.file, p.HookEventName, p.SessionID, p.Event.ToolName)
		}
		server, tool, ok := p.MCP()
		if server != c.server || tool != c.tool || ok != (c.server != "") {
			t.Errorf("%s: MCP() = %q %q %v", c.file, server, tool, ok)
		}
		if c.event == ToolResult && string(p.Response()) == string(p.Event.Content) {
			t.Errorf("%s: the response recorded is what the model sees, not the MCP result", c.file)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/payloads/pi/*/*.json")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"event":{"details":{"server":"x"},"structuredContent":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, payload.ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		if server, tool, ok := p.MCP(); ok && (server == "" || tool == "") {
			t.Fatalf("an MCP call with an empty part: %q %q", server, tool)
		}
		p.Response()
	})
}
