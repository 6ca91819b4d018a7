package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// OpenCodeVersion is the pinned OpenCode release.
const OpenCodeVersion = "1.18.33"

// ExtismJSVersion is the @extism/extism the OpenCode plugin loads
// plugin.wasm with (the version `ctxhook install opencode` pins).
const ExtismJSVersion = "1.0.3"

// openCodeDeps is a config-directory skeleton with node_modules installed
// while the network is there: at start OpenCode installs its config
// directories' dependencies (and retries for a minute offline) unless
// node_modules and a lock file already list them.
func openCodeDeps() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), ".work", "opencode-config-"+OpenCodeVersion)
}

func prepareOpenCodeDeps() error {
	dir := openCodeDeps()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@extism", "extism", "package.json")); err == nil {
		return nil
	}
	os.MkdirAll(dir, 0o755)
	pkg := fmt.Sprintf(`{"dependencies":{"@opencode-ai/plugin":"%s","@extism/extism":"%s"}}`, OpenCodeVersion, ExtismJSVersion)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: npm install OpenCode's config dependencies into %s (once)\n", dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// TestOpenCode: real OpenCode with ctxhook's plugin installed by `ctxhook
// install opencode`, loading plugin.wasm with @extism/extism inside
// OpenCode's Bun runtime. The workflow server puts its token in result
// _meta only, which OpenCode hands to tool.execute.after; the plugin
// writes it into the next call's args in place.
func TestOpenCode(t *testing.T) {
	requireE2E(t)
	testOpenCodeFamily(t, openCodeClient{name: "opencode", bin: npmInstall(t, "opencode-ai", OpenCodeVersion, "opencode"),
		env: "OPENCODE", configFile: "opencode.json", args: []string{"--format", "json", "--print-logs"}})
}

// TestOpenCodeNPM: real OpenCode with the loader installed as its npm
// package, the way a user without Go would: the npm pack tarballs of
// ctxhook, this platform's binary package, @ctxhook/core and
// @ctxhook/opencode installed offline into OpenCode's config directory,
// and a plugin file that only re-exports @ctxhook/opencode. No `ctxhook
// install` runs: the loader finds plugin.wasm in @ctxhook/core and the
// ctxhook binary through the ctxhook package, and everything stored is
// searched with that binary.
func TestOpenCodeNPM(t *testing.T) {
	requireE2E(t)
	testOpenCodeFamily(t, openCodeClient{name: "opencode", bin: npmInstall(t, "opencode-ai", OpenCodeVersion, "opencode"),
		env: "OPENCODE", configFile: "opencode.json", args: []string{"--format", "json", "--print-logs"}, viaNPM: true})
}

// npmLoader installs ctxhook's npm packages (scripts/npm-pack.sh, this
// platform only) into dir offline, with a plugin file re-exporting the
// loader, and returns the ctxhook command the packages installed.
func npmLoader(t *testing.T, dir string) string {
	t.Helper()
	root := repoRoot(t)
	tarballs := filepath.Join(t.TempDir(), "tarballs")
	pack := exec.Command("scripts/npm-pack.sh", tarballs, runtime.GOOS+"/"+runtime.GOARCH)
	pack.Dir = root
	if out, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("npm-pack.sh: %v\n%s", err, out)
	}
	tgz, _ := filepath.Glob(filepath.Join(tarballs, "*.tgz"))
	if len(tgz) < 4 {
		t.Fatalf("npm-pack.sh made %v: want ctxhook, its platform package, core and opencode", tgz)
	}
	install := exec.Command("npm", append([]string{"install", "--offline", "--no-audit", "--no-fund"}, tgz...)...)
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install of the tarballs: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, "plugins"), 0o755)
	os.WriteFile(filepath.Join(dir, "plugins", "ctxhook.js"), []byte(`export { CtxhookPlugin } from "@ctxhook/opencode";`+"\n"), 0o644)
	return filepath.Join(dir, "node_modules", ".bin", "ctxhook")
}

// KiloVersion is the pinned Kilo CLI release: the newest whose
// platform binary the npm registry has (7.8.1 names a
// @kilocode/cli-linux-x64 that was never published).
const KiloVersion = "7.7.7"

// TestKilo: real Kilo CLI, OpenCode's descendant, with the same loader
// installed by `ctxhook install kilo` into Kilo's own directories. Its
// events are stored under "kilo".
func TestKilo(t *testing.T) {
	requireE2E(t)
	testOpenCodeFamily(t, openCodeClient{name: "kilo", bin: npmInstall(t, "@kilocode/cli", KiloVersion, "kilo"),
		env: "KILO", configFile: "kilo.json", args: []string{"--auto", "--format", "json", "--print-logs"}})
}

// openCodeClient is OpenCode or a descendant: its name (the harness and
// its config directory), binary, environment prefix, config file and
// the arguments of a non-interactive run.
type openCodeClient struct {
	name, bin, env, configFile string
	args                       []string
	viaNPM                     bool // the loader from ctxhook's npm packages, not `ctxhook install`
}

func testOpenCodeFamily(t *testing.T, c openCodeClient) {
	if err := prepareOpenCodeDeps(); err != nil {
		t.Fatal(err)
	}
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	tmp, home, project, mcpLog, model := cr.Tmp, cr.Home, cr.Project, cr.MCPLog, cr.Model
	configHome := filepath.Join(home, ".config")
	ocDir := filepath.Join(configHome, c.name)
	os.MkdirAll(ocDir, 0o755)
	if out, err := exec.Command("cp", "-a", openCodeDeps()+"/.", ocDir).CombinedOutput(); err != nil {
		t.Fatalf("copy OpenCode deps: %v %s", err, out)
	}
	if c.name == "kilo" {
		kiloPluginInstalled(t, ocDir)
	}

	cfg := map[string]any{
		"model": "fake/fake-model", "small_model": "fake/fake-model", "autoupdate": false, "share": "disabled",
		"provider": map[string]any{"fake": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": model.URL + "/v1", "apiKey": "sk-fake"},
			"models": map[string]any{"fake-model": map[string]any{"name": "Fake Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096}}}}},
		"mcp": map[string]any{
			"workflow": map[string]any{"type": "local", "enabled": true, "command": []string{testmcp, "-mode", "workflow", "-meta-only"},
				"environment": map[string]string{"TESTMCP_LOG": mcpLog}},
			"tickets": map[string]any{"type": "local", "enabled": true, "command": []string{testmcp, "-mode", "tickets"},
				"environment": map[string]string{"TESTMCP_LOG": mcpLog}},
		},
		"permission": map[string]any{"*": "allow"},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	cfgPath := filepath.Join(tmp, c.configFile)
	os.WriteFile(cfgPath, b, 0o644)
	env := isolatedEnv(home, "XDG_CONFIG_HOME="+configHome, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		c.env+"_CONFIG="+cfgPath, c.env+"_DISABLE_MODELS_FETCH=1", c.env+"_DISABLE_AUTOUPDATE=1",
		c.env+"_DISABLE_SHARE=1", c.env+"_DISABLE_LSP_DOWNLOAD=1", "NO_COLOR=1")

	if c.viaNPM {
		ctxhook = npmLoader(t, ocDir)
		relayWorkflow(home)
	} else {
		installHarness(t, env, project, ctxhook, home, c.name, "Wrote "+filepath.Join(ocDir, "plugins", "ctxhook.js"))
	}

	// A probe plugin records each hook's input and output as the client
	// hands them over, before ctxhook's plugin changes them (the
	// recorded payloads under testdata/payloads/<client>/ come from it).
	probeDir := filepath.Join(tmp, "probe")
	os.WriteFile(filepath.Join(ocDir, "plugins", "00-probe.js"), []byte(probePlugin), 0o644)
	env = append(env, "CTXHOOK_E2E_PROBE="+probeDir)
	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, c.bin,
		append(append([]string{"run"}, c.args...), "Run the deploy-payments workflow and check ticket CVX-5909.")...)
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", c.name, err, tail(out, 3000), tail(errs, 5000))
	}
	if strings.Contains(errs, "ctxhook:") {
		t.Errorf("the plugin complained:\n%s", grepLines(errs, "ctxhook:"))
	}
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, model, chatToolArgs("workflow_step"))
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "tickets_get_ticket")
	checkProbe(t, probeDir, c.name)
	// Stored under the client's own name.
	out, _, err = run(t, time.Minute, env, project, nil, ctxhook, "show", "1")
	if err != nil || !strings.Contains(out, "("+c.name+")") {
		t.Errorf("the events are not stored under %s: %v\n%s", c.name, err, tail(out, 2000))
	}
}

// kiloPluginInstalled lists @kilocode/plugin as installed in a Kilo
// config directory. Kilo installs it into every config directory at start
// (at its own version, 7.7.7, which the npm registry never had), and
// offline it waits about 70 s for that install to fail unless node_modules
// and the lock file already list it.
func kiloPluginInstalled(t *testing.T, dir string) {
	t.Helper()
	pkg := filepath.Join(dir, "node_modules", "@kilocode", "plugin")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@kilocode/plugin","version":"`+KiloVersion+`"}`), 0o644)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		deps := v
		if f == "package-lock.json" {
			pkgs, _ := v["packages"].(map[string]any)
			pkgs["node_modules/@kilocode/plugin"] = map[string]any{"version": KiloVersion}
			deps, _ = pkgs[""].(map[string]any)
		}
		d, _ := deps["dependencies"].(map[string]any)
		d["@kilocode/plugin"] = KiloVersion
		b, _ = json.MarshalIndent(v, "", "  ")
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
}

// probePlugin records every tool hook's input and output, as JSON, into
// $CTXHOOK_E2E_PROBE, numbered in the order they came.
const probePlugin = `import { mkdirSync, writeFileSync } from "node:fs";
let n = 0;
const rec = (hook) => async (input, output) => {
  const dir = process.env.CTXHOOK_E2E_PROBE;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(dir + "/" + String(++n).padStart(3, "0") + "-" + hook + ".json", JSON.stringify({ input, output }, null, 2));
};
export const Probe = async () => ({ "tool.execute.before": rec("tool.execute.before"), "tool.execute.after": rec("tool.execute.after") });
`

// checkProbe: the client handed the hooks what the loader is written
// for: the MCP result with its _meta after a call, and the arguments the
// model wrote before one (the token not yet in them). With
// CTXHOOK_RECORD_PAYLOADS=<dir> the hooks of the tickets call are kept
// there as recorded payloads.
func checkProbe(t *testing.T, dir, client string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var before, after, meta []byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		switch s := string(b); {
		case strings.Contains(s, "tickets_get_ticket") && strings.HasSuffix(f, "-tool.execute.before.json"):
			before = b
		case strings.Contains(s, "tickets_get_ticket"):
			after = b
		case strings.Contains(s, "workflow_step") && strings.HasSuffix(f, "-tool.execute.after.json") && meta == nil:
			meta = b
		}
	}
	if before == nil || after == nil || meta == nil {
		t.Fatalf("%s: the probe saw no tool hooks of the tickets call, or no workflow step's result (%d files)", client, len(files))
	}
	if !strings.Contains(string(meta), `"_meta"`) || !strings.Contains(string(meta), `"session_token"`) {
		t.Errorf("%s: tool.execute.after has no MCP result with _meta:\n%s", client, tail(string(meta), 1500))
	}
	if strings.Contains(string(before), "session_token") {
		t.Errorf("%s: the probe saw the arguments after ctxhook changed them:\n%s", client, before)
	}
	if out := os.Getenv("CTXHOOK_RECORD_PAYLOADS"); out != "" {
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, "hook-tool.execute.before.json"), before, 0o644)
		os.WriteFile(filepath.Join(out, "hook-tool.execute.after.json"), after, 0o644)
		os.WriteFile(filepath.Join(out, "hook-tool.execute.after-meta.json"), meta, 0o644)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
