package engine

import (
	"slices"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
	"github.com/ctxhook/ctxhook/plugin/internal/nudge"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
)

// claudeHook is one Claude Code hook call.
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
		event = p.HookEventName // what Claude Code actually fired
	}
	switch event {
	case claude.PreToolUse:
		h.preToolUse(d)
	case claude.PostToolUse, claude.PostToolUseFailure:
		h.postToolUse(d, event)
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

// mcpTarget resolves server and tool of an MCP call.
func (h claudeHook) mcpTarget() (server, tool string, ok bool) {
	return classify.MCPName(h.p.ToolName, h.p.Server())
}

func (h claudeHook) preToolUse(d *decision) {
	server, tool, ok := h.mcpTarget()
	if !ok {
		return
	}
	rs, ok := relay.Lookup(d.req.Config, server)
	if !ok || rs.Proxy {
		return // a proxied server's relay runs in the proxy
	}
	updated, skip := rs.Inject(tool, h.p.ToolInput, d.state.Tokens[server])
	if skip != relay.SkipNone {
		return
	}
	d.stdout = claude.PreToolUseAllow(updated, "")
	d.tally(abi.TallyRelayed)
}

func (h claudeHook) postToolUse(d *decision, event string) {
	p := h.p
	category := classify.Tool(p.ToolName)
	server, _, isMCP := h.mcpTarget()
	response := p.ToolResponse
	if event == claude.PostToolUseFailure {
		category = abi.CategoryError
		response = p.Error
	}
	// A server behind ctxhook's proxy is captured by the proxy, which sees
	// the whole result: recording it here too would store it twice.
	proxied := isMCP && d.req.Config.Servers[server].Proxy
	if isMCP && event == claude.PostToolUse && !proxied {
		if rs, ok := relay.Lookup(d.req.Config, server); ok {
			// A new token joins state.known() and so is redacted below.
			if tok, ok := rs.Capture(response); ok && d.state.setToken(server, tok) {
				d.dirty = true
				d.tally(abi.TallyCapture)
			}
		}
	}
	if !proxied {
		ev := d.newEvent(event, category, p.Cwd)
		ev.Tool, ev.Server, ev.ToolUseID = p.ToolName, server, p.ToolUseID
		d.storeTool(ev, p.ToolInput, response)
	}
	if event != claude.PostToolUse {
		return
	}
	if text, ok := nudgeFor(d, category, server, isMCP, len(response)); ok {
		d.stdout = claude.AdditionalContext(event, text)
		d.tally(abi.TallyNudges)
	}
}

// nudgeFor applies the cadence: external MCP calls 1, N+1, 2N+1..., and
// one reminder per session for large file reads and shell use. When state
// could not be read, the periodic nudge fires: a spurious reminder costs a
// few tokens, a silent one costs a re-fetch.
func nudgeFor(d *decision, category, server string, isMCP bool, size int) (string, bool) {
	if isMCP {
		if server == classify.OwnServer {
			return "", false
		}
		d.state.MCPCalls++
		d.dirty = true
		every := nudge.Every(d.req.Env[abi.EnvNudgeEvery])
		if d.stateErr || nudge.Due(d.state.MCPCalls, every) {
			return nudge.MCP, true
		}
		return "", false
	}
	text, ok := nudge.OneShot(category)
	if !ok || slices.Contains(d.state.OneShots, category) {
		return "", false
	}
	if category == abi.CategoryFileRead && size < nudge.LargeRead {
		return "", false
	}
	d.state.OneShots = append(d.state.OneShots, category)
	d.dirty = true
	return text, true
}
