package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const userSettings = `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "my-guard.sh" } ] }
    ],
    "Notification": [ { "hooks": [ { "type": "command", "command": "notify-send hi" } ] } ]
  },
  "permissions": { "allow": ["Read"] }
}
`

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if content != "" {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func apply(t *testing.T, path, exe string, install bool) Plan {
	t.Helper()
	p, err := PlanClaude(path, exe, install)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(time.Now()); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInstallKeepsUserSettingsAndIsIdempotent(t *testing.T) {
	path := write(t, userSettings)
	p := apply(t, path, "/opt/bin/ctxhook", true)
	if !p.Changed || p.Added != len(ClaudeEvents) {
		t.Fatalf("first install: changed=%v added=%d", p.Changed, p.Added)
	}
	got, _ := os.ReadFile(path)
	s := string(got)
	for _, want := range []string{`"model": "opus"`, "my-guard.sh", "notify-send hi", `"allow"`,
		`"command": "/opt/bin/ctxhook hook claude-code PreToolUse"`, `"matcher": "mcp__.*"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	// Key order of the user's file survives.
	if strings.Index(s, `"model"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"hooks"`) > strings.Index(s, `"permissions"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	backups, _ := filepath.Glob(path + ".ctxhook-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups = %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != userSettings {
		t.Errorf("backup differs from the original")
	}
	// Second install: nothing changes, no new backup.
	p2 := apply(t, path, "/opt/bin/ctxhook", true)
	again, _ := os.ReadFile(path)
	if p2.Changed || string(again) != s {
		t.Errorf("second install changed the file")
	}
	if b, _ := filepath.Glob(path + ".ctxhook-backup-*"); len(b) != 1 {
		t.Errorf("second install made a backup")
	}
	// A moved binary replaces the commands instead of duplicating them.
	apply(t, path, "/new place/ctxhook", true)
	moved, _ := os.ReadFile(path)
	if n := strings.Count(string(moved), "hook claude-code PreToolUse"); n != 1 {
		t.Errorf("%d PreToolUse entries after moving the binary", n)
	}
	if !strings.Contains(string(moved), `'/new place/ctxhook' hook claude-code`) {
		t.Errorf("path with a space not shell-quoted:\n%s", moved)
	}
	// Uninstall leaves exactly the user's content.
	u := apply(t, path, "/opt/bin/ctxhook", false)
	if u.Removed != len(ClaudeEvents) {
		t.Errorf("removed %d", u.Removed)
	}
	after, _ := os.ReadFile(path)
	if !sameJSON(t, after, []byte(userSettings)) {
		t.Errorf("uninstall left\n%s\nwant\n%s", after, userSettings)
	}
}

func TestInstallIntoMissingFile(t *testing.T) {
	path := write(t, "")
	p := apply(t, path, "/bin/ctxhook", true)
	if !p.Changed {
		t.Fatal("not changed")
	}
	var v map[string]map[string][]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &v); err != nil || len(v["hooks"]) != len(ClaudeEvents) {
		t.Fatalf("settings = %s (%v)", b, err)
	}
	u := apply(t, path, "/opt/bin/ctxhook", false)
	if b, _ := os.ReadFile(path); !u.Changed || strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("after uninstall: %s", b)
	}
}

func TestRefusesInvalidJSON(t *testing.T) {
	path := write(t, `{"hooks": [`)
	if _, err := PlanClaude(path, "/bin/ctxhook", true); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/bin/ctxhook hook claude-code PreToolUse": true,
		"'/a b/ctxhook' hook claude-code Stop":         true,
		"ctxhook hook claude-code SessionStart":        true,
		"my-ctxhook hook claude-code Stop":             false,
		"ctxhook search x":                             false,
		"node hook.mjs PreToolUse":                     false,
		"/opt/renamed/ch hook claude-code Stop":        true, // the running binary
	} {
		if IsOurs(cmd, "/opt/renamed/ch") != want {
			t.Errorf("IsOurs(%q) = %v", cmd, !want)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
