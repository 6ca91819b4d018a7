package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/cursor"
)

// cursorToolsKey is the state document mapping MCP tool names to the
// servers Cursor ran them on. It is shared by all sessions: Cursor's
// preToolUse names a tool without its server, and the mapping learned
// from afterMCPExecution (which names both) in one session lets the next
// session's first call get its token too.
const cursorToolsKey = "cursor/tool-servers"

// ambiguous marks a tool name served by more than one server: such a call
// never gets a token, because injecting the wrong server's token would
// hand it to a server that must not see it.
const ambiguous = ""

// cursorHook is one Cursor hook call.
type cursorHook struct{ p *cursor.Payload }

func parseCursor(payload string) (dialect, error) {
	p, err := cursor.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return cursorHook{p}, nil
}

func (h cursorHook) session() string     { return orUnknown(h.p.Session()) }
func (h cursorHook) stateKeys() []string { return []string{cursorToolsKey} }

func (h cursorHook) decide(d *decision, event string) {
	p := h.p
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	switch event {
	case cursor.PreToolUse:
		d.preTool(h.call(d, event), true, cursor.PreToolUseOutput)
	case cursor.PostToolUse, cursor.PostToolUseFailure:
		d.postTool(h.call(d, event), true, cursor.PostToolUseOutput)
	case cursor.BeforeMCPExecution, cursor.AfterMCPExecution:
		h.learn(d)
	case cursor.BeforeSubmitPrompt:
		d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd()), p.Prompt)
	case cursor.SessionStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "session start")
	case cursor.SessionEnd:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "session end: "+p.Reason)
	case cursor.Stop:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "stop: "+p.Status)
	}
}

// learn records which server an MCP tool ran on.
func (h cursorHook) learn(d *decision) {
	tool, ok := h.p.MCPTool()
	if !ok || h.p.MCPServerName == "" {
		return
	}
	m := d.toolServers()
	old, seen := m[tool]
	switch {
	case !seen:
		m[tool] = h.p.MCPServerName
	case old != h.p.MCPServerName && old != ambiguous:
		m[tool] = ambiguous
	default:
		return
	}
	b, _ := json.Marshal(m)
	d.setState(cursorToolsKey, string(b))
}

func (h cursorHook) call(d *decision, event string) toolCall {
	p := h.p
	c := toolCall{event: event, cwd: p.Cwd(), tool: p.ToolName, toolUseID: p.ToolUseID,
		category: classify.CursorTool(p.ToolName), input: p.Input(), response: p.Result()}
	if tool, ok := p.MCPTool(); ok {
		c.isMCP, c.mcpTool, c.category = true, tool, abi.CategoryMCP
		c.server = p.MCPServerName
		if c.server == "" {
			c.server = d.toolServers()[tool] // "" when unknown or ambiguous
		}
	}
	if event == cursor.PostToolUseFailure {
		c.failed = true
		c.response, _ = json.Marshal(p.ErrorMessage)
	}
	return c
}
