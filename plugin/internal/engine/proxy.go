package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/mcpmsg"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
	"github.com/ctxhook/ctxhook/plugin/internal/shape"
)

// proxyCall is one message through ctxhook's MCP proxy. The proxy sees the
// whole protocol, result _meta included, so it can capture tokens that
// hooks never see, inject them, and hide them from the model.
type proxyCall struct{ p abi.ProxyPayload }

func parseProxy(payload string, e *jsonfast.Expander) (dialect, error) {
	var p abi.ProxyPayload
	if !parseProxyFast(rawBytes(payload), &p, e) {
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			return nil, fmt.Errorf("%w: proxy payload: %v", mcpmsg.ErrMessage, err)
		}
	}
	if p.Server == "" || len(p.Message) == 0 {
		return nil, fmt.Errorf("%w: proxy payload needs server and message", mcpmsg.ErrMessage)
	}
	return proxyCall{p}, nil
}

// parseProxyFast reads the usual proxy payload in one pass, leaving the
// message raw (it may be a 10 MiB result); false leaves anything unusual
// (an escaped key, a key in another case, a repeated key) to
// encoding/json, the reference.
func parseProxyFast(b []byte, p *abi.ProxyPayload, e *jsonfast.Expander) bool {
	members, ok := e.Object(b)
	if !ok {
		return false
	}
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m.Key] {
			return false
		}
		seen[m.Key] = true
		switch m.Key {
		case "session_id", "server", "upstream":
			s, ok := jsonfast.String(m.Value)
			if !ok {
				return false
			}
			switch m.Key {
			case "server":
				p.Server = s
			case "upstream":
				p.Upstream = s
			default:
				p.SessionID = s
			}
		case "message":
			p.Message = json.RawMessage(m.Value)
		case "request":
			p.Request = json.RawMessage(m.Value)
		default:
			for _, f := range []string{"session_id", "server", "message", "request", "upstream"} {
				if strings.EqualFold(m.Key, f) {
					return false
				}
			}
		}
	}
	return true
}

func (c proxyCall) session() string { return orUnknown(c.p.SessionID) }

func (c proxyCall) decide(d *decision, event string) {
	switch event {
	case abi.ProxyRequest:
		c.request(d)
	case abi.ProxyResponse:
		c.response(d)
	case abi.ProxyStrip:
		c.strip(d)
	case abi.ProxyError:
		c.proxyError(d)
	}
}

// proxyError redacts an error answer the proxy made from the upstream's
// words (ABI.md: ProxyError): a server's error page may echo the request,
// its credentials included, and the answer goes to the model. The error
// object is redacted as stored text is, then checked to be JSON still.
func (c proxyCall) proxyError(d *decision) {
	msg, err := mcpmsg.ParseObject(c.p.Message)
	if err != nil || msg["error"] == nil {
		return
	}
	red, n := d.redactor().String(string(msg["error"]))
	var line bytes.Buffer // one line: the proxy's framing is newline-delimited
	if n == 0 || json.Compact(&line, []byte(red)) != nil {
		return
	}
	msg["error"] = json.RawMessage(line.Bytes())
	d.stdout = string(msg.Raw()) + "\n"
}

// request injects the token into a tools/call: as the argument, and in
// params._meta when the server asks for that. No permission is involved:
// the proxy is the server as far as the client knows.
func (c proxyCall) request(d *decision) {
	call, ok, err := mcpmsg.ParseCallIn(&d.json, c.p.Message)
	if err != nil || !ok {
		return // anything else passes through untouched
	}
	rs, ok := relay.Lookup(d.req.Config, c.p.Server)
	if !ok {
		return
	}
	c.noteUpstream(d, rs)
	token := d.state.Tokens[c.p.Server]
	restored := restoreState(call.Params, token)
	updated, skip := rs.Inject(call.Tool, call.Args, token)
	if skip != relay.SkipNone {
		if restored {
			call.Msg["params"] = call.Params.Raw()
			d.stdout = string(call.Msg.Raw()) + "\n"
		}
		return
	}
	call.Params.Set("arguments", updated)
	if rs.MetaKey != "" {
		meta := call.Params.Child("_meta")
		if meta == nil {
			meta = mcpmsg.Object{}
		}
		meta.Set(rs.MetaKey, token)
		call.Params["_meta"] = meta.Raw()
	}
	call.Msg["params"] = call.Params.Raw()
	d.stdout = string(call.Msg.Raw()) + "\n" // the exact line to forward
	d.tally(abi.TallyRelayed)
}

// restoreState puts the session's token back into the requestState of
// the retry of a call first answered with an interim result (MCP
// 2026-07-28): the token was hidden in that result like anywhere else,
// and the server must get its state back as it wrote it.
func restoreState(params mcpmsg.Object, token string) bool {
	var state string
	if token == "" || json.Unmarshal(params["requestState"], &state) != nil || !strings.Contains(state, abi.TokenPlaceholder) {
		return false
	}
	b, err := json.Marshal(strings.ReplaceAll(state, abi.TokenPlaceholder, token))
	if err != nil {
		return false
	}
	params["requestState"] = b
	return true
}

// response captures the token a result carries, hides it from the client,
// and records the full result.
func (c proxyCall) response(d *decision) {
	res, err := mcpmsg.ParseResultIn(&d.json, c.p.Message)
	if err != nil {
		return
	}
	if res.InputRequired() {
		// An interim result (MCP 2026-07-28): the server asks the client
		// for input and the call is retried, with its own request (which
		// gets the token again, in its arguments and in its requestState
		// where this result had it). Not the answer: nothing is recorded
		// or shaped; a token it carries is still captured and hidden, and
		// with [redact] model on, what it asks is redacted.
		forward, changed := c.hideToken(d, res)
		if o, ok := d.redactForModel(forward); ok {
			forward, changed = o, true
		}
		d.stdout = forwardLine(res, forward, changed)
		return
	}
	call, _, _ := mcpmsg.ParseCallIn(&d.json, c.p.Request)
	server := c.p.Server
	notice := c.judgeToken(d, call, res)    // before a token the answer carries is captured
	forward, changed := c.hideToken(d, res) // what the client gets
	if notice != "" && forward != nil {
		if o, ok := withNotice(forward, notice); ok {
			forward, changed = o, true
		}
	}
	if o, ok := d.redactForModel(forward); ok {
		forward, changed = o, true
	}
	unshaped, unshapedChanged := forward, changed
	category := abi.CategoryMCP
	response := c.p.Message
	if res.Result != nil {
		response = res.Raw
	}
	if res.IsError() {
		category = abi.CategoryError
		if res.Error != nil {
			response = res.Error
		}
	}
	ev := d.newEvent("tools/call", category, "")
	ev.Server = server
	ev.Tool = "mcp__" + server + "__" + call.Tool
	ev.ToolUseID = string(res.Msg["id"])
	ev.Key = shape.Key(d.session, server, ev.ToolUseID, d.keyed(), string(call.Args))
	d.storeTool(ev, call.Args, response, nil)
	if forward != nil && !res.IsError() && !isExcluded(ev) {
		// What the client would get, measured and read: forward's,
		// redacted already when [redact] model is on (the head is cut from
		// redacted text). A changed result is read from its members, so
		// hiding a token in _meta costs no copy or parse of a big text.
		size, text := len(res.Raw), func() string { return d.readableText(res.Raw) }
		if changed {
			size, text = forward.Len(), func() string { return d.contentText(forward) }
		}
		if shaped, ok := d.shapeResult(server, forward, size, text, ev); ok {
			forward, changed = shaped, true
			// Should the record not be kept, the client gets the result
			// itself, token hidden, rather than a pointer to nothing.
			d.unstored = &abi.Unstored{Stdout: forwardLine(res, unshaped, unshapedChanged)}
		}
	}
	d.stdout = forwardLine(res, forward, changed)
}

// redactForModel is, with [redact] model = true, the result the client
// (and so the model) gets with every secret in it redacted as stored text
// is; ok is false when there was none (or redacting would not leave JSON).
func (d *decision) redactForModel(o mcpmsg.Object) (mcpmsg.Object, bool) {
	if !d.req.Config.Redact.Model || o == nil {
		return nil, false
	}
	red, n := d.redactForModelText(string(o.Raw()))
	if n == 0 {
		return nil, false
	}
	out, err := mcpmsg.ParseObject(json.RawMessage(red))
	if err != nil {
		return nil, false
	}
	return out, true
}

// strip is the least a response needs when its full decision failed:
// the token captured for the next call and hidden from the client. It
// records nothing, redacts nothing and shapes nothing, so whatever made
// the full decision fail on this message, this path does not share it
// (ABI.md: ProxyStrip).
func (c proxyCall) strip(d *decision) {
	res, err := mcpmsg.ParseResultIn(&d.json, c.p.Message)
	if err != nil {
		return
	}
	forward, changed := c.hideToken(d, res)
	d.stdout = forwardLine(res, forward, changed)
}

// hideToken captures a relay server's token from the result and returns
// the result with every copy of the session's token hidden, and whether
// that changed it.
func (c proxyCall) hideToken(d *decision, res mcpmsg.Result) (mcpmsg.Object, bool) {
	forward := res.Result
	rs, ok := relay.Lookup(d.req.Config, c.p.Server)
	if !ok || res.Result == nil {
		return forward, false
	}
	v, err := d.decode(res.Raw)
	if tok, ok := rs.CaptureIn(&d.json, v, err); ok && d.state.setToken(c.p.Server, tok) {
		d.dirty = true
		d.tally(abi.TallyCapture)
	}
	if tok := d.state.Tokens[c.p.Server]; tok != "" {
		out, changed, err := mcpmsg.StripToken(res.Result, tok, rs.TokenArg, abi.TokenPlaceholder)
		if err != nil {
			// Cannot happen (the token's escaped form was replaced in valid
			// JSON); if it did, the client gets a stand-in, never the token.
			return mcpmsg.Object{"content": json.RawMessage(`[{"type":"text","text":"[ctxhook: this result cannot be shown without its session token]"}]`),
				"isError": json.RawMessage("true")}, true
		}
		if changed {
			return out, true
		}
	}
	return forward, false
}

// forwardLine is the line the proxy forwards for res with its result
// replaced by result, or "" (forward the message as it came) when
// nothing changed.
func forwardLine(res mcpmsg.Result, result mcpmsg.Object, changed bool) string {
	if result == nil || !changed {
		return ""
	}
	msg := res.Msg.Clone()
	msg["result"] = result.Raw()
	return string(msg.Raw()) + "\n"
}

// shapeResult replaces a large result's content with its head and a
// pointer to the stored event. A result with structuredContent is left
// whole: a client checks it against the tool's outputSchema, and shaping
// it would turn a good answer into a validation error.
func (d *decision) shapeResult(server string, result mcpmsg.Object, size int, readable func() string, ev *abi.Event) (mcpmsg.Object, bool) {
	limit := shape.Threshold(d.req.Config, server)
	if limit == 0 || size <= limit || server == classify.OwnServer || result["structuredContent"] != nil {
		return nil, false
	}
	text := readable()
	if text == "" {
		return nil, false
	}
	out := shape.Shaped(text, shape.HeadBytes(d.req.Config), ev.Key, size)
	if len(out) >= size {
		return nil, false
	}
	shaped := result.Clone()
	shaped.Set("content", []map[string]string{{"type": "text", "text": out}})
	ev.ContextBytes = len(out)
	d.tally(abi.TallyShaped)
	// What the client did not get, counted (like a hook's) only when the
	// decision is delivered: the proxy forwards it to the client.
	if kept := size - shaped.Len(); kept > 0 {
		d.tallyN(abi.TallyKeptOut, kept)
	}
	return shaped, true
}

// judgeToken is the hooks' judgeToken (toolhook.go) for a proxied call: a
// result or JSON-RPC error that rejects the token the request carried
// retires it, an accepted call confirms it. It returns the text for the
// model, or "".
func (c proxyCall) judgeToken(d *decision, call mcpmsg.Call, res mcpmsg.Result) string {
	rs, ok := relay.Lookup(d.req.Config, c.p.Server)
	tok := d.state.Tokens[c.p.Server]
	if !ok || tok == "" || call.Args == nil || !rs.Carries(call.Args, tok) {
		return ""
	}
	if !res.IsError() {
		if d.state.confirm(c.p.Server) {
			d.dirty = true
		}
		return ""
	}
	text := string(res.Error)
	if res.Error == nil {
		text = d.readableText(res.Raw)
	}
	if !rs.RejectsToken(text) {
		return ""
	}
	d.state.dropToken(c.p.Server)
	d.dirty = true
	return tokenRejected(rs)
}

// withNotice returns result with text as one more text block after its
// content, for the model to read beside the server's error.
func withNotice(result mcpmsg.Object, text string) (mcpmsg.Object, bool) {
	var content []json.RawMessage
	if raw, ok := result["content"]; ok && json.Unmarshal(raw, &content) != nil {
		return nil, false
	}
	block, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	out := result.Clone()
	out.Set("content", append(content, block))
	return out, true
}

// noteUpstream applies what the proxy says of the server's process: one
// it has not named before, while a token is held, is a new process, and
// the token is unconfirmed (or dropped, with on_resume = "drop") as after
// a resume.
func (c proxyCall) noteUpstream(d *decision, rs relay.Server) {
	up, server := c.p.Upstream, c.p.Server
	if up == "" || d.stateErr || d.state.Upstreams[server] == up {
		return
	}
	if d.state.Upstreams == nil {
		d.state.Upstreams = map[string]string{}
	}
	d.state.Upstreams[server] = up
	d.dirty = true
	if rs.Drop {
		d.state.dropToken(server)
	} else {
		d.state.unconfirm(server)
	}
}
