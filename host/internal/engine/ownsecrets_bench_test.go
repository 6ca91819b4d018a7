package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/internal/testcache"
)

// busyHome is the home of a busy relay user: 600 session documents, each
// with a token, two retired ones and 4 KiB of other fields.
func busyHome(b *testing.B) (env, paths.Paths) {
	h := b.TempDir()
	testcache.LinkWasm(h)
	e := env{"CTXHOOK_HOME": h, "CTXHOOK_NO_DAEMON": "1", "CTXHOOK_HOOK_DEADLINE_MS": "120000"}
	p, _ := paths.Resolve(e.get)
	sd, err := state.Open(p.StateDir())
	if err != nil {
		b.Fatal(err)
	}
	pad := strings.Repeat("x", 4096)
	for i := range 600 {
		sd.Write(fmt.Sprintf("session/s%d", i), fmt.Sprintf(`{"mcp_calls":3,"searches":[%q],"tokens":{"tickets":"tok-%04d-abcdefgh"},"retired":["old-%04d-a-abcdefgh","old-%04d-b-abcdefgh"]}`, pad, i, i, i))
	}
	return e, p
}

// bashRead is a PostToolUse payload of a Bash command that printed text.
func bashRead(tb testing.TB, command, text string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "bench", "hook_event_name": "PostToolUse", "cwd": "/proj",
		"tool_name": "Bash", "tool_use_id": "toolu_bench", "tool_input": map[string]string{"command": command},
		"tool_response": map[string]any{"stdout": text, "stderr": "", "interrupted": false, "isImage": false}})
	return b
}

// BenchmarkOwnGather: what a hook process reads of its own values.
func BenchmarkOwnGather(b *testing.B) {
	_, p := busyHome(b)
	ownsecrets.Gather(p, ownsecrets.Hook, nil)
	b.ResetTimer()
	for range b.N {
		ownsecrets.Gather(p, ownsecrets.Hook, nil)
	}
}

// BenchmarkOwnHookInProcess: a whole hook as a hook process runs it.
func BenchmarkOwnHookInProcess(b *testing.B) {
	e, _ := busyHome(b)
	in := bashRead(b, "cat notes.txt", strings.Repeat("some output tok-0001-abcdefgh\n", 200))
	t := &testing.T{}
	runHook(t, e, "PostToolUse", in)
	b.ResetTimer()
	for range b.N {
		runHook(t, e, "PostToolUse", in)
	}
}

// BenchmarkOwnHookWarm: a whole hook on a long-lived engine.
func BenchmarkOwnHookWarm(b *testing.B) {
	e, p := busyHome(b)
	ctx := context.Background()
	eng, err := NewEngineWith(ctx, p, e.get, runner.Options{NoInterrupt: true}, KeptStore)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close(ctx)
	in := bashRead(b, "cat notes.txt", strings.Repeat("some output tok-0001-abcdefgh\n", 200))
	eng.Do(ctx, "", "claude-code", "PostToolUse", in)
	b.ResetTimer()
	for range b.N {
		eng.Do(ctx, "", "claude-code", "PostToolUse", in)
	}
}
