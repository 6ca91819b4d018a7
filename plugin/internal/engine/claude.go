package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
)

// claudeHook is one Claude Code (or Codex CLI) hook call.
type claudeHook struct{ p *claude.Payload }

func parseClaude(payload string) (dialect, error) {
	p, err := claude.Parse([]byte(payload))
	if err != nil {
		return nil, err
	}
	return claudeHook{p}, nil
}

func (h claudeHook) session() string { return orUnknown(h.p.SessionID) }

func (h claudeHook) decide(d *decision, event string) {
	p := h.p
	if p.HookEventName != "" {
		event = p.HookEventName // what the harness actually fired
	}
	switch event {
	case claude.PreToolUse:
		d.preTool(h.call(event), true, func(updated json.RawMessage, hint string) string {
			if updated == nil {
				return claude.AdditionalContext(event, hint)
			}
			return claude.PreToolUseAllow(updated, hint)
		})
	case claude.PostToolUse, claude.PostToolUseFailure:
		// Codex ignores updatedMCPToolOutput: only Claude Code is shaped.
		canReplace := d.req.Harness == abi.HarnessClaudeCode
		d.postTool(h.call(event), canReplace, func(context, replacement string) string {
			return claude.PostToolUseOutput(event, context, replacement)
		})
	case claude.UserPromptSubmit:
		d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd), p.Prompt)
	case claude.SessionStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session start: "+p.Source)
	case claude.SessionEnd:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session end: "+p.Reason)
	case claude.Stop:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), p.LastMessage)
	}
}

func (h claudeHook) call(event string) toolCall {
	p := h.p
	c := toolCall{event: event, cwd: p.Cwd, tool: p.ToolName, toolUseID: p.ToolUseID,
		category: classify.Tool(p.ToolName), input: p.ToolInput, response: p.ToolResponse}
	c.server, c.mcpTool, c.isMCP = classify.MCPName(p.ToolName, p.Server())
	if event == claude.PostToolUseFailure {
		c.failed, c.response = true, p.Error
	}
	return c
}
