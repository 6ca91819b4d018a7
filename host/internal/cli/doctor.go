package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/hookhealth"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/owned"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runDoctor(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "doctor", "<harness>", "Check what is wired and what is not. Exit 1 when something needs fixing.")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "doctor", "unexpected argument %q", pos[1])
	}
	if len(pos) != 1 {
		return usageError(env, "doctor", "name a harness: %s", strings.Join(harnessNames(), ", "))
	}
	h, known := install.Lookup(pos[0])
	if !known {
		return usageError(env, "doctor", "unknown harness %q (supported: %s)", pos[0], strings.Join(harnessNames(), ", "))
	}
	w := env.Stdout
	problems := 0
	okf := func(format string, a ...any) { fmt.Fprintf(w, "  ok    "+format+"\n", a...) }
	bad := func(format string, a ...any) { problems++; fmt.Fprintf(w, "  FIX   "+format+"\n", a...) }
	info := func(format string, a ...any) { fmt.Fprintf(w, "  --    "+format+"\n", a...) }

	fmt.Fprintln(w, "ctxhook")
	okf("binary %s (%s)", executable(), Version())
	p, err := resolvePaths(env)
	if err != nil {
		bad("%v", err)
		return 1
	}
	var cacheWarn []string
	if r, err := runner.New(ctx, runner.Options{CacheDir: p.WasmCache(), Warn: func(s string) { cacheWarn = append(cacheWarn, s) }}); err != nil {
		bad("plugin does not load: %v", err)
	} else {
		r.Close(ctx)
		okf("plugin loads (%d bytes), compilation cache in %s", len(plugin.Wasm), p.WasmCache())
	}
	for _, w := range cacheWarn {
		bad("%s", strings.TrimPrefix(w, "ctxhook: "))
	}
	// Directories another user owns or may write are refused: hooks then
	// store nothing, or run without the daemon. Only doctor says so at
	// length.
	for _, d := range []struct{ dir, what string }{
		{p.Data, "hooks cannot store what they capture"},
		{p.DaemonDir(), "the daemon cannot start (hooks decide in-process, slower)"},
		{filepath.Dir(p.Socket()), "the daemon cannot start (hooks decide in-process, slower)"},
	} {
		if _, err := os.Lstat(d.dir); err != nil {
			continue
		}
		if err := owned.Dir(d.dir); err != nil {
			bad("%v: %s", err, d.what)
		}
	}
	for _, l := range leftovers(env.Getenv, p) {
		bad("%s is owned by uid %d, not by %s: ctxhook cannot write there (a root run left it?); mend it with: sudo chown -R %s: %s",
			l.path, l.uid, l.owner, shellQuote(l.owner), shellQuote(l.path))
	}
	if err := daemon.Supported(); err != nil {
		info("%v (slower: see docs/speed.md)", strings.TrimPrefix(err.Error(), "daemon: "))
	} else if env.Getenv("CTXHOOK_NO_DAEMON") != "" {
		info("CTXHOOK_NO_DAEMON is set: hooks decide in-process (slower: see docs/speed.md)")
	} else {
		c := daemon.Client{Paths: p}
		if c.Connect(500 * time.Millisecond) {
			okf("daemon answers on %s", p.Socket())
		} else {
			info("no daemon running: the next hook starts one (%s)", p.Socket())
		}
		c.Close()
	}
	// A config with a problem still applies its valid parts: they are
	// described too.
	cfg, cfgErr := config.Load(p.Config)
	if cfgErr != nil {
		bad("%v", cfgErr)
	}
	relay := "relay enabled for no server"
	if names := relayServers(cfg); len(names) > 0 {
		relay = "relay enabled for " + strings.Join(names, ", ")
	}
	if what := excludedWhat(cfg); what != "" {
		info("capture excludes %s (what they leave: %s); transcripts are not indexed meanwhile", what, cmp.Or(cfg.Capture.Excluded, abi.ExcludedMetadata))
	}
	if v := env.Getenv(abi.EnvCapture); v != "" {
		info("%s=%s in this environment (0, false, off or no store nothing)", abi.EnvCapture, v)
	}
	// A config with a problem is not ok: what of it applies is said as
	// information, below the problem.
	switch _, err := os.Stat(p.Config); {
	case err != nil:
		info("no config at %s (defaults; the relay is off)", p.Config)
	case cfgErr != nil && !strings.HasSuffix(cfgErr.Error(), "the rest applies"):
		info("config %s is not read: the defaults apply (the relay is off)", p.Config)
	case cfgErr != nil:
		info("config %s: the rest of it applies (%s)", p.Config, relay)
	default:
		okf("config %s (%s)", p.Config, relay)
	}
	if st, err := store.Open(p.DB(), store.Options{ReadOnly: true}); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			info("no store yet at %s (created by the first hook)", p.DB())
		} else {
			bad("%v", err)
		}
	} else {
		s, err := st.Stats("")
		st.Close()
		if err != nil {
			bad("store %s: %v", p.DB(), err)
		} else {
			okf("store %s: %d events in %d sessions", p.DB(), s.Events, s.Sessions)
		}
	}

	doctorShared(env, p, okf, bad, info)
	if corrupt, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.corrupt")); len(corrupt) > 0 {
		bad("%d spool file(s) in %s could not be read back and were set aside (*.corrupt, not stored): look at them, then delete them", len(corrupt), p.SpoolDir())
	}

	fmt.Fprintln(w, "\n"+h.Title)
	if h.Plugin {
		doctorOpenCode(env, h, okf, bad, info)
		return finish(w, problems)
	}
	if h.Extension {
		doctorPi(env, h, okf, bad, info)
		return finish(w, problems)
	}
	wiredAnywhere := map[string]bool{}
	events := h.Events()
	var wiredPaths []string
	for _, scope := range []string{"user", "project"} {
		path, err := settingsPath(env, h, scope)
		if err != nil {
			bad("%v", err)
			continue
		}
		wired, cmds, err := h.Wiring(path, executable(), install.Journal{Dir: p.Installs()}.Exes(path)...)
		switch {
		case os.IsNotExist(err):
			info("%s settings %s: not present", scope, path)
			continue
		case err != nil:
			bad("%s settings %s: %v", scope, path, err)
			continue
		}
		if len(wired) == 0 {
			info("%s settings %s: no ctxhook hooks", scope, path)
			continue
		}
		for _, ev := range events {
			if wired[ev] {
				wiredAnywhere[ev] = true
			}
		}
		wiredPaths = append(wiredPaths, path)
		okf("%s settings %s: %d of %d hooks", scope, path, len(wired), len(events))
		if slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "mcp_tool ") }) {
			doctorMCPToolHooks(env, h, scope, okf, bad)
		}
		if msg := hookBinaryProblem(cmds, p.Bin(), install.VolatileDirs()); msg != "" {
			bad("%s (re-run '%s')", msg, mendCommand(h.Name))
		}
	}
	for _, ev := range events {
		if !wiredAnywhere[ev] {
			bad("%s hook is not wired (run 'ctxhook install %s')", ev, h.Name)
		}
	}
	if h.Name == install.Codex.Name {
		for _, path := range wiredPaths {
			cfg := install.CodexConfigPath(path)
			if install.CodexHooksDisabled(cfg) {
				bad("%s turns hooks off ([features] hooks = false); run 'ctxhook install codex'", cfg)
			}
		}
		if len(wiredPaths) > 0 {
			info("Codex skips hooks you have not trusted: open /hooks in codex to review them")
		}
	}
	return finish(w, problems)
}

// doctorMCPToolHooks: mcp_tool hooks call ctxhook's MCP server; when it
// is missing (not listed), broken (listed, but it fails to start: it is
// run once here, and its error told) or would refuse them (no secret, or
// another), Claude Code skips each and the calls go on without ctxhook.
func doctorMCPToolHooks(env Env, h install.Harness, scope string, okf, bad func(string, ...any)) {
	p, err := resolvePaths(env)
	if err != nil {
		bad("%v", err)
		return
	}
	wd, _ := os.Getwd()
	r := hookhealth.Check(context.Background(), env.Getenv, hookhealth.Environ(os.Environ(), env.Getenv), p, scope, wd, executable())
	again := "re-run 'ctxhook install " + h.Name + " --hook-type mcp_tool'"
	switch {
	case r.MCPConfig == "":
	case r.Missing:
		bad("%s hooks call ctxhook's MCP server, which is missing: %s does not list it, so the calls go on without ctxhook (%s)", scope, r.MCPConfig, again)
	case r.Foreign:
		bad("%s hooks call the MCP server named ctxhook in %s, which is not ctxhook's (it runs %s): the calls go on without ctxhook (rename it, then %s)", scope, r.MCPConfig, r.Command, again)
	case r.Start != nil:
		bad("%s hooks call ctxhook's MCP server, listed in %s but broken: '%s' fails to start: %v; the calls go on without ctxhook", scope, r.MCPConfig, r.Command, r.Start)
	default:
		okf("%s hooks call ctxhook's MCP server (mcp_tool), listed in %s, which starts", scope, r.MCPConfig)
	}
	if r.Secret != nil {
		bad("%s mcp_tool hooks will be refused by ctxhook's MCP server: %v (%s)", scope, r.Secret, again)
	}
}

// installedSelf is the binary an install run now would name: this one,
// or its copy in ctxhook's bin directory (stableSelf).
func installedSelf(env Env, h install.Harness) string {
	f := installFlags{self: executable(), harness: h, scope: "user"}
	if stableSelf(env, &f, false) != 0 {
		return executable()
	}
	return f.self
}

// hookBinaryProblem says what is wrong with the binaries the hook
// commands cmds run, or "": one that is missing (every hook fails open,
// silently), or one in a place that may be deleted (npx's cache, a
// temporary directory: install.MayVanish). ctxhook's own copies (in bin,
// paths.Paths.Bin) are where the user keeps ctxhook's data.
func hookBinaryProblem(cmds []string, bin string, volatile []string) string {
	for _, c := range cmds {
		f := strings.Fields(c)
		if len(f) == 0 {
			continue
		}
		exe := strings.Trim(f[0], `'"`)
		if !filepath.IsAbs(exe) {
			continue // by name, on PATH (a project's files)
		}
		if _, err := os.Stat(exe); err != nil {
			return "hook command points at a missing binary: " + exe + " (every hook is skipped)"
		}
		if why := install.MayVanish(exe, volatile); why != "" && !inDir(exe, bin) {
			return "hook command runs " + exe + ", in " + why + ": the hooks stop when it is deleted"
		}
	}
	return ""
}

// mendCommand is the install that rewires harness's hooks to a binary
// that stays: the same command the user ran, through npx when this one
// runs from npx's cache (install then copies ctxhook to a directory of its
// own).
func mendCommand(harness string) string {
	if strings.HasPrefix(install.MayVanish(executable(), nil), "npx") {
		return "npx ctxhook install " + harness
	}
	return "ctxhook install " + harness
}

func finish(w io.Writer, problems int) int {
	if problems > 0 {
		fmt.Fprintf(w, "\n%s to fix.\n", plural(int64(problems), "thing", "things"))
		return 1
	}
	fmt.Fprintln(w, "\nAll good.")
	return 0
}

func doctorPi(env Env, h install.Harness, okf, bad, info func(string, ...any)) {
	wd, _ := os.Getwd()
	found := false
	for _, scope := range []string{"user", "project"} {
		dir, err := install.PiDir(h, scope, env.Getenv, wd)
		if err != nil {
			bad("%v", err)
			continue
		}
		path := install.PiExtensionPath(dir)
		exe := installedSelf(env, h) // what install writes for this scope
		if scope == "project" {
			exe = install.PortableExe
		}
		present, current := install.CheckPi(path, exe)
		switch {
		case !present:
			info("%s: no ctxhook extension at %s", scope, path)
		case current:
			found = true
			okf("%s extension %s", scope, path)
		default:
			found = true
			bad("%s extension %s names another ctxhook binary (re-run 'ctxhook install %s')", scope, path, h.Name)
		}
	}
	if !found {
		bad("the ctxhook extension is not installed (run 'ctxhook install %s')", h.Name)
	}
}

func doctorOpenCode(env Env, h install.Harness, okf, bad, info func(string, ...any)) {
	wd, _ := os.Getwd()
	found := false
	for _, scope := range []string{"user", "project"} {
		dir, err := install.PluginDir(h, scope, env.Getenv, wd)
		if err != nil {
			bad("%v", err)
			continue
		}
		f := install.OpenCodePaths(h, dir)
		s := install.CheckOpenCode(f, plugin.Wasm)
		if !s.Plugin {
			info("%s config %s: no ctxhook plugin", scope, dir)
			continue
		}
		found = true
		okf("%s plugin %s", scope, f.Plugin)
		if s.WasmCurrent {
			okf("plugin.wasm matches this binary's")
		} else {
			bad("%s is missing or from another ctxhook version (re-run 'ctxhook install %s')", f.Wasm, h.Name)
		}
		switch {
		case s.DependencyInstalled:
			okf("@extism/extism installed in %s", dir)
		case s.Dependency:
			info("@extism/extism is listed in %s; %s installs it on start (offline: npm install there)", f.PackageJSON, h.Title)
		default:
			bad("@extism/extism is not in %s (re-run 'ctxhook install %s')", f.PackageJSON, h.Name)
		}
	}
	if !found {
		bad("the ctxhook plugin is not installed (run 'ctxhook install %s')", h.Name)
	}
}

// relayServers lists the servers the config enables the relay for, sorted.
func relayServers(cfg abi.Config) []string {
	var names []string
	for name, s := range cfg.Servers {
		if s.Relay {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// excludedWhat says what the capture settings keep out of the store, or "".
func excludedWhat(cfg abi.Config) string {
	var what []string
	if c := cfg.Capture; c.Enabled != nil && !*c.Enabled {
		what = append(what, "everything ([capture] enabled = false)")
	}
	if len(cfg.Capture.ExcludeTools) > 0 {
		what = append(what, "tools "+strings.Join(cfg.Capture.ExcludeTools, ", "))
	}
	if len(cfg.Capture.ExcludeCategories) > 0 {
		what = append(what, "categories "+strings.Join(cfg.Capture.ExcludeCategories, ", "))
	}
	var servers []string
	for name, s := range cfg.Servers {
		if s.Capture != nil && !*s.Capture {
			servers = append(servers, name)
		}
	}
	sort.Strings(servers)
	if len(servers) > 0 {
		what = append(what, "servers "+strings.Join(servers, ", "))
	}
	return strings.Join(what, "; ")
}
