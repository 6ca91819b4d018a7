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
	opencode := npmInstall(t, "opencode-ai", OpenCodeVersion, "opencode")
	if err := prepareOpenCodeDeps(); err != nil {
		t.Fatal(err)
	}
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	tmp, home, project, mcpLog, model := cr.Tmp, cr.Home, cr.Project, cr.MCPLog, cr.Model
	configHome := filepath.Join(home, ".config")
	ocDir := filepath.Join(configHome, "opencode")
	os.MkdirAll(ocDir, 0o755)
	if out, err := exec.Command("cp", "-a", openCodeDeps()+"/.", ocDir).CombinedOutput(); err != nil {
		t.Fatalf("copy OpenCode deps: %v %s", err, out)
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
	cfgPath := filepath.Join(tmp, "opencode.json")
	os.WriteFile(cfgPath, b, 0o644)
	env := isolatedEnv(home, "XDG_CONFIG_HOME="+configHome, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"OPENCODE_CONFIG="+cfgPath, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "NO_COLOR=1")

	out, errs, err := run(t, time.Minute, env, project, nil, ctxhook, "install", "opencode")
	if err != nil || !strings.Contains(out, "Wrote "+filepath.Join(ocDir, "plugins", "ctxhook.js")) {
		t.Fatalf("ctxhook install opencode: %v\n%s%s", err, out, errs)
	}
	os.WriteFile(filepath.Join(configHome, "ctxhook", "config.toml"), []byte("[servers.workflow]\nrelay = true\n"), 0o600)
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "doctor", "opencode"); err != nil {
		t.Fatalf("doctor opencode: %v\n%s", err, out)
	}

	out, errs, err = run(t, 4*time.Minute, env, project, []byte{}, opencode,
		"run", "--format", "json", "--print-logs", "Run the deploy-payments workflow and check ticket CVX-5909.")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("opencode: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	if strings.Contains(errs, "ctxhook:") {
		t.Errorf("the plugin complained:\n%s", grepLines(errs, "ctxhook:"))
	}
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, model, func(body []byte) []string {
		var req struct {
			Messages []struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		var out []string
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				if c.Function.Name == "workflow_step" {
					out = append(out, c.Function.Arguments)
				}
			}
		}
		return out
	})
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "tickets_get_ticket")
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
