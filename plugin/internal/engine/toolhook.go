package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/nudge"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
	"github.com/ctxhook/ctxhook/plugin/internal/shape"
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
	// noInject: the harness ignores a changed input (Qwen Code), so no
	// token is injected, or counted as relayed, here: its relay runs in
	// the proxy.
	noInject bool
	// file, when set, is the response the harness saved to a file instead
	// of passing it (response is then the stub it passed): its content,
	// plain text or (fileJSON) the content blocks' JSON.
	file     *string
	fileJSON bool
}

// preTool injects the relay token when one is due and, where the harness
// can take context before a call (hints), points a repeat of an answered
// call at the stored answer. render gets the whole updated input (nil when
// nothing is injected) and the hint ("" when none).
func (d *decision) preTool(c toolCall, hints bool, render func(updated json.RawMessage, hint string) string) {
	if !c.isMCP {
		return
	}
	var hint string
	if hints && c.server != classify.OwnServer {
		h := d.callHash(c)
		if key := d.state.answer(h); key != "" {
			hint = shape.RefetchHint(key)
			d.tally(abi.TallyRefetch)
			d.state.used(key)
			d.state.hinted(h)
			d.dirty = true
		}
	}
	var updated json.RawMessage
	if rs, ok := relay.Lookup(d.req.Config, c.server); ok && !rs.Proxy && !c.noInject { // a proxied server's relay runs in the proxy
		if u, skip := rs.Inject(c.mcpTool, c.input, d.state.Tokens[c.server]); skip == relay.SkipNone {
			updated = u
			d.tally(abi.TallyRelayed)
		}
	}
	if updated == nil && hint == "" {
		return
	}
	d.stdout = render(updated, hint)
}

// callHash names an MCP call for re-fetch hints, ignoring the relay token.
func (d *decision) callHash(c toolCall) string {
	return shape.CallHash(c.server, c.mcpTool, c.input, d.tokenArg(c.server))
}

// tokenArg is the argument a server's relay token travels in.
func (d *decision) tokenArg(server string) string {
	if rs, ok := relay.Lookup(d.req.Config, server); ok {
		return rs.TokenArg
	}
	return abi.DefaultTokenArg
}

// postTool captures a token, records the call with its full response,
// shapes a large MCP response where the harness can replace it
// (canReplace), and applies the nudge cadence. render gets the nudge and
// the replacement ("" when none); nil means the harness takes neither.
func (d *decision) postTool(c toolCall, canReplace bool, render func(context, replacement string) string) {
	category := c.category
	if c.failed {
		category = abi.CategoryError
	}
	// A server behind ctxhook's proxy is captured by the proxy, which sees
	// the whole result: recording it here too would store it twice.
	proxied := c.isMCP && c.server != "" && d.req.Config.Servers[c.server].Proxy
	notice := d.relayAfter(c, proxied)
	if isOwn(c) && !c.failed {
		d.noteOwnCall(c.mcpTool, c.input)
	}
	var replacement string
	excluded := false // kept out of the store: no reminder that it is searchable
	if !proxied {
		replacement, excluded = d.recordTool(c, category, canReplace)
	}
	pointer := replacement != "" // a shaped head and a pointer to the event
	var redactedWhole string
	if canReplace && c.isMCP && !c.failed && !proxied && c.file == nil && c.server != classify.OwnServer && render != nil {
		replacement, redactedWhole = d.modelRedacted(c, replacement)
	}
	if render == nil {
		return
	}
	if c.failed {
		if notice != "" {
			d.stdout = render(notice, "")
		}
		return
	}
	d.answerTool(c, category, excluded, notice, replacement, redactedWhole, pointer, render)
}

// relayAfter judges the token a relayed server's call carried, and
// captures a new one from its response: the relay's notice to the model
// about this call's token, or "".
func (d *decision) relayAfter(c toolCall, proxied bool) (notice string) {
	if !c.isMCP || c.server == "" || proxied {
		return ""
	}
	rs, ok := relay.Lookup(d.req.Config, c.server)
	if !ok {
		return ""
	}
	notice = d.judgeToken(c, rs)
	if c.failed {
		return notice
	}
	from := c.response
	if c.capture != nil {
		from = c.capture
	}
	// A new token joins state.known() and so is redacted below.
	var v any
	var err error
	switch {
	case c.file != nil && c.fileJSON:
		v, err = d.decode(rawBytes(*c.file))
	case c.file != nil:
		v = *c.file // a plain text result
	default:
		v, err = d.decode(from)
	}
	if tok, ok := rs.CaptureIn(&d.json, v, err); ok && d.state.setToken(c.server, tok) {
		d.dirty = true
		d.tally(abi.TallyCapture)
	}
	return notice
}

// recordTool records the call with its full response and, for an MCP
// call, remembers it for re-fetch hints and the working-state block. It
// returns the shaped replacement ("" when none) and whether the call was
// kept out of the store.
func (d *decision) recordTool(c toolCall, category string, canReplace bool) (replacement string, excluded bool) {
	ev := d.newEvent(c.event, category, c.cwd)
	ev.Tool, ev.Server, ev.ToolUseID = c.tool, c.server, c.toolUseID
	ev.Key = shape.Key(d.session, c.toolUseID, c.tool, c.event, d.keyed(), string(c.input))
	if c.file != nil {
		d.storeFile(ev, c.input, *c.file, c.fileJSON)
	} else {
		d.storeTool(ev, c.input, c.response, c.capture)
	}
	// An excluded call has no stored body to point the model at.
	excluded = isExcluded(ev) // storeTool and storeFile mark it, in "nothing" mode too
	if !c.isMCP || c.failed || c.server == classify.OwnServer || excluded {
		return "", excluded
	}
	if h := d.callHash(c); h != "" {
		if i := slices.Index(d.state.Hinted, h); i >= 0 {
			// It got a hint and ran all the same.
			d.state.Hinted = slices.Delete(d.state.Hinted, i, i+1)
			d.tally(abi.TallyRefetchMade)
		}
		d.state.remember(h, ev.Key)
		d.dirty = true
	}
	// State keeps names as the store does, redacted: a tool named
	// get?api_key=... must not leave its key in a session file.
	server, _ := d.redactor().String(c.server)
	tool, _ := d.redactor().String(c.mcpTool)
	d.state.noteRecent(recentCall{Key: ev.Key, Server: server, Tool: tool, Title: callTitle(ev.Args, d.tokenArg(c.server))})
	d.dirty = true
	if canReplace && c.file == nil { // a file's stub is all the model got already
		replacement = d.shape(c, ev)
	}
	return replacement, false
}

// modelRedacted applies [redact] model = true: what the model gets of an
// MCP result is redacted too (the shaped head, or the whole text when it
// holds a secret). redactedWhole is what it gets should the event not be
// stored after all (the whole text, redacted, no pointer).
func (d *decision) modelRedacted(c toolCall, replacement string) (out, redactedWhole string) {
	readable := c.capture
	if readable == nil {
		readable = c.response
	}
	red := d.forModel(readable, replacement)
	if red == "" {
		return replacement, ""
	}
	if replacement != "" {
		redactedWhole = d.forModel(readable, "")
	}
	return red, redactedWhole
}

// answerTool renders the after-hook's answer: the relay's notice, the
// nudge and the replacement; with a pointer, what the model gets instead
// should the host keep no copy of the event.
func (d *decision) answerTool(c toolCall, category string, excluded bool, notice, replacement, redactedWhole string, pointer bool, render func(context, replacement string) string) {
	size := len(c.response)
	if c.file != nil {
		size = len(*c.file)
	}
	text, nudged := "", false
	if !excluded {
		text, nudged = nudgeFor(d, category, c.server, c.isMCP, size)
	}
	if nudged {
		d.tally(abi.TallyNudges)
	}
	if notice != "" {
		text = strings.TrimSuffix(notice+"\n\n"+text, "\n\n")
	}
	if notice != "" || nudged || replacement != "" {
		d.stdout = render(text, replacement)
	}
	if !pointer {
		return
	}
	if size > len(replacement) {
		d.tallyN(abi.TallyKeptOut, size-len(replacement))
	}
	// The replacement points the model at the event just recorded:
	// should the host keep no copy of it, the model gets the response
	// as it was (and the nudge) instead of a pointer to nothing.
	d.unstored = &abi.Unstored{}
	if nudged || redactedWhole != "" {
		d.unstored.Stdout = render(text, redactedWhole)
	}
}

// shape returns what the model gets instead of a large response, or "".
func (d *decision) shape(c toolCall, ev *abi.Event) string {
	limit := shape.Threshold(d.req.Config, c.server)
	if limit == 0 || len(c.response) <= limit {
		return ""
	}
	readable := c.capture
	if readable == nil {
		readable = c.response
	}
	text := d.readableText(readable)
	if text == "" {
		text = string(c.response)
	}
	out := shape.Shaped(text, shape.HeadBytes(d.req.Config), ev.Key, len(c.response))
	if len(out) >= len(c.response) {
		return ""
	}
	ev.ContextBytes = len(out)
	d.tally(abi.TallyShaped)
	return out
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

// judgeToken judges the relay token a call carried by how the server
// answered. Rejected for it (an error TokenErrors recognise), the token is
// retired at once: the next call goes without one and captures the one
// the server issues then, and the model is told that the server's session
// has to be started again (the returned text). Accepted, a token kept
// across a resume is confirmed. A server that held its sessions in memory
// forgets them when its process ends; only its answer tells the two kinds
// apart.
func (d *decision) judgeToken(c toolCall, rs relay.Server) string {
	tok := d.state.Tokens[c.server]
	if tok == "" || c.file != nil || !rs.Carries(c.input, tok) {
		return ""
	}
	text, failed := d.callError(c)
	switch {
	case failed && rs.RejectsToken(text):
		d.state.dropToken(c.server)
		d.dirty = true
		return tokenRejected(rs)
	case !failed && d.state.confirm(c.server):
		d.dirty = true
	}
	return ""
}

// callError returns the error text of a call that failed: the harness's
// error, or a result marked isError (harnesses that pass those as a
// success); false when the call did not fail.
func (d *decision) callError(c toolCall) (string, bool) {
	from := c.response
	if c.capture != nil {
		from = c.capture
	}
	if !c.failed {
		v, err := d.decode(from)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return "", false
		}
		flag, _ := d.json.Value(m["isError"])
		if b, _ := flag.(bool); !b {
			return "", false
		}
	}
	if text := d.readableText(from); text != "" {
		return text, true
	}
	return string(from), true
}

// tokenRejected is what the model is told when a server rejected the
// token ctxhook sent. Every name in it is the user's (the config's), none
// the server's.
func tokenRejected(rs relay.Server) string {
	start := ""
	if len(rs.StartTools) > 0 {
		start = " (" + strings.Join(rs.StartTools, ", ") + ")"
	}
	return "[ctxhook] The " + rs.Name + " server rejected the session token ctxhook sent with this call: that session is gone on the server " +
		"(expired, or lost when the server restarted, as on a resume). ctxhook has dropped the token. " +
		"The server's session has to be started again" + start + "; ctxhook adds the new token to the calls after that. Never type or ask for the token."
}
