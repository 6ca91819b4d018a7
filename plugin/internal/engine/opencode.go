package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/opencode"
)

// openCodeHook is one call from the OpenCode plugin loader.
type openCodeHook struct{ p *opencode.Payload }

func parseOpenCode(payload string) (dialect, error) {
	p, err := opencode.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return openCodeHook{p}, nil
}

func (h openCodeHook) session() string { return orUnknown(h.p.Input.SessionID) }

func (h openCodeHook) decide(d *decision, _ string) {
	p := h.p
	switch p.Hook {
	case opencode.ToolBefore:
		d.preTool(h.call(d), false, func(updated json.RawMessage, _ string) string {
			return opencode.Encode(opencode.Answer{Args: updated})
		})
	case opencode.ToolAfter:
		d.postTool(h.call(d), h.p.IsMCPResult(), func(context, replacement string) string {
			return opencode.Encode(opencode.Answer{Replace: replacement, AppendText: context})
		})
	case opencode.ChatMessage:
		d.record(d.newEvent(p.Hook, abi.CategoryPrompt, p.Directory), p.PromptText())
	case opencode.Compacting:
		// The block goes into the compaction prompt, so the summary the
		// session goes on from keeps it.
		if block := d.resumeBlock("compact"); block != "" {
			d.stdout = opencode.Encode(opencode.Answer{Context: block})
		}
	}
}

func (h openCodeHook) call(d *decision) toolCall {
	p := h.p
	c := toolCall{event: p.Hook, cwd: p.Directory, tool: p.Input.Tool, toolUseID: p.Input.CallID,
		category: classify.OpenCodeTool(p.Input.Tool), input: p.Args()}
	if p.Hook == opencode.ToolAfter {
		c.response = p.Output
	}
	// Configured servers first (they are the ones the relay serves), then
	// the servers the loader saw in OpenCode's own config.
	servers := append(d.serverNames(), p.MCPServers...)
	if server, tool, ok := opencode.Split(p.Input.Tool, servers); ok {
		c.isMCP, c.server, c.mcpTool, c.category = true, server, tool, abi.CategoryMCP
	} else if p.Hook == opencode.ToolAfter && p.IsMCPResult() {
		c.isMCP, c.category = true, abi.CategoryMCP
	}
	return c
}
