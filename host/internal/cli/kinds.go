package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/install"
)

// A kind wires ctxhook into every harness of one kind of the registry
// (harness-configs/harnesses.json): install and uninstall for the
// harness and scope of f, doctor for both scopes. Nothing here or in
// install.go and doctor.go names a harness: what differs between two
// harnesses of one kind is data in their entries.
type kind interface {
	install(ctx context.Context, env Env, f installFlags) int
	uninstall(ctx context.Context, env Env, f installFlags) int
	doctor(env Env, h install.Harness, c *checks)
}

var kinds = map[string]kind{
	harnessconfigs.KindHookFile:   hookFile{},
	harnessconfigs.KindLoader:     loader{},
	harnessconfigs.KindExtension:  extension{},
	harnessconfigs.KindHookScript: hookScript{},
}

// kindOf is the kind of an installable harness (install.Lookup finds
// no other).
func kindOf(h install.Harness) kind { return kinds[h.Kind] }

// notes are what a user of h must know after install, from its entry,
// with dir (the directory install wrote to) filled in.
func notes(h install.Harness, dir string) []string {
	r := strings.NewReplacer("{title}", h.Title, "{dir}", dir, "{dir_quoted}", install.ShellQuote(dir))
	var out []string
	for _, n := range h.Notes {
		out = append(out, r.Replace(n))
	}
	return out
}

// hookFile is the kind of harness that runs ctxhook's hook commands from
// a JSON hooks file merged from its template.
type hookFile struct{}

func (hookFile) install(ctx context.Context, env Env, f installFlags) int {
	path, err := settingsPath(env, f.harness, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	if code := checkHookServer(env, f); code != 0 {
		return code
	}
	plan, err := install.PlanHooks(f.harness, path, f.exe(), true, f.known(path)...)
	if err != nil {
		return fail(env, "%v", err)
	}
	if f.dryRun {
		return dryRunHooks(env, f, plan)
	}
	if err := f.journal.Write(plan, true); err != nil {
		return fail(env, "%v", err)
	}
	if plan.Changed {
		fmt.Fprintf(env.Stdout, "Wired %d %s hooks into %s\n", plan.Added, f.harness.Title, path)
	} else {
		fmt.Fprintf(env.Stdout, "Already installed in %s; nothing changed.\n", path)
	}
	if code := turnHooksOn(env, f, path, true); code != 0 {
		return code
	}
	return afterHookInstall(ctx, env, f)
}

// checkHookServer: mcp_tool hooks would send every tool call to whatever
// server is named ctxhook in the harness's MCP config: it must be
// ctxhook's, or one install adds.
func checkHookServer(env Env, f installFlags) int {
	if !f.mcpTool {
		return 0
	}
	wd, _ := os.Getwd()
	if m, ok := install.MCPEntryFor(f.harness, f.scope, env.Getenv, wd); ok {
		if _, note, err := install.PlanMCPEntry(m, f.exe(), true); err != nil || note != "" {
			return fail(env, "--hook-type mcp_tool: %s; nothing was changed (rename that server, or install without --hook-type)", cmp.Or(note, fmt.Sprint(err)))
		}
	}
	return 0
}

// dryRunHooks prints what install would write: the hooks file, the TOML
// switch, wrapped servers, ctxhook's MCP server and config.
func dryRunHooks(env Env, f installFlags, plan install.Plan) int {
	fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be %s:\n", plan.Path, map[bool]string{true: "written", false: "left unchanged"}[plan.Changed])
	p, _ := resolvePaths(env)
	env.Stdout.Write(masked(f, plan.After, p))
	if fp, ok := featuresPlan(f, plan.Path, true); ok && fp.Changed {
		fmt.Fprintf(env.Stderr, "ctxhook: dry run, %s would be written:\n", fp.Path)
		env.Stdout.Write(fp.After)
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

// featuresPlan is the plan for the TOML file beside the hooks file in
// which the harness needs hooks turned on (FeaturesTOML); ok is false
// when it has none, or the file cannot be read (install then fails on
// it: turnHooksOn).
func featuresPlan(f installFlags, hooksPath string, on bool) (install.Plan, bool) {
	if f.harness.FeaturesTOML == "" {
		return install.Plan{}, false
	}
	fp, err := install.PlanFeaturesTOML(filepath.Join(filepath.Dir(hooksPath), f.harness.FeaturesTOML), on)
	return fp, err == nil
}

// turnHooksOn turns hooks on (or takes back that install did) in the
// harness's FeaturesTOML, through the journal.
func turnHooksOn(env Env, f installFlags, hooksPath string, on bool) int {
	if f.harness.FeaturesTOML == "" {
		return 0
	}
	fp, err := install.PlanFeaturesTOML(filepath.Join(filepath.Dir(hooksPath), f.harness.FeaturesTOML), on)
	if err != nil {
		return fail(env, "%v", err)
	}
	if !fp.Changed || (!on && f.restored[fp.Path]) {
		return 0
	}
	if err := f.journal.Write(fp, on); err != nil {
		return fail(env, "%v", err)
	}
	if on {
		fmt.Fprintf(env.Stdout, "Turned hooks on in %s ([features] hooks = true)\n", fp.Path)
	} else {
		fmt.Fprintf(env.Stdout, "Took back the [features] lines ctxhook added to %s\n", fp.Path)
	}
	return 0
}

// afterHookInstall does what follows the hooks: wrapped servers,
// ctxhook's MCP server and config, the warm plugin and daemon, and what
// the user must know.
func afterHookInstall(ctx context.Context, env Env, f installFlags) int {
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
	w := env.Stdout
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
	for _, line := range notes(f.harness, "") {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Check the wiring any time with 'ctxhook doctor %s'.\n", f.harness.Name)
	return 0
}

func (hookFile) uninstall(ctx context.Context, env Env, f installFlags) int {
	path, err := settingsPath(env, f.harness, f.scope)
	if err != nil {
		return fail(env, "%v", err)
	}
	// MCP changes first: where the MCP servers and the hooks share one
	// file (Gemini CLI's), the hooks plan must start from what they left.
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
	if !f.dryRun {
		if code := turnHooksOn(env, f, path, false); code != 0 {
			return code
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

// loader is the kind of harness that loads ctxhook's plugin loader, which
// runs plugin.wasm in-process (OpenCode and its descendants).
type loader struct{}

func (loader) install(ctx context.Context, env Env, f installFlags) int {
	return installLoader(ctx, env, f, true)
}

func (loader) uninstall(ctx context.Context, env Env, f installFlags) int {
	return installLoader(ctx, env, f, false)
}

// extension is the kind of harness that loads ctxhook's JS extension,
// which runs the hook client for each tool event (Pi).
type extension struct{}

func (extension) install(ctx context.Context, env Env, f installFlags) int {
	return installExtension(ctx, env, f, true)
}

func (extension) uninstall(ctx context.Context, env Env, f installFlags) int {
	return installExtension(ctx, env, f, false)
}
