package cli

import (
	"bytes"
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
	"github.com/ctxhook/ctxhook/host/internal/childenv"
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
	case h.MCPToolHooks == "":
		return installFlags{}, usageError(env, name, "--hook-type mcp_tool is not available for %s (only hooks that can call an MCP tool take it)", h.Name), false
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
	for _, h := range harnessconfigs.Installable() {
		names = append(names, h.Name)
	}
	return names
}

func settingsPath(env Env, h install.Harness, scope string) (string, error) {
	wd, _ := os.Getwd()
	return h.HooksPath(scope, env.Getenv, wd)
}

// mcpTargets lists where a harness keeps the MCP servers --wrap-mcp
// rewrites (install.MCPTargets): none for the harnesses whose hooks see
// result _meta.
func mcpTargets(h install.Harness, scope string, env Env) []install.MCPTarget {
	wd, _ := os.Getwd()
	return install.MCPTargets(h, scope, env.Getenv, wd)
}

func runInstall(ctx context.Context, env Env, args []string) int {
	f, code, ok := parseInstall(env, "install", "Wire ctxhook's hooks into a harness. Idempotent; never drops your own hooks; keeps each file as it\nfound it (in ctxhook's data directory), so that uninstall puts it back byte for byte. Run from a place\nthat may be deleted (npx's cache, a temporary directory), it copies ctxhook into its data directory\nand wires the copy.", args)
	if !ok {
		return code
	}
	if code := stableSelf(env, &f, true); code != 0 {
		return code
	}
	return kindOf(f.harness).install(ctx, env, f)
}

// stableSelf points f at a copy of this binary in ctxhook's own bin
// directory (paths.Paths.Bin) when this one runs from a place that may be
// deleted (install.MayVanish): hooks and MCP entries naming npx's cache
// stop, silently, when npm clears it. With doCopy the copy is made (or
// found), else only its path is worked out (uninstall, which must know
// the hooks it wrote). Files shared with a project name ctxhook by name
// and need no copy.
func stableSelf(env Env, f *installFlags, doCopy bool) int {
	if f.scope == "project" && f.harness.Kind != harnessconfigs.KindLoader {
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
	return daemon.Spawn(self, childenv.Of(env.Getenv)) == nil
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
	return kindOf(f.harness).uninstall(ctx, env, f)
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
	if f.harness.MCP.Format == install.MCPFormatTOML {
		path, err := f.harness.MCPConfigPath(f.scope, env.Getenv, wd)
		if err != nil {
			return fail(env, "%v", err), false
		}
		plan, note, err = install.PlanTOMLMCP(path, f.exe(), add)
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

// installExtension writes or removes ctxhook's JS extension (Pi's), and
// ctxhook's MCP server in the harness's MCP config.
func installExtension(ctx context.Context, env Env, f installFlags, add bool) int {
	wd, _ := os.Getwd()
	dir, err := f.harness.ConfigDir(f.scope, env.Getenv, wd)
	if err != nil {
		return fail(env, "%v", err)
	}
	path := install.ExtensionPath(dir)
	if f.dryRun {
		return dryRunExtension(env, f, path, add)
	}
	done, err := install.InstallExtension(path, f.exe(), add, f.journal)
	for _, d := range done {
		fmt.Fprintln(env.Stdout, strings.ToUpper(d[:1])+d[1:])
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	// Wrapped servers are unwrapped on every uninstall, as for the other
	// kinds: the harness may have rewritten its MCP config since install.
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
	return afterFilesInstalled(ctx, env, f, dir)
}

// dryRunExtension says what install (or uninstall) of the extension would
// change, as the other harnesses' dry runs do.
func dryRunExtension(env Env, f installFlags, path string, add bool) int {
	if !add {
		if _, err := os.Stat(path); err == nil && !f.restored[path] {
			fmt.Fprintf(env.Stdout, "dry run: would remove %s (if as ctxhook wrote it)\n", path)
		}
		code, _ := ownMCP(env, f, false)
		return code
	}
	ext, err := install.ExtensionFile(f.exe())
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

// installLoader writes or removes the plugin loader, in OpenCode's
// directories or a descendant's (harnesses of kind loader).
func installLoader(ctx context.Context, env Env, f installFlags, add bool) int {
	wd, _ := os.Getwd()
	dir, err := f.harness.ConfigDir(f.scope, env.Getenv, wd)
	if err != nil {
		return fail(env, "%v", err)
	}
	files := install.LoaderPaths(f.harness, dir)
	if f.dryRun {
		return dryRunLoader(env, f, files, add)
	}
	done, err := install.InstallLoader(files, f.self, plugin.Wasm, add, f.journal)
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
	fmt.Fprintln(w)
	for _, line := range notes(f.harness, dir) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Captured events go to %s; search them with 'ctxhook search <terms>'.\n", p.DB())
	fmt.Fprintf(w, "The token relay is off until you enable it per MCP server in %s.\n", p.Config)
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

// dryRunLoader says what install (or uninstall) of the plugin loader
// would change, as the other harnesses' dry runs do: every file,
// the MCP entry and ctxhook's config included.
func dryRunLoader(env Env, f installFlags, files install.LoaderFiles, add bool) int {
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
	plans, err := install.PlanLoader(files, f.self, plugin.Wasm, f.journal)
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
