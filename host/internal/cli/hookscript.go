package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/install"
)

// hookScript is the kind of harness that runs an executable file per
// event from its hooks directory (Cline CLI): install writes ctxhook's,
// each running its hook command.
type hookScript struct{}

func (hookScript) install(ctx context.Context, env Env, f installFlags) int {
	return installHookScripts(ctx, env, f, true)
}

func (hookScript) uninstall(ctx context.Context, env Env, f installFlags) int {
	return installHookScripts(ctx, env, f, false)
}

// installHookScripts writes or removes the hook scripts, then does what
// every install does after wiring: wrapped servers, ctxhook's own MCP
// server, the config, the daemon and the notes.
func installHookScripts(ctx context.Context, env Env, f installFlags, add bool) int {
	wd, _ := os.Getwd()
	dir, err := f.harness.ConfigDir(f.scope, env.Getenv, wd)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.dryRun {
		return dryRunHookScripts(env, f, dir, add)
	}
	done, err := install.InstallHookScripts(f.harness, dir, f.exe(), add, f.journal)
	for _, d := range done {
		fmt.Fprintln(env.Stdout, strings.ToUpper(d[:1])+d[1:])
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.wrapMCP || !add {
		p, err := resolvePaths(env)
		if err != nil {
			return fail(env, "%v", err)
		}
		if code := wrapMCP(env, f, p.Config, add); code != 0 {
			return code
		}
	}
	code, mcpChanged := ownMCP(env, f, add)
	if code != 0 {
		return code
	}
	if len(done) == 0 && !mcpChanged && (add || len(f.restored) == 0) {
		fmt.Fprintf(env.Stdout, map[bool]string{true: "Already installed in %s; nothing changed.\n", false: "No ctxhook hook scripts in %s; nothing changed.\n"}[add], dir)
	}
	if !add {
		return 0
	}
	return afterFilesInstalled(ctx, env, f, dir)
}

// afterFilesInstalled writes the default config, warms the plugin, starts
// the daemon and prints the notes: the end of an install of the extension
// and hook-script kinds.
func afterFilesInstalled(ctx context.Context, env Env, f installFlags, dir string) int {
	w := env.Stdout
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	if created, err := writeDefaultConfig(p.Config); err == nil && created {
		fmt.Fprintf(w, "Wrote a commented config to %s\n", p.Config)
	}
	warmPlugin(ctx, env, p.WasmCache())
	if startDaemon(env, p, f.self) {
		fmt.Fprintln(w, "Started the ctxhook daemon, so the first session finds the plugin loaded (it exits after 10 minutes without a request).")
	}
	fmt.Fprintln(w)
	for _, line := range notes(f.harness, dir) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Captured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s.\n", p.Config)
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

// dryRunHookScripts says what install (or uninstall) of the scripts
// would do.
func dryRunHookScripts(env Env, f installFlags, dir string, add bool) int {
	for i, path := range install.HookScriptPaths(f.harness, dir) {
		old, _ := os.ReadFile(path)
		if !add {
			if old != nil && !f.restored[path] {
				fmt.Fprintf(env.Stdout, "dry run: would remove %s (if as ctxhook wrote it)\n", path)
			}
			continue
		}
		want := install.HookScript(f.harness, f.exe(), f.harness.Harness.Events[i])
		showPlan(env, install.Plan{Path: path, Before: old, After: want, Changed: !bytes.Equal(old, want)})
	}
	if code, _ := ownMCP(env, f, add); code != 0 || !add {
		return code
	}
	dryRunConfig(env)
	return 0
}

// doctor checks ctxhook's hook script for every event in both scopes.
func (hookScript) doctor(env Env, h install.Harness, c *checks) {
	wd, _ := os.Getwd()
	found := false
	for _, scope := range []string{"user", "project"} {
		dir, err := h.ConfigDir(scope, env.Getenv, wd)
		if err != nil {
			c.bad("%v", err)
			continue
		}
		exe := installedSelf(env, h)
		if scope == "project" {
			exe = install.PortableExe
		}
		for _, path := range install.HookScriptPaths(h, dir) {
			present, current := install.CheckHookScript(h, path, exe)
			switch {
			case !present:
				c.info("%s: no ctxhook hook script at %s", scope, path)
			case current:
				found = true
				c.ok("%s hook script %s", scope, path)
			default:
				found = true
				c.bad("%s hook script %s is not executable or names another ctxhook binary (re-run 'ctxhook install %s')", scope, path, h.Name)
			}
		}
	}
	if !found {
		c.bad("the ctxhook hook scripts are not installed (run 'ctxhook install %s')", h.Name)
	}
}
