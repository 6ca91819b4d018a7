package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/auggie"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
)

// auggieHook is one Auggie hook call. Auggie reads Claude Code's answers.
type auggieHook struct{ p *auggie.Payload }

func parseAuggie(payload string) (dialect, error) {
	p, err := auggie.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return auggieHook{p}, nil
}

func (h auggieHook) session() string { return orUnknown(h.p.ConversationID) }

func (h auggieHook) decide(d *decision, event string) {
	p := h.p
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	switch event {
	case auggie.PreToolUse:
		// Auggie replaces the whole input with updatedInput: the plugin's
		// is always whole.
		d.preTool(h.call(d, event), true, func(updated json.RawMessage, hint string) string {
			if updated == nil {
				return claude.AdditionalContext(event, hint)
			}
			return claude.PreToolUseAllow(updated, hint)
		})
	case auggie.PostToolUse:
		// Auggie's hooks cannot replace a result: no shaping.
		d.postTool(h.call(d, event), false, func(context, _ string) string {
			return claude.AdditionalContext(event, context)
		})
	case auggie.PromptSubmit:
		d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd()), p.UserPrompt)
	case auggie.SessionStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "session start")
	case auggie.SessionEnd, auggie.Stop:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "session "+event)
	}
}

func (h auggieHook) call(d *decision, event string) toolCall {
	p := h.p
	c := toolCall{event: event, cwd: p.Cwd(), tool: p.ToolName,
		category: classify.Tool(p.ToolName), input: p.ToolInput, response: p.ToolOutput}
	c.server, c.mcpTool, c.isMCP = p.MCP(d.serverNames())
	if c.isMCP {
		c.category = abi.CategoryMCP
	}
	c.failed = event == auggie.PostToolUse && p.Failed()
	return c
}
