// Package engine is the core of ctxhook: it turns one hook request into a
// decision (the exact stdout for the harness) and a list of effects for the
// host to apply. It does no I/O: clock, environment, config and state all
// arrive in the request. The same code runs natively in tests and inside
// plugin.wasm in every host.
package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
	"github.com/ctxhook/ctxhook/plugin/internal/nudge"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
)

// ErrHarness is returned for a harness this plugin does not speak.
var ErrHarness = errors.New("engine: unknown harness")

// Prepare names the state a decision needs. It parses the payload only as
// far as the session id.
func Prepare(req abi.PrepareRequest) (abi.PrepareResponse, error) {
	p, err := parse(req.Harness, req.Payload)
	if err != nil {
		return abi.PrepareResponse{}, err
	}
	return abi.PrepareResponse{StateKeys: []string{stateKey(sessionOf(p))}}, nil
}

// Handle decides one hook call.
func Handle(req abi.HandleRequest) (abi.HandleResponse, error) {
	p, err := parse(req.Harness, req.Payload)
	if err != nil {
		return abi.HandleResponse{}, err
	}
	d := &decision{req: req, p: p, session: sessionOf(p)}
	d.loadState()
	event := p.HookEventName
	if event == "" {
		event = req.Event
	}
	switch event {
	case claude.PreToolUse:
		d.preToolUse()
	case claude.PostToolUse, claude.PostToolUseFailure:
		d.postToolUse(event)
	case claude.UserPromptSubmit:
		d.record(event, abi.CategoryPrompt, p.Prompt)
	case claude.SessionStart:
		d.record(event, abi.CategorySession, "session start: "+p.Source)
	case claude.SessionEnd:
		d.record(event, abi.CategorySession, "session end: "+p.Reason)
	case claude.Stop:
		d.record(event, abi.CategorySession, p.LastMessage)
	}
	return d.response(), nil
}

func parse(harness, payload string) (*claude.Payload, error) {
	if harness != abi.HarnessClaudeCode {
		return nil, fmt.Errorf("%w %q", ErrHarness, harness)
	}
	return claude.Parse([]byte(payload))
}

func sessionOf(p *claude.Payload) string {
	if p.SessionID == "" {
		return "unknown"
	}
	return p.SessionID
}

type decision struct {
	req      abi.HandleRequest
	p        *claude.Payload
	session  string
	state    sessionState
	stateErr bool
	dirty    bool
	stdout   string
	effects  []abi.Effect
	tallies  []abi.Effect
}

func (d *decision) loadState() {
	if d.req.StateError != "" {
		d.stateErr = true
		return
	}
	s, err := decodeState(d.req.State[stateKey(d.session)])
	if err != nil {
		d.stateErr = true
		return
	}
	d.state = s
}

func (d *decision) tally(name string) {
	d.tallies = append(d.tallies, abi.Effect{Op: abi.OpTally, Session: d.session, Name: name, Count: 1})
}

// mcpTarget resolves server and tool of an MCP call.
func (d *decision) mcpTarget() (server, tool string, ok bool) {
	return classify.MCPName(d.p.ToolName, d.p.Server())
}

func (d *decision) preToolUse() {
	server, tool, ok := d.mcpTarget()
	if !ok {
		return
	}
	rs, ok := relay.Lookup(d.req.Config, server)
	if !ok {
		return
	}
	updated, skip := rs.Inject(tool, d.p.ToolInput, d.state.Tokens[server])
	if skip != relay.SkipNone {
		return
	}
	d.stdout = claude.PreToolUseAllow(updated, "")
	d.tally(abi.TallyRelayed)
}

func (d *decision) postToolUse(event string) {
	category := classify.Tool(d.p.ToolName)
	server, _, isMCP := d.mcpTarget()
	response := d.p.ToolResponse
	if event == claude.PostToolUseFailure {
		category = abi.CategoryError
		response = d.p.Error
	}
	if isMCP && event == claude.PostToolUse {
		if rs, ok := relay.Lookup(d.req.Config, server); ok {
			// A new token joins state.known() and so is redacted below.
			if tok, ok := rs.Capture(response); ok && d.state.setToken(server, tok) {
				d.dirty = true
				d.tally(abi.TallyCapture)
			}
		}
	}
	d.storeTool(event, category, server, response)
	if event != claude.PostToolUse {
		return
	}
	if text, ok := d.nudgeFor(category, server, isMCP, len(response)); ok {
		d.stdout = claude.AdditionalContext(event, text)
		d.tally(abi.TallyNudges)
	}
}

// nudgeFor applies the cadence: external MCP calls 1, N+1, 2N+1..., and
// one reminder per session for large file reads and shell use. When state
// could not be read, the periodic nudge fires: a spurious reminder costs a
// few tokens, a silent one costs a re-fetch.
func (d *decision) nudgeFor(category, server string, isMCP bool, size int) (string, bool) {
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

func (d *decision) redactor() *redact.Redactor {
	return redact.New(d.state.known()...)
}

func (d *decision) storeTool(event, category, server string, response json.RawMessage) {
	r := d.redactor()
	args, n1 := r.String(compact(d.p.ToolInput))
	body, n2 := r.String(string(response))
	// The rendered text repeats the response: its redactions are the
	// response's, not new ones.
	text, _ := r.String(readableText(response))
	ev := d.newEvent(event, category)
	ev.Tool = d.p.ToolName
	ev.Server = server
	ev.ToolUseID = d.p.ToolUseID
	ev.Args = args
	ev.ResponseBytes = len(response)
	ev.Redactions = n1 + n2
	if text != "" {
		ev.Text, _ = capBytes(text, d.maxBytes())
	}
	ev.Response, ev.Truncated = capBytes(body, d.maxBytes())
	d.effects = append(d.effects, abi.Effect{Op: abi.OpStoreEvent, Event: ev})
}

func (d *decision) record(event, category, body string) {
	r := d.redactor()
	red, n := r.String(body)
	ev := d.newEvent(event, category)
	ev.ResponseBytes = len(body)
	ev.Redactions = n
	ev.Response, ev.Truncated = capBytes(red, d.maxBytes())
	d.effects = append(d.effects, abi.Effect{Op: abi.OpStoreEvent, Event: ev})
}

func (d *decision) newEvent(event, category string) *abi.Event {
	return &abi.Event{TimeMS: d.req.NowMS, Session: d.session, Harness: d.req.Harness,
		HookEvent: event, Category: category, Cwd: d.p.Cwd}
}

func (d *decision) maxBytes() int {
	if m := d.req.Config.Capture.MaxEventBytes; m != 0 {
		return m
	}
	return abi.DefaultMaxEventBytes
}

func (d *decision) response() abi.HandleResponse {
	var effects []abi.Effect
	// State first: a captured token must survive even if the store fails.
	if d.dirty {
		effects = append(effects, abi.Effect{Op: abi.OpSetState, Key: stateKey(d.session), Value: d.state.encode()})
	}
	effects = append(effects, d.effects...)
	effects = append(effects, d.tallies...)
	if effects == nil {
		effects = []abi.Effect{}
	}
	return abi.HandleResponse{Stdout: d.stdout, ExitCode: 0, Effects: effects}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
