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
		h.indexTranscript(d, false) // a resumed session's earlier turns
	case claude.SessionEnd:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session end: "+p.Reason)
		h.indexTranscript(d, true)
	case claude.Stop:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), p.LastMessage)
		h.indexTranscript(d, true) // the turn is over
	}
}

// indexTranscript asks the host to index what is new in the session's
// transcript (Claude Code and Codex name it in every payload).
func (h claudeHook) indexTranscript(d *decision, final bool) {
	if h.p.TranscriptPath == "" {
		return
	}
	d.effects = append(d.effects, abi.Effect{Op: abi.OpIndexTranscript, Session: d.session,
		Path: h.p.TranscriptPath, Format: d.req.Harness, Final: final})
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
