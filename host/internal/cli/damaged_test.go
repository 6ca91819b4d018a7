package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/mcptest"
)

// truncateStore leaves the store as a crash part way through a write
// may: its file cut short (the first pages kept), no WAL beside it.
func truncateStore(t *testing.T, db string) {
	t.Helper()
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	if err := os.Truncate(db, min(fi.Size()/2, 8192)); err != nil {
		t.Fatal(err)
	}
}

// bigResult is a PostToolUse of an MCP call answered with about 5 MiB,
// its last words a marker.
func bigResult(t *testing.T, id, marker string) []byte {
	t.Helper()
	var fields map[string]any
	json.Unmarshal(read(t, "hook-PostToolUse.json"), &fields)
	line := "row 0042: the rotation job ran late on gateway-7, see the runbook for the retry policy\n"
	text := strings.Repeat(line, (5<<20)/len(line)) + marker
	fields["tool_response"] = []map[string]string{{"type": "text", "text": text}}
	fields["tool_use_id"] = id
	b, _ := json.Marshal(fields)
	return b
}

var pointerKey = regexp.MustCompile(`stored as event (e[0-9a-f]{16})`)

// fetchWhole reads the event a pointer names through a real `ctxhook mcp`
// process (this test binary), as the model would.
func fetchWhole(t *testing.T, env []string, key string) (string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append([]string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "CTXHOOK_NO_DAEMON=1"}, env...)
	return mcptest.FetchEvent(t, cmd, key)
}

// TestDamagedStorePointer: with the store truncated as by a crash, a
// 5 MiB result still reaches the model as a head and a pointer, and
// get_event serves the whole result from the spool, where the events
// wait; before, it answered "nothing has been captured yet".
func TestDamagedStorePointer(t *testing.T) {
	e := newEnv(t)
	e.vars["CTXHOOK_NO_DAEMON"] = "1"
	p, _ := paths.Resolve(e.get)
	if _, errs, code := e.run(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); code != 0 {
		t.Fatalf("first hook: %d %s", code, errs)
	}
	truncateStore(t, p.DB())
	const marker = "ZQ-DAMAGED-STORE-LAST-ROW"
	out, errs, code := e.run(t, bigResult(t, "toolu_big_damaged", marker), "hook", "claude-code", "PostToolUse")
	if code != 0 {
		t.Fatalf("hook: %d %s", code, errs)
	}
	m := pointerKey.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no pointer in the answer (%d bytes); stderr %s", len(out), errs)
	}
	var env []string
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	body, fail := fetchWhole(t, env, m[1])
	if fail != "" || !strings.HasSuffix(body, marker) || len(body) < 5<<20-1000 {
		t.Fatalf("get_event %s after a pointer: %d bytes (ending %q), error %q", m[1], len(body), body[max(0, len(body)-80):], fail)
	}
}
