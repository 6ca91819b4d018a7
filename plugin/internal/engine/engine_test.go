package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
)

func TestUnknownHarness(t *testing.T) {
	if _, err := Handle(abi.HandleRequest{Harness: "vim", Payload: "{}"}); !errors.Is(err, ErrHarness) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Prepare(abi.PrepareRequest{Harness: "vim", Payload: "{}"}); !errors.Is(err, ErrHarness) {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingSessionID(t *testing.T) {
	resp, err := Prepare(abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Payload: `{"hook_event_name":"Stop"}`})
	if err != nil || len(resp.StateKeys) != 1 || resp.StateKeys[0] != "session/unknown" {
		t.Fatalf("Prepare = %+v, %v", resp, err)
	}
}

func TestCapBytes(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	got, cut := capBytes(s, 5)
	if !cut || !strings.HasPrefix(got, "éé\n[ctxhook: truncated") {
		t.Fatalf("capBytes = %q, %v", got, cut)
	}
	if got, cut := capBytes(s, -1); cut || got != s {
		t.Fatalf("-1 must mean no cap")
	}
}

// FuzzHandle: for any payload, Handle either fails with a payload error or
// returns valid JSON on stdout (or nothing) and well-formed effects, and
// never leaks a known relay token into a stored event.
func FuzzHandle(f *testing.F) {
	harnesses := []string{abi.HarnessClaudeCode, abi.HarnessCodex, abi.HarnessGemini, abi.HarnessCursor, abi.HarnessOpenCode, abi.HarnessTranscript}
	for i, h := range harnesses[:len(harnesses)-1] { // testdata/payloads/<harness>: all but transcripts
		files, _ := filepath.Glob("../../../testdata/payloads/" + h + "/*/*.json")
		for _, file := range files {
			b, _ := os.ReadFile(file)
			f.Add(b, "", uint8(i))
		}
	}
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__wf__step","tool_response":[{"type":"text","text":"{\"session_token\":\"tok_fuzz_0123456789\"}"}]}`), "3", uint8(0))
	f.Add([]byte(`{"format":"claude-code","path":"/p","session":"s","final":true,"data":"{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"content\":\"token tok_known_0123456789abcdef here\"}}\n"}`), "", uint8(5))
	f.Add([]byte(`{"hook":"tool.execute.after","input":{"tool":"wf_step","sessionID":"s","args":{}},"output":{"content":[],"_meta":{"session_token":"tok_fuzz_0123456789"}}}`), "", uint8(4))
	// A rejection of the known token (it is retired; the notice never
	// holds it) and a resume (it is kept, unconfirmed).
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"mcp__wf__step","tool_input":{"session_token":"tok_known_0123456789abcdef"},"error":"invalid session tok_known_0123456789abcdef"}`), "", uint8(0))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"SessionStart","source":"resume"}`), "", uint8(2))
	const known = "tok_known_0123456789abcdef"
	f.Fuzz(func(t *testing.T, payload []byte, every string, harness uint8) {
		req := abi.HandleRequest{Harness: harnesses[int(harness)%len(harnesses)], Payload: string(payload),
			Config: abi.Config{Servers: map[string]abi.ServerConfig{"wf": {Relay: true}, "tickets": {Relay: true}}},
			Env:    map[string]string{abi.EnvNudgeEvery: every}}
		prep, err := Prepare(abi.PrepareRequest{Harness: req.Harness, Payload: req.Payload})
		if err != nil {
			if !errors.Is(err, claude.ErrPayload) {
				t.Fatalf("Prepare error is not ErrPayload: %v", err)
			}
			return
		}
		req.State = map[string]string{prep.StateKeys[0]: `{"tokens":{"wf":"` + known + `"}}`}
		resp, err := Handle(req)
		if err != nil {
			t.Fatalf("Handle failed after Prepare succeeded: %v", err)
		}
		if resp.Stdout != "" && !json.Valid([]byte(resp.Stdout)) {
			t.Fatalf("stdout is not JSON: %q", resp.Stdout)
		}
		for _, e := range resp.Effects {
			switch e.Op {
			case abi.OpSetState:
				if !json.Valid([]byte(e.Value)) {
					t.Fatalf("state value not JSON: %q", e.Value)
				}
			case abi.OpStoreEvent:
				ev := e.Event
				if ev == nil {
					t.Fatal("store_event without event")
				}
				for _, s := range []string{ev.Args, ev.Response, ev.Text} {
					if strings.Contains(s, known) {
						t.Fatalf("known token stored unredacted")
					}
				}
			case abi.OpTally, abi.OpIndexTranscript:
			case abi.OpStoreChunk:
				if e.Chunk == nil || strings.Contains(e.Chunk.Text, known) {
					t.Fatalf("bad chunk or known token in a chunk")
				}
			default:
				t.Fatalf("unknown effect %q", e.Op)
			}
		}
	})
}

func TestEnvSecrets(t *testing.T) {
	own, got := envSecrets([]string{"PWD=/work/project", "OLDPWD=/home/dev", "GITHUB_TOKEN=ghp_0123456789abcdef", "DB_PASSWORD=short",
		"OPENAI_API_KEY=sk-proj-abcdefgh12345678", "PATH=/usr/bin:/bin", "not an entry",
		"CLAUDE_CODE_SESSION_ID=4ffc612f-1359-4fb4-bc20-454b9b7c872e", "CTXHOOK_OWN_0_TOKEN=f0a1b2c3d4e5f607"}, "4ffc612f-1359-4fb4-bc20-454b9b7c872e")
	want := []string{"ghp_0123456789abcdef", "sk-proj-abcdefgh12345678"}
	if strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(own, ",") != "f0a1b2c3d4e5f607" {
		t.Fatalf("envSecrets = %q, %q, want %q and the own value", own, got, want)
	}
}

// TestSessionIDInEnvironment: Claude Code gives its hooks the session id
// in a variable whose name reads as a secret's; the events are stored
// under the session id all the same, and another secret of the
// environment is still redacted.
func TestSessionIDInEnvironment(t *testing.T) {
	payload, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := claude.Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Handle(abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: string(payload),
		Environ: []string{"CLAUDE_CODE_SESSION_ID=" + p.SessionID, "TICKETS_TOKEN=Printer on floor 3"}})
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, e := range resp.Effects {
		if e.Event != nil {
			stored++
			if e.Event.Session != p.SessionID {
				t.Errorf("stored under session %q, want %q", e.Event.Session, p.SessionID)
			}
			if strings.Contains(e.Event.Response+e.Event.Text, "Printer on floor 3") {
				t.Errorf("an environment secret was stored")
			}
		}
	}
	if stored == 0 {
		t.Fatal("nothing stored")
	}
}

// TestKeyFollowsRequest: a hook decided twice under one request name (at
// two times) gives its event one key, so a pointer from either decision
// names the event the store kept; without a name, two decisions of the
// same call at two times are two events, two keys.
func TestKeyFollowsRequest(t *testing.T) {
	p, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	key := func(now int64, id string) string {
		t.Helper()
		resp, err := Handle(abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: string(p), NowMS: now, RequestID: id,
			Config: abi.Config{Servers: map[string]abi.ServerConfig{"tickets": {Relay: true}}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range resp.Effects {
			if e.Op == abi.OpStoreEvent && e.Event != nil && e.Event.Key != "" {
				return e.Event.Key
			}
		}
		t.Fatal("no event with a key")
		return ""
	}
	if a, b := key(1000, "req-1"), key(2000, "req-1"); a != b {
		t.Errorf("one request, two keys: %s, %s", a, b)
	}
	if a, b := key(1000, "req-1"), key(1000, "req-2"); a == b {
		t.Errorf("two requests, one key %s", a)
	}
	if a, b := key(1000, ""), key(2000, ""); a == b {
		t.Errorf("no request name, two times, one key %s", a)
	}
}

// TestShortFieldsRedacted: a token in the cwd, the session id or the tool
// name of a payload is redacted in the stored event, as in its body.
func TestShortFieldsRedacted(t *testing.T) {
	p, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(p, &m)
	tok := "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	m["cwd"] = "/home/dev/" + tok + "/proj"
	m["session_id"] = "sess-" + tok
	m["tool_use_id"] = "toolu_" + tok
	payload, _ := json.Marshal(m)
	resp, err := Handle(abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: string(payload), NowMS: 1})
	if err != nil {
		t.Fatal(err)
	}
	stored := false
	for _, e := range resp.Effects {
		if e.Op == abi.OpTally && strings.Contains(e.Session, tok) {
			t.Errorf("the token is in a tally's session: %q", e.Session)
		}
		if e.Op != abi.OpStoreEvent || e.Event == nil {
			continue
		}
		stored = true
		b, _ := json.Marshal(e.Event)
		if strings.Contains(string(b), tok) {
			t.Errorf("the token is in the stored event: %s", b)
		}
		if !strings.Contains(e.Event.Cwd, "[REDACTED") || e.Event.Redactions < 3 {
			t.Errorf("cwd %q, %d redactions", e.Event.Cwd, e.Event.Redactions)
		}
	}
	if !stored {
		t.Fatal("no event stored")
	}
}
