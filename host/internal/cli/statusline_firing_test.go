package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatuslineSaysHooksSilent: a Claude Code session that began minutes
// ago and sent no hook gets a status line saying so; once a hook of it
// arrived (a real hook run), and for a session only seconds old, the
// status line is the usual one.
func TestStatuslineSaysHooksSilent(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	transcript := func(name string, began time.Time) string {
		p := filepath.Join(dir, name+".jsonl")
		line := `{"type":"user","sessionId":"` + name + `","timestamp":"` + began.UTC().Format(time.RFC3339Nano) + `"}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	status := func(session, path string) string {
		out, _, code := e.run(t, []byte(`{"session_id":"`+session+`","transcript_path":"`+path+`"}`), "statusline")
		if code != 0 {
			t.Fatalf("statusline exit %d", code)
		}
		return out
	}
	old := transcript("old-session", time.Now().Add(-10*time.Minute))
	if out := status("old-session", old); !strings.Contains(out, "hooks silent") {
		t.Errorf("a 10-minute session with no hook: %q", out)
	}
	if out := status("new-session", transcript("new-session", time.Now())); strings.Contains(out, "hooks silent") {
		t.Errorf("a session seconds old: %q", out)
	}
	// A real hook of the old session arrives.
	payload := []byte(`{"session_id":"old-session","transcript_path":"` + old + `","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":"hello"}`)
	if _, errs, code := e.run(t, payload, "hook", "claude-code", "UserPromptSubmit"); code != 0 {
		t.Fatalf("hook: %d %s", code, errs)
	}
	if out := status("old-session", old); strings.Contains(out, "hooks silent") {
		t.Errorf("after a hook of the session arrived: %q", out)
	}
}
