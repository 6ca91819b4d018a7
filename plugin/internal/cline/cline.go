// Package cline speaks Cline CLI's hook-file dialect: it parses the JSON
// an executable hook file (~/.cline/hooks/<Event>,
// <project>/.clinerules/hooks/<Event>) reads on stdin and writes the
// answer Cline reads from its stdout.
//
// Facts it relies on, recorded from the real Cline CLI 3.0.65 offline
// (testdata/payloads/cline/3.0.65) and read from its @cline/core bundle:
//   - every payload has taskId (the session), workspaceRoots (the first
//     is the working directory) and hookName, Cline's own name of the
//     event: tool_call for PreToolUse, tool_result for PostToolUse,
//     prompt_submit for UserPromptSubmit, agent_start for TaskStart;
//   - tool hooks carry tool_call {id, name, input} before the call and
//     tool_result {id, name, input, output, error} after it; output is
//     what the tool returned (for an MCP tool the server's result object,
//     content blocks and all), error a string when the call failed;
//   - MCP tools are named <server>__<tool>;
//   - the answer is one JSON object; contextModification (a string)
//     is appended to what the model reads next; a hook cannot replace a
//     tool's result, and an empty answer changes nothing.
package cline

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as the hook files are named (and as ctxhook stores them).
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	TaskStart        = "TaskStart"
)

// events maps Cline's hookName onto the hook file's event.
var events = map[string]string{
	"tool_call":     PreToolUse,
	"tool_result":   PostToolUse,
	"prompt_submit": UserPromptSubmit,
	"agent_start":   TaskStart,
}

// Payload is the subset of a Cline hook input ctxhook reads.
type Payload struct {
	TaskID         string   `json:"taskId"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	HookName       string   `json:"hookName"`
	ToolCall       *Call    `json:"tool_call"`
	ToolResult     *Call    `json:"tool_result"`
	Prompt         *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
}

// Call is a tool call as Cline describes it to its hooks.
type Call struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Error  *string         `json:"error"`
}

// Parse decodes a hook payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(payload.Clean(raw), &p); err != nil {
		return nil, err
	}
	for _, c := range []*Call{p.ToolCall, p.ToolResult} {
		if c == nil {
			continue
		}
		if err := payload.ObjectOrAbsent(c.Input, "input"); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// Event is the hook's event: Cline's hookName mapped onto the hook
// file's name, else fallback (the event ctxhook was run for).
func (p *Payload) Event(fallback string) string {
	if e, ok := events[p.HookName]; ok {
		return e
	}
	return fallback
}

// Cwd is the first workspace root.
func (p *Payload) Cwd() string {
	if len(p.WorkspaceRoots) > 0 {
		return p.WorkspaceRoots[0]
	}
	return ""
}

// Call is the tool call of a tool hook: tool_result after the call,
// tool_call before it; nil for any other hook.
func (p *Payload) Call() *Call {
	if p.ToolResult != nil {
		return p.ToolResult
	}
	return p.ToolCall
}

// Failed reports whether the call ended in an error.
func (c *Call) Failed() bool { return c.Error != nil && *c.Error != "" }

// MCP returns the server and server-side tool name of a tool named
// <server>__<tool>: split after the longest configured server name that
// starts it, else at its first "__" (classify.ServerTool). Cline's own
// tools have no "__".
func MCP(name string, servers []string) (server, tool string, ok bool) {
	return classify.ServerTool(name, servers)
}

// Context is the answer that puts text before the model; "" for none.
func Context(text string) string {
	if text == "" {
		return ""
	}
	return payload.Encode(struct {
		ContextModification string `json:"contextModification"`
	}{text})
}
