package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
	"github.com/ctxhook/ctxhook/plugin/internal/gemini"
)

// claudeKin is what a harness speaking Claude Code's hooks does
// differently from the dialect's defaults: Claude Code's own traits, and
// each descendant's. The dialect (claude.go) reads these and never asks
// which harness it serves; a new descendant is one value here and one
// line in the table of dialects (engine.go).
type claudeKin struct {
	// canReplace: the harness honours updatedMCPToolOutput, so large
	// results are shaped.
	canReplace bool
	// transcripts: its transcripts are in a format ctxhook indexes
	// (Format: the harness's name).
	transcripts bool
	// mcpToolHooks: it has mcp_tool hooks, whose health SessionStart
	// warns of.
	mcpToolHooks bool
	// leavesForeign: it leaves to their own hooks the calls of other
	// harnesses that run its hooks too (Cursor, Copilot).
	leavesForeign bool
	// tool, when set, reads the tool's name and result the harness's
	// way, after the dialect read them Claude Code's.
	tool func(d *decision, p *claude.Payload, c *toolCall)
	// answer, when set, rewrites each answer for the harness.
	answer func(stdout string) string
}

var (
	// Claude Code: the parent.
	claudeCodeKin = claudeKin{canReplace: true, transcripts: true, mcpToolHooks: true, leavesForeign: true}
	// Codex CLI ignores updatedMCPToolOutput; its transcripts are indexed.
	codexKin = claudeKin{transcripts: true}
	// Factory Droid names MCP tools <server>___<tool>.
	droidKin = claudeKin{tool: droidTool}
	// GitHub Copilot CLI names MCP tools <server>-<tool>, sends the
	// result's text as tool_result, and reads context only at the top.
	copilotKin = claudeKin{tool: copilotTool, answer: claude.ContextAtTop}
	// Qwen Code ignores a changed input and sends Gemini CLI's result.
	qwenKin = claudeKin{tool: qwenTool}
)

func droidTool(_ *decision, p *claude.Payload, c *toolCall) {
	c.server, c.mcpTool, c.isMCP = classify.DroidName(p.ToolName)
}

func copilotTool(d *decision, p *claude.Payload, c *toolCall) {
	c.server, c.mcpTool, c.isMCP = classify.CopilotName(p.ToolName, d.serverNames())
	if text, failed, ok := p.CopilotResult(); ok {
		c.response, _ = json.Marshal(text)
		c.failed = failed
	}
}

func qwenTool(_ *decision, p *claude.Payload, c *toolCall) {
	c.noInject = true
	if r, ok := gemini.DecodeResponse(p.ToolResponse); ok && len(r.LLMContent) > 0 {
		c.capture, c.failed = r.AsMCPResult(), r.Failed()
	}
}
