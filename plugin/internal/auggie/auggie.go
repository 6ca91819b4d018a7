// Package auggie speaks Auggie's (the Augment Code CLI's) hook dialect: it
// parses the JSON a command hook receives. Auggie reads Claude Code's
// answers (hookSpecificOutput), so the answers are package claude's.
//
// Facts it relies on, read from Auggie 0.36.0's bundle (augment.mjs: the
// payload builders and the hook runner); Auggie cannot run offline (its
// model runs only on Augment's servers), so no payload was recorded:
//   - every payload has conversation_id (the session) and workspace_roots
//     (the first is the working directory), no transcript;
//   - tool hooks carry tool_name, tool_input, and after the call
//     tool_output (the result as text: MCP content flattened, no _meta)
//     and tool_error (a string, or null); is_mcp_tool says whether the
//     tool is an MCP server's;
//   - MCP tools are named <tool>_<server>, cut at 64 characters; with
//     "metadata": {"includeMCPMetadata": true} on the hook, mcp_metadata
//     names the server and its tool exactly (mcpExecutedToolServerName,
//     mcpExecutedToolName);
//   - PromptSubmit carries user_prompt; there is no compaction event.
package auggie

import (
	"encoding/json"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as Auggie sends them in hook_event_name.
const (
	PreToolUse   = "PreToolUse"
	PostToolUse  = "PostToolUse"
	PromptSubmit = "PromptSubmit"
	SessionStart = "SessionStart"
	SessionEnd   = "SessionEnd"
	Stop         = "Stop"
)

// Payload is the subset of an Auggie hook input ctxhook reads.
type Payload struct {
	ConversationID string          `json:"conversation_id"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	ToolError      json.RawMessage `json:"tool_error"`
	IsMCPTool      bool            `json:"is_mcp_tool"`
	MCPMetadata    *struct {
		ServerName string `json:"mcpExecutedToolServerName"`
		ToolName   string `json:"mcpExecutedToolName"`
	} `json:"mcp_metadata"`
	UserPrompt string `json:"user_prompt"`
}

// Parse decodes a hook payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(payload.Clean(raw), &p); err != nil {
		return nil, err
	}
	if err := payload.ObjectOrAbsent(p.ToolInput, "tool_input"); err != nil {
		return nil, err
	}
	return &p, nil
}

// Cwd is the first workspace root.
func (p *Payload) Cwd() string {
	if len(p.WorkspaceRoots) > 0 {
		return p.WorkspaceRoots[0]
	}
	return ""
}

// Failed reports whether the call ended in an error.
func (p *Payload) Failed() bool {
	return len(p.ToolError) > 0 && string(p.ToolError) != "null"
}

// MCP returns the server and server-side tool name of an MCP call: from
// mcp_metadata when Auggie sent it; else, for a tool Auggie marks as an
// MCP server's, the name <tool>_<server> split at the longest configured
// server name that ends it, or at its last "_".
func (p *Payload) MCP(servers []string) (server, tool string, ok bool) {
	if m := p.MCPMetadata; m != nil && m.ServerName != "" && m.ToolName != "" {
		return m.ServerName, m.ToolName, true
	}
	if !p.IsMCPTool {
		return "", "", false
	}
	best := ""
	for _, s := range servers {
		if len(s) > len(best) && strings.HasSuffix(p.ToolName, "_"+s) && len(p.ToolName) > len(s)+1 {
			best = s
		}
	}
	if best != "" {
		return best, p.ToolName[:len(p.ToolName)-len(best)-1], true
	}
	i := strings.LastIndexByte(p.ToolName, '_')
	if i <= 0 || i == len(p.ToolName)-1 {
		return "", "", false
	}
	return p.ToolName[i+1:], p.ToolName[:i], true
}
