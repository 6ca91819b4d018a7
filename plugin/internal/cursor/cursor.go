// Package cursor speaks Cursor's hook dialect (hooks.json version 1): it
// parses the JSON a command hook receives and writes what Cursor reads.
//
// Facts it relies on (Cursor's documented hook schemas; Cursor cannot run
// on this project's test machines, so fixtures are built from them):
//   - preToolUse/postToolUse name MCP tools "MCP:<tool>", without the
//     server. Only before/afterMCPExecution carry mcp_server_name, and they
//     fire after preToolUse, which is the only hook that can change input.
//   - preToolUse's updated_input is merged into the arguments key by key.
//   - postToolUse's tool_output is the MCP result as a JSON string
//     ({content, isError}); structuredContent and _meta never arrive.
//   - additional_context on postToolUse adds text for the model.
package cursor

import (
	"encoding/json"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as Cursor sends them in hook_event_name.
const (
	PreToolUse         = "preToolUse"
	PostToolUse        = "postToolUse"
	PostToolUseFailure = "postToolUseFailure"
	BeforeMCPExecution = "beforeMCPExecution"
	AfterMCPExecution  = "afterMCPExecution"
	BeforeSubmitPrompt = "beforeSubmitPrompt"
	SessionStart       = "sessionStart"
	SessionEnd         = "sessionEnd"
	Stop               = "stop"
)

// MCPPrefix starts the name of every MCP tool in preToolUse/postToolUse.
const MCPPrefix = "MCP:"

// Payload is the subset of a Cursor hook input ctxhook reads.
type Payload struct {
	ConversationID string          `json:"conversation_id"`
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	ResultJSON     json.RawMessage `json:"result_json"`
	ToolUseID      string          `json:"tool_use_id"`
	MCPServerName  string          `json:"mcp_server_name"`
	ErrorMessage   string          `json:"error_message"`
	Prompt         string          `json:"prompt"`
	Status         string          `json:"status"`
	Reason         string          `json:"reason"`
}

// Parse decodes a hook payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Session is the session id, falling back to the conversation id (Cursor
// sends both, equal).
func (p *Payload) Session() string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return p.ConversationID
}

// Cwd is the first workspace root.
func (p *Payload) Cwd() string {
	if len(p.WorkspaceRoots) > 0 {
		return p.WorkspaceRoots[0]
	}
	return ""
}

// MCPTool returns the server-side tool name of an MCP call in any event:
// "MCP:<tool>" in the tool events, the bare name in the MCP events.
func (p *Payload) MCPTool() (string, bool) {
	if t, ok := strings.CutPrefix(p.ToolName, MCPPrefix); ok && t != "" {
		return t, true
	}
	if p.MCPServerName != "" && p.ToolName != "" {
		return p.ToolName, true
	}
	return "", false
}

// Input returns the tool input as a JSON object: the MCP events send it
// as a JSON string, the tool events as an object.
func (p *Payload) Input() json.RawMessage { return Unstring(p.ToolInput) }

// Result returns the tool result (tool_output, else result_json), decoded
// from the JSON string Cursor sends when it holds JSON.
func (p *Payload) Result() json.RawMessage {
	if len(p.ToolOutput) > 0 {
		return Unstring(p.ToolOutput)
	}
	return Unstring(p.ResultJSON)
}

// Unstring turns a JSON string holding a JSON object or array into that
// value; anything else comes back unchanged.
func Unstring(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return raw
	}
	return json.RawMessage(t)
}

// PreToolUseOutput returns the stdout that merges input into the tool's
// arguments (when set) and adds context. No permission is given: the
// user's approval rules still apply.
func PreToolUseOutput(input json.RawMessage, context string) string {
	return payload.Encode(struct {
		UpdatedInput      json.RawMessage `json:"updated_input,omitempty"`
		AdditionalContext string          `json:"additional_context,omitempty"`
	}{input, context})
}

// PostToolUseOutput returns the stdout that adds context and, when replacement
// is set, replaces the MCP result the model sees.
func PostToolUseOutput(context, replacement string) string {
	return payload.Encode(struct {
		AdditionalContext    string `json:"additional_context,omitempty"`
		UpdatedMCPToolOutput string `json:"updated_mcp_tool_output,omitempty"`
	}{context, replacement})
}
