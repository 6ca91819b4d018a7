package gemini

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestMCP(t *testing.T) {
	tests := []struct {
		name, in, ctxServer, ctxTool, server, tool string
		ok                                         bool
	}{
		{"context wins", "mcp_my_srv_get", "my_srv", "get", "my_srv", "get", true},
		{"name only", "mcp_tickets_get_ticket", "", "", "tickets", "get_ticket", true},
		{"not mcp", "read_file", "", "", "", "", false},
		{"no tool", "mcp_tickets", "", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Payload{ToolName: tt.in}
			if tt.ctxServer != "" {
				p.MCPContext = &MCPContext{ServerName: tt.ctxServer, ToolName: tt.ctxTool}
			}
			s, tl, ok := p.MCP()
			if s != tt.server || tl != tt.tool || ok != tt.ok {
				t.Errorf("MCP() = %q, %q, %v", s, tl, ok)
			}
		})
	}
}

func TestUnwrap(t *testing.T) {
	for in, want := range map[string]string{
		"<untrusted_context>\nabc\n</untrusted_context>": "abc",
		"plain":                  "plain",
		"<untrusted_context>\n":  "<untrusted_context>\n",
		"<untrusted_context>\nx": "<untrusted_context>\nx",
	} {
		if got := Unwrap(in); got != want {
			t.Errorf("Unwrap(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/payloads/gemini/*/*.json")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, payload.ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		p.MCP()
		if r, ok := DecodeResponse(p.ToolResponse); ok && !json.Valid(r.AsMCPResult()) {
			t.Fatal("AsMCPResult is not JSON")
		}
		if out := BeforeToolInput(json.RawMessage(`{}`)); !json.Valid([]byte(out)) {
			t.Fatal("bad output")
		}
	})
}
