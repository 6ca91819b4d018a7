package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hookFieldsOf turns a recorded hook payload into an mcp_tool hook's
// input as Claude Code interpolates it: every field a string, an object
// or array as its JSON.
func hookFieldsOf(t *testing.T, payload []byte) map[string]any {
	t.Helper()
	var p map[string]json.RawMessage
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{}
	for k, v := range p {
		var s string
		if json.Unmarshal(v, &s) == nil {
			args[k] = s
		} else {
			args[k] = string(v)
		}
	}
	return args
}

// TestHookTool: Claude Code's mcp_tool hook, from its recorded payload,
// through the real plugin (in-process) into a real store: the answer is
// the hook's JSON output (the first call's nudge), the event is stored
// with its response, and the tool is not in the model's tool list.
func TestHookTool(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "CTXHOOK_HOME":
			return home
		case "CTXHOOK_NO_DAEMON":
			return "1"
		}
		return ""
	}
	p, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	dec := decider.New(getenv, p, func(kind, format string, a ...any) { t.Logf(format, a...) })
	defer dec.Close()
	paths.EnsureDir(p.Data)
	secret, err := hooksecret.Ensure(hooksecret.Path(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	read := func() (string, error) { return hooksecret.Read(hooksecret.Path(p.Data)) }
	cs := connectTo(t, New(Options{DB: p.DB(), Version: "test", Decide: dec.Decide, HookSecret: read}), "")
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == HookTool {
			t.Errorf("the hook tool is listed to the model")
		}
	}

	payload, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "payloads", "claude-code", "2.1.330", "hook-PostToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: HookTool, Arguments: with(hookFieldsOf(t, payload), hooksecret.Field, secret)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("hook tool error: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &out); err != nil || out.HookSpecificOutput.HookEventName != "PostToolUse" ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "search") {
		t.Fatalf("the answer is not the first call's nudge as hook output: %s", text)
	}
	// Stored (the in-process engine spools; its writer stores soon after).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s, err := store.Open(p.DB(), store.Options{ReadOnly: true}); err == nil {
			hits, err := s.Search(store.ParseQuery("TCK-42"), store.SearchOptions{})
			s.Close()
			if err == nil && len(hits) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook's event is not in the store")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Without hook_event_name there is nothing to decide: a tool error,
	// which Claude Code reports and goes on from.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: HookTool, Arguments: map[string]any{"session_id": "s", hooksecret.Field: secret}})
	if err != nil || !res.IsError {
		t.Fatalf("a hook input without hook_event_name: %v %+v", err, res)
	}
}

func TestHookPayload(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"objects back as JSON, empty fields left out",
			map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "tool_input": `{"a":1}`, "tool_use_id": "", "error": ""},
			`{"hook_event_name":"PreToolUse","session_id":"s","tool_input":{"a":1}}`},
		{"a text response stays a string",
			map[string]any{"hook_event_name": "PostToolUse", "tool_response": "plain text, not JSON"},
			`{"hook_event_name":"PostToolUse","tool_response":"plain text, not JSON"}`},
		{"a string field that looks like JSON stays a string",
			map[string]any{"hook_event_name": "PostToolUse", "cwd": `{"x":1}`},
			`{"hook_event_name":"PostToolUse","cwd":"{\"x\":1}"}`},
		{"arrays and booleans", map[string]any{"hook_event_name": "PostToolUseFailure", "tool_response": `[{"type":"text","text":"x"}]`, "is_interrupt": "false"},
			`{"hook_event_name":"PostToolUseFailure","tool_response":[{"type":"text","text":"x"}],"is_interrupt":false}`},
		{"unknown fields are dropped; a value that came as itself goes back so", map[string]any{"hook_event_name": "Stop", "other": "x", "session_id": 5, "is_interrupt": true},
			`{"hook_event_name":"Stop","session_id":5,"is_interrupt":true}`},
	} {
		got, event := hookPayload(tt.in)
		if string(got) != tt.want || event != tt.in["hook_event_name"] {
			t.Errorf("%s:\n got %s (%s)\nwant %s", tt.name, got, event, tt.want)
		}
	}
}

// TestHookInputMatchesTemplate: the input install writes for the
// mcp_tool hooks passes exactly the fields hookPayload reads.
func TestHookInputMatchesTemplate(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "harness-configs", "claude-code", "settings-mcp_tool.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Server, Tool string
				Input              map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), "{{CTXHOOK}}", "x")), &s); err != nil {
		t.Fatal(err)
	}
	want := HookInput()
	n := 0
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Type != "mcp_tool" {
					continue
				}
				n++
				if h.Server != Name || h.Tool != HookTool {
					t.Errorf("%s calls %s/%s, not %s/%s", ev, h.Server, h.Tool, Name, HookTool)
				}
				if len(h.Input) != len(want)+1 || h.Input[hooksecret.Field] != hooksecret.Placeholder {
					t.Errorf("%s passes %d fields, want the %d hookPayload reads and the secret (%s: %q)", ev, len(h.Input), len(want), hooksecret.Field, h.Input[hooksecret.Field])
				}
				for k, v := range want {
					if h.Input[k] != v {
						t.Errorf("%s: input %q is %q, want %q", ev, k, h.Input[k], v)
					}
				}
			}
		}
	}
	if n != 3 {
		t.Errorf("%d mcp_tool hooks in the template, want 3 (PreToolUse, PostToolUse, PostToolUseFailure)", n)
	}
}

// FuzzHookPayload: whatever strings arrive, the payload is one valid
// JSON object.
func FuzzHookPayload(f *testing.F) {
	f.Add("PostToolUse", `{"a":[1,2]}`, `[{"type":"text","text":"x"}]`, "true")
	f.Add("PreToolUse", `{"a":`, "\xff\xfe", "")
	f.Fuzz(func(t *testing.T, event, input, response, interrupt string) {
		b, _ := hookPayload(map[string]any{"hook_event_name": event, "tool_input": input, "tool_response": response, "is_interrupt": interrupt})
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("not a JSON object: %v\n%s", err, b)
		}
	})
}

// TestRevisions: ctxhook mcp answers under MCP 2026-07-28 (server/discover,
// no initialize) and the 2025 revisions: the client gets the revision it
// asked for, and its tools, the hooks' one included, answer under each.
func TestRevisions(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			decide := func(ctx context.Context, harness, event string, payload []byte) (string, error) {
				return `{"continue":true}`, nil
			}
			secret := strings.Repeat("ab", 32)
			cs := connectTo(t, New(Options{DB: filepath.Join(t.TempDir(), "ctxhook.db"), Version: "test", Decide: decide,
				HookSecret: func() (string, error) { return secret, nil }}), rev)
			ctx := context.Background()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("speaks %s, asked for %s", got, rev)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "anything"}})
			if err != nil || res.IsError || res.Meta["ctxhook"] == nil {
				t.Fatalf("search under %s: %v %+v", rev, err, res)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: HookTool, Arguments: map[string]any{"hook_event_name": "PostToolUse", "session_id": "s", hooksecret.Field: secret}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"continue":true}` {
				t.Fatalf("hook under %s: %v %+v", rev, err, res)
			}
		})
	}
}
