package cli

import (
	"bytes"
	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// userFiles are a user's own harness files before ctxhook arrives, each
// formatted its own way (tabs, four spaces, a hook command with > and &
// in it, TOML comments): install and uninstall must leave them exactly so.
var userFiles = map[string]string{
	".claude/settings.json": "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint --fix > /tmp/out.log 2>&1 && echo '<ok>'\"}]}\n\t\t]\n\t}\n}\n",
	".claude.json":          "{\n    \"numStartups\": 3,\n    \"mcpServers\": {\n        \"tickets\": {\"type\": \"stdio\", \"command\": \"node\", \"args\": [\"tickets.js\"], \"env\": {}}\n    }\n}\n",
	".codex/config.toml":    "# my codex config\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"  # the docs server\n",
	".gemini/settings.json": "{\n    \"theme\": \"Dracula\",\n    \"mcpServers\": {\n        \"wf\": {\n            \"command\": \"python3\",\n            \"args\": [\"wf.py\"]\n        }\n    }\n}\n",
	".cursor/mcp.json":      "{\"mcpServers\":{\"sentry\":{\"command\":\"npx\",\"args\":[\"sentry-mcp\"]}}}",
	// Cline CLI: its MCP servers, and a hook file of the user's own.
	".cline/data/settings/cline_mcp_settings.json": "{\n  \"mcpServers\": {\n    \"jira\": {\"command\": \"jira-mcp\", \"disabled\": false}\n  }\n}\n",
	".cline/hooks/TaskComplete":                    "#!/bin/sh\nnotify-send done\n",
}

// snapshot is every file and directory under root, with its mode and
// (for files) its bytes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		fi, _ := d.Info()
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, _ := os.ReadFile(path)
		out[rel] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

func diffTrees(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if w, ok := after[k]; !ok {
			t.Errorf("%s: %s is gone", what, k)
		} else if v != w {
			t.Errorf("%s: %s changed:\nwas %q\nnow %q", what, k, v, w)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: %s was left behind", what, k)
		}
	}
}

// TestInstallRoundTrip: install then uninstall of every harness, one at a
// time and all at once (uninstalled in another order), with --wrap-mcp
// where the harness has it, leaves the home byte for byte as it was:
// no re-indented file, no escaped character, no stub, no backup. The
// same holds for a project, whose files are shared.
func TestInstallRoundTrip(t *testing.T) {
	e := newEnv(t)
	e.vars["CTXHOOK_NO_DAEMON"] = "1"
	home := e.vars["HOME"]
	for name, text := range userFiles {
		path := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(text), 0o640)
		os.Chmod(path, 0o640)
	}
	harnesses := harnessNames()
	installArgs := func(h string) []string {
		args := []string{"install", h}
		if h == "claude-code" || h == "gemini" || h == "cursor" {
			args = append(args, "--wrap-mcp")
		}
		return args
	}
	run := func(args ...string) string {
		t.Helper()
		out, errs, code := e.run(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	before := snapshot(t, home)
	for _, h := range harnesses {
		run(installArgs(h)...)
		if mid := snapshot(t, home); len(mid) == len(before) && strings.Contains(h, "") {
			same := true
			for k, v := range before {
				same = same && mid[k] == v
			}
			if same {
				t.Errorf("install %s changed nothing under HOME", h)
			}
		}
		run("uninstall", h)
		diffTrees(t, "install and uninstall "+h, before, snapshot(t, home))
	}
	for _, h := range harnesses {
		run(installArgs(h)...)
	}
	for i := len(harnesses) - 1; i >= 0; i-- {
		run("uninstall", harnesses[i])
	}
	diffTrees(t, "all installed, then all uninstalled", before, snapshot(t, home))

	// A dry run shows every change and makes none.
	out, errs, _ := e.run(t, nil, "install", "claude-code", "--wrap-mcp", "--dry-run")
	for _, want := range []string{"would add ctxhook's MCP server to " + filepath.Join(home, ".claude.json"), "would mark tickets proxy = true",
		"hook claude-code PreToolUse", `"ctxhook": {`} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("install --dry-run does not show %q:\n%s%s", want, errs, out)
		}
	}
	diffTrees(t, "install --dry-run", before, snapshot(t, home))
	run("install", "claude-code")
	if out := run("uninstall", "claude-code", "--dry-run"); !strings.Contains(out, "would put "+filepath.Join(home, ".claude/settings.json")+" back as it was before install") {
		t.Errorf("uninstall --dry-run:\n%s", out)
	}
	// A file the user changed after install keeps the change: only
	// ctxhook's entries go, in the file's own indentation, unescaped.
	settings := filepath.Join(home, ".claude/settings.json")
	b, _ := os.ReadFile(settings)
	os.WriteFile(settings, bytes.Replace(b, []byte(`"model": "opus"`), []byte(`"model": "sonnet"`), 1), 0o640)
	run("uninstall", "claude-code")
	want := strings.Replace(userFiles[".claude/settings.json"], `"model": "opus"`, `"model": "sonnet"`, 1)
	if b, _ := os.ReadFile(settings); !sameJSONText(string(b), want) || !bytes.Contains(b, []byte("\n\t\"model\"")) || !bytes.Contains(b, []byte("> /tmp/out.log 2>&1 && echo '<ok>'")) {
		t.Errorf("a settings file changed after install, after uninstall:\n%s", b)
	}
	os.WriteFile(settings, []byte(userFiles[".claude/settings.json"]), 0o640)

	// A project: its files are shared, so none of this user's paths, and
	// nothing but what install wrote is left there (no backups).
	project := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(userFiles[".claude/settings.json"]), 0o644)
	os.WriteFile(filepath.Join(project, ".mcp.json"), []byte("{\n  \"mcpServers\": {}\n}\n"), 0o644)
	t.Chdir(project)
	pbefore := snapshot(t, project)
	self, _ := os.Executable()
	// A plugin harness's loader names the binary it calls, as its config
	// names no command (a known exception: README).
	var loaderDirs []string
	for _, h := range harnesses {
		if hh, _ := install.Lookup(h); hh.Kind == harnessconfigs.KindLoader {
			loaderDirs = append(loaderDirs, string(filepath.Separator)+hh.Dir.Project+string(filepath.Separator))
		}
	}
	inLoaderDir := func(path string) bool {
		return slices.ContainsFunc(loaderDirs, func(d string) bool { return strings.Contains(path, d) })
	}
	for _, h := range harnesses {
		run("install", h, "--project")
		filepath.WalkDir(project, func(path string, d fs.DirEntry, err error) error {
			if b, _ := os.ReadFile(path); d.Type().IsRegular() && !strings.HasSuffix(path, ".wasm") && !inLoaderDir(path) &&
				bytes.Contains(b, []byte(filepath.Dir(self))) {
				t.Errorf("install %s --project wrote this user's binary path into the shared %s", h, path)
			}
			return nil
		})
	}
	for _, h := range harnesses {
		run("uninstall", h, "--project")
	}
	diffTrees(t, "--project round trip", pbefore, snapshot(t, project))
	if !bytes.Equal([]byte(snapshot(t, home)[".claude.json"]), []byte(before[".claude.json"])) {
		t.Error("a project install changed ~/.claude.json")
	}
}
