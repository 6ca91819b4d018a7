//go:build unix

package daemon_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var body strings.Builder
	for offset := 0; ; {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_event", Arguments: map[string]any{"id": m[1], "offset": offset, "length": 262144}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("get_event %s after a pointer: %s", m[1], res.Content[0].(*mcp.TextContent).Text)
		}
		var page struct {
			Body       string `json:"body"`
			NextOffset int    `json:"next_offset"`
			TotalBytes int    `json:"total_bytes"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &page)
		body.WriteString(page.Body)
		if page.NextOffset >= page.TotalBytes || page.NextOffset <= offset {
			break
		}
		offset = page.NextOffset
	}
	if got := body.String(); !strings.HasSuffix(got, marker) || len(got) < 5<<20-1000 {
		t.Fatalf("get_event %s: %d bytes, not the whole result", m[1], len(got))
	}
}
