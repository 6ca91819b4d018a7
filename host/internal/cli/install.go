package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
)

type installFlags struct {
	scope   string
	dryRun  bool
	wrapMCP bool
	servers []string // with --wrap-mcp: only these
}

func parseInstall(env Env, name, summary string, args []string) (installFlags, int, bool) {
	flags := newFlags(env, name, "<harness> [--user|--project] [--dry-run] [--wrap-mcp [server...]]", summary)
	user := flags.Bool("user", false, "the user's settings (~/.claude/settings.json, ~/.claude.json); the default")
	project := flags.Bool("project", false, "this project's settings (.claude/settings.json, .mcp.json)")
	dry := flags.Bool("dry-run", false, "print the resulting files, change nothing")
	wrap := flags.Bool("wrap-mcp", false, "also run MCP servers through `ctxhook proxy` (the named ones, or every stdio server)")
	pos, code, ok := parse(flags, args)
	if !ok {
		return installFlags{}, code, false
	}
	if len(pos) > 1 && !*wrap {
		fmt.Fprintf(env.Stderr, "ctxhook: server names (%s) go with --wrap-mcp\n", strings.Join(pos[1:], " "))
		return installFlags{}, 2, false
	}
	if len(pos) < 1 || pos[0] != "claude-code" {
		fmt.Fprintln(env.Stderr, "ctxhook: supported harness: claude-code")
		flags.Usage()
		return installFlags{}, 2, false
	}
	if *user && *project {
		fmt.Fprintln(env.Stderr, "ctxhook: choose one of --user and --project")
		return installFlags{}, 2, false
	}
	f := installFlags{scope: "user", dryRun: *dry, wrapMCP: *wrap, servers: pos[1:]}
	if *project {
		f.scope = "project"
	}
	return f, 0, true
}

func settingsPath(env Env, scope string) (string, error) {
	wd, _ := os.Getwd()
	return install.ClaudeSettingsPath(scope, env.Getenv("HOME"), env.Getenv("CLAUDE_CONFIG_DIR"), wd)
}

func runInstall(ctx context.Context, env Env, args []string) int {
	f, code, ok := parseInstall(env, "install", "Wire ctxhook's hooks into Claude Code. Idempotent; keeps a backup; never drops your own hooks.", args)
	if !ok {
		return code
	}
	path, err := settingsPath(env, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	plan, err := install.PlanClaude(path, executable(), true)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.dryRun {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be %s:\n", path, map[bool]string{true: "written", false: "left unchanged"}[plan.Changed])
		env.Stdout.Write(plan.After)
		if f.wrapMCP {
			p, _ := resolvePaths(env)
			return wrapMCP(env, f, p.Config, true)
		}
		return 0
	}
	backup, err := plan.Apply(time.Now())
	if err != nil {
		return fail(env, "%v", err)
	}
	w := env.Stdout
	if plan.Changed {
		fmt.Fprintf(w, "Wired %d Claude Code hooks into %s\n", plan.Added, path)
		if backup != "" {
			fmt.Fprintf(w, "Previous file kept as %s\n", backup)
		}
	} else {
		fmt.Fprintf(w, "Already installed in %s; nothing changed.\n", path)
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.wrapMCP {
		if code := wrapMCP(env, f, p.Config, true); code != 0 {
			return code
		}
	}
	if created, err := writeDefaultConfig(p.Config); err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook: %v\n", err)
	} else if created {
		fmt.Fprintf(w, "Wrote a commented config to %s\n", p.Config)
	}
	// Compile the plugin now, so the first hook in a session is not the one
	// that pays for it.
	if r, err := runner.New(ctx, runner.Options{CacheDir: p.WasmCache()}); err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook: warning: the plugin did not load: %v\n", err)
	} else {
		r.Close(ctx)
	}
	fmt.Fprintf(w, "\nCaptured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s:\n", p.Config)
	fmt.Fprintln(w, "  [servers.<name>]\n  relay = true")
	fmt.Fprintln(w, "Note: for relay-enabled servers, injecting the token also auto-approves the call")
	fmt.Fprintln(w, "(Claude Code honours a changed input only with permissionDecision \"allow\").")
	fmt.Fprintln(w, "Check the wiring any time with 'ctxhook doctor claude-code'.")
	return 0
}

func runUninstall(ctx context.Context, env Env, args []string) int {
	f, code, ok := parseInstall(env, "uninstall", "Remove exactly the hooks 'ctxhook install' added. Your data and config are kept.", args)
	if !ok {
		return code
	}
	path, err := settingsPath(env, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	plan, err := install.PlanClaude(path, executable(), false)
	if err != nil {
		return fail(env, "%v", err)
	}
	p, _ := resolvePaths(env)
	if code := wrapMCP(env, f, p.Config, false); code != 0 {
		return code
	}
	if f.dryRun {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, %d ctxhook hooks would be removed from %s:\n", plan.Removed, path)
		env.Stdout.Write(plan.After)
		return 0
	}
	if !plan.Changed {
		fmt.Fprintf(env.Stdout, "No ctxhook hooks in %s; nothing changed.\n", path)
		return 0
	}
	backup, err := plan.Apply(time.Now())
	if err != nil {
		return fail(env, "%v", err)
	}
	fmt.Fprintf(env.Stdout, "Removed %d ctxhook hooks from %s\nPrevious file kept as %s\n", plan.Removed, path, backup)
	fmt.Fprintf(env.Stdout, "Captured data stays in %s (delete it by hand if you want it gone).\n", p.Data)
	return 0
}

// writeDefaultConfig writes the commented template unless a config exists.
func writeDefaultConfig(path string) (bool, error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	}
	b, err := harnessconfigs.FS.ReadFile("config.toml")
	if err != nil {
		return false, err
	}
	if err := paths.EnsureDir(filepath.Dir(path)); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Write(b)
	return err == nil, err
}

// wrapMCP wraps (or unwraps) Claude Code's MCP servers and marks them in
// ctxhook's config, so that hooks leave their calls to the proxy.
func wrapMCP(env Env, f installFlags, configPath string, wrap bool) int {
	wd, _ := os.Getwd()
	var changed []string
	for _, t := range install.ClaudeMCPTargets(f.scope, env.Getenv("HOME"), wd) {
		res, err := install.WrapMCP(t, executable(), f.servers, wrap)
		if err != nil {
			return fail(env, "%v", err)
		}
		for name, why := range res.Skipped {
			fmt.Fprintf(env.Stderr, "ctxhook: MCP server %q in %s not wrapped: %s\n", name, t.Path, why)
		}
		if !res.Plan.Changed {
			continue
		}
		changed = append(changed, res.Changed...)
		verb := map[bool]string{true: "Wrapped", false: "Unwrapped"}[wrap]
		if f.dryRun {
			fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written (%s %s):\n", t.Path, strings.ToLower(verb), strings.Join(res.Changed, ", "))
			env.Stdout.Write(res.Plan.After)
			continue
		}
		backup, err := res.Plan.Apply(time.Now())
		if err != nil {
			return fail(env, "%v", err)
		}
		fmt.Fprintf(env.Stdout, "%s MCP servers %s in %s (previous file kept as %s)\n", verb, strings.Join(res.Changed, ", "), t.Path, backup)
	}
	if wrap && len(f.servers) > 0 {
		for _, s := range f.servers {
			if !slices.Contains(changed, s) {
				fmt.Fprintf(env.Stderr, "ctxhook: no stdio MCP server %q to wrap in Claude Code's %s config\n", s, f.scope)
			}
		}
	}
	if len(changed) == 0 || f.dryRun {
		return 0
	}
	if _, err := writeDefaultConfig(configPath); err != nil {
		return fail(env, "%v", err)
	}
	text, err := os.ReadFile(configPath)
	if err != nil {
		return fail(env, "%v", err)
	}
	if err := os.WriteFile(configPath, []byte(install.MarkProxied(string(text), changed, wrap)), 0o600); err != nil {
		return fail(env, "%v", err)
	}
	if wrap {
		fmt.Fprintf(env.Stdout, "Marked them proxy = true in %s. To relay their session tokens, add relay = true\n", configPath)
		fmt.Fprintln(env.Stdout, "to their [servers.<name>] sections. Restart Claude Code to pick up the change.")
	}
	return 0
}
