package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/demo"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/internal/secretcorpus"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/ctxhook/ctxhook/internal/version"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary act as the ctxhook binary: a test runs
// os.Args[0] with CTXHOOK_TEST_MAIN=1 to get a real ctxhook process.
func TestMain(m *testing.M) {
	if os.Getenv("CTXHOOK_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], IO{os.Stdin, os.Stdout, os.Stderr}, os.Getenv))
	}
	if list := os.Getenv("CTXHOOK_TEST_PROBE"); list != "" {
		secondUserProbe(list)
		os.Exit(0)
	}
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		// Started as ctxhook (`ctxhook daemon`, `io replay`) without
		// its role: running the suite here would start the same
		// children again, a chain of whole test runs.
		fmt.Fprintf(os.Stderr, "cli.test started as ctxhook %q without CTXHOOK_TEST_MAIN=1\n", os.Args[1:])
		os.Exit(3)
	}
	// What the commands run in-process start (a daemon, a replay, a hook
	// finished late) is this binary with this environment under the
	// test's own variables (childenv): it runs as ctxhook.
	os.Setenv("CTXHOOK_TEST_MAIN", "1")
	os.Exit(m.Run())
}

const payloads = "../../../testdata/payloads/claude-code/2.1.330/"

type testEnv struct {
	vars map[string]string
}

func newEnv(t *testing.T) *testEnv {
	h := t.TempDir()
	testcache.LinkWasm(filepath.Join(h, "ctxhook"))
	// A command run in-process may start a daemon for this home (a
	// proxy, ctxhook mcp): it is ended before the home is removed, which
	// it would otherwise outlive, idle, for ten minutes.
	t.Cleanup(func() { homeprocs.KillDaemons(filepath.Join(h, "ctxhook")) })
	return &testEnv{vars: map[string]string{
		"HOME": filepath.Join(h, "home"), "CTXHOOK_HOME": filepath.Join(h, "ctxhook"),
		"XDG_CACHE_HOME": testcache.Dir("ctxhook-cli-test"),
		// A budget a loaded machine keeps; tests of deadlines set their own.
		"CTXHOOK_HOOK_DEADLINE_MS": "120000",
	}}
}

func (e *testEnv) get(k string) string { return e.vars[k] }

func (e *testEnv) run(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, IO{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb}, e.get)
	return out.String(), errb.String(), code
}

// proc runs a real ctxhook process (this test binary via TestMain).
func (e *testEnv) proc(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	return e.procBin(t, os.Args[0], stdin, args...)
}

// procBin runs bin, a copy of this test binary, as a ctxhook process.
func (e *testEnv) procBin(t *testing.T, bin string, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func read(t *testing.T, name string) []byte {
	b, err := os.ReadFile(payloads + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Separate processes share the nudge counter through state files.
func TestHookProcessesShareCounter(t *testing.T) {
	e := newEnv(t)
	var fired []int
	for call := 1; call <= 12; call++ {
		out, errs, code := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
		if code != 0 || errs != "" {
			t.Fatalf("call %d: code %d stderr %q", call, code, errs)
		}
		if strings.Contains(out, "additionalContext") {
			fired = append(fired, call)
		}
	}
	if len(fired) != 2 || fired[0] != 1 || fired[1] != 11 {
		t.Fatalf("nudged %v, want [1 11]", fired)
	}
	out, _, _ := e.proc(t, nil, "stats", "--json")
	var s struct {
		Events  int            `json:"events"`
		Tallies map[string]int `json:"tallies"`
	}
	json.Unmarshal([]byte(out), &s)
	if s.Events != 12 || s.Tallies["nudges_fired"] != 2 {
		t.Fatalf("stats = %s", out)
	}
}

func TestHookBadUsageFailsOpen(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"hook"}, {"hook", "vim", "Pre"}, {"hook", "claude-code"}} {
		out, errs, code := e.run(t, nil, args...)
		if code != 0 || out != "" || !strings.Contains(errs, "usage") {
			t.Errorf("%v: code %d out %q err %q", args, code, out, errs)
		}
	}
}

func TestSearchShowStats(t *testing.T) {
	e := newEnv(t)
	if _, errs, _ := e.run(t, nil, "search", "x"); !strings.Contains(errs, "nothing has been captured") {
		t.Errorf("search before capture: %q", errs)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
		if _, errs, code := e.run(t, read(t, "hook-"+ev+".json"), "hook", "claude-code", ev); code != 0 || errs != "" {
			t.Fatalf("%s: %d %q", ev, code, errs)
		}
	}
	out, _, code := e.run(t, nil, "search", "TCK-42", "--limit", "5")
	if code != 0 || !strings.Contains(out, "tickets/get_ticket") || !strings.Contains(out, "2 results") {
		t.Fatalf("search:\n%s", out)
	}
	out, _, _ = e.run(t, nil, "search", "--json", "--server", "tickets", "printer fire")
	var res struct {
		Total, Returned int
		Truncated       bool
		Results         []struct {
			ID int `json:"id"`
		}
	}
	if json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != 1 || res.Total != 1 || res.Returned != 1 || res.Truncated {
		t.Fatalf("search --json: %s", out)
	}
	// More matches than shown: the total says so, in text and JSON.
	out, _, _ = e.run(t, nil, "search", "--limit", "1", "TCK-42")
	if !strings.Contains(out, "1 of 2 results shown") {
		t.Errorf("search --limit 1:\n%s", out)
	}
	out, _, _ = e.run(t, nil, "search", "--json", "--limit", "1", "TCK-42")
	if json.Unmarshal([]byte(out), &res) != nil || res.Total != 2 || res.Returned != 1 || !res.Truncated {
		t.Errorf("search --json --limit 1: %s", out)
	}
	// No event holds every term: the nearest partial matches, and the
	// terms in no event named.
	out, _, _ = e.run(t, nil, "search", "who", "owns", "TCK-42", "zqnowhere")
	if !strings.Contains(out, "nearest partial matches") || !strings.Contains(out, "In no event: zqnowhere.") || !strings.Contains(out, "tickets/get_ticket") {
		t.Errorf("search partial:\n%s", out)
	}
	out, _, code = e.run(t, nil, "show", "#3")
	if code != 0 || !strings.Contains(out, "Comment 60") || !strings.Contains(out, "server     tickets") {
		t.Fatalf("show:\n%s", out)
	}
	if _, errs, code := e.run(t, nil, "show", "999"); code != 1 || !strings.Contains(errs, "no event 999") {
		t.Errorf("show 999: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, nil, "show", "abc"); code != 2 || !strings.Contains(errs, "positive id") {
		t.Errorf("show abc: %d %q", code, errs)
	}
	out, _, _ = e.run(t, nil, "stats")
	if !strings.Contains(out, "session 4ffc612f") || !strings.Contains(out, "nudges fired    1") {
		t.Errorf("stats:\n%s", out)
	}
	if _, errs, code := e.run(t, nil, "search"); code != 2 || !strings.Contains(errs, "needs a query") {
		t.Errorf("empty search: %d %q", code, errs)
	}
	if _, _, code := e.run(t, nil, "search", "--limit", "0", "x"); code != 2 {
		t.Errorf("--limit 0: exit %d, want 2", code)
	}
}

func TestInstallDoctorUninstall(t *testing.T) {
	tests := []struct {
		harness, file, title string
		hooks                int
	}{
		{"claude-code", ".claude/settings.json", "Claude Code", 6},
		{"codex", ".codex/hooks.json", "Codex CLI", 6},
		{"gemini", ".gemini/settings.json", "Gemini CLI", 7},
		{"cursor", ".cursor/hooks.json", "Cursor", 7},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			e := newEnv(t)
			settings := filepath.Join(e.vars["HOME"], tt.file)
			if out, _, code := e.run(t, nil, "doctor", tt.harness); code != 1 || !strings.Contains(out, "hook is not wired") {
				t.Fatalf("doctor before install: %d\n%s", code, out)
			}
			out, errs, code := e.run(t, nil, "install", tt.harness, "--dry-run")
			if code != 0 || !strings.Contains(out, "hook "+tt.harness+" ") || !strings.Contains(errs, "dry run") {
				t.Fatalf("dry run: %d %q %q", code, out, errs)
			}
			if _, err := os.Stat(settings); err == nil {
				t.Fatal("dry run wrote the settings file")
			}
			out, _, code = e.run(t, nil, "install", tt.harness)
			if code != 0 || !strings.Contains(out, fmt.Sprintf("Wired %d %s hooks", tt.hooks, tt.title)) ||
				!strings.Contains(out, "Added ctxhook's MCP server") {
				t.Fatalf("install: %d\n%s", code, out)
			}
			if out, _, _ := e.run(t, nil, "install", tt.harness); !strings.Contains(out, "Already installed") {
				t.Errorf("second install:\n%s", out)
			}
			codexConfig := filepath.Join(e.vars["HOME"], ".codex", "config.toml")
			if tt.harness == "codex" {
				if b, _ := os.ReadFile(codexConfig); !strings.Contains(string(b), "[features] # added by ctxhook\nhooks = true") {
					t.Errorf("config.toml: %q", b)
				}
				if !strings.Contains(out, "/hooks") {
					t.Errorf("no trust notice:\n%s", out)
				}
			}
			out, _, code = e.run(t, nil, "doctor", tt.harness)
			if code != 0 || !strings.Contains(out, "All good") {
				t.Fatalf("doctor after install: %d\n%s", code, out)
			}
			out, _, code = e.run(t, nil, "uninstall", tt.harness)
			// Files install created go (their journal says so).
			if code != 0 || !strings.Contains(out, "Removed "+settings+" (install created it)") {
				t.Fatalf("uninstall: %d\n%s", code, out)
			}
			if b, _ := os.ReadFile(settings); strings.Contains(string(b), "ctxhook") {
				t.Errorf("uninstall left ctxhook in settings: %s", b)
			}
			if b, err := os.ReadFile(codexConfig); tt.harness == "codex" && err == nil {
				t.Errorf("uninstall left config.toml %q (%v)", b, err)
			}
			if out, _, _ := e.run(t, nil, "uninstall", tt.harness); !strings.Contains(out, "nothing changed") {
				t.Errorf("second uninstall:\n%s", out)
			}
		})
	}
	e := newEnv(t)
	if _, errs, code := e.run(t, nil, "install", "vscode"); code != 2 || !strings.Contains(errs, `unknown harness "vscode"`) {
		t.Errorf("install vscode: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, nil, "install", "codex", "--wrap-mcp"); code != 2 || !strings.Contains(errs, "not available for Codex") {
		t.Errorf("codex --wrap-mcp: %d %q", code, errs)
	}
}

// TestInstallMCPToolHooks: install --hook-type mcp_tool turns Claude
// Code's tool hooks into calls of ctxhook's MCP server (which it adds),
// switching either way replaces ctxhook's hooks rather than adding a
// second set, a user's own hook stays, doctor counts both kinds, and
// uninstall removes them.
func TestInstallMCPToolHooks(t *testing.T) {
	t.Setenv("CTXHOOK_TEST_MAIN", "1") // doctor runs the listed server, this binary: as ctxhook
	e := newEnv(t)
	settings := filepath.Join(e.vars["HOME"], ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	own := `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-linter"}]}]}}`
	os.WriteFile(settings, []byte(own), 0o600)
	kinds := func() map[string][]string {
		b, _ := os.ReadFile(settings)
		var st struct {
			Hooks map[string][]struct {
				Hooks []struct{ Type, Command, Server string }
			}
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("settings: %v\n%s", err, b)
		}
		out := map[string][]string{}
		for ev, groups := range st.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					out[ev] = append(out[ev], h.Type+":"+h.Command+h.Server)
				}
			}
		}
		return out
	}
	for _, step := range []struct {
		args []string
		tool string // the kind of PreToolUse's one handler
	}{
		{[]string{"install", "claude-code"}, "command"},
		{[]string{"install", "claude-code", "--hook-type", "mcp_tool"}, "mcp_tool"},
		{[]string{"install", "claude-code", "--hook-type", "command"}, "command"},
		{[]string{"install", "claude-code", "--hook-type", "mcp_tool"}, "mcp_tool"},
	} {
		out, errs, code := e.run(t, nil, step.args...)
		if code != 0 {
			t.Fatalf("%v: %d\n%s%s", step.args, code, out, errs)
		}
		k := kinds()
		if len(k["PreToolUse"]) != 1 || !strings.HasPrefix(k["PreToolUse"][0], step.tool+":") {
			t.Fatalf("%v: PreToolUse handlers %v, want one %s hook", step.args, k["PreToolUse"], step.tool)
		}
		if len(k["PostToolUse"]) != 2 || k["PostToolUse"][0] != "command:my-linter" {
			t.Fatalf("%v: PostToolUse handlers %v, want the user's and ctxhook's", step.args, k["PostToolUse"])
		}
		if len(k["Stop"]) != 1 || !strings.HasPrefix(k["Stop"][0], "command:") {
			t.Fatalf("%v: Stop handlers %v, want one command", step.args, k["Stop"])
		}
	}
	if k := kinds(); k["PostToolUse"][1] != "mcp_tool:ctxhook" {
		t.Errorf("PostToolUse calls %q, want ctxhook's MCP server", k["PostToolUse"][1])
	}
	// Each mcp_tool hook carries the install's secret, kept 0600 in
	// ctxhook's data directory; a dry run does not print it.
	secretFile := filepath.Join(e.vars["CTXHOOK_HOME"], "state", "hook-secret")
	secret, err := hooksecret.Read(secretFile)
	if fi, serr := os.Stat(secretFile); err != nil || serr != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hook secret: %v %v", err, fi)
	}
	b, _ := os.ReadFile(settings)
	if n := strings.Count(string(b), `"`+hooksecret.Field+`": "`+secret+`"`); n != 3 {
		t.Errorf("%d mcp_tool hooks carry the secret, want 3:\n%s", n, b)
	}
	if out, _, code := e.run(t, nil, "install", "claude-code", "--hook-type", "mcp_tool", "--dry-run"); code != 0 ||
		strings.Contains(out, secret) || !strings.Contains(out, "(hook secret, in "+secretFile+")") {
		t.Errorf("dry run: %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.vars["HOME"], ".claude.json")); !strings.Contains(string(b), `"ctxhook"`) {
		t.Errorf("no ctxhook MCP server for the mcp_tool hooks: %s", b)
	}
	if out, _, code := e.run(t, nil, "doctor", "claude-code"); code != 0 || !strings.Contains(out, "6 of 6 hooks") ||
		!strings.Contains(out, "call ctxhook's MCP server (mcp_tool), listed in") {
		t.Errorf("doctor: %d\n%s", code, out)
	}
	// Without ctxhook's MCP server the mcp_tool hooks would be skipped:
	// doctor says so.
	claudeJSON := filepath.Join(e.vars["HOME"], ".claude.json")
	saved, _ := os.ReadFile(claudeJSON)
	os.WriteFile(claudeJSON, []byte(`{"mcpServers":{}}`), 0o600)
	if out, _, code := e.run(t, nil, "doctor", "claude-code"); code != 1 || !strings.Contains(out, "which is missing: "+claudeJSON+" does not list it") {
		t.Errorf("doctor without the MCP server: %d\n%s", code, out)
	}
	os.WriteFile(claudeJSON, saved, 0o600)
	if out, _, code := e.run(t, nil, "uninstall", "claude-code"); code != 0 {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(settings); string(b) != own {
		t.Errorf("uninstall left %s, want the user's own file back", b)
	}
	// Another server named ctxhook: the hooks would call it, so install
	// refuses and changes nothing.
	os.WriteFile(claudeJSON, []byte(`{"mcpServers":{"ctxhook":{"command":"someone-else"}}}`), 0o600)
	before, _ := os.ReadFile(settings)
	if _, errs, code := e.run(t, nil, "install", "claude-code", "--hook-type", "mcp_tool"); code != 1 || !strings.Contains(errs, "not ctxhook's") {
		t.Errorf("mcp_tool install beside another ctxhook server: %d %q", code, errs)
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("the refused install changed %s", settings)
	}
	// A hook of the user's calling a tool named hook on a server named
	// ctxhook is not taken for ctxhook's.
	os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"ctxhook","tool":"hook","input":{"x":"y"}}]}]}}`), 0o600)
	os.Remove(claudeJSON)
	e.run(t, nil, "install", "claude-code", "--hook-type", "mcp_tool")
	e.run(t, nil, "uninstall", "claude-code")
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `"x": "y"`) && !strings.Contains(string(b), `"x":"y"`) {
		t.Errorf("the user's own mcp_tool hook went with uninstall: %s", b)
	}
	for _, bad := range [][]string{
		{"install", "codex", "--hook-type", "mcp_tool"},
		{"install", "claude-code", "--hook-type", "mcp_tool", "--no-mcp"},
		{"install", "claude-code", "--hook-type", "http"},
		{"install", "claude-code", "--hook-type", "mcp_tool", "--project"},
	} {
		if _, errs, code := e.run(t, nil, bad...); code != 2 || !strings.Contains(errs, "--hook-type") {
			t.Errorf("%v: %d %q", bad, code, errs)
		}
	}
}

func TestHelpAndUnknown(t *testing.T) {
	e := newEnv(t)
	if out, _, code := e.run(t, nil, "--help"); code != 0 || !strings.Contains(out, "  search ") {
		t.Errorf("--help: %d\n%s", code, out)
	}
	if _, errs, code := e.run(t, nil, "frobnicate"); code != 2 || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown: %d %q", code, errs)
	}
	if out, errs, code := e.run(t, nil, "search", "--help"); code != 0 || !strings.Contains(out, "  --session string") || errs != "" {
		t.Errorf("search --help: %d %q %q", code, out, errs)
	}
	if out, _, code := e.run(t, nil, "version"); code != 0 || !strings.Contains(out, "ABI 1") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestWrapMCP(t *testing.T) {
	e := newEnv(t)
	claudeJSON := filepath.Join(e.vars["HOME"], ".claude.json")
	os.MkdirAll(e.vars["HOME"], 0o755)
	orig := `{"mcpServers":{"workflow":{"type":"stdio","command":"node","args":["wf.js"]}}}`
	os.WriteFile(claudeJSON, []byte(orig), 0o600)
	out, errs, code := e.run(t, nil, "install", "claude-code", "--wrap-mcp", "workflow")
	if code != 0 || !strings.Contains(out, "Wrapped MCP servers workflow") {
		t.Fatalf("install --wrap-mcp: %d\n%s\n%s", code, out, errs)
	}
	b, _ := os.ReadFile(claudeJSON)
	if !strings.Contains(string(b), `"proxy"`) || !strings.Contains(string(b), `"wf.js"`) {
		t.Fatalf(".claude.json: %s", b)
	}
	cfg, _ := os.ReadFile(filepath.Join(e.vars["CTXHOOK_HOME"], "config", "config.toml"))
	if !strings.Contains(string(cfg), "[servers.workflow]\nproxy = true") {
		t.Fatalf("config.toml:\n%s", cfg)
	}
	if _, errs, code := e.run(t, nil, "install", "claude-code", "--wrap-mcp", "nosuch"); code != 1 || !strings.Contains(errs, `no stdio MCP server "nosuch"`) {
		t.Errorf("unknown server: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, nil, "install", "claude-code", "workflow"); code != 2 || !strings.Contains(errs, "go with --wrap-mcp") {
		t.Errorf("names without --wrap-mcp: %d %q", code, errs)
	}
	out, _, code = e.run(t, nil, "uninstall", "claude-code")
	if code != 0 || !strings.Contains(out, "Put "+claudeJSON+" back as it was before install") {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	b, _ = os.ReadFile(claudeJSON)
	var got, want any
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(orig), &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("uninstall left %s, want %s", gb, wb)
	}
	cfg, _ = os.ReadFile(filepath.Join(e.vars["CTXHOOK_HOME"], "config", "config.toml"))
	if strings.Contains(string(cfg), "proxy = true") {
		t.Errorf("config still marks the server proxied:\n%s", cfg)
	}
}

func TestInstallOpenCode(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.vars["HOME"], ".config", "opencode")
	os.MkdirAll(dir, 0o755)
	userPkg := `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}`
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(userPkg), 0o644)
	if out, _, code := e.run(t, nil, "doctor", "opencode"); code != 1 || !strings.Contains(out, "not installed") {
		t.Fatalf("doctor before: %d\n%s", code, out)
	}
	_, dry, code := e.run(t, nil, "install", "opencode", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: %d %q", code, dry)
	}
	out, errs, code := e.run(t, nil, "install", "opencode")
	if code != 0 || !strings.Contains(out, "Wrote "+filepath.Join(dir, "plugins", "ctxhook.js")) {
		t.Fatalf("install: %d\n%s\n%s", code, out, errs)
	}
	// The dry run names every file the install changed, as the hooks
	// harnesses' dry runs do.
	for _, changed := range changedFiles(out) {
		if !strings.Contains(dry, "ctxhook: dry run, "+changed+" would be written") && !strings.Contains(dry, "ctxhook: dry run, would add ctxhook's MCP server to "+changed+":\n") &&
			!strings.Contains(dry, "ctxhook: dry run, would write ctxhook's commented config to "+changed+"\n") {
			t.Errorf("install changed %s; its dry run did not say so:\n%s", changed, dry)
		}
	}
	if n := len(changedFiles(out)); n != 5 {
		t.Errorf("install changed %d files, want 5:\n%s", n, out)
	}
	plugin, _ := os.ReadFile(filepath.Join(dir, "plugins", "ctxhook.js"))
	if !strings.Contains(string(plugin), filepath.Join(dir, "ctxhook", "plugin.wasm")) {
		t.Errorf("plugin does not name the installed wasm")
	}
	pkg, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	if !strings.Contains(string(pkg), `"@extism/extism": "1.0.3"`) || !strings.Contains(string(pkg), "@opencode-ai/plugin") {
		t.Errorf("package.json: %s", pkg)
	}
	if out, _, _ := e.run(t, nil, "install", "opencode"); !strings.Contains(out, "Already installed") {
		t.Errorf("second install:\n%s", out)
	}
	if out, _, code := e.run(t, nil, "doctor", "opencode"); code != 0 || !strings.Contains(out, "plugin.wasm matches") {
		t.Errorf("doctor after: %d\n%s", code, out)
	}
	// A file of the user's at the same path is never overwritten.
	e2 := newEnv(t)
	mine := filepath.Join(e2.vars["HOME"], ".config", "opencode", "plugins", "ctxhook.js")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644)
	if _, errs, code := e2.run(t, nil, "install", "opencode"); code == 0 || !strings.Contains(errs, "not written by ctxhook") {
		t.Errorf("overwrote a user's file: %d %q", code, errs)
	}
	out, _, code = e.run(t, nil, "uninstall", "opencode")
	if code != 0 || !strings.Contains(out, "package.json back as it was before install") {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	// Only what happened is reported.
	if strings.Contains(out, "nothing changed") {
		t.Errorf("uninstall reports changes and that nothing changed:\n%s", out)
	}
	if out, _, _ := e.run(t, nil, "uninstall", "opencode"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second uninstall:\n%s", out)
	}
	pkg, _ = os.ReadFile(filepath.Join(dir, "package.json"))
	if !sameJSONText(string(pkg), userPkg) {
		t.Errorf("package.json after uninstall: %s", pkg)
	}
	for _, p := range []string{"plugins/ctxhook.js", "ctxhook"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}

// changedFiles lists the files an install's output says it changed.
func changedFiles(out string) []string {
	var files []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Wrote ") || strings.HasPrefix(line, "Added ") {
			f := strings.Fields(line)
			files = append(files, f[len(f)-1])
		}
	}
	return files
}

func sameJSONText(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestWrapMCPGemini: Gemini CLI keeps MCP servers and hooks in one file;
// install wraps and wires both, uninstall restores the user's file exactly.
func TestWrapMCPGemini(t *testing.T) {
	e := newEnv(t)
	settings := filepath.Join(e.vars["HOME"], ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	orig := `{"mcpServers":{"workflow":{"command":"node","args":["wf.js"],"trust":true}}}`
	os.WriteFile(settings, []byte(orig), 0o644)
	out, errs, code := e.run(t, nil, "install", "gemini", "--wrap-mcp", "workflow")
	if code != 0 || !strings.Contains(out, "Wrapped MCP servers workflow") {
		t.Fatalf("install: %d\n%s\n%s", code, out, errs)
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), `"proxy"`) || !strings.Contains(string(b), "hook gemini BeforeTool") {
		t.Fatalf("settings.json: %s", b)
	}
	if out, _, code := e.run(t, nil, "uninstall", "gemini"); code != 0 || !strings.Contains(out, "settings.json back as it was before install") {
		t.Fatalf("uninstall: %d\n%s", code, out)
	}
	b, _ = os.ReadFile(settings)
	if !sameJSONText(string(b), orig) {
		t.Errorf("uninstall left %s, want %s", b, orig)
	}
}

// plantedBody is n bytes of 64-byte log lines (so every cut falls at its
// limit: store.HeadSize, then every store.PartSize) with
// bigpayload.PlantedTerms at its start, across its middle cut and at its
// end (bigpayload.Plant).
func plantedBody(n int) (string, []string) {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%-63.63s\n", fmt.Sprintf("%d checkout latency spike tr-%x", i, i*2654435761))
	}
	body := b.Bytes()[:n]
	terms := bigpayload.Plant(body, store.HeadSize, store.PartSize)
	return string(body), terms
}

// TestSearchShowBigBodies: ctxhook search finds terms at the start,
// across a cut in the middle and at the end of bodies of 1 KB, 1 MiB and
// 64 MiB, its offsets point at them, and ctxhook show prints the whole
// body (--json: the whole text and response).
func TestSearchShowBigBodies(t *testing.T) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1000}, {"1MiB", 1 << 20}, {"1MiB+64KiB", 1<<20 + 64<<10}, {"64MiB", 64 << 20}} {
		t.Run(size.name, func(t *testing.T) {
			if size.n > 8<<20 && testing.Short() {
				t.Skip("64 MiB: not with -short")
			}
			e := newEnv(t)
			p, err := paths.Resolve(e.get)
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.Open(p.DB(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			body, terms := plantedBody(size.n)
			quoted, _ := json.Marshal(body)
			big := abi.Event{TimeMS: 1000, Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp",
				Server: "grafana", Tool: "mcp__grafana__query", Args: `{"q":"p99"}`, Text: body,
				Response: `{"content":[{"type":"text","text":` + string(quoted) + `}]}`, ResponseBytes: len(quoted) + 40}
			small := abi.Event{TimeMS: 2000, Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp", Text: "unrelated"}
			ids, err := st.Apply([]abi.Event{big, small}, nil)
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			id := strconv.FormatInt(ids[0], 10)
			for _, term := range terms {
				out, errs, code := e.run(t, nil, "search", term)
				if code != 0 || !strings.Contains(out, "#"+id+" ") || !strings.Contains(out, term) || !strings.Contains(out, "1 result") {
					t.Fatalf("search %s: %d %q\n%s", term, code, errs, out)
				}
				out, _, _ = e.run(t, nil, "search", "--json", term)
				var res struct {
					Total   int `json:"total"`
					Results []struct {
						ID     int64 `json:"id"`
						Offset int   `json:"offset"`
					} `json:"results"`
				}
				err := json.Unmarshal([]byte(out), &res)
				if hits := res.Results; err != nil || len(hits) != 1 || res.Total != 1 || !strings.HasPrefix(body[hits[0].Offset:], term) {
					t.Fatalf("search --json %s: %v %s", term, err, out)
				}
			}
			out, errs, code := e.run(t, nil, "show", id)
			if code != 0 || !strings.HasSuffix(out, "\n\n"+body+"\n") || !strings.Contains(out, "server     grafana") {
				t.Fatalf("show: %d %q, %d bytes out for a %d-byte body", code, errs, len(out), len(body))
			}
			out, errs, code = e.run(t, nil, "show", "--json", id)
			var got struct {
				ID           int64  `json:"id"`
				Text         string `json:"text"`
				Response     string `json:"response"`
				TextSize     int64  `json:"text_size"`
				ResponseSize int64  `json:"response_size"`
				Tool         string `json:"tool"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
				t.Fatalf("show --json: %d %q %v", code, errs, err)
			}
			if got.Text != big.Text || got.Response != big.Response || got.TextSize != int64(len(body)) ||
				got.ResponseSize != int64(len(big.Response)) || got.Tool != big.Tool || got.ID != ids[0] {
				t.Fatalf("show --json: text %d bytes, response %d, sizes %d %d", len(got.Text), len(got.Response), got.TextSize, got.ResponseSize)
			}
		})
	}
}

// TestJSONString: a body streamed into a JSON string in pieces, cut
// anywhere, even inside a character, is escaped as encoding/json would
// escape it whole.
func TestJSONString(t *testing.T) {
	body := "héllo \"wörld\" <&> \x00\n\t\xff𝄞 end"
	want, _ := json.Marshal(body)
	for size := 1; size <= len(body); size++ {
		var out bytes.Buffer
		js := &jsonString{w: &out}
		for i := 0; i < len(body); i += size {
			js.Write([]byte(body[i:min(i+size, len(body))]))
		}
		js.flush()
		if got := `"` + out.String() + `"`; got != strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(string(want), `\u003c`, "<"), `\u003e`, ">"), `\u0026`, "&") {
			t.Fatalf("pieces of %d: %s, want %s", size, got, want)
		}
	}
}

// TestInstallStartsDaemon: install starts the daemon, so the first session
// after it finds the plugin loaded; not with CTXHOOK_NO_DAEMON, and not
// when install runs on an environment other than its process's own (an
// embedding caller: see startDaemon).
func TestInstallStartsDaemon(t *testing.T) {
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	t.Cleanup(func() { homeprocs.KillDaemons(home) })
	p, _ := paths.Resolve(e.get)
	if out, _, _ := e.run(t, nil, "install", "claude-code"); strings.Contains(out, "Started the ctxhook daemon") {
		t.Fatalf("an in-process install with its own environment started a daemon:\n%s", out)
	}
	e.run(t, nil, "uninstall", "claude-code")
	e.vars["CTXHOOK_NO_DAEMON"] = "1"
	out, errs, code := e.proc(t, nil, "install", "claude-code")
	if code != 0 || strings.Contains(out, "Started the ctxhook daemon") {
		t.Fatalf("install with CTXHOOK_NO_DAEMON: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(p.Socket()); err == nil {
		t.Fatal("a daemon socket exists after install with CTXHOOK_NO_DAEMON")
	}
	e.proc(t, nil, "uninstall", "claude-code")
	delete(e.vars, "CTXHOOK_NO_DAEMON")
	out, errs, code = e.proc(t, nil, "install", "claude-code")
	if code != 0 || !strings.Contains(out, "Started the ctxhook daemon") {
		t.Fatalf("install: %d\n%s%s", code, out, errs)
	}
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p.Socket()); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no daemon socket a minute after install")
		}
	}
	if n := homeprocs.KillDaemons(home); n != 1 {
		t.Errorf("%d daemons ran for the home after install, want 1", n)
	}
}

// TestHugeDeadline: a deadline too large for a Duration is the longest
// one (hookproto.MaxHook), not one in the past: the hook answers and stores.
func TestHugeDeadline(t *testing.T) {
	e := newEnv(t)
	for _, v := range []string{"9223372036854", "99999999999999999999"} {
		e.vars["CTXHOOK_HOOK_DEADLINE_MS"] = v
		out, errs, code := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
		if code != 0 || errs != "" || (out != "" && !json.Valid([]byte(out))) {
			t.Fatalf("CTXHOOK_HOOK_DEADLINE_MS=%s: code %d stdout %q stderr %q", v, code, out, errs)
		}
	}
	out, _, _ := e.proc(t, nil, "stats", "--json")
	if !strings.Contains(out, `"events": 2,`) {
		t.Fatalf("stats = %s", out)
	}
}

// TestProxyHeaderWithoutConfig: --header with no config.toml was a panic
// (a nil map); now the proxy runs and ends with its client.
func TestProxyHeaderWithoutConfig(t *testing.T) {
	e := newEnv(t)
	_, errs, code := e.run(t, nil, "proxy", "--name", "jira", "--url", "http://127.0.0.1:9/mcp", "--header", "A: b")
	if code != 0 || strings.Contains(errs, "panic") {
		t.Fatalf("proxy --header without config.toml: code %d\n%s", code, errs)
	}
}

// TestSearchQueryTooLong: a 500 KB query is a usage error naming the
// limit, not a panic.
func TestSearchQueryTooLong(t *testing.T) {
	e := newEnv(t)
	e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	_, errs, code := e.run(t, nil, "search", strings.Repeat("a", 500<<10))
	if code != 2 || !strings.Contains(errs, "at most 4096 bytes and 64 terms") || strings.Contains(errs, "panic") {
		t.Fatalf("search with a 500 KB query: code %d\n%.300s", code, errs)
	}
}

// TestTerminalSafeOutput: escape sequences in a captured response (a
// clipboard write, a window title, clear screen, a C1 CSI) are printed
// visibly by search and show, and kept as they are by --json.
func TestTerminalSafeOutput(t *testing.T) {
	e := newEnv(t)
	var p map[string]any
	json.Unmarshal(read(t, "hook-PostToolUse.json"), &p)
	hostile := "zebraterm \x1b]52;c;ZWNobyBvd25lZA==\x07 \x1b]0;owned\x07 \x1b[2J\x1b[H \u009b31m done"
	p["tool_response"] = []map[string]string{{"type": "text", "text": hostile}}
	payload, _ := json.Marshal(p)
	if _, errs, code := e.proc(t, payload, "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
		t.Fatalf("hook: %d %s", code, errs)
	}
	for _, args := range [][]string{{"search", "zebraterm"}, {"show", "1"}} {
		out, errs, code := e.proc(t, nil, args...)
		if code != 0 || !strings.Contains(out, "zebraterm") {
			t.Fatalf("%v: %d %q %s", args, code, out, errs)
		}
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("%v printed control characters raw: %q", args, out)
		}
		if !strings.Contains(out, `\x1b]52;c;`) {
			t.Errorf("%v does not show the escape visibly: %q", args, out)
		}
	}
	out, _, _ := e.proc(t, nil, "show", "--json", "1")
	var ev struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil || !strings.Contains(ev.Text, "\x1b]52;c;") {
		t.Errorf("show --json did not keep the bytes (%v): %.300q", err, out)
	}
}

// TestDoctorNamesUnsafeDirs: a compilation cache others may write, and a
// data directory of another user's, are named by doctor as things to fix.
func TestDoctorNamesUnsafeDirs(t *testing.T) {
	e := newEnv(t)
	p, _ := paths.Resolve(e.get)
	os.Remove(p.WasmCache()) // this home's own cache: the test makes it unsafe
	e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	os.Chmod(p.WasmCache(), 0o777)
	out, _, _ := e.run(t, nil, "doctor", "claude-code")
	if !strings.Contains(out, "FIX   not using the compilation cache") || !strings.Contains(out, "writable by others") {
		t.Errorf("doctor with a 0777 cache:\n%s", out)
	}
	os.Chmod(p.WasmCache(), 0o700)
	if os.Geteuid() != 0 {
		return
	}
	os.Chown(p.Data, 65534, 65534)
	out, _, _ = e.run(t, nil, "doctor", "claude-code")
	if !strings.Contains(out, "owned by uid 65534") || !strings.Contains(out, "hooks cannot store") {
		t.Errorf("doctor with a data dir of uid 65534:\n%s", out)
	}
	// And the hook says so, and answers.
	_, errs, code := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	if code != 0 || !strings.Contains(errs, "owned by uid 65534") {
		t.Errorf("hook with a data dir of uid 65534: %d %q", code, errs)
	}
}

// TestSpoolLeftovers: a spool file that cannot be read back is set aside
// (.corrupt) with a warning, not retried on every replay; a .tmp a dead
// writer left (a full disk) is removed once stale; doctor names what was
// set aside.
func TestSpoolLeftovers(t *testing.T) {
	e := newEnv(t)
	e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse") // the store exists
	p, _ := paths.Resolve(e.get)
	os.MkdirAll(p.SpoolDir(), 0o700)
	bad := filepath.Join(p.SpoolDir(), "1-2-3.jsonl")
	os.WriteFile(bad, []byte("{\"events\": [not json\n"), 0o600)
	tmp := filepath.Join(p.SpoolDir(), "4-5-6.jsonl.tmp")
	os.WriteFile(tmp, nil, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	_, errs, code := e.run(t, nil, "io", "replay")
	if code != 0 || !strings.Contains(errs, "set aside as 1-2-3.jsonl.corrupt") {
		t.Fatalf("io replay: %d %q", code, errs)
	}
	if _, err := os.Stat(bad + ".corrupt"); err != nil {
		t.Fatalf("the corrupt file was not set aside: %v", err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("the stale .tmp is still there")
	}
	if _, errs, _ := e.run(t, nil, "io", "replay"); errs != "" {
		t.Errorf("the second replay tried again: %q", errs)
	}
	out, _, _ := e.run(t, nil, "doctor", "claude-code")
	if !strings.Contains(out, "1 spool file(s)") {
		t.Errorf("doctor does not name the corrupt spool file:\n%s", out)
	}
}

// TestPurgeState: purge takes the session state with the events: the
// document holding a session's relay tokens and counters must not outlive
// them.
func TestPurgeState(t *testing.T) {
	e := newEnv(t)
	p, _ := paths.Resolve(e.get)
	docs := func() int {
		d, _ := filepath.Glob(filepath.Join(p.StateDir(), "*.json"))
		return len(d)
	}
	e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	var payload map[string]any
	json.Unmarshal(read(t, "hook-PostToolUse.json"), &payload)
	payload["session_id"] = "other-session"
	other, _ := json.Marshal(payload)
	e.proc(t, other, "hook", "claude-code", "PostToolUse")
	if docs() != 2 {
		t.Fatalf("%d session documents after hooks of two sessions, want 2", docs())
	}
	out, errs, code := e.run(t, nil, "purge", "--session", "other-session")
	if code != 0 || docs() != 1 || !strings.Contains(out, "session state") {
		t.Fatalf("purge --session: %d, %d documents left\n%s%s", code, docs(), out, errs)
	}
	if err := ownsecrets.Note(p.StateDir(), `{"tokens":{"wf":"purged-session-token-01"}}`); err != nil {
		t.Fatal(err)
	}
	out, errs, code = e.run(t, nil, "purge", "--all")
	if code != 0 || docs() != 0 {
		t.Fatalf("purge --all: %d, %d documents left\n%s%s", code, docs(), out, errs)
	}
	// The record of own values outlives the purge: a token a model read
	// stays redacted.
	if got := ownsecrets.RecordValues(p.StateDir()); !slices.Contains(got, "purged-session-token-01") {
		t.Errorf("purge --all took a token out of the record: %q", got)
	}
}

// TestConfigProblemOnce: a config with an error still applies its valid
// parts (here the relay), and the hook names the bad line once, not on
// every call; doctor names it every time.
func TestConfigProblemOnce(t *testing.T) {
	e := newEnv(t)
	p, _ := paths.Resolve(e.get)
	os.MkdirAll(filepath.Dir(p.Config), 0o700)
	os.WriteFile(p.Config, []byte("[servers.tickets]\nrelay = true\n\n[shaping]\nthreshold_bytes = \"big\"\n"), 0o600)
	_, errs, code := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	if code != 0 || !strings.Contains(errs, "line 5") || !strings.Contains(errs, "the rest applies") {
		t.Fatalf("first hook: %d %q", code, errs)
	}
	if _, errs, _ := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); errs != "" {
		t.Errorf("second hook repeated the config problem: %q", errs)
	}
	out, _, _ := e.run(t, nil, "doctor", "claude-code")
	if !strings.Contains(out, "line 5") {
		t.Errorf("doctor does not name the bad line:\n%s", out)
	}
	// The file with the problem is never also ok; what still applies is
	// said as information.
	if strings.Contains(out, "  ok    config ") || !strings.Contains(out, "  --    config "+p.Config+": the rest of it applies (relay enabled for tickets)") {
		t.Errorf("doctor on a config with a problem:\n%s", out)
	}
	cfg, _, _ := e.run(t, nil, "io", "load")
	if !strings.Contains(cfg, `"relay":true`) {
		t.Errorf("the valid part (the relay) was not applied: %s", cfg)
	}
}

// TestCommandLine: --version, help <command>, and a typo answered with
// the command it most likely meant, exit 2.
func TestCommandLine(t *testing.T) {
	e := newEnv(t)
	if out, _, code := e.run(t, nil, "--version"); code != 0 || !strings.Contains(out, "ctxhook "+version.Number+" (commit ") ||
		!strings.Contains(out, "sha256 "+strings.TrimSpace(plugin.SHA256)+"\n") {
		t.Errorf("--version: %d %q", code, out)
	}
	if out, _, code := e.run(t, nil, "help", "search"); code != 0 || !strings.Contains(out, "Usage: ctxhook search") {
		t.Errorf("help search: %d %q", code, out)
	}
	// The usage: what a user types first, ctxhook's own commands last.
	out, _, _ := e.run(t, nil, "help")
	if s, d := strings.Index(out, "  search "), strings.Index(out, "  daemon "); s < 0 || d < 0 || s > d || strings.Index(out, "Internal") > d {
		t.Errorf("usage order:\n%s", out)
	}
	// Every usage error: one line on stderr naming the command's help, exit 2.
	for _, args := range [][]string{{"search", "--bogus", "x"}, {"search", "--limit", "0", "x"}, {"search", "--limit=x", "y"}, {"search"},
		{"show", "abc"}, {"show"}, {"show", "1", "2"}, {"show", "cx"}, {"stats", "--nope"}, {"index", "--format", "vim"},
		{"purge"}, {"purge", "--older-than", "soon"}, {"install"}, {"install", "vim"}, {"install", "claude-code", "--user", "--project"},
		{"uninstall", "vim"}, {"doctor"}, {"doctor", "vim"}, {"mcp", "extra"}, {"proxy"}, {"proxy", "--name", "x", "--timeout", "0", "--", "true"},
		{"demo", "--nope"}, {"version", "--nope"}, {"proxy", "--bogus"}, {"proxy", "--name", "x", "stray", "--", "true"}, {"io"},
		{"stats", "--all", "--session", "x"}, {"stats", "extra"}, {"purge", "--session", "a", "--session", "b"},
		{"search", "--server", "a", "--server", "b", "x"}, {"search", "x", "--limit"},
		{"doctor", "claude-code", "extra"}, {"install", "claude-code", "extra"}, {"uninstall", "claude-code", "extra"}} {
		out, errs, code := e.run(t, nil, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "ctxhook "+args[0]+" --help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		// An argument too many is named, whatever else is wrong.
		if len(args) == 3 && args[2] == "extra" && !strings.Contains(errs, `unexpected argument "extra"`) {
			t.Errorf("%v: %q does not name the unexpected argument", args, errs)
		}
	}
	// Flags are spelled as typed (--session), never -session, and a flag
	// given twice names itself.
	for args, want := range map[string]string{"search x --limit": "flag needs an argument: --limit (",
		"purge --session a --session b": "--session given more than once"} {
		if _, errs, _ := e.run(t, nil, strings.Fields(args)...); !strings.Contains(errs, want) {
			t.Errorf("%s: %q, want %q", args, errs, want)
		}
	}
	// Help that was asked for: on stdout, exit 0, for every command and
	// every spelling (proxy and io parse their own arguments).
	for _, args := range [][]string{{"proxy", "--help"}, {"proxy", "-h"}, {"help", "proxy"}, {"io", "--help"}, {"help", "io"},
		{"purge", "--help"}, {"install", "-h"}, {"help", "mcp"}} {
		out, errs, code := e.run(t, nil, args...)
		if code != 0 || errs != "" || !strings.Contains(out, "Usage: ctxhook ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if out, _, code := e.run(t, nil, "-v"); code != 0 || !strings.HasPrefix(out, "ctxhook "+version.Number) {
		t.Errorf("-v: %d %q", code, out)
	}
	for typed, want := range map[string]string{"serch": `did you mean "search"`, "instal": `did you mean "install"`, "zzzz": `unknown command "zzzz" (`} {
		if _, errs, code := e.run(t, nil, typed); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: %d %q, want %q", typed, code, errs, want)
		}
	}
}

// TestPurgeAsks: on a terminal (a real pty, from script(1)) purge says
// what it would delete and deletes only after a yes; --yes does not ask;
// without a terminal nothing is asked (scripts, pipes, /dev/null).
func TestPurgeAsks(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to make a terminal")
	}
	e := newEnv(t)
	events := func() int {
		out, _, _ := e.run(t, nil, "stats", "--all", "--json")
		var s struct{ Events int }
		json.Unmarshal([]byte(out), &s)
		return s.Events
	}
	capture := func() {
		if _, errs, code := e.run(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
			t.Fatalf("hook: %d %q", code, errs)
		}
	}
	onTerminal := func(answer string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(script, "-qec", strings.Join(append([]string{"'" + os.Args[0] + "'"}, args...), " "), os.DevNull)
		cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
		for k, v := range e.vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stdin = strings.NewReader(answer)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	capture()
	if out, code := onTerminal("n\n", "purge", "--all"); code != 1 || !strings.Contains(out, "Delete 1 event and 0 transcript turns") || !strings.Contains(out, "nothing deleted") || events() != 1 {
		t.Fatalf("answered n: exit %d, %d events left\n%s", code, events(), out)
	}
	if out, code := onTerminal("y\n", "purge", "--all"); code != 0 || !strings.Contains(out, "purged 1 event") || events() != 0 {
		t.Fatalf("answered y: exit %d, %d events left\n%s", code, events(), out)
	}
	capture()
	if out, code := onTerminal("", "purge", "--all", "--yes"); code != 0 || strings.Contains(out, "Delete") || events() != 0 {
		t.Fatalf("--yes: exit %d, %d events left\n%s", code, events(), out)
	}
	capture()
	if out, errs, code := e.proc(t, nil, "purge", "--all"); code != 0 || strings.Contains(errs, "Delete") || events() != 0 {
		t.Fatalf("without a terminal: exit %d %q %q", code, out, errs)
	}
}

// TestIndexSaysWhy: a file that is not there is an error naming it; a
// transcript still being written says its last turn waits, and why; once
// quiet it is indexed.
func TestIndexSaysWhy(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if _, errs, code := e.run(t, nil, "index", filepath.Join(dir, "nonexistent.jsonl")); code != 1 || !strings.Contains(errs, "nonexistent.jsonl: no such file") {
		t.Errorf("missing file: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, nil, "index", dir); code != 1 || !strings.Contains(errs, "not a regular file") {
		t.Errorf("a directory: %d %q", code, errs)
	}
	b, err := os.ReadFile("../../../testdata/transcripts/claude-code-2.1.330.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "session.jsonl")
	os.WriteFile(tr, b, 0o600)
	out, errs, code := e.run(t, nil, "index", tr)
	if code != 0 || !strings.Contains(out, "its last turn waits: written to in the last 5 minutes") || !strings.Contains(out, "Indexed 0 new turns from 1 transcript;") {
		t.Errorf("a transcript being written: %d %q %q", code, out, errs)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tr, old, old)
	out, errs, code = e.run(t, nil, "index", tr, filepath.Join(dir, "gone.jsonl"))
	if code != 1 || strings.Contains(out, "waits") || !strings.Contains(out, "Indexed 1 new turn from 1 transcript;") || !strings.Contains(errs, "gone.jsonl") {
		t.Errorf("a quiet transcript beside a missing one: %d %q %q", code, out, errs)
	}
}

// TestDemoReport: the demo lists each MCP call once, its column aligned,
// states the nudge period it really used (an invalid
// CTXHOOK_NUDGE_EVERY falls back to the default, and it says so), and
// says when its sample search shows fewer results than match.
func TestDemoReport(t *testing.T) {
	e := newEnv(t)
	e.vars["CTXHOOK_NUDGE_EVERY"] = "0"
	out, errs, code := e.run(t, nil, "demo")
	if code != 0 {
		t.Fatalf("demo: %d %s", code, errs)
	}
	seen := map[string]bool{}
	col := -1
	for _, line := range strings.Split(out, "\n") {
		i := strings.Index(line, " token relayed")
		if j := strings.Index(line, " nudge added"); i < 0 || (j >= 0 && j < i) {
			i = j
		}
		if i < 0 || !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "  nudges") {
			continue
		}
		call := strings.TrimSpace(line[:i])
		if strings.HasPrefix(call, "workflow/step") && seen[call] {
			t.Errorf("listed twice: %s", call)
		}
		seen[call] = true
		if start := len(strings.TrimRight(line[:i+1], " ")) + 1; col < 0 {
			col = i + 1
		} else if i+1 != col || start > col {
			t.Errorf("misaligned (column %d, want %d): %q", i+1, col, line)
		}
	}
	if len(seen) < 20 {
		t.Errorf("only %d calls listed:\n%s", len(seen), out)
	}
	// It says what it left out, shows a redaction beside what the server
	// sent, and ends with the next command.
	for _, want := range []string{"on external MCP calls 1, 11, 21, 31 (every 10 calls: CTXHOOK_NUDGE_EVERY=0 is not a valid count, so the default)",
		"(3 of 4 events shown)", fmt.Sprintf("(%d more tool calls were recorded with nothing else to show: not listed)", 36-len(seen)),
		"  sent    AWS_ACCESS_KEY_ID=AKIA", "  stored  AWS_ACCESS_KEY_ID=[REDACTED:", "\nNext: wire ctxhook into your agent", "  ctxhook doctor claude-code\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestCaptureExcludedLeavesNoBody: a relay server whose capture is off
// ([servers.workflow] capture = false) gets its token relayed as ever,
// while nothing of its response is in any file under the home (store,
// write-ahead log, spool, state), byte for byte; stats counts it.
func TestCaptureExcludedLeavesNoBody(t *testing.T) {
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.workflow]\nrelay = true\ncapture = false\n"), 0o600)
	const marker = "ZQ-PRIVATE-DIAGNOSIS-7731"
	const token = "tok_Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA9z8y7x6w5v4u3t2s1"
	post := fmt.Sprintf(`{"session_id":"s-excl","transcript_path":"/x.jsonl","cwd":"/p","hook_event_name":"PostToolUse",
"tool_name":"mcp__workflow__step","tool_input":{"n":1},"tool_use_id":"toolu_1",
"tool_response":[{"type":"text","text":"{\"step\": 1, \"note\": \"%s\", \"session_token\": \"%s\"}"}]}`, marker, token)
	if _, errs, code := e.proc(t, []byte(post), "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
		t.Fatalf("PostToolUse: %d %q", code, errs)
	}
	pre := `{"session_id":"s-excl","transcript_path":"/x.jsonl","cwd":"/p","hook_event_name":"PreToolUse",
"tool_name":"mcp__workflow__step","tool_input":{"n":2},"tool_use_id":"toolu_2"}`
	out, errs, code := e.proc(t, []byte(pre), "hook", "claude-code", "PreToolUse")
	if code != 0 || !strings.Contains(out, token) {
		t.Fatalf("the relay did not inject the token of an excluded server: %d %q %q", code, out, errs)
	}
	n := 0
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n++
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(marker)) {
			t.Errorf("%s holds the excluded response", p)
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("only %d files under the home: nothing was written?", n)
	}
	out, _, _ = e.proc(t, nil, "stats", "--json")
	var s struct {
		Events  int            `json:"events"`
		Tallies map[string]int `json:"tallies"`
	}
	if json.Unmarshal([]byte(out), &s) != nil || s.Tallies[abi.TallyExcluded] != 1 || s.Events != 1 {
		t.Errorf("stats: %s", out)
	}
}

// TestRedactForModel: with [redact] model = true, every kind of the
// secret corpus planted in an MCP result reaches the model (Claude Code's
// updatedMCPToolOutput, through the real hook and plugin.wasm) redacted.
func TestRedactForModel(t *testing.T) {
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[redact]\nmodel = true\n"), 0o600)
	planted, replaced := 0, 0
	for i, p := range secretcorpus.Generate(1) {
		if p.Known {
			continue // known values (relay tokens, environment values) are the relay's and the host's to name
		}
		text, _ := json.Marshal(p.Text)
		payload := fmt.Sprintf(`{"session_id":"s-model","transcript_path":"/x.jsonl","cwd":"/p","hook_event_name":"PostToolUse",
"tool_name":"mcp__tickets__get_ticket","tool_input":{"id":"T-%d"},"tool_use_id":"toolu_%d",
"tool_response":[{"type":"text","text":%s}]}`, i, i, text)
		out, errs, code := e.run(t, []byte(payload), "hook", "claude-code", "PostToolUse")
		if code != 0 || errs != "" {
			t.Fatalf("%s: %d %q", p.Kind, code, errs)
		}
		planted++
		if secretcorpus.Leaked(out, p.Secret) {
			t.Errorf("%s reached the model: %s", p.Kind, out)
		}
		if strings.Contains(out, "updatedMCPToolOutput") {
			replaced++
		} else {
			// Not replaced: the model gets the result as the server sent it.
			t.Errorf("%s: the result reached the model as it was: %q", p.Kind, p.Text)
		}
	}
	if planted < 40 || replaced < planted {
		t.Errorf("%d secrets planted, %d results replaced for the model", planted, replaced)
	}
}

// TestLedgerHandCount replays the bundled demo session through the real
// hooks and counts by hand, from what each hook answered, what the ledger
// must say: bytes kept out of context (a shaped response's size less the
// output the model got), tokens relayed, re-fetch hints (every hinted call
// ran all the same here, so none was avoided). `stats --json` and the
// status line must say exactly that.
func TestLedgerHandCount(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.vars["CTXHOOK_HOME"], "config", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte(demo.Config), 0o600)
	b, err := os.ReadFile("../demo/recorded/claude-code-2.1.330-workflow.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var keptOut, relayed, hints int64
	session := ""
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		var pl struct {
			SessionID    string          `json:"session_id"`
			ToolResponse json.RawMessage `json:"tool_response"`
		}
		json.Unmarshal(rec.Payload, &pl)
		session = pl.SessionID
		out, errs, code := e.run(t, rec.Payload, "hook", "claude-code", rec.Event)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", rec.Event, code, errs)
		}
		var ans struct {
			HookSpecificOutput struct {
				UpdatedInput      json.RawMessage `json:"updatedInput"`
				UpdatedMCPOutput  *string         `json:"updatedMCPToolOutput"`
				AdditionalContext string          `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if out != "" {
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatalf("%s: answer is not JSON: %s", rec.Event, out)
			}
		}
		h := ans.HookSpecificOutput
		if h.UpdatedInput != nil {
			relayed++
		}
		if strings.Contains(h.AdditionalContext, "this exact call was already answered") {
			hints++
		}
		if h.UpdatedMCPOutput != nil {
			keptOut += int64(len(pl.ToolResponse) - len(*h.UpdatedMCPOutput))
		}
	}
	if keptOut == 0 || relayed == 0 || hints == 0 {
		t.Fatalf("the session shows no shaping, relay or hint (%d, %d, %d): the count proves nothing", keptOut, relayed, hints)
	}
	out, errs, code := e.run(t, nil, "stats", "--json", "--session", session)
	if code != 0 {
		t.Fatalf("stats: %s", errs)
	}
	var s struct {
		BytesKeptOut     int64            `json:"bytes_kept_out"`
		RefetchesAvoided int64            `json:"refetches_avoided"`
		Tallies          map[string]int64 `json:"tallies"`
	}
	json.Unmarshal([]byte(out), &s)
	if s.BytesKeptOut != keptOut || s.Tallies[abi.TallyRelayed] != relayed || s.Tallies[abi.TallyRefetch] != hints || s.RefetchesAvoided != 0 {
		t.Errorf("ledger: kept out %d, relayed %d, hints %d, avoided %d; by hand: %d, %d, %d, 0",
			s.BytesKeptOut, s.Tallies[abi.TallyRelayed], s.Tallies[abi.TallyRefetch], s.RefetchesAvoided, keptOut, relayed, hints)
	}
	line, _, _ := e.run(t, []byte(`{"session_id":"`+session+`","model":{"id":"claude-sonnet-4-5"}}`), "statusline")
	want := fmt.Sprintf("%s kept out of context · %d tokens relayed", humanBytes(keptOut), relayed)
	if !strings.HasPrefix(line, "ctxhook · ") || !strings.Contains(line, want) || strings.Count(line, "\n") != 1 {
		t.Errorf("status line %q, want one line with %q", line, want)
	}
	t.Logf("by hand: %d bytes kept out, %d relayed, %d hints; status line: %s", keptOut, relayed, hints, line)
}

// TestErrorsSayWhatNext: every failure a user meets ends with what to do
// next: a damaged store, an unknown event, a missing store, a bad config.
func TestErrorsSayWhatNext(t *testing.T) {
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	if _, errs, code := e.run(t, nil, "search", "anything"); code != 1 || !strings.Contains(errs, "'ctxhook install <harness>'") {
		t.Errorf("no store: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
		t.Fatalf("hook: %d %q", code, errs)
	}
	if _, errs, code := e.run(t, nil, "show", "99999"); code != 1 || !strings.Contains(errs, "'ctxhook search <words>'") {
		t.Errorf("unknown event: %d %q", code, errs)
	}
	db := filepath.Join(home, "state", "ctxhook.db")
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"search", "TCK-42"}, {"stats"}, {"show", "1"}} {
		_, errs, code := e.run(t, nil, args...)
		if code != 1 || !strings.Contains(errs, "move ctxhook.db") {
			t.Errorf("%v on a damaged store: %d %q", args, code, errs)
		}
		if n := strings.Count(errs, "\n"); n != 1 {
			t.Errorf("%v: %d lines, want one: %q", args, n, errs)
		}
	}
	// CTXHOOK_HOME set to a file: the file is named as a file, not as a
	// link or a mode to chmod.
	file := filepath.Join(t.TempDir(), "home-file")
	os.WriteFile(file, nil, 0o600)
	fe := *e
	fe.vars = map[string]string{}
	for k, v := range e.vars {
		fe.vars[k] = v
	}
	fe.vars["CTXHOOK_HOME"] = file
	if _, errs, code := fe.run(t, nil, "search", "x"); code != 1 || !strings.Contains(errs, file+" is a file, not a directory") ||
		strings.Contains(errs, "symbolic link") || strings.Contains(errs, "chmod") {
		t.Errorf("CTXHOOK_HOME a file: %d %q", code, errs)
	}
	// The status line says so too, quietly (exit 0), instead of
	// "nothing captured yet".
	if out, _, code := e.run(t, []byte(`{"session_id":"s"}`), "statusline"); code != 0 || !strings.Contains(out, "store unreadable") {
		t.Errorf("statusline on a damaged store: %d %q", code, out)
	}
}

// TestInstallPi: install pi writes ctxhook's extension into Pi's agent
// directory ($PI_CODING_AGENT_DIR) naming this ctxhook, and its MCP
// server into Pi's mcp.json with direct exposure; doctor finds the
// extension right; a file of the user's at that path is never replaced;
// uninstall takes everything back.
func TestInstallPi(t *testing.T) {
	e := newEnv(t)
	agent := filepath.Join(e.vars["HOME"], "pi-agent")
	e.vars["PI_CODING_AGENT_DIR"] = agent
	ext := filepath.Join(agent, "extensions", "ctxhook.js")
	if out, errs, code := e.run(t, nil, "install", "pi"); code != 0 || !strings.Contains(out, "Wrote "+ext) {
		t.Fatalf("install pi: %d\n%s%s", code, out, errs)
	}
	b, _ := os.ReadFile(ext)
	if !strings.HasPrefix(string(b), "// ctxhook Pi extension") || !strings.Contains(string(b), `const INSTALLED = {"`) || !strings.Contains(string(b), `pi.on("tool_call"`) {
		t.Errorf("the extension:\n%.600s", b)
	}
	if m, _ := os.ReadFile(filepath.Join(agent, "mcp.json")); !strings.Contains(string(m), `"exposure": "direct"`) || !strings.Contains(string(m), `"ctxhook"`) {
		t.Errorf("Pi's mcp.json: %s", m)
	}
	if out, _, code := e.run(t, nil, "doctor", "pi"); code != 0 || !strings.Contains(out, "user extension "+ext) {
		t.Errorf("doctor pi: %d\n%s", code, out)
	}
	if out, _, _ := e.run(t, nil, "install", "pi"); !strings.Contains(out, "Already installed") {
		t.Errorf("second install:\n%s", out)
	}

	if out, _, code := e.run(t, nil, "uninstall", "pi"); code != 0 || !strings.Contains(out, "Removed "+ext) {
		t.Fatalf("uninstall pi: %d\n%s", code, out)
	}
	if _, err := os.Stat(ext); err == nil {
		t.Error("uninstall left the extension")
	}
	if _, err := os.Stat(filepath.Join(agent, "mcp.json")); err == nil {
		t.Error("uninstall left the mcp.json install created")
	}
	os.MkdirAll(filepath.Dir(ext), 0o755)
	os.WriteFile(ext, []byte("export default () => {}\n"), 0o644)
	if _, errs, code := e.run(t, nil, "install", "pi"); code == 0 || !strings.Contains(errs, "was not written by ctxhook") {
		t.Errorf("install over the user's own ctxhook.js: %d %q", code, errs)
	}
	if b, _ := os.ReadFile(ext); string(b) != "export default () => {}\n" {
		t.Errorf("the user's file was changed: %s", b)
	}
}

// TestMCPRevisions: `ctxhook mcp` as a real process on stdio, under MCP
// 2026-07-28 (server/discover, no initialize) and the 2025 revisions:
// the client gets the revision it asked for, and search answers with its
// metadata; the hooks' tool answers an mcp_tool hook's call too.
func TestMCPRevisions(t *testing.T) {
	payload, err := os.ReadFile(payloads + "hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(payload, &fields)
	hookArgs := map[string]any{}
	for k, v := range fields {
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		hookArgs[k] = s
	}
	for _, rev := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			e := newEnv(t) // a session of its own: its first call is nudged
			os.MkdirAll(filepath.Join(e.vars["CTXHOOK_HOME"], "state"), 0o700)
			secret, err := hooksecret.Ensure(filepath.Join(e.vars["CTXHOOK_HOME"], "state", "hook-secret"))
			if err != nil {
				t.Fatal(err)
			}
			hookArgs := maps.Clone(hookArgs)
			hookArgs[hooksecret.Field] = secret
			cmd := exec.Command(os.Args[0], "mcp")
			// The 64 MiB hook below is about framing, not speed. It is
			// decided as an installed server decides it, by the daemon
			// the server starts: in process (interruptible, about 7x
			// the daemon's time) it took 49 s, and 78 s beside the other
			// packages' tests, past even the budget's cap (60 s).
			t.Cleanup(func() { homeprocs.KillDaemons(e.vars["CTXHOOK_HOME"]) })
			cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), hookproto.EnvDeadline + "=60000"}
			for k, v := range e.vars {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
				&mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("speaks %s, asked for %s", got, rev)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "TCK-42"}})
			if err != nil || res.IsError || res.Meta["ctxhook"] == nil {
				t.Fatalf("search: %v %+v", err, res)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hook", Arguments: hookArgs})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"hookEventName":"PostToolUse"`) {
				t.Fatalf("hook: %v %+v", err, res)
			}
			if rev != "2026-07-28" || testing.Short() { // -short: the 64 MiB hook (about 50 s) is make test's
				return
			}
			// A 64 MiB result: past the SDK's default line limit, which
			// ended the server (and every later hook of the session).
			big := map[string]any{}
			for k, v := range hookArgs {
				big[k] = v
			}
			blocks, _ := json.Marshal([]map[string]string{{"type": "text", "text": strings.Repeat("x", 64<<20) + " ZQLASTMARK"}})
			big["tool_response"], big["tool_use_id"] = string(blocks), "big-1"
			if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hook", Arguments: big}); err != nil || res.IsError {
				t.Fatalf("64 MiB hook: %v %+v %s", err, res, toolText(res))
			}
			if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "TCK-42"}}); err != nil || res.IsError {
				t.Fatalf("the server after a 64 MiB hook: %v %+v", err, res)
			}
		})
	}
}

// TestMCPToolHooksHealth: with mcp_tool hooks, a ctxhook MCP server that
// cannot start leaves every tool call without ctxhook, and nothing else
// would say so. SessionStart (a command hook) runs the listed server once
// and, when it fails, its answer carries a systemMessage for the user
// with the reason; doctor tells "broken" (listed, fails to start, its
// error) from "missing" (not listed), and says to re-run install when
// the hooks carry no secret (an install from before it).
func TestMCPToolHooksHealth(t *testing.T) {
	t.Setenv("CTXHOOK_TEST_MAIN", "1") // the listed server is this binary: let it run as ctxhook
	e := newEnv(t)
	if _, errs, code := e.run(t, nil, "install", "claude-code", "--hook-type", "mcp_tool"); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	payload, err := os.ReadFile(payloads + "hook-SessionStart.json")
	if err != nil {
		t.Fatal(err)
	}
	sessionStart := func() string {
		t.Helper()
		out, errs, code := e.run(t, payload, "hook", "claude-code", "SessionStart")
		if code != 0 {
			t.Fatalf("SessionStart: %d %s", code, errs)
		}
		var answer struct {
			SystemMessage string `json:"systemMessage"`
		}
		if out != "" {
			if err := json.Unmarshal([]byte(out), &answer); err != nil {
				t.Fatalf("SessionStart's answer: %v\n%s", err, out)
			}
		}
		return answer.SystemMessage
	}
	doctor := func() (string, int) {
		out, _, code := e.run(t, nil, "doctor", "claude-code")
		return out, code
	}
	if msg := sessionStart(); msg != "" {
		t.Fatalf("a working install warns: %s", msg)
	}
	// The help says what the hook tool writes, and what it takes to call it.
	if out, _, _ := e.run(t, nil, "mcp", "--help"); !strings.Contains(out, "so it writes:") || !strings.Contains(out, "hook-secret") {
		t.Errorf("ctxhook mcp --help:\n%s", out)
	}
	if out, code := doctor(); code != 0 || !strings.Contains(out, "which starts") {
		t.Fatalf("doctor, working: %d\n%s", code, out)
	}

	claudeJSON := filepath.Join(e.vars["HOME"], ".claude.json")
	saved, _ := os.ReadFile(claudeJSON)
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o600)
	for _, tt := range []struct {
		name, entry, sessionWants, doctorWants string
	}{
		{"binary missing", `{"type":"stdio","command":"/nonexistent/bin/ctxhook","args":["mcp"]}`,
			"ctxhook's MCP server is broken: /nonexistent/bin/ctxhook mcp fails to start", "listed in " + claudeJSON + " but broken"},
		{"store refused", `{"type":"stdio","command":"` + os.Args[0] + `","args":["mcp"],"env":{"CTXHOOK_HOME":"` + file + `"}}`,
			"not a directory", "but broken: '" + os.Args[0] + " mcp' fails to start: exited with exit status 1: ctxhook: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(claudeJSON, []byte(`{"mcpServers":{"ctxhook":`+tt.entry+`}}`), 0o600)
			if msg := sessionStart(); !strings.Contains(msg, tt.sessionWants) || !strings.Contains(msg, "Tool calls go on without ctxhook") {
				t.Errorf("SessionStart's systemMessage: %q, want %q", msg, tt.sessionWants)
			}
			if out, code := doctor(); code != 1 || !strings.Contains(out, tt.doctorWants) || strings.Contains(out, "missing") {
				t.Errorf("doctor: %d, want %q\n%s", code, tt.doctorWants, out)
			}
		})
	}
	os.WriteFile(claudeJSON, []byte(`{"mcpServers":{}}`), 0o600)
	if msg := sessionStart(); !strings.Contains(msg, "ctxhook's MCP server is missing: "+claudeJSON+" does not list it") {
		t.Errorf("SessionStart, not listed: %q", msg)
	}
	if out, code := doctor(); code != 1 || !strings.Contains(out, "which is missing") || strings.Contains(out, "broken") {
		t.Errorf("doctor, not listed: %d\n%s", code, out)
	}
	os.WriteFile(claudeJSON, saved, 0o600)

	// An install from before the secret: its hooks carry none. The server
	// refuses them (the agent goes on); SessionStart and doctor say so.
	settings := filepath.Join(e.vars["HOME"], ".claude", "settings.json")
	b, _ := os.ReadFile(settings)
	secret, _ := hooksecret.Read(filepath.Join(e.vars["CTXHOOK_HOME"], "state", "hook-secret"))
	old := regexp.MustCompile(`,\s*"` + hooksecret.Field + `":\s*"` + secret + `"`)
	os.WriteFile(settings, old.ReplaceAll(b, nil), 0o600)
	if b2, _ := os.ReadFile(settings); strings.Contains(string(b2), secret) {
		t.Fatalf("the test did not take the secret out:\n%s", b2)
	}
	if msg := sessionStart(); !strings.Contains(msg, "will refuse them") {
		t.Errorf("SessionStart, hooks without the secret: %q", msg)
	}
	if out, code := doctor(); code != 1 || !strings.Contains(out, "will be refused by ctxhook's MCP server") || !strings.Contains(out, "re-run 'ctxhook install claude-code --hook-type mcp_tool'") {
		t.Errorf("doctor, hooks without the secret: %d\n%s", code, out)
	}
	if _, errs, code := e.run(t, nil, "install", "claude-code", "--hook-type", "mcp_tool"); code != 0 {
		t.Fatalf("install again: %s", errs)
	}
	if out, code := doctor(); code != 0 {
		t.Errorf("doctor after install again: %d\n%s", code, out)
	}
}

// toolText is a tool result's first text block, for failure messages.
func toolText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
