// Package pi speaks the dialect of the Pi coding agent's extensions: the
// payload ctxhook's Pi extension (adapters/pi) sends for a tool event, Pi's
// own event object inside it. The answers are package claude's (the
// extension applies them to the event).
//
// Facts it relies on, from Pi 1.6.0 (@earendil-works/pi-coding-agent) run
// offline with its built-in MCP:
//   - tool_call carries {toolName, toolCallId, parentToolCallId?, input};
//     the extension changes input in place, and the model never sees the
//     change (Pi passes the tool a deep copy of the model's arguments);
//   - tool_result carries the same plus content (what the model will see,
//     text cut at 20 KB), details ({server, tool} for an MCP tool, and
//     fullOutputPath when cut), structuredContent (the MCP result whole,
//     but for its top-level _meta, which Pi drops) and isError; a result
//     is replaced by returning new content;
//   - MCP tools exposed directly are named mcp__<server>__<tool>.
package pi

import (
	"encoding/json"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names, as Pi names its extension events.
const (
	ToolCall   = "tool_call"
	ToolResult = "tool_result"
)

// Payload is what the extension sends: the event's name, the session and
// working directory from Pi's context, and Pi's event object.
type Payload struct {
	HookEventName string `json:"hook_event_name"`
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	Event         struct {
		ToolName          string          `json:"toolName"`
		ToolCallID        string          `json:"toolCallId"`
		Input             json.RawMessage `json:"input"`
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Details           struct {
			Server string `json:"server"`
			Tool   string `json:"tool"`
		} `json:"details"`
	} `json:"event"`
}

// Parse decodes a payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(payload.Clean(raw), &p); err != nil {
		return nil, err
	}
	if err := payload.ObjectOrAbsent(p.Event.Input, "event.input"); err != nil {
		return nil, err
	}
	return &p, nil
}

// MCP returns the server and tool of an MCP call as Pi's details name
// them (after the call). Only a tool named mcp__…: Pi's own resource
// tools (read_mcp_resource…) carry a server in their details too.
func (p *Payload) MCP() (server, tool string, ok bool) {
	if d := p.Event.Details; d.Server != "" && d.Tool != "" && strings.HasPrefix(p.Event.ToolName, "mcp__") {
		return d.Server, d.Tool, true
	}
	return "", "", false
}

// Server is the configured server whose name Pi made into name's server
// part: Pi keeps [A-Za-z0-9_] in a tool's name and turns anything else
// into "_" (a server my-tickets is mcp__my_tickets__…), so before the call
// the name alone does not give the server back.
func Server(name string, servers []string) string {
	for _, s := range servers {
		if sanitize(s) == name {
			return s
		}
	}
	return name
}

// Names is servers as Pi writes them in a tool's name, for splitting
// the name (see Server).
func Names(servers []string) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = sanitize(s)
	}
	return out
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Response is the tool's result as ctxhook records it: the MCP result
// whole when Pi kept it (structuredContent), else what the model sees.
func (p *Payload) Response() json.RawMessage {
	if len(p.Event.StructuredContent) > 0 && string(p.Event.StructuredContent) != "null" {
		return p.Event.StructuredContent
	}
	return p.Event.Content
}
