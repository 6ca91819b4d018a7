package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HookTool is the tool Claude Code's "mcp_tool" hooks call: it answers a
// hook the way `ctxhook hook claude-code <event>` does, from a server the
// client already runs, so no process starts per hook. It is served but
// not listed: the model's tool list stays search, get_context, get_event
// and stats, and a hook names its tool itself.
//
// Not being listed keeps nobody out (any MCP client may name any tool),
// so a call must carry the per-install secret (hooksecret) that only the
// hooks install wrote hold: without it the call is refused before
// anything is read or written, as is one for a proxy's session.
const HookTool = "hook"

// refused is the one answer of every call that does not prove it comes
// from ctxhook's installed hooks: the same whatever was wrong, so that
// it tells a caller nothing about the secret or the sessions.
const refused = "ctxhook: the hook tool answers only the mcp_tool hooks 'ctxhook install claude-code --hook-type mcp_tool' " +
	"wrote (re-run it if these are they); nothing was done, the agent continues without ctxhook"

// Decide decides one hook payload of harness and event: the hook's
// stdout, or an error when no decision was made.
type Decide func(ctx context.Context, harness, event string, payload []byte) (string, error)

// HookFields are the hook input's fields an "mcp_tool" hook passes on,
// each as "${field}": Claude Code interpolates each from its hook input
// (an object or array as its JSON), and has no form for the whole input.
// jsonFields arrive as JSON text and go back into the payload as JSON.
var HookFields = []string{"hook_event_name", "session_id", "transcript_path", "cwd", "prompt_id", "permission_mode",
	"agent_id", "agent_type", "tool_name", "tool_input", "tool_response", "tool_use_id", "mcp_server", "error", "is_interrupt"}

var jsonFields = map[string]bool{"tool_input": true, "tool_response": true, "mcp_server": true, "is_interrupt": true}

// HookInput is the "input" of ctxhook's mcp_tool hooks.
func HookInput() map[string]string {
	in := make(map[string]string, len(HookFields))
	for _, f := range HookFields {
		in[f] = "${" + f + "}"
	}
	return in
}

// hookPayload rebuilds a Claude Code hook payload from the interpolated
// fields: a field Claude Code left empty (absent from its input) is left
// out, a JSON field is put back as JSON when it is JSON (a tool's
// response may also be plain text), any other string stays a string, and
// a value that arrives as itself (not interpolated into a string) goes
// back as it came.
func hookPayload(args map[string]any) ([]byte, string) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	event := ""
	for _, f := range HookFields {
		var value []byte
		switch v := args[f].(type) {
		case nil:
			continue
		case string:
			if v == "" {
				continue
			}
			if f == "hook_event_name" {
				event = v
			}
			if t := strings.TrimSpace(v); jsonFields[f] && t != "" && strings.ContainsRune("{[tf", rune(t[0])) && json.Valid([]byte(t)) {
				value = []byte(t)
			} else {
				value, _ = json.Marshal(v)
			}
		default:
			var err error
			if value, err = json.Marshal(v); err != nil || f == "hook_event_name" {
				continue
			}
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), event
}

// hookMiddleware answers tools/call of HookTool with decide, and passes
// every other request on.
func hookMiddleware(decide Decide, secret func() (string, error)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || call.Params.Name != HookTool {
				return next(ctx, method, req)
			}
			return answerHook(ctx, decide, secret, call.Params.Arguments), nil
		}
	}
}

// answerHook decides one hook. The text content is the hook's JSON
// output, which Claude Code reads as a command hook's stdout; a failure
// is a tool error, which Claude Code reports and goes on from (the
// hooks are installed with onFailure "continue"): fail-open.
func answerHook(ctx context.Context, decide Decide, secret func() (string, error), raw json.RawMessage) *mcp.CallToolResult {
	start := time.Now()
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || !admitted(args, secret) {
		return hookError(refused)
	}
	payload, event := hookPayload(args)
	if len(payload) > hookproto.MaxInput {
		return hookError(fmt.Sprintf("ctxhook: a hook payload of %d MiB is over the %d MiB a hook takes; the agent continues without ctxhook", len(payload)>>20, hookproto.MaxInput>>20))
	}
	if event == "" {
		return hookError("ctxhook: the hook's input has no hook_event_name; install writes it as \"${hook_event_name}\"")
	}
	out, err := decide(ctx, "claude-code", event, payload)
	if err != nil {
		return hookError("ctxhook: claude-code " + event + ": " + err.Error() + "; the agent continues without ctxhook")
	}
	text := strings.TrimSpace(out)
	if text == "" {
		text = "{}"
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		Meta: mcp.Meta{"ctxhook": map[string]any{
			"duration_ms":   math.Round(float64(time.Since(start).Microseconds())/10) / 100,
			"payload_bytes": len(payload),
		}},
	}
}

// admitted reports whether a hook call may be decided: it carries the
// installed secret (compared in constant time; no secret installed, an
// older install's hooks, admit nothing), and names a session of the
// harness's own, never one of ctxhook proxy's (whose tokens are kept
// from the client).
func admitted(args map[string]any, secret func() (string, error)) bool {
	if secret == nil {
		return false
	}
	installed, err := secret()
	presented, _ := args[hooksecret.Field].(string)
	if err != nil || !hooksecret.Matches(installed, presented) {
		return false
	}
	session, _ := args["session_id"].(string)
	return session != "" && !strings.HasPrefix(session, ProxySessionPrefix)
}

// ProxySessionPrefix starts the session ids ctxhook proxy makes
// (proxy.Options.Session): no hook acts for them.
const ProxySessionPrefix = "proxy-"

func hookError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
