// Package claude speaks Claude Code's hook dialect: it parses the JSON a
// hook receives on stdin and writes the exact JSON Claude Code reads back.
//
// Facts it relies on (recorded on Claude Code 2.1.197 and 2.1.330):
//   - MCP tools are named mcp__<server>__<tool>; 2.1.330 adds mcp_server.name.
//   - PostToolUse tool_response for an MCP tool is the content-block array
//     (or a string when the server sent structuredContent); result _meta is
//     not included.
//   - PreToolUse updatedInput replaces the whole input and is honoured only
//     with permissionDecision "allow" (or "ask").
package claude

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as Claude Code sends them in hook_event_name.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	Stop               = "Stop"
)

// ErrPayload wraps every parse failure, so hosts can tell "bad input" from
// "ctxhook failed" with errors.Is.
var ErrPayload = payload.ErrPayload

// Payload is the subset of a Claude Code hook input ctxhook reads. Unknown
// fields are ignored, so newer Claude Code versions keep working.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolUseID      string          `json:"tool_use_id"`
	Error          json.RawMessage `json:"error"`
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"`
	Reason         string          `json:"reason"`
	LastMessage    string          `json:"last_assistant_message"`
	MCPServer      *struct {
		Name string `json:"name"`
	} `json:"mcp_server"`
}

// Server returns the MCP server name Claude Code reported, if any.
func (p *Payload) Server() string {
	if p.MCPServer == nil {
		return ""
	}
	return p.MCPServer.Name
}

// Parse decodes a hook payload. event is the event the hook was installed
// for; when the payload names another, the payload wins (it is what
// Claude Code actually fired) unless it names none.
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

// PreToolUseAllow returns the stdout that replaces the tool input and
// allows the call. Claude Code ignores updatedInput without an allow.
func PreToolUseAllow(updatedInput json.RawMessage, additionalContext string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:      PreToolUse,
		PermissionDecision: "allow",
		UpdatedInput:       updatedInput,
		AdditionalContext:  additionalContext,
	}})
}

// AdditionalContext returns the stdout that adds text for the model next
// to the event (a tool result, a prompt, a session start).
func AdditionalContext(event, text string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:     event,
		AdditionalContext: text,
	}})
}

type hookOutput struct {
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
}

type specific struct {
	HookEventName        string          `json:"hookEventName"`
	PermissionDecision   string          `json:"permissionDecision,omitempty"`
	UpdatedInput         json.RawMessage `json:"updatedInput,omitempty"`
	AdditionalContext    string          `json:"additionalContext,omitempty"`
	UpdatedMCPToolOutput string          `json:"updatedMCPToolOutput,omitempty"`
}

// PostToolUseOutput returns the stdout that adds context after a tool result
// and, when replacement is set, replaces the MCP tool's output the model
// sees (Claude Code takes a string here; Codex ignores the field, so the
// plugin never sends it to Codex).
func PostToolUseOutput(event, context, replacement string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:        event,
		AdditionalContext:    context,
		UpdatedMCPToolOutput: replacement,
	}})
}

func encode(v any) string { return payload.Encode(v) }
