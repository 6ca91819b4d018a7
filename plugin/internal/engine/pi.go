package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
	"github.com/ctxhook/ctxhook/plugin/internal/pi"
)

// piHook is one tool event of the Pi coding agent, sent by ctxhook's Pi
// extension, which applies Claude Code's answers to Pi's event.
type piHook struct{ p *pi.Payload }

func parsePi(payload string) (dialect, error) {
	p, err := pi.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return piHook{p}, nil
}

func (h piHook) session() string { return orUnknown(h.p.SessionID) }

func (h piHook) decide(d *decision, event string) {
	if h.p.HookEventName != "" {
		event = h.p.HookEventName
	}
	switch event {
	case pi.ToolCall:
		// The extension replaces the input with updatedInput, in place:
		// the plugin's is always whole.
		// No re-fetch hints: Pi's tool_call cannot add text for the model.
		d.preTool(h.call(d, event), false, func(updated json.RawMessage, hint string) string {
			if updated == nil {
				return claude.AdditionalContext(claude.PreToolUse, hint)
			}
			return claude.PreToolUseAllow(updated, hint)
		})
	case pi.ToolResult:
		// The extension replaces the content the model sees with
		// updatedMCPToolOutput and appends additionalContext to it.
		d.postTool(h.call(d, event), true, func(context, replacement string) string {
			return claude.PostToolUseOutput(claude.PostToolUse, context, replacement)
		})
	}
}

func (h piHook) call(d *decision, event string) toolCall {
	e := &h.p.Event
	c := toolCall{event: event, cwd: h.p.Cwd, tool: e.ToolName, toolUseID: e.ToolCallID,
		category: classify.Tool(e.ToolName), input: e.Input, response: h.p.Response()}
	if c.server, c.mcpTool, c.isMCP = h.p.MCP(); !c.isMCP {
		servers := d.serverNames()
		c.server, c.mcpTool, c.isMCP = classify.MCPName(e.ToolName, "", pi.Names(servers))
		c.server = pi.Server(c.server, servers)
	}
	if c.isMCP {
		c.category = abi.CategoryMCP
	}
	c.failed = event == pi.ToolResult && e.IsError
	return c
}
