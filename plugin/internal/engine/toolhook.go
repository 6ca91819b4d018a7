package engine

import (
	"encoding/json"
	"slices"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/nudge"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
)

// toolCall is one before- or after-tool hook, reduced by its dialect to
// what the decisions need. Every hook harness (Claude Code, Codex, Gemini
// CLI, Cursor, OpenCode) fills one in, so the relay, the record and the
// nudge cadence are the same code for all of them.
type toolCall struct {
	event     string // the harness's own event name, stored as is
	cwd       string
	tool      string // the tool name as the harness shows it
	toolUseID string
	category  string
	// server and mcpTool are set for MCP calls whose server is known;
	// isMCP can be true with server "" when the harness hides it.
	server, mcpTool string
	isMCP           bool
	input           json.RawMessage
	// response is what the harness passed the after-hook, as given.
	response json.RawMessage
	// capture, when set, is the response rebuilt as an MCP result from a
	// harness's own rendering: the relay looks for a token there, and the
	// search text is taken from it.
	capture json.RawMessage
	failed  bool
}

// preTool injects the relay token when one is due. render turns the whole
// updated input into the harness's stdout.
func (d *decision) preTool(c toolCall, render func(updated json.RawMessage) string) {
	if !c.isMCP || c.server == "" {
		return
	}
	rs, ok := relay.Lookup(d.req.Config, c.server)
	if !ok || rs.Proxy {
		return // a proxied server's relay runs in the proxy
	}
	updated, skip := rs.Inject(c.mcpTool, c.input, d.state.Tokens[c.server])
	if skip != relay.SkipNone {
		return
	}
	d.stdout = render(updated)
	d.tally(abi.TallyRelayed)
}

// postTool captures a token, records the call with its full response, and
// applies the nudge cadence. render turns a nudge into the harness's
// stdout; nil means the harness has no way to add context here.
func (d *decision) postTool(c toolCall, render func(text string) string) {
	category := c.category
	if c.failed {
		category = abi.CategoryError
	}
	// A server behind ctxhook's proxy is captured by the proxy, which sees
	// the whole result: recording it here too would store it twice.
	proxied := c.isMCP && c.server != "" && d.req.Config.Servers[c.server].Proxy
	if c.isMCP && c.server != "" && !c.failed && !proxied {
		if rs, ok := relay.Lookup(d.req.Config, c.server); ok {
			// A new token joins state.known() and so is redacted below.
			from := c.response
			if c.capture != nil {
				from = c.capture
			}
			if tok, ok := rs.Capture(from); ok && d.state.setToken(c.server, tok) {
				d.dirty = true
				d.tally(abi.TallyCapture)
			}
		}
	}
	if !proxied {
		ev := d.newEvent(c.event, category, c.cwd)
		ev.Tool, ev.Server, ev.ToolUseID = c.tool, c.server, c.toolUseID
		d.storeTool(ev, c.input, c.response, c.capture)
	}
	if c.failed || render == nil {
		return
	}
	if text, ok := nudgeFor(d, category, c.server, c.isMCP, len(c.response)); ok {
		d.stdout = render(text)
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
