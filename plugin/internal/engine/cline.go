package engine

import (
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/cline"
)

// clineHook is one Cline CLI hook-file call. Its hooks cannot replace a
// result, and the relay runs in the proxy: only the after-hook, the
// prompt and the task's start are decided here.
type clineHook struct{ p *cline.Payload }

func parseCline(payload string) (dialect, error) {
	p, err := cline.Parse(rawBytes(payload))
	if err != nil {
		return nil, err
	}
	return clineHook{p}, nil
}

func (h clineHook) session() string { return orUnknown(h.p.TaskID) }

func (h clineHook) decide(d *decision, event string) {
	p := h.p
	event = p.Event(event)
	switch event {
	case cline.PostToolUse:
		c := p.Call()
		if c == nil {
			return
		}
		d.postTool(h.call(d, event, c), false, func(context, _ string) string {
			return cline.Context(context)
		})
	case cline.UserPromptSubmit:
		if p.Prompt != nil {
			d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd()), p.Prompt.Prompt)
		}
	case cline.TaskStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd()), "session start")
	}
}

func (h clineHook) call(d *decision, event string, c *cline.Call) toolCall {
	t := toolCall{event: event, cwd: h.p.Cwd(), tool: c.Name, toolUseID: c.ID,
		category: classify.Tool(c.Name), input: c.Input, response: c.Output, noInject: true}
	t.server, t.mcpTool, t.isMCP = cline.MCP(c.Name, d.serverNames())
	if t.isMCP {
		t.category = abi.CategoryMCP
	}
	t.failed = c.Failed()
	return t
}
