package install

import (
	"encoding/json"
	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
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
	path := filepath.Join(testdir.New(t), ".claude", "settings.json")
	if content != "" {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// apply plans and writes an install or uninstall as the command does:
// with the binaries the test's journal knows.
func apply(t *testing.T, path string, h Harness, exe string, install bool) Plan {
	t.Helper()
	j := testJournal(t)
	p, err := PlanHooks(h, path, exe, install, j.Exes(path)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Write(p, install); err != nil {
		t.Fatal(err)
	}
	return p
}

var journals sync.Map // *testing.T -> Journal

// testJournal is the test's journal, in its own directory.
func testJournal(t *testing.T) Journal {
	j, ok := journals.Load(t)
	if !ok {
		j, _ = journals.LoadOrStore(t, Journal{Dir: filepath.Join(testdir.New(t), "installs"), Harness: "test"})
		t.Cleanup(func() { journals.Delete(t) })
	}
	return j.(Journal)
}

func TestInstallKeepsUserSettingsAndIsIdempotent(t *testing.T) {
	path := write(t, userSettings)
	p := apply(t, path, Claude, "/opt/bin/ctxhook", true)
	if !p.Changed || p.Added != len(Claude.Events()) {
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
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 && runtime.GOOS != "windows" { // Windows has no mode bits
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	// No backup beside the file (a project would commit it): the
	// journal keeps the original (journal_test.go).
	if backups, _ := filepath.Glob(path + ".ctxhook-*"); len(backups) != 0 {
		t.Fatalf("files left beside the settings: %v", backups)
	}
	// Second install: nothing changes.
	p2 := apply(t, path, Claude, "/opt/bin/ctxhook", true)
	again, _ := os.ReadFile(path)
	if p2.Changed || string(again) != s {
		t.Errorf("second install changed the file")
	}
	// A moved binary replaces the commands instead of duplicating them.
	apply(t, path, Claude, "/new place/ctxhook", true)
	moved, _ := os.ReadFile(path)
	if n := strings.Count(string(moved), "hook claude-code PreToolUse"); n != 1 {
		t.Errorf("%d PreToolUse entries after moving the binary", n)
	}
	quoted, _ := json.Marshal(ShellQuote("/new place/ctxhook") + " hook claude-code") // '...' here, "..." on Windows
	if !strings.Contains(string(moved), strings.Trim(string(quoted), `"`)) || ShellQuote("/new place/ctxhook") == "/new place/ctxhook" {
		t.Errorf("path with a space not shell-quoted:\n%s", moved)
	}
	// Uninstall leaves exactly the user's content.
	u := apply(t, path, Claude, "/opt/bin/ctxhook", false)
	if u.Removed != len(Claude.Events()) {
		t.Errorf("removed %d", u.Removed)
	}
	after, _ := os.ReadFile(path)
	if !sameJSON(t, after, []byte(userSettings)) {
		t.Errorf("uninstall left\n%s\nwant\n%s", after, userSettings)
	}
}

func TestInstallIntoMissingFile(t *testing.T) {
	path := write(t, "")
	p := apply(t, path, Claude, "/bin/ctxhook", true)
	if !p.Changed {
		t.Fatal("not changed")
	}
	var v struct {
		Hooks      map[string][]any `json:"hooks"`
		StatusLine struct{ Command string }
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &v); err != nil || len(v.Hooks) != len(Claude.Events()) || v.StatusLine.Command != ShellQuote("/bin/ctxhook")+" statusline" {
		t.Fatalf("settings = %s (%v)", b, err)
	}
	// Uninstalled by a binary elsewhere: the journal knows the one that
	// installed, and the file ctxhook created goes.
	u := apply(t, path, Claude, "/opt/bin/ctxhook", false)
	if b, err := os.ReadFile(path); !u.Changed || err == nil {
		t.Errorf("after uninstall: %s", b)
	}
}

func TestRefusesInvalidJSON(t *testing.T) {
	path := write(t, `{"hooks": [`)
	if _, err := PlanHooks(Claude, path, "/bin/ctxhook", true); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
}

// TestOnlyOurHooks: a handler is ctxhook's only when it is exactly one
// install writes, for the running binary, the bare name or a binary the
// journal says install wrote before, in each harness's format. A user's
// own hook that mentions ctxhook is theirs: install and uninstall keep it
// byte for byte, and doctor does not count it.
func TestOnlyOurHooks(t *testing.T) {
	q := ShellQuote
	client := func(exe string) string { return q(clientOf(exe)) }
	for _, hc := range harnessconfigs.All() {
		h := Harness{Harness: hc}
		if h.Hooks == "" {
			continue // a loader or extension file: TestLoaderFilesOnlyOurs
		}
		ev := h.Events()[0]
		tests := []struct {
			command string
			known   []string // what the journal knows besides /opt/bin/ctxhook
			ours    bool
		}{
			{q("/opt/bin/ctxhook") + " hook " + h.Name + " " + ev, nil, true},
			{client("/opt/bin/ctxhook") + " " + h.Name + " " + ev, nil, true},
			{"ctxhook hook " + h.Name + " " + ev, nil, true},
			{"ctxhook-hook " + h.Name + " " + ev, nil, true},
			{q("/a b/ctxhook") + " hook " + h.Name + " " + ev, []string{"/a b/ctxhook"}, true}, // a binary that moved
			{client("/a b/ctxhook") + " " + h.Name + " " + ev, []string{"/a b/ctxhook"}, true},
			// The user's.
			{q("/a b/ctxhook") + " hook " + h.Name + " " + ev, nil, false},
			{"/opt/mine/ctxhook-hook " + h.Name + " " + ev, nil, false},
			{"/opt/mine/ctxhook-hook " + h.Name + " " + ev + " --log /tmp/x", nil, false},
			{"sh -c 'logger ctxhook hook " + h.Name + " " + ev + "'", nil, false},
			{"logger ctxhook hook " + h.Name + " " + ev, nil, false},
			{q("/opt/bin/ctxhook") + " hook " + h.Name + " " + ev + " && notify-send done", nil, false},
			{q("/opt/bin/ctxhook") + " hook " + h.Name + " NotAnEvent", nil, false},
			{"ctxhook hook " + h.Name, nil, false},
			{"my-ctxhook hook " + h.Name + " " + ev, nil, false},
			{"ctxhook hook other-harness " + ev, nil, false},
			{"ctxhook search x", nil, false},
		}
		for _, tt := range tests {
			t.Run(h.Name+"/"+tt.command, func(t *testing.T) {
				checkOurs(t, h, tt.command, tt.known, tt.ours)
			})
		}
	}
}

// checkOurs installs ctxhook into a file holding the user's hook command,
// edits the file (so that uninstall cannot restore it byte for byte) and
// uninstalls: the user's hook stays unless it is ctxhook's.
func checkOurs(t *testing.T, h Harness, command string, known []string, ours bool) {
	t.Helper()
	ev := h.Events()[0]
	handler := map[string]any{"type": "command", "command": command}
	entry := any(map[string]any{"hooks": []any{handler}})
	if h.Flat {
		entry = map[string]any{"command": command}
	}
	file := map[string]any{"hooks": map[string]any{ev: []any{entry}}}
	if h.Name == Cursor.Name {
		file["version"] = 1 // kept by uninstall
	}
	user := []byte(mustRaw(file))
	path := write(t, string(user))
	j := testJournal(t)
	for _, exe := range known { // what an earlier install with that binary left in the journal
		if err := j.Write(Plan{Path: path, Exe: exe, Before: user, After: user, Changed: true}, true); err != nil {
			t.Fatal(err)
		}
	}
	if wired, _, err := h.Wiring(path, "/opt/bin/ctxhook", j.Exes(path)...); err != nil || wired[ev] != ours {
		t.Errorf("doctor counts it as ctxhook's: %v, want %v (%v)", wired[ev], ours, err)
	}
	apply(t, path, h, "/opt/bin/ctxhook", true)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, '\n'), 0o640) // a later edit: uninstall can only take entries out
	apply(t, path, h, "/opt/bin/ctxhook", false)
	after, _ := os.ReadFile(path)
	if kept := strings.Contains(string(after), string(mustRaw(command))); kept == ours {
		t.Errorf("ctxhook's=%v, yet after install and uninstall the command is kept=%v:\n%s", ours, kept, after)
	}
	if !ours && !sameJSON(t, after, user) {
		t.Errorf("uninstall left\n%s\nwant\n%s", after, user)
	}
}

// TestOurMCPToolHooks: an mcp_tool hook is ctxhook's only with the server,
// tool and input install writes.
func TestOurMCPToolHooks(t *testing.T) {
	o, err := Claude.ours([]string{"/opt/bin/ctxhook"})
	if err != nil {
		t.Fatal(err)
	}
	input := `{"hook_event_name":"${hook_event_name}","session_id":"${session_id}","transcript_path":"${transcript_path}","cwd":"${cwd}","prompt_id":"${prompt_id}","permission_mode":"${permission_mode}","agent_id":"${agent_id}","agent_type":"${agent_type}","tool_name":"${tool_name}","tool_input":"${tool_input}","tool_response":"${tool_response}","tool_use_id":"${tool_use_id}","mcp_server":"${mcp_server}","error":"${error}","is_interrupt":"${is_interrupt}"}`
	for hd, want := range map[string]bool{
		`{"type":"mcp_tool","server":"ctxhook","tool":"hook","timeout":30,"input":` + input + `}`:               true,
		`{"type":"mcp_tool","server":"ctxhook","tool":"hook","input":{"hook_event_name":"${hook_event_name}"}}`: false,
		`{"type":"mcp_tool","server":"mine","tool":"hook","input":` + input + `}`:                               false,
		`{"type":"mcp_tool","server":"ctxhook","tool":"search","input":` + input + `}`:                          false,
	} {
		if ok, _ := o.handler(json.RawMessage(hd)); ok != want {
			t.Errorf("handler(%s) = %v", hd, ok)
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

// TestEveryHarnessRoundTrip: for each harness, install into a file holding
// the user's own hooks in that harness's format, check the result has
// every event with the harness's units and matchers, install again (no
// change), and uninstall (exactly the user's file back).
func TestEveryHarnessRoundTrip(t *testing.T) {
	tests := []struct {
		h     Harness
		user  string
		wants []string
	}{
		{Codex, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"guard.sh","timeout":5}]}]}}`,
			[]string{`"matcher": "mcp__.*"`, `"command": "/opt/ctxhook hook codex PreToolUse"`, `"timeout": 30`}},
		{Gemini, `{"general":{"disableAutoUpdate":true},"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"guard.sh"}]}]},"mcpServers":{"x":{"command":"x"}}}`,
			[]string{`"matcher": "mcp_.*"`, `"command": "/opt/ctxhook hook gemini BeforeTool"`, `"timeout": 30000`, `"disableAutoUpdate": true`}},
		{Cursor, `{"version":1,"hooks":{"preToolUse":[{"command":"guard.sh","matcher":"Shell"}]}}`,
			[]string{`"matcher": "MCP:.*"`, `"command": "/opt/ctxhook hook cursor preToolUse"`, `"command": "/opt/ctxhook hook cursor afterMCPExecution"`}},
	}
	for _, tt := range tests {
		t.Run(tt.h.Name, func(t *testing.T) {
			path := write(t, tt.user)
			p := apply(t, path, tt.h, "/opt/ctxhook", true)
			events := tt.h.Events()
			if len(events) < 4 || p.Added != len(events) {
				t.Fatalf("added %d of events %v", p.Added, events)
			}
			got, _ := os.ReadFile(path)
			for _, w := range append(tt.wants, "guard.sh") {
				if !strings.Contains(string(got), w) {
					t.Errorf("missing %s in\n%s", w, got)
				}
			}
			for _, ev := range events {
				if !strings.Contains(string(got), "hook "+tt.h.Name+" "+ev+`"`) {
					t.Errorf("event %s not wired", ev)
				}
			}
			if p2 := apply(t, path, tt.h, "/opt/ctxhook", true); p2.Changed {
				t.Error("second install changed the file")
			}
			u := apply(t, path, tt.h, "/opt/ctxhook", false)
			after, _ := os.ReadFile(path)
			if u.Removed != len(events) || !sameJSON(t, after, []byte(tt.user)) {
				t.Errorf("uninstall removed %d, left\n%s", u.Removed, after)
			}
		})
	}
}

func TestCursorNewFileGetsVersion(t *testing.T) {
	path := write(t, "")
	apply(t, path, Cursor, "/opt/ctxhook", true)
	var v struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &v); err != nil || v.Version != 1 || v.Hooks["preToolUse"][0]["timeout"] != float64(30) {
		t.Fatalf("hooks.json = %s (%v)", b, err)
	}
}

func TestCodexFeatures(t *testing.T) {
	tests := []struct{ name, before, installed string }{
		{"no file", "", "[features] # added by ctxhook\nhooks = true # added by ctxhook\n"},
		{"other tables", "model = \"o4\"\n\n[mcp_servers.x]\ncommand = \"x\"\n",
			"model = \"o4\"\n\n[mcp_servers.x]\ncommand = \"x\"\n\n[features] # added by ctxhook\nhooks = true # added by ctxhook\n"},
		{"features without hooks", "[features]\nplugins = false\n[other]\n",
			"[features]\nhooks = true # added by ctxhook\nplugins = false\n[other]\n"},
		{"already on", "[features]\nhooks = true\n", "[features]\nhooks = true\n"},
		{"user turned off", "[features]\nhooks = false # not yet\n",
			"[features]\nhooks = true # added by ctxhook (was: hooks = false # not yet)\n"},
		{"hooks key in another table", "[other]\nhooks = false\n",
			"[other]\nhooks = false\n\n[features] # added by ctxhook\nhooks = true # added by ctxhook\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(testdir.New(t), "config.toml")
			if tt.before != "" {
				os.WriteFile(path, []byte(tt.before), 0o600)
			}
			for i := 0; i < 2; i++ { // the second install changes nothing
				p, err := PlanFeaturesTOML(path, true)
				if err != nil {
					t.Fatal(err)
				}
				if string(p.After) != tt.installed || (i == 1 && p.Changed) {
					t.Fatalf("install %d:\n%s\nwant\n%s", i, p.After, tt.installed)
				}
				testJournal(t).Write(p, true)
			}
			if HooksTurnedOff(path) {
				t.Error("hooks still disabled after install")
			}
			u, _ := PlanFeaturesTOML(path, false)
			if string(u.After) != tt.before {
				t.Fatalf("uninstall:\n%q\nwant\n%q", u.After, tt.before)
			}
		})
	}
}

func TestMCPEntry(t *testing.T) {
	dir := testdir.New(t)
	m := MCPEntry{Path: filepath.Join(dir, ".claude.json"), Keys: []string{"mcpServers"}, Entry: stdioEntry(true)}
	user := `{"numStartups": 3, "mcpServers": {"jira": {"command": "jira-mcp"}}}`
	os.WriteFile(m.Path, []byte(user), 0o600)
	p, note, err := PlanMCPEntry(m, "/opt/ctxhook", true)
	if err != nil || note != "" || !p.Changed {
		t.Fatalf("add: %v %q %v", err, note, p.Changed)
	}
	testJournal(t).Write(p, true)
	b, _ := os.ReadFile(m.Path)
	if !strings.Contains(string(b), `"command": "/opt/ctxhook"`) || !strings.Contains(string(b), "jira-mcp") {
		t.Fatalf("after add: %s", b)
	}
	if p2, _, _ := PlanMCPEntry(m, "/opt/ctxhook", true); p2.Changed {
		t.Error("second add changed the file")
	}
	p, _, _ = PlanMCPEntry(m, "/opt/ctxhook", false)
	testJournal(t).Write(p, true)
	if b, _ := os.ReadFile(m.Path); !sameJSON(t, b, []byte(user)) {
		t.Errorf("after remove: %s", b)
	}
	// A server of the user's named ctxhook is never replaced or removed.
	mine := `{"mcpServers": {"ctxhook": {"command": "something-else"}}}`
	os.WriteFile(m.Path, []byte(mine), 0o600)
	if p, note, _ := PlanMCPEntry(m, "/opt/ctxhook", true); p.Changed || !strings.Contains(note, "not ctxhook's") {
		t.Errorf("replaced a user's server: %v %q", p.Changed, note)
	}
	if p, _, _ := PlanMCPEntry(m, "/opt/ctxhook", false); p.Changed {
		t.Error("removed a user's server")
	}
}

func TestCodexMCP(t *testing.T) {
	path := filepath.Join(testdir.New(t), "config.toml")
	user := "model = \"o4\"\n\n[features] # added by ctxhook\nhooks = true # added by ctxhook\n"
	os.WriteFile(path, []byte(user), 0o600)
	p, _, err := PlanTOMLMCP(path, "/opt/ctxhook", true)
	if err != nil || !p.Changed || !strings.Contains(string(p.After), "[mcp_servers.ctxhook]") || !strings.Contains(string(p.After), `command = "/opt/ctxhook"`) {
		t.Fatalf("add: %v\n%s", err, p.After)
	}
	testJournal(t).Write(p, true)
	if p2, _, _ := PlanTOMLMCP(path, "/opt/ctxhook", true); p2.Changed {
		t.Error("second add changed the file")
	}
	// The features plan leaves the MCP table alone, and the other way round.
	if f, _ := PlanFeaturesTOML(path, true); f.Changed {
		t.Errorf("features plan touched the MCP table:\n%s", f.After)
	}
	p, _, _ = PlanTOMLMCP(path, "/opt/ctxhook", false)
	if string(p.After) != user {
		t.Errorf("remove:\n%q\nwant\n%q", p.After, user)
	}
}

// TestStatusLine: install offers ctxhook's status line where the user has
// none, keeps the user's own through install and uninstall, and rewrites
// or removes only its own.
func TestStatusLine(t *testing.T) {
	mine := `{"statusLine":{"type":"command","command":"~/bin/my-status"}}`
	path := write(t, mine)
	apply(t, path, Claude, "/bin/ctxhook", true)
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "my-status") || strings.Contains(string(b), " statusline") {
		t.Errorf("the user's status line was not kept:\n%s", b)
	}
	apply(t, path, Claude, "/bin/ctxhook", false)
	if b, _ := os.ReadFile(path); !sameJSON(t, b, []byte(mine)) {
		t.Errorf("uninstall changed the user's status line:\n%s", b)
	}

	path = write(t, "{}")
	apply(t, path, Claude, "/opt/ctxhook", true)
	apply(t, path, Claude, "/new/ctxhook", true) // the binary moved
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), ShellQuote("/new/ctxhook")+" statusline") || strings.Contains(string(b), "/opt/ctxhook") {
		t.Errorf("the status line does not follow the binary:\n%s", b)
	}
	apply(t, path, Claude, "/new/ctxhook", false)
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "statusLine") {
		t.Errorf("uninstall left ctxhook's status line:\n%s", b)
	}
}
