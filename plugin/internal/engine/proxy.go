package engine

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/mcpmsg"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
	"github.com/ctxhook/ctxhook/plugin/internal/shape"
)

// proxyCall is one message through ctxhook's MCP proxy. The proxy sees the
// whole protocol, result _meta included, so it can capture tokens that
// hooks never see, inject them, and hide them from the model.
type proxyCall struct{ p abi.ProxyPayload }

func parseProxy(payload string) (dialect, error) {
	var p abi.ProxyPayload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return nil, fmt.Errorf("%w: proxy payload: %v", mcpmsg.ErrMessage, err)
	}
	if p.Server == "" || len(p.Message) == 0 {
		return nil, fmt.Errorf("%w: proxy payload needs server and message", mcpmsg.ErrMessage)
	}
	return proxyCall{p}, nil
}

func (c proxyCall) session() string { return orUnknown(c.p.SessionID) }

func (c proxyCall) decide(d *decision, event string) {
	switch event {
	case abi.ProxyRequest:
		c.request(d)
	case abi.ProxyResponse:
		c.response(d)
	}
}

// request injects the token into a tools/call: as the argument, and in
// params._meta when the server asks for that. No permission is involved:
// the proxy is the server as far as the client knows.
func (c proxyCall) request(d *decision) {
	call, ok, err := mcpmsg.ParseCall(c.p.Message)
	if err != nil || !ok {
		return // anything else passes through untouched
	}
	rs, ok := relay.Lookup(d.req.Config, c.p.Server)
	if !ok {
		return
	}
	token := d.state.Tokens[c.p.Server]
	updated, skip := rs.Inject(call.Tool, call.Args, token)
	if skip != relay.SkipNone {
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

// response captures the token a result carries, hides it from the client,
// and records the full result.
func (c proxyCall) response(d *decision) {
	res, err := mcpmsg.ParseResult(c.p.Message)
	if err != nil {
		return
	}
	call, _, _ := mcpmsg.ParseCall(c.p.Request)
	server := c.p.Server
	forward := res.Result // what the client gets, once the token is hidden
	if rs, ok := relay.Lookup(d.req.Config, server); ok && res.Result != nil {
		if tok, ok := rs.CaptureValue(d.decode(res.Result.Raw())); ok && d.state.setToken(server, tok) {
			d.dirty = true
			d.tally(abi.TallyCapture)
		}
		if tok := d.state.Tokens[server]; tok != "" {
			if out, changed := mcpmsg.StripToken(res.Result, tok, rs.TokenArg, abi.TokenPlaceholder); changed {
				forward, _ = mcpmsg.ParseObject(out)
			}
		}
	}
	category := abi.CategoryMCP
	response := c.p.Message
	if res.Result != nil {
		response = res.Result.Raw()
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
	ev.Key = shape.Key(d.session, server, ev.ToolUseID, strconv.FormatInt(d.req.NowMS, 10), string(call.Args))
	d.storeTool(ev, call.Args, response, nil)
	if forward != nil && !res.IsError() {
		if shaped, ok := d.shapeResult(server, forward, ev); ok {
			forward = shaped
		}
	}
	if forward != nil && string(forward.Raw()) != string(res.Result.Raw()) {
		msg := res.Msg.Clone()
		msg["result"] = forward.Raw()
		d.stdout = string(msg.Raw()) + "\n"
	}
}

// shapeResult replaces a large result's content with its head and a
// pointer to the stored event. A result with structuredContent is left
// whole: a client checks it against the tool's outputSchema, and shaping
// it would turn a good answer into a validation error.
func (d *decision) shapeResult(server string, result mcpmsg.Object, ev *abi.Event) (mcpmsg.Object, bool) {
	limit := shape.Threshold(d.req.Config, server)
	raw := result.Raw()
	if limit == 0 || len(raw) <= limit || server == classify.OwnServer || result["structuredContent"] != nil {
		return nil, false
	}
	text := d.readableText(raw)
	if text == "" {
		return nil, false
	}
	out := shape.Shaped(text, shape.HeadBytes(d.req.Config), ev.Key, len(raw))
	if len(out) >= len(raw) {
		return nil, false
	}
	shaped := result.Clone()
	shaped.Set("content", []map[string]string{{"type": "text", "text": out}})
	ev.ContextBytes = len(out)
	d.tally(abi.TallyShaped)
	return shaped, true
}
