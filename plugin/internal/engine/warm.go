package engine

import (
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
)

// WarmSamples are decisions typical of a session (a relay server's call
// and its answer through the proxy, a Claude Code MCP hook pair, a
// secret in a response), for ctxhook_warm: an instance's first decision
// otherwise pays for everything the guest does once (type caches,
// compiled rules, its runtime's heap growing), and that first decision
// is the one a new session or a newly started proxy waits for.
//
// They are fixed inputs, decided and thrown away: nothing of them
// reaches a host. A test checks that each decides without error, so the
// warm-up never stops exercising what it was written for.
func WarmSamples() []abi.HandleRequest {
	const session = "warm-0000"
	secret := "ghp_" + strings.Repeat("Wa7mUpT0kenN0tReal", 2)[:36]
	token := "wrm." + strings.Repeat("9f3c1a", 8)
	cfg := abi.Config{Servers: map[string]abi.ServerConfig{"wf": {Relay: true}, "tickets": {Relay: true}}}
	state := map[string]string{"session/" + session: `{"tokens":{"wf":"` + token + `","tickets":"` + token + `"}}`}
	environ := []string{"HOME=/home/warm", "PATH=/usr/bin", "WARM_API_TOKEN=" + strings.Repeat("k3y", 8)}
	text := strings.Repeat(`{"id":"CVX-1","summary":"the rotation job ran late","body":"see runbook"} `, 40) + "token " + secret
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_ticket","arguments":{"id":"CVX-1"}}}`
	answer := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + quote(text) + `}],"_meta":{"session_token":"` + token[:len(token)-6] + `2b4d6e"}}}`
	proxy := func(msg, request string) string {
		s := `{"session_id":"` + session + `","server":"wf","message":` + msg
		if request != "" {
			s += `,"request":` + request
		}
		return s + "}"
	}
	hook := func(event, extra string) string {
		return `{"session_id":"` + session + `","transcript_path":"","cwd":"/home/warm","hook_event_name":"` + event +
			`","tool_name":"mcp__tickets__get_ticket","tool_input":{"id":"CVX-1"},"tool_use_id":"toolu_warm"` + extra + "}"
	}
	reqs := []abi.HandleRequest{
		{Harness: abi.HarnessMCPProxy, Event: "request", Payload: proxy(call, "")},
		{Harness: abi.HarnessMCPProxy, Event: "response", Payload: proxy(answer, call)},
		{Harness: abi.HarnessClaudeCode, Event: "PreToolUse", Payload: hook("PreToolUse", "")},
		{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: hook("PostToolUse",
			`,"tool_response":[{"type":"text","text":`+quote(text)+`}]`)},
	}
	for i := range reqs {
		reqs[i].Config, reqs[i].State, reqs[i].Environ = cfg, state, environ
		reqs[i].NowMS, reqs[i].RequestID = 1_700_000_000_000, "warm"
	}
	return reqs
}

func quote(s string) string { return string(jsonfast.AppendString(nil, s)) }
