package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store/spool"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestDetachedChildServesTheCommandsHome: a process a command starts
// in the background (here the `io replay` a hook starts for what it
// spooled) serves the home the command was given, not the one of the
// process it runs in. Main runs in-process here with its own
// CTXHOOK_HOME, as a long-lived host or a test runs it; the replay used
// to get this process's environment, so it looked in another home's
// spool (and this test binary, started as `ctxhook io replay` without
// its role, ran the whole suite again).
func TestDetachedChildServesTheCommandsHome(t *testing.T) {
	e := newEnv(t)
	if os.Getenv("CTXHOOK_HOME") == e.get("CTXHOOK_HOME") {
		t.Fatal("the test's home must differ from the process's")
	}
	p, err := paths.Resolve(e.get)
	if err != nil {
		t.Fatal(err)
	}
	ev := abi.Event{TimeMS: 1, Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse",
		Category: "mcp", Tool: "tickets_get_ticket", Response: "Ticket QUOKKA-41 spooled", ResponseBytes: 24}
	if err := spool.Write(p.SpoolDir(), []abi.Event{ev}, nil, "", false); err != nil {
		t.Fatal(err)
	}
	storeLater(Env{IO: IO{}, Getenv: e.get})
	// Searching would replay the spool itself: wait for the child to
	// empty it first.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.jsonl"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the detached replay never stored this home's spool (%d files left)", len(left))
		}
	}
	out, _, _ := e.run(t, nil, "search", "--json", "QUOKKA-41")
	var res struct{ Results []json.RawMessage }
	json.Unmarshal([]byte(out), &res)
	if len(res.Results) != 1 {
		t.Fatalf("the replayed event is not found once: %s", out)
	}
}
