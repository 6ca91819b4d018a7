package opencode

import (
	"encoding/json"
	"errors"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, tool   string
		servers      []string
		server, rest string
		ok           bool
	}{
		{"plain", "tickets_get_ticket", []string{"tickets"}, "tickets", "get_ticket", true},
		{"longest wins", "a_b_tool", []string{"a", "a_b"}, "a_b", "tool", true},
		{"sanitized name", "my_srv_get", []string{"my.srv"}, "my.srv", "get", true},
		{"no tool part", "tickets_", []string{"tickets"}, "", "", false},
		{"builtin", "bash", []string{"tickets"}, "", "", false},
	}
	for _, tt := range tests {
		s, r, ok := Split(tt.tool, tt.servers)
		if s != tt.server || r != tt.rest || ok != tt.ok {
			t.Errorf("%s: Split = %q, %q, %v", tt.name, s, r, ok)
		}
	}
}

func TestIsMCPResult(t *testing.T) {
	for out, want := range map[string]bool{
		`{"content":[{"type":"text","text":"x"}],"_meta":{}}`: true,
		`{"title":"t","output":"x","metadata":{}}`:            false,
		`{"content":[],"output":"x"}`:                         false,
		`null`:                                                false,
	} {
		p := &Payload{abi.OpenCodePayload{Hook: ToolAfter, Output: json.RawMessage(out)}}
		if got := p.IsMCPResult(); got != want {
			t.Errorf("IsMCPResult(%s) = %v", out, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"hook":"tool.execute.before","input":{"tool":"tickets_get","sessionID":"s"},"output":{"args":{"id":1}}}`))
	f.Add([]byte(`{"hook":"tool.execute.after","input":{"tool":"t","sessionID":"s","args":{}},"output":{"content":[]}}`))
	f.Add([]byte(`{"hook":"chat.message","input":{"sessionID":"s"},"output":{"parts":[{"type":"text","text":"hi"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, payload.ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		if a := p.Args(); len(a) > 0 && !json.Valid(a) {
			t.Fatalf("invalid args")
		}
		p.IsMCPResult()
		p.PromptText()
		Split(p.Input.Tool, []string{"tickets", "a_b"})
	})
}
