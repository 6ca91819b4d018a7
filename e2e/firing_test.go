package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeSilentHooks: doctor proves that hooks fire. Claude Code
// 2.1.330 runs a session with ctxhook's hooks removed from its settings
// after install (put back after the run, as a tool that rewrote the file
// for a while would): its transcript shows the MCP calls, no hook came,
// and doctor names the harness, the event and the date ("configured but
// silent"), in text and in --json. A session with the hooks in place is
// "configured and firing", with the client's version.
func TestClaudeCodeSilentHooks(t *testing.T) {
	requireE2E(t)
	script := workflowScript(1, nil)
	prompt := "Run the deploy-payments workflow."

	// Hooks in place: firing, from Claude Code 2.1.330.
	r := runClaudeWith(t, claudeOpts{script: script, prompt: prompt})
	out := doctorJSON(t, r)
	if st := out["PostToolUse"]; st.State != "configured and firing" || st.ClientVersion != ClaudeCodeVersion || st.LastFired.IsZero() {
		t.Errorf("with the hooks in place, PostToolUse is %+v; want configured and firing, from %s", st, ClaudeCodeVersion)
	}

	// Hooks removed for the session, then put back.
	var settings string
	var saved []byte
	r = runClaudeWith(t, claudeOpts{script: script, prompt: prompt, beforeRun: func(r *claudeRun) {
		settings = filepath.Join(r.Home, ".claude", "settings.json")
		var err error
		if saved, err = os.ReadFile(settings); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(saved, &m)
		delete(m, "hooks")
		b, _ := json.Marshal(m)
		if err := os.WriteFile(settings, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}})
	if err := os.WriteFile(settings, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	day := time.Now().Format(time.DateOnly)
	text, errs, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "doctor", "claude-code")
	t.Logf("ctxhook doctor claude-code:\n%s", text)
	for _, ev := range []string{"PostToolUse", "PreToolUse", "SessionStart"} {
		line := ""
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, ev+" hook configured but silent") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, "claude-code session") || !strings.Contains(line, day) || !strings.Contains(line, "no "+ev+" hook arrived") {
			t.Errorf("doctor does not name the silent %s hook of claude-code on %s:\n%s%s", ev, day, text, errs)
		}
	}
	out = doctorJSON(t, r)
	if st := out["PostToolUse"]; st.State != "configured but silent" || st.Missed == nil || st.Missed.Calls != 2 || st.Missed.LastCall.Local().Format(time.DateOnly) != day || st.Missed.Version != ClaudeCodeVersion {
		t.Errorf("doctor --json: PostToolUse is %+v (missed %+v); want configured but silent, the session's MCP calls on %s", st, st.Missed, day)
	}
}

// firingStatus is an element of doctor --json's "hooks".
type firingStatus struct {
	Harness, Event, State string
	LastFired             time.Time `json:"last_fired"`
	ClientVersion         string    `json:"client_version"`
	Missed                *struct {
		ID       string    `json:"id"`
		Calls    int       `json:"mcp_calls"`
		LastCall time.Time `json:"last_call"`
		Version  string    `json:"client_version"`
	} `json:"missed"`
}

// doctorJSON runs `ctxhook doctor claude-code --json` and returns its
// statuses by event.
func doctorJSON(t *testing.T, r *claudeRun) map[string]firingStatus {
	t.Helper()
	out, errs, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "doctor", "--json", "claude-code")
	var doc struct{ Hooks []firingStatus }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, out, errs)
	}
	by := map[string]firingStatus{}
	for _, st := range doc.Hooks {
		if st.Harness != "claude-code" {
			t.Errorf("doctor --json claude-code names harness %q", st.Harness)
		}
		by[st.Event] = st
	}
	return by
}
