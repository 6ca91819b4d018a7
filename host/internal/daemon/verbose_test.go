//go:build linux

package daemon_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/bigpayload"
)

// TestVerboseLogHoldsNoSecret: `ctxhook daemon -v` logs its life and its
// refusals, never what it was sent. Hooks the daemon answers, one it
// refuses (too many bytes in flight), a relay whose result carries a
// session token and the call it is injected into, and a payload that is
// not JSON, each holding planted secrets and a marker word: none of
// them, nor the token, is in the log, while the refusal is.
func TestVerboseLogHoldsNoSecret(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command(f.ctxhook, "daemon", "-v")
	cmd.Env = append(append([]string{}, f.env...), "CTXHOOK_DAEMON_TEST_IN_FLIGHT=1048576")
	var log lockedLog
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(f.paths().Socket()); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	const token = "srv-tok-VERBOSEq4z9"
	secrets := append([]string{token, "verbosemarkA", "verbosemarkB", "verbosemarkC"}, bigpayload.Secrets...)
	f.hook("PostToolUse", bigpayload.ClaudePostToolUse(1<<10, "verbosemarkA", "vsess", "toolu_vA"))
	f.hook("PostToolUse", bigpayload.ClaudePostToolUse(2<<20, "verbosemarkB", "vsess", "toolu_vB"))
	relay := `{"session_id":"vsess","hook_event_name":"PostToolUse","tool_name":"mcp__tickets__get_ticket","tool_use_id":"toolu_vC",` +
		`"cwd":"/tmp","tool_input":{"id":"TCK-1"},"tool_response":{"content":[{"type":"text","text":"verbosemarkC ` + bigpayload.Secrets[1] +
		`"}],"_meta":{"session_token":"` + token + `"}}}`
	f.hook("PostToolUse", []byte(relay))
	f.hook("PreToolUse", []byte(`{"session_id":"vsess","hook_event_name":"PreToolUse","tool_name":"mcp__tickets__get_ticket","tool_use_id":"toolu_vD","cwd":"/tmp","tool_input":{"id":"TCK-2"}}`))
	f.hook("PostToolUse", []byte(`{"session_id":"vsess","tool_response":"verbosemarkC `+bigpayload.Secrets[0]+" "+token))
	if f.searchFor("verbosemarkA", 60*time.Second) < 0 {
		t.Fatal("the daemon stored nothing: the log would prove little")
	}
	got := log.String()
	if !strings.Contains(got, "refused a request") {
		t.Fatalf("the refusal is not logged, so -v logged nothing to check: %q", got)
	}
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("the verbose log holds %q:\n%s", s, got)
		}
	}
}
