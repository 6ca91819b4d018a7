package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/internal/version"
	"github.com/ctxhook/ctxhook/plugin"
)

type installFlags struct {
	// self is the ctxhook binary the user's own files name: this one.
	self    string
	noMCP   bool
	mcpTool bool // --hook-type mcp_tool
	harness install.Harness
	scope   string
	dryRun  bool
	wrapMCP bool
	servers []string // with --wrap-mcp: only these
	journal install.Journal
	// restored: files uninstall put back from the journal (or would, in
	// a dry run); the structural removal leaves them alone.
	restored map[string]bool
}

// known are the other binaries whose hooks in path are ctxhook's: the
// ones the journal saw install write there, and this one when the files
// name a copy of it (an older install wrote this one's path).
func (f installFlags) known(path string) []string {
	return append(f.journal.Exes(path), executable())
}

// exe is how the files install writes name ctxhook: this binary's path
// in the user's own files; in a project's, which are shared with others
// and other machines, the bare name each user's PATH resolves.
func (f installFlags) exe() string {
	if f.scope == "project" {
		return install.PortableExe
	}
	return f.self
}

func parseInstall(env Env, name, summary string, args []string) (installFlags, int, bool) {
	flags := newFlags(env, name, "<harness> [--user|--project] [--dry-run] [--wrap-mcp [server...]] [--hook-type command|mcp_tool]", summary+"\nHarnesses: "+strings.Join(harnessNames(), ", ")+".")
	user := flags.Bool("user", false, "the user's settings (~/.claude, ~/.codex, ~/.gemini, ~/.cursor); the default")
	project := flags.Bool("project", false, "this project's settings (.claude/, .codex/, .gemini/, .cursor/, .mcp.json)")
	dry := flags.Bool("dry-run", false, "print the resulting files, change nothing")
	wrap := flags.Bool("wrap-mcp", false, "also run MCP servers through `ctxhook proxy` (the named ones, or every stdio server)")
	noMCP := flags.Bool("no-mcp", false, "do not add (or remove) ctxhook's own MCP server (search, get_event...)")
	hookType := flags.String("hook-type", "command", "Claude Code only: \"mcp_tool\" has its tool hooks call ctxhook's MCP server, which the client already runs, instead of starting a command per hook")
	pos, code, ok := parse(flags, args)
	if !ok {
		return installFlags{}, code, false
	}
	if len(pos) > 1 && !*wrap {
		return installFlags{}, usageError(env, name, "unexpected argument %q (MCP server names go with --wrap-mcp)", pos[1]), false
	}
	if len(pos) < 1 {
		return installFlags{}, usageError(env, name, "name a harness: %s", strings.Join(harnessNames(), ", ")), false
	}
	h, known := install.Lookup(pos[0])
	if !known {
		return installFlags{}, usageError(env, name, "unknown harness %q (supported: %s)", pos[0], strings.Join(harnessNames(), ", ")), false
	}
	if *wrap && len(mcpTargets(h, "user", env)) == 0 {
		fmt.Fprintf(env.Stderr, "ctxhook: --wrap-mcp is not available for %s: its hooks see result _meta, so the relay needs no proxy (see 'ctxhook help install')\n", h.Title)
		return installFlags{}, 2, false
	}
	if *user && *project {
		return installFlags{}, usageError(env, name, "choose one of --user and --project"), false
	}
	switch {
	case *hookType == "command":
	case *hookType != "mcp_tool":
		return installFlags{}, usageError(env, name, "--hook-type is command or mcp_tool, not %q", *hookType), false
	case h.Name != install.Claude.Name:
		return installFlags{}, usageError(env, name, "--hook-type mcp_tool is for claude-code only (its hooks can call an MCP tool)"), false
	case *noMCP:
		return installFlags{}, usageError(env, name, "--hook-type mcp_tool needs ctxhook's MCP server: leave out --no-mcp"), false
	case *project && name == "install":
		// The hooks carry this user's hook secret: a project's settings
		// are shared with others, and would hand it out (and hold one
		// that is nobody else's).
		return installFlags{}, usageError(env, name, "--hook-type mcp_tool is for the user's settings (its hooks carry your own hook secret; a project's settings are shared): leave out --project"), false
	default:
		h = install.WithMCPToolHooks(h, "")
	}
	f := installFlags{self: executable(), harness: h, scope: "user", dryRun: *dry, wrapMCP: *wrap, servers: pos[1:], noMCP: *noMCP, mcpTool: *hookType == "mcp_tool"}
	if *project {
		f.scope = "project"
	}
	p, err := resolvePaths(env)
	if err == nil && !*dry {
		err = paths.EnsureDir(p.Installs())
	}
	if err != nil {
		return installFlags{}, fail(env, "%v", err), false
	}
	f.journal = install.Journal{Dir: p.Installs(), Harness: h.Name}
	if f.mcpTool && name == "install" {
		if f.harness.Secret, err = hookSecret(p, *dry); err != nil {
			return installFlags{}, fail(env, "%v", err), false
		}
	}
	return f, 0, true
}

// hookSecret is the secret the mcp_tool hooks carry: made once, kept in
// ctxhook's data directory. A dry run makes none: it shows the one there
// is, or a stand-in (masked either way: see masked).
func hookSecret(p paths.Paths, dry bool) (string, error) {
	path := hooksecret.Path(p.Data)
	if !dry {
		return hooksecret.Ensure(path)
	}
	if s, err := hooksecret.Read(path); err == nil {
		return s, nil
	}
	return "(made by install)", nil
}

// masked is a file install would write, for a dry run's output, with the
// hook secret replaced by where it is kept.
func masked(f installFlags, b []byte, p paths.Paths) []byte {
	if f.harness.Secret == "" {
		return b
	}
	return bytes.ReplaceAll(b, []byte(f.harness.Secret), []byte("(hook secret, in "+hooksecret.Path(p.Data)+")"))
}

func harnessNames() []string {
	var names []string
	for _, h := range harnessconfigs.All() {
		names = append(names, h.Name)
	}
	return names
}

func settingsPath(env Env, h install.Harness, scope string) (string, error) {
	wd, _ := os.Getwd()
	return h.HooksPath(scope, env.Getenv, wd)
}

// mcpTargets lists where a harness keeps the MCP servers --wrap-mcp
// rewrites: where ctxhook's own server goes (MCPEntryFor), and Claude
// Code's other files. None for the harnesses whose hooks see result
// _meta: the OpenCode loader's (Kilo's too) and Codex, whose servers are
// TOML (MCPEntryFor has no entry for it).
func mcpTargets(h install.Harness, scope string, env Env) []install.MCPTarget {
	wd, _ := os.Getwd()
	switch {
	case h.Name == install.Claude.Name:
		return install.ClaudeMCPTargets(scope, install.Home(env.Getenv), wd)
	case h.Plugin:
		return nil
	}
	if m, ok := install.MCPEntryFor(h, scope, env.Getenv, wd); ok {
		return []install.MCPTarget{{Path: m.Path, Keys: m.Keys}}
	}
	return nil
}

func runInstall(ctx context.Context, env Env, args []string) int {
	f, code, ok := parseInstall(env, "install", "Wire ctxhook's hooks into a harness. Idempotent; never drops your own hooks; keeps each file as it\nfound it (in ctxhook's data directory), so that uninstall puts it back byte for byte. Run from a place\nthat may be deleted (npx's cache, a temporary directory), it copies ctxhook into its data directory\nand wires the copy.", args)
	if !ok {
		return code
	}
	if code := stableSelf(env, &f, true); code != 0 {
		return code
	}
	if f.harness.Plugin {
		return installOpenCode(ctx, env, f, true)
	}
	if f.harness.Extension {
		return installPi(ctx, env, f, true)
	}
	path, err := settingsPath(env, f.harness, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.mcpTool {
		// The hooks would send every tool call to whatever server is
		// named ctxhook there: it must be ctxhook's, or one install adds.
		wd, _ := os.Getwd()
		if m, ok := install.MCPEntryFor(f.harness, f.scope, env.Getenv, wd); ok {
			if _, note, err := install.PlanMCPEntry(m, f.exe(), true); err != nil || note != "" {
				return fail(env, "--hook-type mcp_tool: %s; nothing was changed (rename that server, or install without --hook-type)", cmp.Or(note, fmt.Sprint(err)))
			}
		}
	}
	plan, err := install.PlanHooks(f.harness, path, f.exe(), true, f.known(path)...)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.dryRun {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be %s:\n", path, map[bool]string{true: "written", false: "left unchanged"}[plan.Changed])
		p, _ := resolvePaths(env)
		env.Stdout.Write(masked(f, plan.After, p))
		if f.harness.Name == install.Codex.Name {
			if fp, err := install.PlanCodexFeatures(install.CodexConfigPath(path), true); err == nil && fp.Changed {
				fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written:\n", fp.Path)
				env.Stdout.Write(fp.After)
			}
		}
		if f.wrapMCP {
			if code := wrapMCP(env, f, p.Config, true); code != 0 {
				return code
			}
		}
		if code := ownMCPServer(env, f, true); code != 0 {
			return code
		}
		dryRunConfig(env)
		return 0
	}
	if err := f.journal.Write(plan, true); err != nil {
		return fail(env, "%v", err)
	}
	w := env.Stdout
	if plan.Changed {
		fmt.Fprintf(w, "Wired %d %s hooks into %s\n", plan.Added, f.harness.Title, path)
	} else {
		fmt.Fprintf(w, "Already installed in %s; nothing changed.\n", path)
	}
	if f.harness.Name == install.Codex.Name {
		fp, err := install.PlanCodexFeatures(install.CodexConfigPath(path), true)
		if err != nil {
			return fail(env, "%v", err)
		}
		if fp.Changed {
			if err := f.journal.Write(fp, true); err != nil {
				return fail(env, "%v", err)
			}
			fmt.Fprintf(w, "Turned hooks on in %s ([features] hooks = true)\n", fp.Path)
		}
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
	if code := ownMCPServer(env, f, true); code != 0 {
		return code
	}
	if created, err := writeDefaultConfig(p.Config); err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook: %v\n", err)
	} else if created {
		fmt.Fprintf(w, "Wrote a commented config to %s\n", p.Config)
	}
	// Compile the plugin now, so that neither the first hook nor the first
	// proxied call of a session pays for it: both builds, the one hooks
	// and the daemon run (without interruptible calls) and the one a
	// proxy or a hook finished late runs when no daemon answers.
	warmPlugin(ctx, env, p.WasmCache())
	if startDaemon(env, p, f.self) {
		fmt.Fprintln(w, "Started the ctxhook daemon, so the first session finds the plugin loaded (it exits after 10 minutes without a request).")
	}
	fmt.Fprintf(w, "\nCaptured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s:\n", p.Config)
	fmt.Fprintln(w, "  [servers.<name>]\n  relay = true")
	for _, line := range harnessNotes[f.harness.Name] {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

// stableSelf points f at a copy of this binary in ctxhook's own bin
// directory (paths.Paths.Bin) when this one runs from a place that may be
// deleted (install.MayVanish): hooks and MCP entries naming npx's cache
// stop, silently, when npm clears it. With doCopy the copy is made (or
// found), else only its path is worked out (uninstall, which must know
// the hooks it wrote). Files shared with a project name ctxhook by name
// and need no copy.
func stableSelf(env Env, f *installFlags, doCopy bool) int {
	if f.scope == "project" && !f.harness.Plugin {
		return 0
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	why := install.MayVanish(f.self, install.VolatileDirs())
	if why == "" || inDir(f.self, p.Bin()) {
		return 0
	}
	s, err := install.PlanStable(p.Bin(), f.self, version.Number)
	if err != nil {
		return fail(env, "%v", err)
	}
	from := f.self
	f.self = s.Exe
	switch {
	case !doCopy:
		return 0
	case f.dryRun:
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, would copy ctxhook from %s (%s) to %s, and wire the copy\n", filepath.Dir(from), why, s.Dir)
		return 0
	}
	wrote, err := s.Copy()
	if err != nil {
		return fail(env, "%v", err)
	}
	if wrote {
		fmt.Fprintf(env.Stdout, "Copied ctxhook to %s: it ran from %s (%s),\nwhere hooks would stop working when it is deleted. The hooks run the copy.\n", s.Dir, filepath.Dir(from), why)
	} else {
		fmt.Fprintf(env.Stdout, "The hooks run ctxhook's copy in %s (this one runs from %s).\n", s.Dir, why)
	}
	return 0
}

// inDir reports whether path lies in dir (or below).
func inDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// warmPlugin compiles both builds of the plugin into the cache, at once
// (two cores make it about as quick as one), saying so: it takes a few
// seconds the first time, and nothing after.
func warmPlugin(ctx context.Context, env Env, cache string) {
	start := time.Now()
	errs := make(chan error, 2)
	for _, noInterrupt := range []bool{true, false} {
		go func() {
			r, err := runner.New(ctx, runner.Options{CacheDir: cache, NoInterrupt: noInterrupt})
			if err == nil {
				r.Close(ctx)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			fmt.Fprintf(env.Stderr, "ctxhook: warning: the plugin did not load: %v\n", err)
			return
		}
	}
	if d := time.Since(start); d > time.Second {
		fmt.Fprintf(env.Stdout, "Compiled the plugin for this machine in %.1fs (once).\n", d.Seconds())
	}
}

// startDaemon starts the daemon that hooks and proxies ask for their
// decisions, unless one runs or CTXHOOK_NO_DAEMON is set: loading the
// plugin takes a daemon a few hundred milliseconds on a busy machine,
// and a harness that starts its first session right after install would
// otherwise wait for it in its first hook or proxied MCP server. The
// daemon is started only with this process's own environment: a caller
// that resolves its paths from other variables (an embedding program)
// would have a daemon serve the wrong directories.
func startDaemon(env Env, p paths.Paths, self string) bool {
	if env.Getenv("CTXHOOK_NO_DAEMON") != "" {
		return false
	}
	if own, err := paths.Resolve(os.Getenv); err != nil || own != p {
		return false
	}
	// One that answers runs; a socket file alone may be a killed
	// daemon's (as the proxy finds out, daemon.Client.Connect).
	c := daemon.Client{Paths: p}
	defer c.Close()
	if c.Connect(time.Second) {
		return false
	}
	return daemon.Spawn(self, os.Environ()) == nil
}

func runUninstall(ctx context.Context, env Env, args []string) int {
	f, code, ok := parseInstall(env, "uninstall", "Remove exactly what 'ctxhook install' added: files it changed and nobody changed since go back\nbyte for byte, files it created go. Your captured data and ctxhook's config are kept.", args)
	if !ok {
		return code
	}
	if code := stableSelf(env, &f, false); code != 0 {
		return code
	}
	if code := uninstallFiles(ctx, env, f); code != 0 || f.dryRun {
		return code
	}
	// The copies of ctxhook install made go with the last file naming them.
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	removed, err := install.RemoveUnusedBinaries(p.Bin(), f.journal)
	for _, dir := range removed {
		fmt.Fprintf(env.Stdout, "Removed ctxhook's copy in %s (no install runs it any more)\n", dir)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	return 0
}

// uninstallFiles takes ctxhook out of the harness's files.
func uninstallFiles(ctx context.Context, env Env, f installFlags) int {
	// Files only this install changed, unchanged since, go back byte for
	// byte (or away, if install created them).
	restored, err := f.journal.Restore(f.dryRun)
	f.restored = map[string]bool{}
	for _, r := range restored {
		f.restored[r.Path] = true
		switch {
		case f.dryRun && r.Removed:
			fmt.Fprintf(env.Stdout, "dry run: would remove %s (install created it)\n", r.Path)
		case f.dryRun:
			fmt.Fprintf(env.Stdout, "dry run: would put %s back as it was before install\n", r.Path)
		case r.Removed:
			fmt.Fprintf(env.Stdout, "Removed %s (install created it)\n", r.Path)
		default:
			fmt.Fprintf(env.Stdout, "Put %s back as it was before install\n", r.Path)
		}
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.harness.Plugin {
		return installOpenCode(ctx, env, f, false)
	}
	if f.harness.Extension {
		return installPi(ctx, env, f, false)
	}
	path, err := settingsPath(env, f.harness, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	// MCP changes first: for Gemini CLI the MCP servers and the hooks share
	// one file, and the hooks plan must start from what they left.
	p, _ := resolvePaths(env)
	if code := wrapMCP(env, f, p.Config, false); code != 0 {
		return code
	}
	if code := ownMCPServer(env, f, false); code != 0 {
		return code
	}
	plan, err := install.PlanHooks(f.harness, path, f.exe(), false, f.known(path)...)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.harness.Name == install.Codex.Name && !f.dryRun {
		fp, err := install.PlanCodexFeatures(install.CodexConfigPath(path), false)
		if err != nil {
			return fail(env, "%v", err)
		}
		if fp.Changed && !f.restored[fp.Path] {
			if err := f.journal.Write(fp, false); err != nil {
				return fail(env, "%v", err)
			}
			fmt.Fprintf(env.Stdout, "Took back the [features] lines ctxhook added to %s\n", fp.Path)
		}
	}
	if f.dryRun {
		if plan.Changed && !f.restored[path] {
			fmt.Fprintf(env.Stderr, "ctxhook: dry run, %d ctxhook hooks would be removed from %s:\n", plan.Removed, path)
			env.Stdout.Write(plan.After)
		}
		return 0
	}
	if !plan.Changed {
		if !f.restored[path] {
			fmt.Fprintf(env.Stdout, "No ctxhook hooks in %s; nothing changed.\n", path)
		}
		return 0
	}
	if err := f.journal.Write(plan, false); err != nil {
		return fail(env, "%v", err)
	}
	fmt.Fprintf(env.Stdout, "Removed %d ctxhook hooks from %s (you changed the file since install, so only ctxhook's entries were taken out)\n", plan.Removed, path)
	fmt.Fprintf(env.Stdout, "Captured data stays in %s (delete it by hand if you want it gone).\n", p.Data)
	return 0
}

// ownMCPServer adds (or removes) ctxhook's own MCP server, `ctxhook mcp`,
// in the harness's MCP configuration.
func ownMCPServer(env Env, f installFlags, add bool) int {
	code, _ := ownMCP(env, f, add)
	return code
}

// ownMCP is ownMCPServer, saying also whether it changed (or in a dry
// run would change) a file.
func ownMCP(env Env, f installFlags, add bool) (code int, changed bool) {
	if f.noMCP {
		return 0, false
	}
	wd, _ := os.Getwd()
	var plan install.Plan
	var note string
	var err error
	if f.harness.Name == install.Codex.Name {
		hooks, err := settingsPath(env, f.harness, f.scope)
		if err != nil {
			return fail(env, "%v", err), false
		}
		plan, note, err = install.PlanCodexMCP(install.CodexConfigPath(hooks), f.exe(), add)
		if err != nil {
			return fail(env, "%v", err), false
		}
	} else {
		m, ok := install.MCPEntryFor(f.harness, f.scope, env.Getenv, wd)
		if !ok {
			return 0, false
		}
		if plan, note, err = install.PlanMCPEntry(m, f.exe(), add); err != nil {
			return fail(env, "%v", err), false
		}
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "ctxhook: %s\n", note)
	}
	if !plan.Changed || f.restored[plan.Path] {
		return 0, false
	}
	if f.dryRun {
		verb := map[bool]string{true: "add ctxhook's MCP server to", false: "remove ctxhook's MCP server from"}[add]
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, would %s %s:\n", verb, plan.Path)
		env.Stdout.Write(plan.After)
		return 0, true
	}
	plan.Exe = f.exe() // the journal knows which binary the entry runs
	if err := f.journal.Write(plan, add); err != nil {
		return fail(env, "%v", err), false
	}
	if add {
		fmt.Fprintf(env.Stdout, "Added ctxhook's MCP server (search, get_context, get_event, stats) to %s\n", plan.Path)
	} else {
		fmt.Fprintf(env.Stdout, "Removed ctxhook's MCP server from %s\n", plan.Path)
	}
	return 0, true
}

// installPi writes or removes ctxhook's Pi extension, and ctxhook's MCP
// server in Pi's mcp.json.
func installPi(ctx context.Context, env Env, f installFlags, add bool) int {
	wd, _ := os.Getwd()
	dir, err := install.PiDir(f.harness, f.scope, env.Getenv, wd)
	if err != nil {
		return fail(env, "%v", err)
	}
	path := install.PiExtensionPath(dir)
	if f.dryRun {
		return dryRunPi(env, f, path, add)
	}
	done, err := install.InstallPi(path, f.exe(), add, f.journal)
	for _, d := range done {
		fmt.Fprintln(env.Stdout, strings.ToUpper(d[:1])+d[1:])
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	// Wrapped servers are unwrapped on every uninstall, as for the other
	// harnesses: Pi may have rewritten mcp.json since install.
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
	w := env.Stdout
	if len(done) == 0 && !mcpChanged && (add || len(f.restored) == 0) {
		fmt.Fprintf(w, map[bool]string{true: "Already installed in %s; nothing changed.\n", false: "No ctxhook extension in %s; nothing changed.\n"}[add], path)
	}
	if !add {
		return 0
	}
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
	fmt.Fprintf(w, "\nPi loads the extension at its next start. Its hooks see MCP tools that Pi exposes directly\n")
	fmt.Fprintf(w, "(\"exposure\": \"direct\" on the server in mcp.json), but never a result's _meta: for a server\n")
	fmt.Fprintf(w, "that returns its token only there, run it through the proxy: 'ctxhook install pi --wrap-mcp <server>'.\n")
	fmt.Fprintf(w, "Captured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s.\n", p.Config)
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

// dryRunPi says what install (or uninstall) of the Pi extension would
// change, as the other harnesses' dry runs do.
func dryRunPi(env Env, f installFlags, path string, add bool) int {
	if !add {
		if _, err := os.Stat(path); err == nil && !f.restored[path] {
			fmt.Fprintf(env.Stdout, "dry run: would remove %s (if as ctxhook wrote it)\n", path)
		}
		code, _ := ownMCP(env, f, false)
		return code
	}
	ext, err := install.PiExtension(f.exe())
	if err != nil {
		return fail(env, "%v", err)
	}
	old, _ := os.ReadFile(path)
	showPlan(env, install.Plan{Path: path, Before: old, After: ext, Changed: !bytes.Equal(old, ext)})
	if code, _ := ownMCP(env, f, true); code != 0 {
		return code
	}
	dryRunConfig(env)
	return 0
}

// installOpenCode writes or removes the OpenCode plugin, in OpenCode's
// directories or a descendant's (Kilo CLI).
func installOpenCode(ctx context.Context, env Env, f installFlags, add bool) int {
	wd, _ := os.Getwd()
	dir, err := install.PluginDir(f.harness, f.scope, env.Getenv, wd)
	if err != nil {
		return fail(env, "%v", err)
	}
	files := install.OpenCodePaths(f.harness, dir)
	if f.dryRun {
		return dryRunOpenCode(env, f, files, add)
	}
	done, err := install.InstallOpenCode(files, f.self, plugin.Wasm, add, f.journal)
	for _, d := range done {
		fmt.Fprintln(env.Stdout, strings.ToUpper(d[:1])+d[1:])
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	code, mcpChanged := ownMCP(env, f, add)
	if code != 0 {
		return code
	}
	w := env.Stdout
	// Only what happened is reported: files the journal put back, the
	// loader's files, the MCP entry; "nothing changed" when none did.
	if len(done) == 0 && !mcpChanged && (add || len(f.restored) == 0) {
		fmt.Fprintf(w, map[bool]string{true: "Already installed in %s; nothing changed.\n", false: "No ctxhook plugin in %s; nothing changed.\n"}[add], dir)
	}
	if !add {
		return 0
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	if created, err := writeDefaultConfig(p.Config); err == nil && created {
		fmt.Fprintf(w, "Wrote a commented config to %s\n", p.Config)
	}
	fmt.Fprintf(w, "\n%s installs @extism/extism into %s on its next start (bun install).\n", f.harness.Title, dir)
	fmt.Fprintf(w, "Offline, or to do it now: (cd %s && npm install)\n", install.ShellQuote(dir))
	fmt.Fprintf(w, "Captured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s.\n", p.Config)
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

// dryRunOpenCode says what install (or uninstall) of the OpenCode
// loader would change, as the other harnesses' dry runs do: every file,
// the MCP entry and ctxhook's config included.
func dryRunOpenCode(env Env, f installFlags, files install.OpenCodeFiles, add bool) int {
	if !add {
		for _, p := range []string{files.Plugin, files.Wasm, files.Record} {
			if _, err := os.Stat(p); err == nil && !f.restored[p] {
				fmt.Fprintf(env.Stdout, "dry run: would remove %s (if as ctxhook wrote it)\n", p)
			}
		}
		if !f.restored[files.PackageJSON] {
			fmt.Fprintf(env.Stdout, "dry run: would remove @extism/extism from %s (if ctxhook added it)\n", files.PackageJSON)
		}
		code, _ := ownMCP(env, f, false)
		return code
	}
	plans, err := install.PlanOpenCode(files, f.self, plugin.Wasm, f.journal)
	if err != nil {
		return fail(env, "%v", err)
	}
	for _, p := range plans {
		showPlan(env, p)
	}
	if code, _ := ownMCP(env, f, true); code != 0 {
		return code
	}
	dryRunConfig(env)
	return 0
}

// showPlan prints one file of a dry run: what would be written on
// stderr, the new text on stdout (a binary file by its size only).
func showPlan(env Env, p install.Plan) {
	if !p.Changed {
		return
	}
	if !utf8.Valid(p.After) || bytes.IndexByte(p.After, 0) >= 0 {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written (%d bytes, binary, not shown)\n", p.Path, len(p.After))
		return
	}
	fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written:\n", p.Path)
	env.Stdout.Write(p.After)
}

// dryRunConfig says that install would write ctxhook's commented config,
// when there is none yet.
func dryRunConfig(env Env) {
	p, err := resolvePaths(env)
	if err != nil {
		return
	}
	if _, err := os.Stat(p.Config); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, would write ctxhook's commented config to %s\n", p.Config)
	}
}

// harnessNotes are what a user of each harness must know after install.
var harnessNotes = map[string][]string{
	"claude-code": {
		"Note: for relay-enabled servers, injecting the token also auto-approves the call",
		"(Claude Code honours a changed input only with permissionDecision \"allow\").",
		"Claude Code's hooks never see result _meta: for servers that return their token there,",
		"run them through the proxy: 'ctxhook install claude-code --wrap-mcp <server>'.",
	},
	"codex": {
		"IMPORTANT: Codex runs a new or changed hook only after you trust it. Start codex and",
		"open /hooks to review and trust ctxhook's hooks; until then Codex skips them silently",
		"('codex exec' included).",
		"Note: for relay-enabled servers, injecting the token also approves the call",
		"(Codex honours updatedInput only with permissionDecision \"allow\").",
	},
	"gemini": {
		"Gemini CLI's hooks never see result _meta, so the relay cannot capture tokens there:",
		"run relay servers through the proxy: 'ctxhook install gemini --wrap-mcp <server>'.",
		"Hooks need hooksConfig.enabled (the default since Gemini CLI 0.26).",
	},
	"copilot": {
		"Copilot's hooks see an MCP result as its text only, never its _meta: for servers that",
		"return their token there, run them through the proxy: 'ctxhook install copilot --wrap-mcp <server>'.",
		"Copilot also runs a repository's .claude/settings.json hooks: ctxhook's Claude Code hooks",
		"leave Copilot's calls to these, so each call is recorded once.",
	},
	"qwen": {
		"Qwen Code ignores a hook's changed input, so its hooks cannot relay a token: run relay",
		"servers through the proxy: 'ctxhook install qwen --wrap-mcp <server>'. Capture and nudges",
		"work through the hooks; results are not shaped (Qwen's hooks cannot replace them).",
	},
	"auggie": {
		"Auggie's hooks see an MCP result as its text only, never its _meta: for servers that",
		"return their token there, run them through the proxy: 'ctxhook install auggie --wrap-mcp <server>'.",
		"Shaping does not apply: Auggie's hooks cannot replace a result.",
	},
	"droid": {
		"Droid's hooks see an MCP result as its text only, never its _meta: for servers that",
		"return their token there, run them through the proxy: 'ctxhook install droid --wrap-mcp <server>'.",
		"Droid lists MCP tools only after the model asks for them (ToolSearch), or with",
		"'droid exec --add-tools MCP:<server>'. Shaping does not apply: Droid's hooks cannot replace a result.",
	},
	"cursor": {
		"Cursor names MCP tools without their server in preToolUse (\"MCP:<tool>\"). ctxhook",
		"learns each tool's server from afterMCPExecution and injects a token only into tools",
		"it has seen on exactly one relay server; see harness-configs/README.md, Cursor.",
	},
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
	var changed []string
	for _, t := range mcpTargets(f.harness, f.scope, env) {
		res, err := install.WrapMCP(t, f.exe(), f.servers, wrap)
		if err != nil {
			return fail(env, "%v", err)
		}
		for name, why := range res.Skipped {
			fmt.Fprintf(env.Stderr, "ctxhook: MCP server %q in %s not wrapped: %s\n", name, t.Path, why)
		}
		if !res.Plan.Changed || f.restored[t.Path] {
			continue
		}
		changed = append(changed, res.Changed...)
		verb := map[bool]string{true: "Wrapped", false: "Unwrapped"}[wrap]
		if f.dryRun {
			fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written (%s %s):\n", t.Path, strings.ToLower(verb), strings.Join(res.Changed, ", "))
			env.Stdout.Write(res.Plan.After)
			continue
		}
		res.Plan.Exe = f.exe() // the proxy command runs it
		if err := f.journal.Write(res.Plan, wrap); err != nil {
			return fail(env, "%v", err)
		}
		fmt.Fprintf(env.Stdout, "%s MCP servers %s in %s\n", verb, strings.Join(res.Changed, ", "), t.Path)
	}
	missing := 0
	if wrap && len(f.servers) > 0 {
		for _, s := range f.servers {
			if !slices.Contains(changed, s) {
				fmt.Fprintf(env.Stderr, "ctxhook: no stdio MCP server %q to wrap in %s's %s config (see 'ctxhook doctor %s')\n", s, f.harness.Title, f.scope, f.harness.Name)
				missing++
			}
		}
	}
	// A named server that is not there is an error, after the others are
	// done: the user meant something that did not happen.
	status := min(missing, 1)
	if len(changed) == 0 {
		return status
	}
	if f.dryRun {
		verb := map[bool]string{true: "mark", false: "unmark"}[wrap]
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, would %s %s proxy = true in %s\n", verb, strings.Join(changed, ", "), configPath)
		return status
	}
	// config.toml is changed through the journal too: uninstall puts it
	// back as it was, with no empty [servers.*] sections left.
	// ctxhook's own config (the commented default) is not journaled: it is
	// kept when ctxhook is uninstalled; only the marks are taken back.
	if _, err := writeDefaultConfig(configPath); err != nil {
		return fail(env, "%v", err)
	}
	before, err := os.ReadFile(configPath)
	if err != nil {
		return fail(env, "%v", err)
	}
	after := []byte(install.MarkProxied(string(before), changed, wrap))
	if err := f.journal.Write(install.Plan{Path: configPath, Before: before, After: after, Changed: !bytes.Equal(before, after), Mode: 0o600}, wrap); err != nil {
		return fail(env, "%v", err)
	}
	if wrap {
		fmt.Fprintf(env.Stdout, "Marked them proxy = true in %s. To relay their session tokens, add relay = true\n", configPath)
		fmt.Fprintf(env.Stdout, "to their [servers.<name>] sections. Restart %s to pick up the change.\n", f.harness.Title)
	}
	return status
}
