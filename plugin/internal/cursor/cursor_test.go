package cursor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestUnstring(t *testing.T) {
	for in, want := range map[string]string{
		`"{\"a\":1}"`:  `{"a":1}`,
		`" [1,2] "`:    `[1,2]`,
		`"not json"`:   `"not json"`,
		`"{broken"`:    `"{broken"`,
		`{"a":1}`:      `{"a":1}`,
		`"\"quoted\""`: `"\"quoted\""`,
	} {
		if got := string(Unstring(json.RawMessage(in))); got != want {
			t.Errorf("Unstring(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestMCPTool(t *testing.T) {
	tests := []struct {
		name, tool, server, want string
		ok                       bool
	}{
		{"tool event", "MCP:get_ticket", "", "get_ticket", true},
		{"mcp event", "get_ticket", "tickets", "get_ticket", true},
		{"builtin", "Shell", "", "", false},
		{"empty", "MCP:", "", "", false},
	}
	for _, tt := range tests {
		p := &Payload{ToolName: tt.tool, MCPServerName: tt.server}
		if got, ok := p.MCPTool(); got != tt.want || ok != tt.ok {
			t.Errorf("%s: MCPTool() = %q, %v", tt.name, got, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/payloads/cursor/*/*.json")
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
		for _, raw := range []json.RawMessage{p.Input(), p.Result()} {
			if len(raw) > 0 && !json.Valid(raw) {
				t.Fatalf("invalid JSON out of a valid payload: %q", raw)
			}
		}
	})
}
