package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// TestInstallFromNpxCache: ctxhook run from npx's cache (a copy of this
// test binary at npx's path, with a hook client beside it) is copied into
// ctxhook's bin directory, and every file install writes names the copy;
// with npx's cache gone, doctor finds nothing to fix and the copy records
// a hook. Doctor flags the hooks an older install wrote into npx's cache,
// with the command that mends them. The copy stays while another
// harness's install names it and goes with the last uninstall.
func TestInstallFromNpxCache(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook client stand-in is a shell script")
	}
	e := newEnv(t)
	home := e.vars["HOME"]
	npxBin := filepath.Join(home, ".npm", "_npx", "1a2b3c", "node_modules", "@ctxhook", "linux-x64", "bin")
	os.MkdirAll(npxBin, 0o755)
	npxExe := filepath.Join(npxBin, "ctxhook")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(npxExe, self, 0o755)
	os.WriteFile(filepath.Join(npxBin, "ctxhook-hook"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	settings := filepath.Join(home, ".claude", "settings.json")

	// An older install wired the hooks into npx's cache.
	plan, err := install.PlanHooks(install.Claude, settings, npxExe, true)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, plan.After, 0o600)
	out, _, code := e.procBin(t, npxExe, nil, "doctor", "claude-code")
	if code != 1 || !strings.Contains(out, "FIX   hook command runs "+filepath.Join(npxBin, "ctxhook-hook")+", in npx's cache") ||
		!strings.Contains(out, "re-run 'npx ctxhook install claude-code'") {
		t.Fatalf("doctor on hooks in npx's cache: %d\n%s", code, out)
	}

	out, errs, code := e.procBin(t, npxExe, nil, "install", "claude-code")
	p, _ := paths.Resolve(e.get)
	if code != 0 || !strings.Contains(out, "Copied ctxhook to "+p.Bin()+string(filepath.Separator)) {
		t.Fatalf("install from npx's cache: %d\n%s\n%s", code, out, errs)
	}
	dirs, _ := filepath.Glob(filepath.Join(p.Bin(), "*"))
	if len(dirs) != 1 {
		t.Fatalf("copies: %v", dirs)
	}
	stable := filepath.Join(dirs[0], "ctxhook")
	if fi, err := os.Stat(dirs[0]); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("copy's directory: %v %v", fi, err)
	}
	var s struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &s); err != nil || len(s.Hooks["PostToolUse"]) != 1 {
		t.Fatalf("settings: %v\n%s", err, b)
	}
	if cmd := s.Hooks["PostToolUse"][0].Hooks[0].Command; cmd != filepath.Join(dirs[0], "ctxhook-hook")+" claude-code PostToolUse" {
		t.Errorf("PostToolUse runs %q", cmd)
	}
	// No file install wrote names npx's cache: hooks, MCP entry, config.
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && d.Name() == ".npm" {
			return filepath.SkipDir
		}
		if b, _ := os.ReadFile(path); d != nil && !d.IsDir() && strings.Contains(string(b), "_npx") {
			t.Errorf("%s names npx's cache:\n%s", path, b)
		}
		return nil
	})
	if b, _ := os.ReadFile(filepath.Join(home, ".claude.json")); !strings.Contains(string(b), stable) {
		t.Errorf("the MCP entry does not run the copy: %s", b)
	}

	os.RemoveAll(filepath.Join(home, ".npm", "_npx"))
	if out, _, code := e.procBin(t, stable, nil, "doctor", "claude-code"); code != 0 || !strings.Contains(out, "All good") {
		t.Errorf("doctor with npx's cache gone: %d\n%s", code, out)
	}
	if _, errs, code := e.procBin(t, stable, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
		t.Errorf("hook run by the copy: %d %q", code, errs)
	}
	if out, _, _ := e.procBin(t, stable, nil, "search", "TCK-42"); !strings.Contains(out, "tickets/get_ticket") {
		t.Errorf("the copy's hook stored nothing:\n%s", out)
	}

	// Codex, installed by the copy itself, names the copy: it stays until
	// both are uninstalled.
	if out, errs, code := e.procBin(t, stable, nil, "install", "codex"); code != 0 || strings.Contains(out, "Copied") {
		t.Fatalf("install codex from the copy: %d\n%s\n%s", code, out, errs)
	}
	if out, _, code := e.procBin(t, stable, nil, "uninstall", "claude-code"); code != 0 || strings.Contains(out, "copy") {
		t.Errorf("uninstall claude-code: %d\n%s", code, out)
	}
	if _, err := os.Stat(stable); err != nil {
		t.Fatalf("the copy codex runs went: %v", err)
	}
	if out, _, code := e.procBin(t, stable, nil, "uninstall", "codex"); code != 0 || !strings.Contains(out, "Removed ctxhook's copy in "+dirs[0]) {
		t.Errorf("uninstall codex: %d\n%s", code, out)
	}
	if _, err := os.Stat(dirs[0]); err == nil {
		t.Error("the copy is left after the last uninstall")
	}
}

// TestHookBinaryProblem: doctor flags a hook whose binary is missing or
// lies where it may be deleted, and not one in ctxhook's own copies or
// one named for PATH.
func TestHookBinaryProblem(t *testing.T) {
	root := t.TempDir()
	tmp, bin, stable := filepath.Join(root, "tmp"), filepath.Join(root, "state", "bin"), filepath.Join(root, "opt")
	for _, d := range []string{tmp, filepath.Join(bin, "v"), stable, filepath.Join(root, "_npx")} {
		os.MkdirAll(d, 0o700)
	}
	for _, f := range []string{filepath.Join(tmp, "ctxhook-hook"), filepath.Join(bin, "v", "ctxhook-hook"), filepath.Join(stable, "ctxhook-hook"), filepath.Join(root, "_npx", "ctxhook-hook")} {
		os.WriteFile(f, nil, 0o700)
	}
	volatile := []string{tmp}
	for _, c := range []struct{ cmd, want string }{
		{filepath.Join(stable, "ctxhook-hook") + " claude-code Stop", ""},
		{filepath.Join(bin, "v", "ctxhook-hook") + " claude-code Stop", ""},
		{"ctxhook-hook claude-code Stop", ""},
		{"mcp_tool ctxhook/hook", ""},
		{"'" + filepath.Join(root, "gone", "ctxhook-hook") + "' claude-code Stop", "missing binary"},
		{filepath.Join(tmp, "ctxhook-hook") + " claude-code Stop", "a temporary or cache directory"},
		{filepath.Join(root, "_npx", "ctxhook-hook") + " claude-code Stop", "npx's cache"},
	} {
		got := hookBinaryProblem([]string{c.cmd}, bin, volatile)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.cmd, got, c.want)
		}
	}
}
