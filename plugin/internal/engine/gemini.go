package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/gemini"
)

// geminiHook is one Gemini CLI hook call.
type geminiHook struct{ p *gemini.Payload }

func parseGemini(payload string) (dialect, error) {
	p, err := gemini.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return geminiHook{p}, nil
}

func (h geminiHook) session() string { return orUnknown(h.p.SessionID) }

func (h geminiHook) decide(d *decision, event string) {
	p := h.p
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	switch event {
	case gemini.BeforeTool:
		d.preTool(h.call(event), false, func(updated json.RawMessage, _ string) string {
			return gemini.BeforeToolInput(updated)
		})
	case gemini.AfterTool:
		// Gemini CLI can replace output only by failing the call: no shaping.
		d.postTool(h.call(event), false, func(context, _ string) string {
			return gemini.AdditionalContext(event, context)
		})
	case gemini.BeforeAgent:
		d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd), p.Prompt)
		// the history was compressed (PreCompress) since the last prompt
		if block := d.blockAt(""); block != "" {
			d.stdout = gemini.AdditionalContext(event, block)
		}
	case gemini.PreCompress:
		d.compacted()
	case gemini.AfterAgent:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), p.PromptResponse)
	case gemini.SessionStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session start: "+p.Source)
		if block := d.blockAt(p.Source); block != "" {
			d.stdout = gemini.AdditionalContext(event, block)
		}
	case gemini.SessionEnd:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session end: "+p.Reason)
	}
}

func (h geminiHook) call(event string) toolCall {
	p := h.p
	c := toolCall{event: event, cwd: p.Cwd, tool: p.ToolName,
		category: classify.GeminiTool(p.ToolName), input: p.ToolInput, response: p.ToolResponse}
	c.server, c.mcpTool, c.isMCP = p.MCP()
	if c.isMCP {
		c.category = abi.CategoryMCP
	}
	if r, ok := gemini.DecodeResponse(p.ToolResponse); ok && event == gemini.AfterTool {
		c.failed = r.Failed()
		// Gemini CLI drops result _meta; tokens a server puts in its text
		// are still found, under the paths written for MCP results.
		c.capture = r.AsMCPResult()
	}
	return c
}
