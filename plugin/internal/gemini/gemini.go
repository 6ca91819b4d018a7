// Package gemini speaks Gemini CLI's hook dialect: it parses the JSON a
// command hook receives and writes the JSON Gemini CLI reads back.
//
// Facts it relies on (recorded on Gemini CLI 0.61.0):
//   - MCP tools are named mcp_<server>_<tool>, and tool hooks carry
//     mcp_context {server_name, tool_name}; the name alone is ambiguous
//     when a server name contains "_".
//   - BeforeTool's hookSpecificOutput.tool_input replaces the whole input
//     (and is validated against the tool's schema), so it must be complete.
//   - AfterTool's tool_response is {llmContent, returnDisplay, error?},
//     built from the MCP content blocks only: result _meta never arrives.
//   - additionalContext on AfterTool is appended to the tool result.
package gemini

import (
	"encoding/json"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as Gemini CLI sends them in hook_event_name.
const (
	BeforeTool   = "BeforeTool"
	AfterTool    = "AfterTool"
	BeforeAgent  = "BeforeAgent"
	AfterAgent   = "AfterAgent"
	SessionStart = "SessionStart"
	SessionEnd   = "SessionEnd"
	PreCompress  = "PreCompress"
)

// Payload is the subset of a Gemini CLI hook input ctxhook reads.
type Payload struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	MCPContext     *MCPContext     `json:"mcp_context"`
	Prompt         string          `json:"prompt"`
	PromptResponse string          `json:"prompt_response"`
	Source         string          `json:"source"`
	Reason         string          `json:"reason"`
}

// MCPContext is what Gemini CLI says about the MCP server behind a tool.
type MCPContext struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

// Parse decodes a hook payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(raw, &p); err != nil {
		return nil, err
	}
	if err := payload.ObjectOrAbsent(p.ToolInput, "tool_input"); err != nil {
		return nil, err
	}
	return &p, nil
}

// MCP returns the server and server-side tool name of an MCP call:
// mcp_context when Gemini CLI sent it, else the name split at the first
// "_" after "mcp_" (as Gemini CLI itself splits it).
func (p *Payload) MCP() (server, tool string, ok bool) {
	if c := p.MCPContext; c != nil && c.ServerName != "" && c.ToolName != "" {
		return c.ServerName, c.ToolName, true
	}
	rest, found := strings.CutPrefix(p.ToolName, "mcp_")
	if !found {
		return "", "", false
	}
	server, tool, found = strings.Cut(rest, "_")
	if !found || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// Response is AfterTool's tool_response.
type Response struct {
	LLMContent []struct {
		Text string `json:"text"`
	} `json:"llmContent"`
	Error json.RawMessage `json:"error"`
}

// DecodeResponse reads tool_response; ok is false when it is not the
// object Gemini CLI sends for tools.
func DecodeResponse(raw json.RawMessage) (r Response, ok bool) {
	if json.Unmarshal(raw, &r) != nil {
		return Response{}, false
	}
	return r, true
}

// Failed reports whether the tool call ended in an error.
func (r Response) Failed() bool {
	return len(r.Error) > 0 && string(r.Error) != "null"
}

// AsMCPResult rebuilds the text content blocks as an MCP CallToolResult,
// without Gemini CLI's <untrusted_context> wrapper, so capture paths
// written for MCP results apply.
func (r Response) AsMCPResult() json.RawMessage {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var out struct {
		Content []block `json:"content"`
	}
	out.Content = []block{}
	for _, c := range r.LLMContent {
		out.Content = append(out.Content, block{"text", Unwrap(c.Text)})
	}
	b, _ := json.Marshal(out)
	return b
}

// Unwrap removes the <untrusted_context> tags Gemini CLI wraps MCP text in.
func Unwrap(s string) string {
	const open, close = "<untrusted_context>\n", "\n</untrusted_context>"
	if strings.HasPrefix(s, open) && strings.HasSuffix(s, close) && len(s) >= len(open)+len(close) {
		return s[len(open) : len(s)-len(close)]
	}
	return s
}

// BeforeToolInput returns the stdout that replaces the tool input. It must
// be the whole input: Gemini CLI validates it as the new arguments.
func BeforeToolInput(input json.RawMessage) string {
	return payload.Encode(output{HookSpecificOutput: specific{HookEventName: BeforeTool, ToolInput: input}})
}

// AdditionalContext returns the stdout that appends text for the model
// after the event's result.
func AdditionalContext(event, text string) string {
	return payload.Encode(output{HookSpecificOutput: specific{HookEventName: event, AdditionalContext: text}})
}

type output struct {
	HookSpecificOutput specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName     string          `json:"hookEventName"`
	ToolInput         json.RawMessage `json:"tool_input,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
}
