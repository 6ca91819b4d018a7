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

	"github.com/ctxhook/ctxhook/host/internal/childenv"
	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/firing"
	"github.com/ctxhook/ctxhook/host/internal/hookhealth"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runDoctor(ctx context.Context, env Env, args []string) int {
	h, asJSON, code, ok := parseDoctor(env, args)
	if !ok {
		return code
	}
	if asJSON {
		return doctorFiringJSON(env, h)
	}
	c := &checks{w: env.Stdout}
	fmt.Fprintln(c.w, "ctxhook")
	c.ok("binary %s (%s)", executable(), Version())
	if testhooks.Enabled {
		fmt.Fprintln(c.w, "  !!    "+knobBuildWarning)
	}
	p, err := resolvePaths(env)
	if err != nil {
		c.bad("%v", err)
		return 1
	}
	doctorPlugin(ctx, c, p)
	doctorDirs(env, c, p)
	doctorDaemon(env, c, p)
	doctorConfig(env, c, p)
	doctorStore(c, p)
	doctorShared(env, p, c.ok, c.bad, c.info)
	fmt.Fprintln(c.w, "\n"+h.Title)
	kindOf(h).doctor(env, h, c)
	return c.finish()
}

// parseDoctor takes doctor's one argument, a harness install knows.
func parseDoctor(env Env, args []string) (h install.Harness, asJSON bool, code int, ok bool) {
	flags := newFlags(env, "doctor", "<harness>", "Check what is wired and what is not. Exit 1 when something needs fixing.")
	jsonFlag := flags.Bool("json", false, "print whether each hook is configured and firing, as JSON")
	pos, code, ok := parse(flags, args)
	if !ok {
		return h, false, code, false
	}
	if len(pos) > 1 {
		return h, false, usageError(env, "doctor", "unexpected argument %q", pos[1]), false
	}
	if len(pos) != 1 {
		return h, false, usageError(env, "doctor", "name a harness: %s", strings.Join(harnessNames(), ", ")), false
	}
	h, known := install.Lookup(pos[0])
	if !known {
		return h, false, usageError(env, "doctor", "unknown harness %q (supported: %s)", pos[0], strings.Join(harnessNames(), ", ")), false
	}
	return h, *jsonFlag, 0, true
}

// checks prints doctor's findings, one a line, and counts the problems.
type checks struct {
	w        io.Writer
	problems int
}

func (c *checks) ok(format string, a ...any) { fmt.Fprintf(c.w, "  ok    "+format+"\n", a...) }
func (c *checks) bad(format string, a ...any) {
	c.problems++
	fmt.Fprintf(c.w, "  FIX   "+format+"\n", a...)
}
func (c *checks) info(format string, a ...any) { fmt.Fprintf(c.w, "  --    "+format+"\n", a...) }

// doctorPlugin: the plugin loads, and its compilation cache is usable.
func doctorPlugin(ctx context.Context, c *checks, p paths.Paths) {
	var cacheWarn []string
	if r, err := runner.New(ctx, runner.Options{CacheDir: p.WasmCache(), Warn: func(s string) { cacheWarn = append(cacheWarn, s) }}); err != nil {
		c.bad("plugin does not load: %v", err)
	} else {
		r.Close(ctx)
		c.ok("plugin loads (%d bytes), compilation cache in %s", len(plugin.Wasm), p.WasmCache())
	}
	for _, w := range cacheWarn {
		c.bad("%s", strings.TrimPrefix(w, "ctxhook: "))
	}
}

// doctorDirs: directories another user owns or may write are refused:
// hooks then store nothing, or run without the daemon. Only doctor says
// so at length.
func doctorDirs(env Env, c *checks, p paths.Paths) {
	for _, d := range []struct{ dir, what string }{
		{p.Data, "hooks cannot store what they capture"},
		{p.DaemonDir(), "the daemon cannot start (hooks decide in-process, slower)"},
		{filepath.Dir(p.Socket()), "the daemon cannot start (hooks decide in-process, slower)"},
	} {
		if _, err := os.Lstat(d.dir); err != nil {
			continue
		}
		if err := platform.OwnedDir(d.dir); err != nil {
			c.bad("%v: %s", err, d.what)
		}
	}
	for _, l := range leftovers(env.Getenv, p) {
		c.bad("%s is owned by uid %d, not by %s: ctxhook cannot write there (a root run left it?); mend it with: sudo chown -R %s: %s",
			l.path, l.uid, l.owner, shellQuote(l.owner), shellQuote(l.path))
	}
}

// doctorDaemon: whether a daemon answers, or why hooks decide without.
func doctorDaemon(env Env, c *checks, p paths.Paths) {
	if err := daemon.Supported(); err != nil {
		c.info("%v (slower: see docs/speed.md)", strings.TrimPrefix(err.Error(), "daemon: "))
		return
	}
	if env.Getenv("CTXHOOK_NO_DAEMON") != "" {
		c.info("CTXHOOK_NO_DAEMON is set: hooks decide in-process (slower: see docs/speed.md)")
		return
	}
	d := daemon.Client{Paths: p}
	if d.Connect(500 * time.Millisecond) {
		c.ok("daemon answers on %s", p.Socket())
	} else {
		c.info("no daemon running: the next hook starts one (%s)", p.Socket())
	}
	d.Close()
}

// doctorConfig: the config, what it enables and what it keeps out. A
// config with a problem still applies its valid parts: they are
// described too, as information below the problem.
func doctorConfig(env Env, c *checks, p paths.Paths) {
	cfg, cfgErr := config.Load(p.Config)
	if cfgErr != nil {
		c.bad("%v", cfgErr)
	}
	relay := "relay enabled for no server"
	if names := relayServers(cfg); len(names) > 0 {
		relay = "relay enabled for " + strings.Join(names, ", ")
	}
	if what := excludedWhat(cfg); what != "" {
		c.info("capture excludes %s (what they leave: %s); transcripts are not indexed meanwhile", what, cmp.Or(cfg.Capture.Excluded, abi.ExcludedMetadata))
	}
	if v := env.Getenv(abi.EnvCapture); v != "" {
		c.info("%s=%s in this environment (0, false, off or no store nothing)", abi.EnvCapture, v)
	}
	switch _, err := os.Stat(p.Config); {
	case err != nil:
		c.info("no config at %s (defaults; the relay is off)", p.Config)
	case cfgErr != nil && !strings.HasSuffix(cfgErr.Error(), "the rest applies"):
		c.info("config %s is not read: the defaults apply (the relay is off)", p.Config)
	case cfgErr != nil:
		c.info("config %s: the rest of it applies (%s)", p.Config, relay)
	default:
		c.ok("config %s (%s)", p.Config, relay)
	}
}

// doctorStore: the store opens, and the spool holds nothing set aside.
func doctorStore(c *checks, p paths.Paths) {
	if st, err := store.Open(p.DB(), store.Options{ReadOnly: true}); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.info("no store yet at %s (created by the first hook)", p.DB())
		} else {
			c.bad("%v", err)
		}
	} else {
		s, err := st.Stats("")
		st.Close()
		if err != nil {
			c.bad("store %s: %v", p.DB(), err)
		} else {
			c.ok("store %s: %d events in %d sessions", p.DB(), s.Events, s.Sessions)
		}
	}
	if corrupt, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.corrupt")); len(corrupt) > 0 {
		c.bad("%d spool file(s) in %s could not be read back and were set aside (*.corrupt, not stored): look at them, then delete them", len(corrupt), p.SpoolDir())
	}
}

// doctor checks a hook-file harness's hooks files in both scopes: which
// events run ctxhook, what the commands run, and the switches the
// harness needs on.
func (hookFile) doctor(env Env, h install.Harness, c *checks) {
	p, err := resolvePaths(env)
	if err != nil {
		c.bad("%v", err)
		return
	}
	wiredAnywhere := map[string]bool{}
	var wiredPaths []string
	for _, scope := range []string{"user", "project"} {
		path, wired := doctorHooksFile(env, h, scope, c, p)
		for ev := range wired {
			wiredAnywhere[ev] = true
		}
		if path != "" {
			wiredPaths = append(wiredPaths, path)
		}
	}
	for _, ev := range h.Events() {
		if !wiredAnywhere[ev] {
			c.bad("%s hook is not wired (run 'ctxhook install %s')", ev, h.Name)
		}
	}
	c.problems += firing.Print(c.w, firing.Report(firing.Dir(p.Data), h.Name, h.Events(), wiredAnywhere, env.Getenv, time.Now()))
	for _, path := range wiredPaths {
		if cfg := filepath.Join(filepath.Dir(path), h.FeaturesTOML); h.FeaturesTOML != "" && install.HooksTurnedOff(cfg) {
			c.bad("%s turns hooks off ([features] hooks = false); run 'ctxhook install %s'", cfg, h.Name)
		}
	}
	if len(wiredPaths) > 0 {
		for _, n := range h.DoctorNotes {
			c.info("%s", n)
		}
	}
}

// doctorHooksFile checks one scope's hooks file; it returns its path and
// the events wired there when it has ctxhook's hooks.
func doctorHooksFile(env Env, h install.Harness, scope string, c *checks, p paths.Paths) (string, map[string]bool) {
	path, err := settingsPath(env, h, scope)
	if err != nil {
		c.bad("%v", err)
		return "", nil
	}
	wired, cmds, err := h.Wiring(path, executable(), install.Journal{Dir: p.Installs()}.Exes(path)...)
	switch {
	case os.IsNotExist(err):
		c.info("%s settings %s: not present", scope, path)
		return "", nil
	case err != nil:
		c.bad("%s settings %s: %v", scope, path, err)
		return "", nil
	case len(wired) == 0:
		c.info("%s settings %s: no ctxhook hooks", scope, path)
		return "", nil
	}
	c.ok("%s settings %s: %d of %d hooks", scope, path, len(wired), len(h.Events()))
	if slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "mcp_tool ") }) {
		doctorMCPToolHooks(env, h, scope, c.ok, c.bad)
	}
	if msg := hookBinaryProblem(cmds, p.Bin(), install.VolatileDirs()); msg != "" {
		c.bad("%s (re-run '%s')", msg, mendCommand(h.Name))
	}
	return path, wired
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
	r := hookhealth.Check(context.Background(), env.Getenv, childenv.Of(env.Getenv), p, scope, wd, executable())
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

// finish says how many things need fixing; 1 when any does.
func (c *checks) finish() int {
	if c.problems > 0 {
		fmt.Fprintf(c.w, "\n%s to fix.\n", plural(int64(c.problems), "thing", "things"))
		return 1
	}
	fmt.Fprintln(c.w, "\nAll good.")
	return 0
}

// doctor checks the extension in both scopes: present, and naming the
// binary install would name now.
func (extension) doctor(env Env, h install.Harness, c *checks) {
	okf, bad, info := c.ok, c.bad, c.info
	wd, _ := os.Getwd()
	found := false
	for _, scope := range []string{"user", "project"} {
		dir, err := h.ConfigDir(scope, env.Getenv, wd)
		if err != nil {
			bad("%v", err)
			continue
		}
		path := install.ExtensionPath(dir)
		exe := installedSelf(env, h) // what install writes for this scope
		if scope == "project" {
			exe = install.PortableExe
		}
		present, current := install.CheckExtension(path, exe)
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

// doctor checks the loader in both scopes: the loader, its plugin.wasm
// and the dependency the harness installs.
func (loader) doctor(env Env, h install.Harness, c *checks) {
	okf, bad, info := c.ok, c.bad, c.info
	wd, _ := os.Getwd()
	found := false
	for _, scope := range []string{"user", "project"} {
		dir, err := h.ConfigDir(scope, env.Getenv, wd)
		if err != nil {
			bad("%v", err)
			continue
		}
		f := install.LoaderPaths(h, dir)
		s := install.CheckLoader(f, plugin.Wasm)
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
