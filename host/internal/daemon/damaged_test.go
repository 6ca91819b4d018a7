//go:build unix

package daemon_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/mcptest"
)

// TestDamagedStorePointer: with the store truncated as by a crash while
// the daemon runs, a 5 MiB result the daemon shapes points at an event
// that `ctxhook mcp`'s get_event serves whole, from the spool where the
// daemon's writer leaves it; before, get_event answered "nothing has been
// captured yet".
func TestDamagedStorePointer(t *testing.T) {
	f := newFixture(t)
	f.startDaemon()
	f.hook("PostToolUse", payload(t, "PostToolUse"))
	if n := f.settled(1); n != 1 {
		t.Fatalf("%d events stored, want 1", n)
	}
	db := f.paths().DB()
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	if err := os.Truncate(db, 8192); err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal(payload(t, "PostToolUse"), &fields)
	const marker = "ZQ-DAMAGED-DAEMON-LAST-ROW"
	line := "row 0042: the rotation job ran late on gateway-7, see the runbook for the retry policy\n"
	fields["tool_response"] = []map[string]string{{"type": "text", "text": strings.Repeat(line, (5<<20)/len(line)) + marker}}
	fields["tool_use_id"] = "toolu_big_daemon"
	big, _ := json.Marshal(fields)
	out, errs, _ := f.hook("PostToolUse", big)
	m := regexp.MustCompile(`stored as event (e[0-9a-f]{16})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no pointer in the answer (%d bytes); stderr %s", len(out), errs)
	}
	time.Sleep(500 * time.Millisecond) // the writer's pass over the damaged store

	cmd := exec.Command(f.ctxhook, "mcp")
	cmd.Env = append(append([]string{}, f.env...), "CTXHOOK_NO_DAEMON=1")
	got, fail := mcptest.FetchEvent(t, cmd, m[1])
	if fail != "" {
		left, _ := filepath.Glob(filepath.Join(f.paths().SpoolDir(), "*"))
		t.Fatalf("get_event %s after a pointer: %s; in the spool: %q", m[1], fail, left)
	}
	if !strings.HasSuffix(got, marker) || len(got) < 5<<20-1000 {
		t.Fatalf("get_event %s: %d bytes, not the whole result", m[1], len(got))
	}
}
