package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/conformance"
)

// relaySession drives one Claude Code session's hooks through the real
// plugin.wasm, carrying state from each answer's effects into the next
// request as a host does.
type relaySession struct {
	t    *testing.T
	wasm interface {
		Handle(context.Context, abi.HandleRequest) (abi.HandleResponse, error)
	}
	cfg   abi.Config
	state map[string]string
	now   int64
}

const relaySID = "8a1f0c52-4b1e-4d8e-9a55-6f0d2c3b7e10"

func (s *relaySession) hook(event string, fields map[string]any) string {
	s.t.Helper()
	p := map[string]any{"session_id": relaySID, "transcript_path": "/x.jsonl", "cwd": "/p", "hook_event_name": event}
	for k, v := range fields {
		p[k] = v
	}
	payload, _ := json.Marshal(p)
	s.now += 60_000 // a minute apart: no answer is the same moment seen twice
	resp, err := s.wasm.Handle(context.Background(), abi.HandleRequest{Harness: abi.HarnessClaudeCode, Event: event,
		Payload: string(payload), Config: s.cfg, State: s.state, NowMS: s.now})
	if err != nil {
		s.t.Fatal(err)
	}
	next := map[string]string{}
	for k, v := range s.state {
		next[k] = v
	}
	for _, e := range resp.Effects {
		if e.Op == abi.OpSetState {
			next[e.Key] = e.Value
		}
	}
	s.state = next
	return resp.Stdout
}

// pre returns the token PreToolUse injected into a step, or "".
func (s *relaySession) pre(n int) string {
	s.t.Helper()
	out := s.hook("PreToolUse", map[string]any{"tool_name": "mcp__workflow__step", "tool_input": map[string]any{"n": n}})
	if out == "" {
		return ""
	}
	var a struct {
		HookSpecificOutput struct {
			UpdatedInput map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		s.t.Fatalf("PreToolUse answer %q: %v", out, err)
	}
	tok, _ := a.HookSpecificOutput.UpdatedInput["session_token"].(string)
	return tok
}

// post answers a step that carried sent: accepted with a new token, or
// rejected for its token.
func (s *relaySession) post(n int, sent, issued string, rejected bool) string {
	s.t.Helper()
	input := map[string]any{"n": n}
	if sent != "" {
		input["session_token"] = sent
	}
	if rejected {
		return s.hook("PostToolUseFailure", map[string]any{"tool_name": "mcp__workflow__step", "tool_input": input,
			"error": "invalid session token (got 124 characters); call start_session again"})
	}
	text, _ := json.Marshal(map[string]any{"step": n, "result": "ok", "session_token": issued})
	return s.hook("PostToolUse", map[string]any{"tool_name": "mcp__workflow__step", "tool_input": input,
		"tool_response": []any{map[string]any{"type": "text", "text": string(text)}}})
}

// TestRejectedTokenNotInjectedAgain: after a resume, a server whose tokens
// died with its process rejects the token ctxhook kept; ctxhook retires
// it at once, so the next call goes without it and captures the new one,
// which the call after gets. Before, the stale token was injected into
// every later call, and every one was rejected.
func TestRejectedTokenNotInjectedAgain(t *testing.T) {
	const stale, fresh = "wfs_stale_0a1b2c3d4e5f60718293a4b5c6d7e8f9", "wfs_fresh_99887766554433221100ffeeddccbbaa"
	wasm := loadWasm(t)
	for _, onResume := range []string{"", abi.OnResumeKeep} {
		s := &relaySession{t: t, wasm: wasm, now: conformance.NowMS,
			cfg:   abi.Config{Servers: map[string]abi.ServerConfig{"workflow": {Relay: true, OnResume: onResume}}},
			state: map[string]string{"session/" + relaySID: `{"tokens":{"workflow":"` + stale + `"}}`}}
		block := s.hook("SessionStart", map[string]any{"source": "resume"})
		if !strings.Contains(block, "still holds a session token from before the resume for: workflow") {
			t.Errorf("the resume block does not call the kept token unconfirmed: %s", block)
		}
		if got := s.pre(3); got != stale {
			t.Fatalf("first call after the resume got %q, want the kept token", got)
		}
		notice := s.post(3, stale, "", true)
		if !strings.Contains(notice, "has to be started again") || strings.Contains(notice, stale) {
			t.Errorf("the rejection's answer does not tell the model plainly (or holds the token): %s", notice)
		}
		if got := s.pre(4); got != "" {
			t.Fatalf("the rejected token was injected again: %q", got)
		}
		s.post(4, "", fresh, false)
		if got := s.pre(5); got != fresh {
			t.Fatalf("the call after got %q, want the newly issued token", got)
		}
	}
}

// TestSignedTokenSurvivesResume: a server whose signed tokens outlive its
// process accepts the kept token; the call confirms it (the next block
// calls the relay live), and with on_resume = "drop" the token is not sent
// at all.
func TestSignedTokenSurvivesResume(t *testing.T) {
	const tok, next = "wfs_signed_0a1b2c3d4e5f60718293a4b5c6d7e8f9", "wfs_signed_99887766554433221100ffeeddccbbaa"
	wasm := loadWasm(t)
	for _, onResume := range []string{abi.OnResumeKeep, abi.OnResumeDrop} {
		s := &relaySession{t: t, wasm: wasm, now: conformance.NowMS,
			cfg:   abi.Config{Servers: map[string]abi.ServerConfig{"workflow": {Relay: true, OnResume: onResume}}},
			state: map[string]string{"session/" + relaySID: `{"tokens":{"workflow":"` + tok + `"},"searches":["q"]}`}}
		s.hook("SessionStart", map[string]any{"source": "resume"})
		got := s.pre(3)
		if onResume == abi.OnResumeDrop {
			if got != "" {
				t.Fatalf("on_resume drop: the call after the resume got %q", got)
			}
			continue
		}
		if got != tok {
			t.Fatalf("the call after the resume got %q, want the kept token", got)
		}
		s.post(3, tok, next, false)
		block := s.hook("SessionStart", map[string]any{"source": "compact"})
		if !strings.Contains(block, "ctxhook adds the session token to every call of: workflow.") || strings.Contains(block, "still holds") {
			t.Errorf("after an accepted call the block does not call the relay live: %s", block)
		}
		if got := s.pre(4); got != next {
			t.Fatalf("the workflow did not carry on: the next call got %q", got)
		}
	}
}
